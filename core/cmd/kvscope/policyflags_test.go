package main

import (
	"bytes"
	"flag"
	"strings"
	"testing"
)

// A policy keeps what its flags say: StreamingLLM with 4 sinks and a
// 28-token window keeps 32 tokens per head, whatever -heavy is, and the
// summary names only the flags it reads.
func TestPolicyKeepsWhatItsFlagsSay(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{"-policy streaming -sink 4 -recent 28", "MB (32 tokens)\n"},
		{"-policy streaming -sink 4 -recent 28 -heavy 100", "MB (32 tokens)\n"},
		{"-policy window -recent 32 -heavy 28", "MB (32 tokens)\n"},
		{"-policy h2o -sink 4 -recent 32 -heavy 28", "MB (64 tokens)\n"},
	} {
		var out, errOut bytes.Buffer
		if err := run(strings.Fields(tc.args+" -tokens 200 -ref 0"), &out, &errOut); err != nil {
			t.Fatal(tc.args, err, errOut.String())
		}
		if !strings.Contains(out.String(), tc.want) {
			t.Errorf("%s: output lacks %q:\n%s", tc.args, tc.want, out.String())
		}
	}
	var out bytes.Buffer
	if err := run(strings.Fields("-policy streaming -sink 4 -recent 28 -tokens 100 -ref 0"), &out, &out); err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(out.String(), "\n"); !strings.Contains(first, "streaming: each head keeps 32 tokens: 4 sinks + 28 recent") || strings.Contains(first, "heavy") {
		t.Errorf("summary line %q does not describe streaming's own budget", first)
	}
}

// -help lists, for every policy, the flags it reads.
func TestHelpSaysWhichFlagsEachPolicyUses(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"-help"}, &out, &out); err != flag.ErrHelp {
		t.Fatalf("-help returned %v", err)
	}
	for _, want := range []string{"streaming  -sink -recent -alloc -merge\n", "window     -recent -alloc -merge\n",
		"h2o        -sink -recent -heavy -shared -alloc -merge -vweight\n", "full       (no flags)\n",
		"snapkv     -recent -heavy\n", "SnapKV: compresses the prompt once", "(-recent: the prompt's observation window;",
		"-chunk", "read by chunk"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

// The newer policies, allocators and options run from the command line
// and say what they decided; bad values are refused.
func TestFrontierFlags(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{"-policy expected", "expected: each head keeps 64 tokens: 4 sinks + 28 highest expected attention + 32 recent"},
		{"-policy keydiff -alloc pyramid -layers 3", "layer 0: [91 91 91 91 91 91 91 91]\n  layer 1: [64 64 64 64 64 64 64 64]\n  layer 2: [37 37 37 37 37 37 37 37]"},
		{"-policy h2o -alloc adakv -merge -vweight", "Tokens each kv head keeps, per layer:"},
		{"-policy duo -heavy 64", "right for"},
		{"-policy quest -pages 3 -page-size 8", "each query head attended 32.0 of 200 cached tokens"},
	} {
		var out, errOut bytes.Buffer
		if err := run(strings.Fields(tc.args+" -tokens 200 -ref 0"), &out, &errOut); err != nil {
			t.Fatal(tc.args, err, errOut.String())
		}
		if !strings.Contains(out.String(), tc.want) {
			t.Errorf("%s: output lacks %q:\n%s", tc.args, tc.want, out.String())
		}
		if strings.Contains(out.String(), "attended") != strings.Contains(tc.args, "quest") {
			t.Errorf("%s: only a selecting policy says what each query attended:\n%s", tc.args, out.String())
		}
	}
	for _, tc := range []struct{ args, want string }{
		{"-alloc lru", "unknown allocator"},
		{"-policy seed000 -alloc adakv", "cannot share"},
		{"-policy knorm -vweight", "attention"},
		{"-policy full -merge", "no budget"},
		{"-policy quest -pages -1", "pages"},
	} {
		var out, errOut bytes.Buffer
		err := run(strings.Fields(tc.args), &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error mentioning %q", tc.args, err, tc.want)
		}
	}
}
