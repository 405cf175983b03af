package main

import (
	"bytes"
	"strings"
	"testing"
)

// The storage flags reach the simulator: each run prints what its
// options hold, and the sketch seed changes the run.
func TestStorageFlags(t *testing.T) {
	runOut := func(args string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		if err := run(strings.Fields(args), &out, &errOut); err != nil {
			t.Fatal(args, err, errOut.String())
		}
		return out.String()
	}
	for _, tc := range []struct{ args, want string }{
		{"-tokens 120 -bits 3 -quant turbo-prod", "Storage turbo-prod, rotation none: codes"},
		{"-tokens 120 -bits 2 -quant qjl", "Storage qjl"},
		{"-tokens 120 -bits 4 -outliers-fp16 0.05", "FP16 outliers"},
		{"-tokens 120 -bits 2 -sink-fp16 4 -rotate hadamard", "rotation hadamard"},
	} {
		if out := runOut(tc.args); !strings.Contains(out, tc.want) {
			t.Errorf("%s: output lacks %q:\n%s", tc.args, tc.want, out)
		}
	}
	if out := runOut("-tokens 120 -bits 4 -rotate hadamard"); strings.Contains(out, "Storage") {
		t.Errorf("a Hadamard rotation holds no bytes, yet:\n%s", out)
	}
	a := runOut("-tokens 120 -bits 2 -quant qjl -sketch-seed 1")
	b := runOut("-tokens 120 -bits 2 -quant qjl -sketch-seed 2")
	fid := func(s string) string { return s[strings.Index(s, "Fidelity"):] }
	if fid(a) == fid(b) {
		t.Error("-sketch-seed does not change the run")
	}
	for _, tc := range []struct{ args, want string }{
		{"-rotate spin", "rotation"},
		{"-quant nvfp4", "quantizer"},
		{"-quant turbo -bits 16", "Bits"},
		{"-outliers-fp16 0.9", "Outliers"},
		{"-sink-fp16 -2", "Sinks"},
	} {
		var out bytes.Buffer
		err := run(strings.Fields(tc.args), &out, &out)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.args, err, tc.want)
		}
	}
}
