//go:build !js

package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/model/bench"
	"github.com/kvscope/kvscope/core/model/gguf"
	"github.com/kvscope/kvscope/core/model/ggufwrite"
)

// The worker's bench request runs core/model/bench's measurement on the
// model it loaded: the asked-for sittings, each a Prefill of the bench
// prompt and bench.DecodeTokens greedy steps after BOS that decode what
// the same measurement decodes natively.
func TestWorkerBench(t *testing.T) {
	spec := ggufwrite.LlamaSpec{Dim: 32, Layers: 2, Heads: 4, KVHeads: 2, Hidden: 64, Vocab: 32000, Context: 300,
		NormEps: 1e-5, RopeBase: 10000, Version: 3, Type: gguf.TypeQ8_0, EmbedType: gguf.TypeQ8_0, Seed: 9, EmbedStd: 0.7}
	data := ggufwrite.Llama(spec)
	path := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	rs := runWorker(t, `[
		{"type":"model","id":2,"url":"tiny.gguf","await":"model"},
		{"type":"bench","id":3,"warm":1,"reps":2,"await":"bench"}
	]`, path)
	m, err := model.LoadBytes(data, model.Options{KeepQuantized: true})
	if err != nil {
		t.Fatal(err)
	}
	want, err := bench.Run(m, bench.Start(m), bench.DecodeTokens)
	if err != nil {
		t.Fatal(err)
	}
	var got *reply
	for i := range rs {
		if rs[i].Type == "bench" {
			got = &rs[i]
		}
	}
	if got == nil {
		t.Fatalf("no bench reply: %+v", rs)
	}
	if got.ID != 3 || len(got.Prompt) != 2 || len(got.Decode) != 2 || got.Kernels == "" {
		t.Fatalf("bench reply %+v", *got)
	}
	for i := range 2 {
		p, d := got.Prompt[i], got.Decode[i]
		if p.Tokens != bench.PromptTokens || d.Tokens != bench.DecodeTokens || p.MS <= 0 || d.MS <= 0 {
			t.Errorf("sitting %d: prompt %+v, decode %d tokens in %v ms", i, p, d.Tokens, d.MS)
		}
		if !slices.Equal(d.IDs, want.Tokens) {
			t.Errorf("sitting %d decoded %v, natively %v", i, d.IDs, want.Tokens)
		}
	}
}
