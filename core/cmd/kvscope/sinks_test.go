package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/internal/testmodel"
)

// The summary reports the synthetic stream's sink heads: every head with
// strong sinks, none without, and says when there is no reference.
func TestSinksOutput(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{"-tokens 64 -heads 4 -kv-heads 4 -sink-strength 4", "4 of 4 heads are sinks (100%;"},
		{"-tokens 64 -heads 4 -kv-heads 4 -sink-strength 0", "0 of 4 heads are sinks (0%;"},
		{"-tokens 64 -ref 0", "Sink heads (synthetic stream over the run): reference off (-ref 0)"},
	} {
		var out bytes.Buffer
		if err := run(strings.Fields(tc.args), &out, &out); err != nil {
			t.Fatal(tc.args, err, out.String())
		}
		if !strings.Contains(out.String(), tc.want) {
			t.Errorf("%s: output lacks %q:\n%s", tc.args, tc.want, out.String())
		}
	}
	var out bytes.Buffer
	if err := run(strings.Fields("-tokens 64 -heads 4 -kv-heads 4 -sink-strength 4"), &out, &out); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^  layer 0:( 0\.\d\d\d\*| 1\.000\*){4}$`).MatchString(out.String()) {
		t.Errorf("no per-head line with four marked sinks:\n%s", out.String())
	}
}

// With a model, both measurements are printed: Gu et al.'s 64-token
// prompt and the whole run, one line per layer of eight heads.
func TestModelSinksOutput(t *testing.T) {
	testmodel.Bytes(t)
	path, err := testmodel.Path()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run([]string{"-model", path, "-tokens", "100"}, &out, &out); err != nil {
		t.Fatal(err, out.String())
	}
	for _, want := range []string{
		"Sink heads (first 64 tokens of the uncompressed text; Gu et al., position-0 importance > 0.3): 0 of 40 heads are sinks (0%;",
		"Sink heads (uncompressed cache over the compressed run; Gu et al., position-0 importance > 0.3): 0 of 40 heads are sinks (0%;",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if n := len(regexp.MustCompile(`(?m)^  layer [0-4]:( 0\.\d\d\d){8}$`).FindAllString(out.String(), -1)); n != 10 {
		t.Errorf("%d per-layer lines, want 10:\n%s", n, out.String())
	}
}
