package kv

import (
	"errors"
	"math"
	"slices"
	"testing"
)

// refusing wraps a store and refuses the n-th Append (counting from 1).
type refusing struct {
	Store
	n, calls int
}

func (r *refusing) Append(x []float32) (int, error) {
	r.calls++
	if r.calls == r.n {
		return 0, errors.New("refused")
	}
	return r.Store.Append(x)
}

// snapshotOf copies what a layer shows of itself.
func snapshotOf(l *Layer) (pos [][]int32, scores [][]float64) {
	for g := range l.cfg.KVHeads {
		pos = append(pos, slices.Clone(l.Positions(g)))
		scores = append(scores, slices.Clone(l.Scores(g)))
	}
	return pos, scores
}

// A step that fails — bad attention, a bad key, or a store refusing the
// token in a later head — leaves the cache exactly as it was.
func TestFailedStepChangesNothing(t *testing.T) {
	const heads, dim = 4, 4
	var refuser *refusing
	cfg := Config{Policy: Seed000, Sink: 1, Recent: 3, Heavy: 2, Heads: heads, KVHeads: heads, Dim: dim, MaxTokens: 50,
		Values: func(g, d, c int) (Store, error) {
			s, _ := newExact(d, c)
			if g == 2 {
				refuser = &refusing{Store: s, n: 9}
				return refuser, nil
			}
			return s, nil
		}}
	l, err := NewLayer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	k, v := make([]float32, heads*dim), make([]float32, heads*dim)
	attn := func(n int, bad bool) [][]float32 {
		a := make([][]float32, heads)
		for h := range a {
			a[h] = make([]float32, n)
			for i := range a[h] {
				a[h][i] = 1 / float32(n)
			}
		}
		if bad && n > 0 {
			a[heads-1][n-1] = float32(math.NaN())
		}
		return a
	}
	for pos := range 8 {
		if err := l.Update(pos, k, v, attn(l.Len(0), false)); err != nil {
			t.Fatal(err)
		}
	}
	wantPos, wantScores := snapshotOf(l)
	check := func(what string, err error) {
		t.Helper()
		if err == nil {
			t.Fatalf("%s: accepted", what)
		}
		gotPos, gotScores := snapshotOf(l)
		if !slices.EqualFunc(gotPos, wantPos, slices.Equal) || !slices.EqualFunc(gotScores, wantScores, slices.Equal) {
			t.Fatalf("%s (%v) changed the cache: %v %v, was %v %v", what, err, gotPos, gotScores, wantPos, wantScores)
		}
	}
	check("NaN attention in the last head", l.Update(8, k, v, attn(l.Len(0), true)))
	k[dim+1] = float32(math.Inf(1))
	check("infinite key", l.Update(8, k, v, attn(l.Len(0), false)))
	k[dim+1] = 0
	check("store refusing head 2's value", l.Update(8, k, v, attn(l.Len(0), false)))
	if err := l.Update(8, k, v, attn(l.Len(0), false)); err != nil {
		t.Fatalf("the step after the refusal: %v", err)
	}
	for g := range heads {
		if !slices.Equal(l.Positions(g), l.Positions(0)) || !slices.Equal(l.Scores(g), l.Scores(0)) {
			t.Fatalf("seed000 heads disagree after recovery: head %d %v %v", g, l.Positions(g), l.Scores(g))
		}
	}
}

// Finite attention weights whose sum overflows float32 are still finite
// in the float64 scores: accepted.
func TestLargeFiniteAttentionAccepted(t *testing.T) {
	l, _ := NewLayer(Config{Policy: H2O, Recent: 2, Heavy: 2, Heads: 2, KVHeads: 1, Dim: 2, MaxTokens: 10})
	k := []float32{1, 2}
	if err := l.Update(0, k, k, nil); err != nil {
		t.Fatal(err)
	}
	big := [][]float32{{math.MaxFloat32}, {math.MaxFloat32}}
	if err := l.Update(1, k, k, big); err != nil {
		t.Fatalf("finite weights rejected: %v", err)
	}
	if s := l.Scores(0)[0]; math.IsInf(s, 0) || s <= 0 {
		t.Fatalf("score %v", s)
	}
}

