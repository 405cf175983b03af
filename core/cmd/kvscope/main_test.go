package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/internal/testmodel"
	"github.com/kvscope/kvscope/core/sim"
)

// The command reproduces seed 000's table for its 1000-token run, and
// prints the honest figure beside it.
func TestSeed000Table(t *testing.T) {
	var out, errOut bytes.Buffer
	err := run(strings.Fields("-preset seed000 -heads 32 -kv-heads 32 -head-dim 128 -tokens 1000 -ref 0"), &out, &errOut)
	if err != nil {
		t.Fatal(err, errOut.String())
	}
	for _, want := range []string{
		"Without compression: 15.6 MB (1000 tokens)\n",
		"With eviction only: 1.0 MB (64 tokens)\n",
		"With eviction + INT8: 0.5 MB\n",
		"Overall compression: 31.2x\n",
		"Honest total: 0.532 MB (29.4x)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestHelpDocumentsEveryFlag(t *testing.T) {
	var out bytes.Buffer
	err := run([]string{"-help"}, &out, &out)
	if err != flag.ErrHelp {
		t.Fatalf("-help returned %v", err)
	}
	c, o := sim.DefaultConfig(), options{}
	flags(&c, &o, nil).VisitAll(func(f *flag.Flag) {
		if !strings.Contains(out.String(), "-"+f.Name) || f.Usage == "" {
			t.Errorf("help does not document -%s", f.Name)
		}
	})
}

func TestBadArguments(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{"-bits 9", "Bits 9"},
		{"-policy lru", "unknown policy"},
		{"-every 0", "-every"},
		{"-preset nope", "unknown preset"},
		{"-heads 6 -kv-heads 4", "multiple"},
		{"-sink 64 -recent 0 -heavy 0", "sink"},
		{"-group 5 -granularity group", "divide"},
		{"-trace /nonexistent.npz", "nonexistent"},
		{"stray", "unexpected"},
		{"-tokens x", "invalid value"},
	} {
		var out, errOut bytes.Buffer
		err := run(strings.Fields(tc.args), &out, &errOut)
		if err == nil || !strings.Contains(err.Error()+errOut.String(), tc.want) {
			t.Errorf("%s: got %v / %q, want an error mentioning %q", tc.args, err, errOut.String(), tc.want)
		}
	}
}

func TestJSONLines(t *testing.T) {
	var out bytes.Buffer
	if err := run(strings.Fields("-json -tokens 120 -every 25 -policy h2o -sink 2 -recent 8 -heavy 6"), &out, &out); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	var steps []int
	for sc.Scan() {
		var l stepLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		steps = append(steps, l.Step)
		for g, kept := range l.Kept {
			if l.Step >= 16 && len(kept) > 16 {
				t.Errorf("step %d head %d keeps %d tokens over budget 16", l.Step, g, len(kept))
			}
			if len(l.Roles[g]) != len(kept) {
				t.Errorf("step %d head %d: %d roles for %d tokens", l.Step, g, len(l.Roles[g]), len(kept))
			}
		}
		if l.Total != l.Memory.Total() || l.Metrics == nil {
			t.Errorf("step %d: bytes or metrics missing: %+v", l.Step, l)
		}
	}
	if got := steps; len(got) != 6 || got[0] != 0 || got[4] != 100 || got[5] != 119 {
		t.Errorf("printed steps %v, want 0 25 50 75 100 119", got)
	}
}

func TestModelMode(t *testing.T) {
	testmodel.Bytes(t) // skips (or fails under CI) without the model
	path, err := testmodel.Path()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	args := []string{"-model", path, "-policy", "window", "-recent", "4", "-sink", "0", "-heavy", "0", "-bits", "32", "-tokens", "80"}
	if err := run(args, &out, &out); err != nil {
		t.Fatal(err, out.String())
	}
	for _, want := range []string{"Uncompressed: \"Once upon a time, there was a little girl named Lily.", "The texts part at position", "Perplexity of the uncompressed text"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if err := run([]string{"-model", "/nonexistent.gguf"}, &out, &out); err == nil {
		t.Error("a missing model file was accepted")
	}
}

// A run over the model's whole context (512 tokens for stories260K)
// finishes and reports its perplexity: the decoded text is scored by its
// tokens, not re-encoded (which can give one token more than fits).
func TestModelModeFullContext(t *testing.T) {
	testmodel.Bytes(t)
	path, err := testmodel.Path()
	if err != nil {
		t.Fatal(err)
	}
	for _, prompt := range []string{"Once upon a time", "Lily and Tom", "The dog"} {
		var out bytes.Buffer
		if err := run([]string{"-model", path, "-tokens", "512", "-text", prompt}, &out, &out); err != nil {
			t.Fatalf("%q: %v\n%s", prompt, err, out.String())
		}
		if !strings.Contains(out.String(), "model 5 layers × 4 kv heads × 8 dims, 512 tokens") || !strings.Contains(out.String(), "Perplexity of the uncompressed text: ") {
			t.Errorf("%q: output:\n%s", prompt, out.String())
		}
	}
}

// A document read from a file and a question about it: the question is
// asked after the document (as plain text for stories260K, which has no
// chat template) and both caches answer it. A file that cannot be the
// prompt is refused with a clear error.
func TestModelModeQuestion(t *testing.T) {
	testmodel.Bytes(t)
	path, err := testmodel.Path()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	doc := filepath.Join(dir, "doc.txt")
	if err := os.WriteFile(doc, []byte("Lily had a red ball. She gave it to her dog Max.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	args := []string{"-model", path, "-prompt-file", doc, "-question", "Who got the ball?", "-tokens", "60", "-policy", "h2o", "-heavy", "4", "-recent", "4"}
	if err := run(args, &out, &out); err != nil {
		t.Fatal(err, out.String())
	}
	for _, want := range []string{"Question asked as plain text (the model has no chat template)", "Uncompressed: \"Lily had a red ball.", "Question: Who got the ball?\\nAnswer:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	after := append(slices.Clone(args), "-compress-after")
	var out2 bytes.Buffer
	if err := run(after, &out2, &out2); err != nil {
		t.Fatal(err, out2.String())
	}
	bin := filepath.Join(dir, "bin.txt")
	empty := filepath.Join(dir, "empty.txt")
	os.WriteFile(bin, []byte{0xff, 0xfe, 0x00, 0x81}, 0o644)
	os.WriteFile(empty, []byte(" \n"), 0o644)
	long := filepath.Join(dir, "long.txt")
	os.WriteFile(long, []byte(strings.Repeat("Lily had a red ball. ", 200)), 0o644)
	for _, tc := range []struct{ file, says string }{
		{filepath.Join(dir, "missing.txt"), "no such file"},
		{bin, "not UTF-8"},
		{empty, "is empty"},
		{long, "leaves no room"},
	} {
		err := run([]string{"-model", path, "-prompt-file", tc.file, "-tokens", "60"}, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("-prompt-file %s: %v, want an error saying %q", filepath.Base(tc.file), err, tc.says)
		}
	}
}
