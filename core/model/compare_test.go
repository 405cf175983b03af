package model_test

import (
	"math"
	"reflect"
	"testing"

	"github.com/kvscope/kvscope/core/model"
)

// recentCache is a lossy test Cache: it keeps every key and value but attends
// only over the last window positions (a sliding window without sinks).
type recentCache struct {
	c      model.Config
	window int
	keys   [][]float32 // (layer)(pos*kvDim), rotated
	values [][]float32
	scores []float32
}

func newRecentCache(c model.Config, window int) *recentCache {
	return &recentCache{c: c, window: window, keys: make([][]float32, c.Layers), values: make([][]float32, c.Layers)}
}

func (rc *recentCache) Reset() {
	for l := range rc.keys {
		rc.keys[l], rc.values[l] = rc.keys[l][:0], rc.values[l][:0]
	}
}

func (rc *recentCache) Attend(l, pos int, q, k, v, out []float32) error {
	c, kv, hd := rc.c, rc.c.KVDim(), rc.c.HeadDim
	start := len(rc.keys[l])
	rc.keys[l] = append(rc.keys[l], k...)
	rc.values[l] = append(rc.values[l], v...)
	model.RoPE(rc.keys[l][start:], pos, hd, c.RopeBase)
	model.RoPE(q, pos, hd, c.RopeBase)
	lo := max(0, pos+1-rc.window)
	for h := 0; h < c.Heads; h++ {
		g := model.KVHead(h, c.Heads, c.KVHeads)
		rc.scores = rc.scores[:0]
		for t := lo; t <= pos; t++ {
			var s float32
			for i := 0; i < hd; i++ {
				s += q[h*hd+i] * rc.keys[l][t*kv+g*hd+i]
			}
			rc.scores = append(rc.scores, s/float32(math.Sqrt(float64(hd))))
		}
		model.Softmax(rc.scores)
		o := out[h*hd : (h+1)*hd]
		clear(o)
		for j, a := range rc.scores {
			for i := range o {
				o[i] += a * rc.values[l][(lo+j)*kv+g*hd+i]
			}
		}
	}
	return nil
}

func TestKLDivergence(t *testing.T) {
	tests := []struct {
		p, q []float32
		want float64
	}{
		{[]float32{1, 2, 3}, []float32{1, 2, 3}, 0},
		{[]float32{1, 2, 3}, []float32{11, 12, 13}, 0}, // shift invariant
		{[]float32{0, 0}, []float32{0, float32(math.Log(3))}, 0.5*math.Log(2) + 0.5*math.Log(2.0/3)},
		{[]float32{0, float32(math.Log(3))}, []float32{0, 0}, 0.25*math.Log(0.5) + 0.75*math.Log(1.5)},
	}
	for _, tc := range tests {
		if got := model.KLDivergence(tc.p, tc.q); math.Abs(got-tc.want) > 1e-6 {
			t.Errorf("KL(%v‖%v) = %v, want %v", tc.p, tc.q, got, tc.want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("KLDivergence with different lengths did not panic")
		}
	}()
	model.KLDivergence([]float32{1}, []float32{1, 2})
}

func TestCompareIdentical(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    func(testing.TB) *model.Model
	}{{"tiny", func(tb testing.TB) *model.Model { return tinyModel(tb, 4) }}, {"stories260K", realModel}} {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.m(t)
			prompt := []int{1, 8, 9}
			res, err := m.Compare(fullCache(t, m.Config), fullCache(t, m.Config), prompt, 25)
			if err != nil {
				t.Fatal(err)
			}
			if res.MeanKL != 0 || res.MaxKL != 0 || res.Top1Agreement != 1 || res.Diverge != -1 {
				t.Errorf("identical caches: mean KL %g max KL %g agreement %g diverge %d", res.MeanKL, res.MaxKL, res.Top1Agreement, res.Diverge)
			}
			if len(res.Steps) != len(prompt)+24 || len(res.Generated) != 25 {
				t.Errorf("%d steps, %d generated", len(res.Steps), len(res.Generated))
			}
			gen, err := m.NewRunner(fullCache(t, m.Config)).Generate(prompt, model.GenerateOptions{MaxTokens: 25, IgnoreEOS: true})
			if err != nil || !reflect.DeepEqual(gen, res.Generated) {
				t.Errorf("Compare generated %v, Generate %v (%v)", res.Generated, gen, err)
			}
		})
	}
}