func TestCosts(t *testing.T) {
	cfg := Config{Policy: H2O, Recent: 8, Heavy: 8, Heads: 4, KVHeads: 4, Dim: 16, MaxTokens: 300}
	l, _ := NewLayer(cfg)
	s := newStream(1, 4, 4, 16)
	out := make([]float32, 64)
	l.SetTiming(true)
	for pos := range 300 {
		s.next()
		if err := l.Step(pos, s.q, s.k, s.v, out); err != nil {
			t.Fatal(err)
		}
	}
	c := l.Costs()
	st, at, ev := c.PerStep()
	t.Logf("per step: store %v, attention %v, eviction %v", st, at, ev)
	if c.Steps != 300 || c.Store <= 0 || c.Attend <= 0 || c.Evict <= 0 {
		t.Fatalf("costs %+v", c)
	}
	l.SetTiming(false)
	s.next()
	if err := l.Step(300, s.q, s.k, s.v, out); err == nil {
		t.Fatal("position beyond max tokens accepted")
	}
	if l.Costs() != (Costs{}) {
		t.Fatalf("costs kept after timing was turned off: %+v", l.Costs())
	}
}

// The policy's own state is counted: float64 scores per cached token and
// head (once when shared), float32 key norms, nothing for the rest.
func TestScoreBytes(t *testing.T) {
	for _, tc := range []struct {
		policy Policy
		shared bool
		per    int64 // bytes per cached token and head
		heads  int64 // heads charged
	}{{H2O, false, 8, 2}, {H2O, true, 8, 1}, {Seed000, false, 8, 1}, {Knorm, false, 4, 2}, {Chunk, true, 4, 1},
		{Window, false, 0, 0}, {Streaming, false, 0, 0}, {Random, false, 0, 0}, {TOVA, false, 0, 0}, {Full, false, 0, 0}} {
		cfg := Config{Policy: tc.policy, Shared: tc.shared, Sink: 1, Recent: 3, Heavy: 2, ChunkSize: 4, DropShare: 0.25,
			Heads: 2, KVHeads: 2, Dim: 4, MaxTokens: 40}
		l, _ := runPolicy(t, cfg, 40)
		if got, want := l.ScoreBytes(), tc.per*tc.heads*int64(l.Len(0)); got != want {
			t.Errorf("%s shared=%v: %d bytes of scores for %d tokens, want %d", tc.policy, tc.shared, got, l.Len(0), want)
		}
	}
}

// TOVA driven by caller-supplied attention does not evict the token that
// just arrived (it has received no attention yet), even without a recent
// window.
func TestTOVAUpdateSparesNewest(t *testing.T) {
	l, _ := NewLayer(Config{Policy: TOVA, Heavy: 4, Heads: 1, KVHeads: 1, Dim: 2, MaxTokens: 30})
	k := []float32{1, 0}
	for pos := range 20 {
		var attn [][]float32
		if n := l.Len(0); n > 0 {
			w := make([]float32, n)
			for i := range w {
				w[i] = float32(i+1) / float32(n*(n+1)/2) // later tokens get more
			}
			attn = [][]float32{w}
		}
		if err := l.Update(pos, k, k, attn); err != nil {
			t.Fatal(err)
		}
		if ps := l.Positions(0); int(ps[len(ps)-1]) != pos {
			t.Fatalf("position %d evicted on arrival: cache %v", pos, ps)
		}
	}
	if got := l.Positions(0); got[0] != 16 {
		t.Fatalf("TOVA kept %v; with attention rising toward recent tokens it should keep the last four", got)
	}
}
