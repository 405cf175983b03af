package sim

import (
	"math"
	"testing"

	"github.com/kvscope/kvscope/core/synth"
)

// TestReferenceMatchesFloat64 recomputes, in float64 from the stream
// itself, the reference attention and output the engine reports on a
// reference step, with several layers and grouped-query heads (so the
// per-head history layout is exercised) and histories that are and are not
// multiples of four tokens.
func TestReferenceMatchesFloat64(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Layers, cfg.Heads, cfg.KVHeads, cfg.HeadDim, cfg.Tokens = 2, 4, 2, 16, 71
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	g, err := synth.New(cfg.synth())
	if err != nil {
		t.Fatal(err)
	}
	d, group := cfg.HeadDim, cfg.Heads/cfg.KVHeads
	qLen, kvLen := g.QLen(), g.KVLen()
	var q, k, v []float32
	for step := range cfg.Tokens {
		q = append(q, make([]float32, qLen)...)
		k = append(k, make([]float32, kvLen)...)
		v = append(v, make([]float32, kvLen)...)
		g.Next(q[step*qLen:], k[step*kvLen:], v[step*kvLen:])
		if !e.Step() {
			t.Fatal(e.Err())
		}
		if step%9 != 0 && step < cfg.Tokens-4 {
			continue
		}
		worst := 0.0
		for l := range cfg.Layers {
			e.stream.reference(step, l, e.refW[l*cfg.Heads*cfg.Tokens:], cfg.Tokens)
			for qh := range cfg.Heads {
				kh := qh / group
				qv := q[step*qLen+(l*cfg.Heads+qh)*d:][:d]
				w := make([]float64, step+1)
				mx, z := math.Inf(-1), 0.0
				for p := range w {
					kr := k[p*kvLen+(l*cfg.KVHeads+kh)*d:][:d]
					for j := range d {
						w[p] += float64(qv[j]) * float64(kr[j])
					}
					w[p] /= math.Sqrt(float64(d))
					mx = max(mx, w[p])
				}
				for p := range w {
					w[p] = math.Exp(w[p] - mx)
					z += w[p]
				}
				out := make([]float64, d)
				got := e.refW[(l*cfg.Heads+qh)*cfg.Tokens:][:step+1]
				for p := range w {
					if r := e.stream.weight(step, l, qh, p); r != got[p] {
						t.Fatalf("step %d, layer %d, head %d, position %d: recorded weight %g, computed %g", step, l, qh, p, r, got[p])
					}
				}
				for p := range w {
					w[p] /= z
					worst = max(worst, math.Abs(float64(got[p])-w[p]))
					vr := v[p*kvLen+(l*cfg.KVHeads+kh)*d:][:d]
					for j := range d {
						out[j] += w[p] * float64(vr[j])
					}
				}
				for j, o := range out {
					worst = max(worst, math.Abs(float64(e.stream.output(step, l)[qh*d+j])-o)/(1+math.Abs(o)))
				}
			}
		}
		if worst > 2e-5 {
			t.Fatalf("step %d: reference differs from float64 by %g", step, worst)
		}
	}
}