func TestCompareLossy(t *testing.T) {
	m := realModel(t)
	const steps = 120
	prompt := []int{m.Tokenizer.BOS}
	res, err := m.Compare(fullCache(t, m.Config), newRecentCache(m.Config, 8), prompt, steps)
	if err != nil {
		t.Fatal(err)
	}
	if res.MeanKL <= 0 || res.Top1Agreement >= 1 || res.Diverge < 0 {
		t.Fatalf("window-8 cache: mean KL %g agreement %g diverge %d; want a visible loss", res.MeanKL, res.Top1Agreement, res.Diverge)
	}
	// The first steps fit in the window, so they are exact.
	for _, s := range res.Steps[:8] {
		if s.KL > 1e-6 {
			t.Errorf("position %d inside the window: KL %g", s.Pos, s.KL)
		}
	}
	// Diverge is exact: the lossy cache's own greedy text agrees up to it and not at it.
	own, err := m.NewRunner(newRecentCache(m.Config, 8)).Generate(prompt, model.GenerateOptions{MaxTokens: steps, IgnoreEOS: true})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Diverge
	if !reflect.DeepEqual(own[:d], res.Generated[:d]) || own[d] == res.Generated[d] {
		t.Errorf("diverge %d: own greedy %v vs reference %v", d, own[:d+1], res.Generated[:d+1])
	}
	t.Logf("window 8 vs full over %d steps: mean KL %.4f, max KL %.3f, top-1 agreement %.3f, greedy texts part at token %d", steps, res.MeanKL, res.MaxKL, res.Top1Agreement, d)
}

func TestPerplexity(t *testing.T) {
	m := tinyModel(t, 6)
	tokens := []int{1, 11, 15, 7, 16, 8, 9, 12}
	got, err := m.Perplexity(fullCache(t, m.Config), tokens)
	if err != nil {
		t.Fatal(err)
	}
	var nll float64
	for i := 1; i < len(tokens); i++ {
		logits := naiveLogits(m, tokens[:i])
		var s float64
		for _, v := range logits {
			s += math.Exp(float64(v))
		}
		nll += math.Log(s) - float64(logits[tokens[i]])
	}
	if want := math.Exp(nll / float64(len(tokens)-1)); math.Abs(got-want) > 1e-4*want {
		t.Errorf("perplexity %v, naive %v", got, want)
	}
	if _, err := m.Perplexity(fullCache(t, m.Config), tokens[:1]); err == nil {
		t.Error("one token accepted")
	}
	if _, err := m.Perplexity(fullCache(t, m.Config), []int{1, 999}); err == nil {
		t.Error("out-of-range target accepted")
	}
}

func TestPerplexityReal(t *testing.T) {
	m := realModel(t)
	tokens := m.Tokenizer.Encode(referenceText+" "+referenceText, true, false)
	full, err := m.Perplexity(fullCache(t, m.Config), tokens)
	if err != nil {
		t.Fatal(err)
	}
	lossy, err := m.Perplexity(newRecentCache(m.Config, 4), tokens)
	if err != nil {
		t.Fatal(err)
	}
	if !(full > 1 && full < 3 && lossy > full) {
		t.Errorf("perplexity full %.3f, window-4 %.3f: want 1 < full < 3 and lossy above", full, lossy)
	}
	t.Logf("perplexity of the reference text twice: full %.3f, window 4 %.3f", full, lossy)
}

func TestComparerAllocatesNothing(t *testing.T) {
	m := tinyModel(t, 8)
	c := m.NewComparer(fullCache(t, m.Config), fullCache(t, m.Config))
	allocs := testing.AllocsPerRun(20, func() {
		if _, err := c.Feed(9); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Feed allocates %v times", allocs)
	}
}
