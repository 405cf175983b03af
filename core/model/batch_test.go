package model_test

import (
	"bytes"
	"testing"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/model/gguf"
	"github.com/kvscope/kvscope/core/model/ggufwrite"
)

// TestPrefillMatchesForward: a prompt fed in one batch gives the logits
// and the cache that feeding it token by token gives — bit for bit on F32
// weights (the same sums in the same order), within float32 rounding on
// kept-quantized ones — for every architecture, and decoding continues
// alike after it.
func TestPrefillMatchesForward(t *testing.T) {
	prompt := []int{1, 300, 41, 7, 399, 120, 5, 64, 200, 33, 17}
	for _, s := range archSpecs {
		for _, typ := range []gguf.TensorType{gguf.TypeF32, gguf.TypeQ8_0, gguf.TypeQ4_0} {
			s := s
			s.Type = typ
			t.Run(s.Arch+"/"+typ.String(), func(t *testing.T) {
				m := loadSpec(t, s, model.Options{KeepQuantized: true})
				a, b := m.NewRunner(fullCache(t, m.Config)), m.NewRunner(fullCache(t, m.Config))
				var want []float32
				for _, tok := range prompt {
					want, _ = a.Forward(tok)
				}
				got, err := b.Prefill(prompt[:4])
				if err != nil {
					t.Fatal(err)
				}
				if got, err = b.Prefill(prompt[4:]); err != nil {
					t.Fatal(err)
				}
				tol := 0.0
				if typ != gguf.TypeF32 {
					tol = 1e-4
				}
				if d := maxAbsDiff(got, want); d > tol || b.Pos() != a.Pos() {
					t.Fatalf("prefill: max |Δ logit| %g (tolerance %g), positions %d and %d", d, tol, b.Pos(), a.Pos())
				}
				for _, tok := range []int{9, 99, 199} {
					x, _ := a.Forward(tok)
					y, _ := b.Forward(tok)
					if d := maxAbsDiff(x, y); d > tol {
						t.Fatalf("after prefill, decoding differs by %g", d)
					}
				}
			})
		}
	}
}

func TestPrefillErrors(t *testing.T) {
	m := loadSpec(t, archSpecs[0], model.Options{})
	r := m.NewRunner(fullCache(t, m.Config))
	if _, err := r.Prefill(nil); err == nil {
		t.Error("empty prefill accepted")
	}
	if _, err := r.Prefill([]int{1, m.Config.Vocab}); err == nil || r.Pos() != 0 {
		t.Errorf("token out of range: err %v, position %d", err, r.Pos())
	}
}

// BenchmarkPrompt processes a 128-token prompt of the stories15M shape,
// token by token (Forward) and in one batch (Prefill), F32 and Q8_0 kept
// quantized; it reports prompt tokens/s.
func BenchmarkPrompt(b *testing.B) {
	for _, typ := range []gguf.TensorType{gguf.TypeF32, gguf.TypeQ8_0} {
		s := ggufwrite.Stories15M
		s.Type = typ
		data := ggufwrite.Llama(s)
		m, err := model.LoadOptions(bytes.NewReader(data), int64(len(data)), model.Options{KeepQuantized: true})
		if err != nil {
			b.Fatal(err)
		}
		prompt := make([]int, 128)
		for i := range prompt {
			prompt[i] = (i*131 + 1) % m.Config.Vocab
		}
		fc, _ := model.NewFullCache(m.Config, len(prompt))
		r := m.NewRunner(fc)
		for _, mode := range []string{"forward", "prefill"} {
			b.Run(typ.String()+"/"+mode, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					r.Reset()
					if mode == "prefill" {
						if _, err := r.Prefill(prompt); err != nil {
							b.Fatal(err)
						}
						continue
					}
					for _, tok := range prompt {
						if _, err := r.Forward(tok); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.ReportMetric(float64(b.N*len(prompt))/b.Elapsed().Seconds(), "tokens/s")
			})
		}
	}
}
