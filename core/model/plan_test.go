package model_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/model/gguf"
	"github.com/kvscope/kvscope/core/model/ggufwrite"
)

// PlannedBytes, computed from the header, is what the loaded weights hold;
// PlannedAlloc is that less what stays in the file's bytes.
func TestPlannedBytes(t *testing.T) {
	for _, typ := range []gguf.TensorType{gguf.TypeF32, gguf.TypeF16, gguf.TypeBF16, gguf.TypeQ8_0, gguf.TypeQ4_0, gguf.TypeQ5_0, gguf.TypeQ6_K} {
		for _, untied := range []bool{false, true} {
			for _, keep := range []bool{false, true} {
				t.Run(fmt.Sprintf("%v/untied=%v/keep=%v", typ, untied, keep), func(t *testing.T) {
					s := ggufwrite.LlamaSpec{Dim: 256, Layers: 2, Heads: 4, KVHeads: 2, Hidden: 256, Vocab: 400, Context: 64,
						NormEps: 1e-5, RopeBase: 10000, Version: 3, Type: typ, EmbedType: typ, Untied: untied, Seed: 3}
					data := ggufwrite.Llama(s)
					f, err := gguf.Load(bytes.NewReader(data), int64(len(data)))
					if err != nil {
						t.Fatal(err)
					}
					opts := model.Options{KeepQuantized: keep}
					m, err := model.FromGGUFOptions(f, opts)
					if err != nil {
						t.Fatal(err)
					}
					if got, want := model.PlannedBytes(f, opts), m.Weights.Bytes(); got != want {
						t.Errorf("planned %d bytes, loaded weights hold %d", got, want)
					}
					// Loaded from bytes, what is kept aliases the file: the
					// loader allocates only what it widens.
					var kept int64
					for _, mat := range []*model.Matrix{&m.Weights.Embedding, &m.Weights.Layers[0].Mats.Wq} {
						if mat.Type != gguf.TypeF32 && !keep {
							t.Fatalf("a %v matrix kept without KeepQuantized", mat.Type)
						}
					}
					for i := range f.Tensors {
						if ti := &f.Tensors[i]; keep && len(ti.Dims) == 2 && ti.Type != gguf.TypeF32 {
							kept += int64(ti.NumBytes())
						}
					}
					if got, want := model.PlannedAlloc(f, opts), model.PlannedBytes(f, opts)-kept; got != want {
						t.Errorf("planned allocation %d bytes, want %d (weights less %d kept in the file)", got, want, kept)
					}
				})
			}
		}
	}
}
