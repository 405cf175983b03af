package sim

import (
	"math"
	"testing"

	"github.com/kvscope/kvscope/core/synth"
)

// naiveSinks recomputes the sink metric of cfg's synthetic stream over n
// positions in float64, straight from the generator: softmax(q·k/√d) over
// positions 0..t, position 0's weight summed over t and divided by n.
func naiveSinks(t *testing.T, cfg Config, n int) []float64 {
	t.Helper()
	g, err := synth.New(cfg.synth())
	if err != nil {
		t.Fatal(err)
	}
	d, L, H, G := cfg.HeadDim, cfg.Layers, cfg.Heads, cfg.KVHeads
	q, k, v := make([]float32, L*H*d), make([]float32, L*G*d), make([]float32, L*G*d)
	keys := make([][]float32, n)
	imp := make([]float64, L*H)
	for p := range n {
		g.Next(q, k, v)
		keys[p] = append([]float32(nil), k...)
		for l := range L {
			for h := range H {
				qh := q[(l*H+h)*d : (l*H+h+1)*d]
				kh := (l*G + h/(H/G)) * d
				logits := make([]float64, p+1)
				mx := math.Inf(-1)
				for u := range p + 1 {
					var s float64
					for i, x := range qh {
						s += float64(x) * float64(keys[u][kh+i])
					}
					logits[u] = s / math.Sqrt(float64(d))
					mx = math.Max(mx, logits[u])
				}
				var z float64
				for _, x := range logits {
					z += math.Exp(x - mx)
				}
				imp[l*H+h] += math.Exp(logits[0]-mx) / z
			}
		}
	}
	for i := range imp {
		imp[i] /= float64(n)
	}
	return imp
}

// The engine's sink metric is Gu et al.'s importance of position 0 over
// the uncompressed stream, whatever the cache keeps and however often the
// reference runs; without a reference there is none.
func TestEngineSinksMatchNaive(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Layers, cfg.Heads, cfg.KVHeads, cfg.HeadDim, cfg.Tokens, cfg.Prompt = 2, 8, 4, 16, SinkPrompt, 8
	want := naiveSinks(t, cfg, SinkPrompt)
	for _, stride := range []int{1, 5} {
		c := cfg
		c.RefStride = stride
		e, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		e.RunTo(20)
		if s := e.Sinks(); s.Tokens != 20 {
			t.Fatalf("stride %d: %d queries after 20 steps", stride, s.Tokens)
		}
		e.RunTo(c.Tokens)
		s := e.Snapshot(1).Sinks
		if s == nil || s.Tokens != SinkPrompt || s.Layers != 2 || s.Heads != 8 {
			t.Fatalf("stride %d: snapshot sinks %+v", stride, s)
		}
		for i, w := range want {
			if got := s.Importance[i]; math.Abs(got-w) > 1e-4 {
				t.Fatalf("stride %d, head %d: importance %v, naive %v", stride, i, got, w)
			}
		}
	}
	cfg.RefStride = 0
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.RunTo(10)
	if e.Sinks() != nil || e.Snapshot(0).Sinks != nil {
		t.Fatal("sinks measured without a reference")
	}
}

// A stream with strong sinks has many sink heads, most of them the heads
// the generator made sink heads; without sinks it has none.
func TestEngineSinkShare(t *testing.T) {
	share := map[float64]float64{}
	for _, strength := range []float64{0, 1, 4} {
		cfg := DefaultConfig()
		cfg.Layers, cfg.Heads, cfg.KVHeads, cfg.Tokens, cfg.SinkStrength = 4, 8, 8, SinkPrompt, strength
		e, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		e.RunTo(cfg.Tokens)
		s := e.Sinks()
		share[strength] = s.Share()
		g, _ := synth.New(cfg.synth())
		kinds := map[synth.HeadKind][2]int{}
		for l := range cfg.Layers {
			for h := range cfg.Heads {
				k := kinds[g.HeadKind(l, h)]
				k[1]++
				if s.IsSink(l, h) {
					k[0]++
				}
				kinds[g.HeadKind(l, h)] = k
			}
		}
		t.Logf("sink strength %g: %v; sink heads by kind (sinks/heads): %v", strength, s, kinds)
		if strength == 4 && kinds[synth.Sink][0] < kinds[synth.Sink][1] {
			t.Errorf("strength 4: only %d of %d generator sink heads measured as sinks", kinds[synth.Sink][0], kinds[synth.Sink][1])
		}
	}
	if share[0] != 0 || share[4] < 0.5 || share[1] > share[4] {
		t.Fatalf("sink-head shares %v: want 0 without sinks, ≥ 0.5 with strong ones, growing with strength", share)
	}
}

// stories260K has almost no sink heads (its model card: 0 %) on Gu et
// al.'s 64-token prompts; the run's metric equals ModelSinks on the same
// tokens when the cache keeps everything.
func TestModelSinks(t *testing.T) {
	m := loadModel(t)
	cfg := DefaultConfig()
	cfg.Policy, cfg.Bits = "full", 32
	for _, prompt := range []string{"Once upon a time", "Lily and Tom", "The dog"} {
		r := runModel(t, m, cfg, prompt, SinkPrompt, false)
		_, toks := r.Tokens()
		s, err := ModelSinks(m, toks)
		if err != nil {
			t.Fatal(err)
		}
		got := r.Snapshot(0).Sinks
		for i, v := range s.Importance {
			if math.Abs(got.Importance[i]-v) > 1e-9 {
				t.Fatalf("%q head %d: run %v, ModelSinks %v", prompt, i, got.Importance[i], v)
			}
		}
		t.Logf("stories260K, %q, %d tokens: %v", prompt, len(toks), s)
		for l := range s.Layers {
			row := make([]float64, s.Heads)
			for h := range row {
				row[h] = math.Round(1000*s.At(l, h)) / 1000
			}
			t.Logf("  layer %d: %v", l, row)
		}
		if s.Share() > 0.1 {
			t.Errorf("%q: %.0f%% sink heads; stories260K is measured to have almost none", prompt, 100*s.Share())
		}
	}
	if _, err := ModelSinks(m, nil); err == nil {
		t.Error("no tokens accepted")
	}
}
