package kv

import (
	"math"
	"slices"
	"testing"
)

// ExpectedAttention's scores are softmax_i(k_i·μ/√d + ½·k_iᵀΣk_i/d)·‖v_i‖,
// averaged over a kv head's query heads, with μ and Σ the mean and
// covariance of the last ExpectedWindow queries: checked against the
// formula computed directly, with Σ as a full matrix.
func TestExpectedMatchesTheFormula(t *testing.T) {
	const heads, kvHeads, dim, steps = 4, 2, 8, 40
	cfg := Config{Policy: Expected, Sink: 1, Recent: 2, Heavy: 5, Heads: heads, KVHeads: kvHeads, Dim: dim, MaxTokens: steps}
	l, err := NewLayer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := newStream(9, heads, kvHeads, dim)
	var qs, vs [][]float32
	out := make([]float32, heads*dim)
	for pos := range steps {
		s.next()
		qs = append(qs, slices.Clone(s.q))
		vs = append(vs, slices.Clone(s.v))
		if err := l.Step(pos, s.q, s.k, s.v, out); err != nil {
			t.Fatal(err)
		}
	}
	l.expectedScores()
	window := qs[steps-ExpectedWindow:]
	group := heads / kvHeads
	for g := range kvHeads {
		ps := l.Positions(g)
		want := make([]float64, len(ps))
		for r := range group {
			qh := g*group + r
			mu := make([]float64, dim)
			for _, q := range window {
				for c := range dim {
					mu[c] += float64(q[qh*dim+c]) / ExpectedWindow
				}
			}
			sigma := make([]float64, dim*dim)
			for _, q := range window {
				for a := range dim {
					for b := range dim {
						sigma[a*dim+b] += (float64(q[qh*dim+a]) - mu[a]) * (float64(q[qh*dim+b]) - mu[b]) / ExpectedWindow
					}
				}
			}
			logit := make([]float64, len(ps))
			for i, p := range ps {
				k := s.hist[p][g*dim : (g+1)*dim]
				var km, kSk float64
				for a := range dim {
					km += float64(k[a]) * mu[a]
					for b := range dim {
						kSk += float64(k[a]) * sigma[a*dim+b] * float64(k[b])
					}
				}
				logit[i] = km/math.Sqrt(dim) + 0.5*kSk/dim
			}
			var z float64
			for _, x := range logit {
				z += math.Exp(x)
			}
			for i, x := range logit {
				want[i] += math.Exp(x) / z / float64(group)
			}
		}
		for i, p := range ps {
			var vn float64
			for _, x := range vs[p][g*dim : (g+1)*dim] {
				vn += float64(x) * float64(x)
			}
			w := want[i] * math.Sqrt(vn)
			if got := l.heads[g].score[i]; math.Abs(got-w) > 1e-5*(1+w) {
				t.Fatalf("head %d token %d: score %v, want %v", g, p, got, w)
			}
		}
	}
}

// KeyDiff's score is −cos(k_i, Σ_j k_j/‖k_j‖) over the head's cached keys.
func TestKeyDiffMatchesTheFormula(t *testing.T) {
	cfg := Config{Policy: KeyDiff, Sink: 1, Recent: 2, Heavy: 5, Heads: 2, KVHeads: 2, Dim: 8, MaxTokens: 50}
	l, s := runPolicy(t, cfg, 50)
	def := l.def
	def.rescore(l)
	for g := range cfg.KVHeads {
		ps := l.Positions(g)
		mean := make([]float64, cfg.Dim)
		for _, p := range ps {
			k := s.hist[p][g*cfg.Dim : (g+1)*cfg.Dim]
			n := math.Sqrt(dot64(k, k))
			for c, x := range k {
				mean[c] += float64(x) / n
			}
		}
		var mn float64
		for _, x := range mean {
			mn += x * x
		}
		mn = math.Sqrt(mn)
		for i, p := range ps {
			k := s.hist[p][g*cfg.Dim : (g+1)*cfg.Dim]
			var d float64
			for c, x := range k {
				d += float64(x) * mean[c]
			}
			want := -d / (mn * math.Sqrt(dot64(k, k)))
			if got := l.heads[g].score[i]; math.Abs(got-want) > 1e-5 {
				t.Fatalf("head %d token %d: score %v, want %v", g, p, got, want)
			}
		}
	}
}

func dot64(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// Quest attends to at most Pages full pages plus the newest one, evicts
// nothing, counts its page bounds, and with as many pages as the history
// has it is full attention exactly.
func TestQuestSelects(t *testing.T) {
	const heads, dim, steps = 4, 8, 100
	for _, tc := range []struct{ pages, size int }{{2, 8}, {3, 4}, {100, 16}} {
		cfg := Config{Policy: Quest, Pages: tc.pages, PageSize: tc.size, Heads: heads, KVHeads: 2, Dim: dim, MaxTokens: steps}
		l, err := NewLayer(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ref, _ := NewLayer(Config{Policy: Full, Heads: heads, KVHeads: 2, Dim: dim, MaxTokens: steps})
		s := newStream(4, heads, 2, dim)
		out, refOut := make([]float32, heads*dim), make([]float32, heads*dim)
		for pos := range steps {
			s.next()
			if err := l.Step(pos, s.q, s.k, s.v, out); err != nil {
				t.Fatal(err)
			}
			_ = ref.Step(pos, s.q, s.k, s.v, refOut)
			if l.Len(0) != pos+1 {
				t.Fatalf("quest evicted: %d tokens at %d", l.Len(0), pos)
			}
			for qh := range heads {
				sel := l.Selected(qh)
				if most := (tc.pages + 1) * tc.size; len(sel) > most || len(sel) < min(pos+1, tc.pages*tc.size) {
					t.Fatalf("pages %d of %d, step %d: head %d attended %d tokens", tc.pages, tc.size, pos, qh, len(sel))
				}
				if !slices.IsSorted(sel) || sel[len(sel)-1] != int32(pos) {
					t.Fatalf("selection %v is not ascending or misses the newest token", sel)
				}
			}
			if tc.pages*tc.size >= steps {
				for i := range out {
					if out[i] != refOut[i] {
						t.Fatalf("step %d: quest with every page differs from full attention", pos)
					}
				}
			}
		}
		pages := (steps + tc.size - 1) / tc.size
		if got, want := l.ScoreBytes(), int64(2*pages*2*2*dim); got != want {
			t.Errorf("page bounds: %d bytes, want %d", got, want)
		}
		if l.IndexBytes() != 0 {
			t.Error("quest keeps every token in order: it needs no index map")
		}
	}
}

// Duo classifies its heads once the history passes Sink + Recent + Heavy:
// streaming heads then keep Sink + Recent, retrieval heads everything.
func TestDuoKeepsPerHead(t *testing.T) {
	cfg := Config{Policy: Duo, Sink: 2, Recent: 6, Heavy: 20, Heads: 8, KVHeads: 8, Dim: 8, MaxTokens: 120}
	l, err := NewLayer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := newStream(3, 8, 8, 8)
	out := make([]float32, 64)
	for pos := range 120 {
		s.next()
		if err := l.Step(pos, s.q, s.k, s.v, out); err != nil {
			t.Fatal(err)
		}
		r := l.RetrievalHeads()
		if (r != nil) != (pos+1 > 28) {
			t.Fatalf("step %d: classified %v", pos, r != nil)
		}
		for g := range 8 {
			want := pos + 1
			if r != nil && !r[g] {
				want = 8
			}
			if l.Len(g) != want || l.HeadBudget(g) != want {
				t.Fatalf("step %d head %d (retrieval %v): %d tokens, budget %d, want %d", pos, g, r != nil && r[g], l.Len(g), l.HeadBudget(g), want)
			}
		}
	}
	shares := l.HeadShares(nil)
	var mean float64
	for _, x := range shares {
		mean += x / 8
	}
	for g, isRet := range l.RetrievalHeads() {
		if isRet != (shares[g] > DuoFactor*mean) {
			t.Errorf("head %d: share %.3f against mean %.3f, classified retrieval %v", g, shares[g], mean, isRet)
		}
	}
}

// A head that keeps returning to one old token is a retrieval head: it
// keeps the whole history and needs no index map, while the heads whose
// attention is flat (a share outside the windows near the layer's mean)
// keep sink + recent, with 4 bytes of index per token.
func TestDuoFindsARetrievalHead(t *testing.T) {
	const heads, dim, steps = 4, 8, 100
	cfg := Config{Policy: Duo, Sink: 2, Recent: 6, Heavy: 10, Heads: heads, KVHeads: heads, Dim: dim, MaxTokens: steps}
	l, err := NewLayer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	q, k, v, out := make([]float32, heads*dim), make([]float32, heads*dim), make([]float32, heads*dim), make([]float32, heads*dim)
	for pos := range steps {
		for i := range k {
			k[i], v[i], q[i] = 0.1*float32((pos*7+i)%5-2), float32(i%3), 0
		}
		if pos == 2 {
			k[0] = 6 // head 0's needle, never a sink, soon outside the window
		}
		q[0] = 6 // head 0 looks for it at every step; the others attend evenly
		if err := l.Step(pos, q, k, v, out); err != nil {
			t.Fatal(err)
		}
	}
	if r := l.RetrievalHeads(); r == nil || !r[0] || r[1] || r[2] || r[3] {
		t.Fatalf("retrieval heads %v, want head 0 only (shares %v)", r, l.HeadShares(nil))
	}
	if l.Len(0) != steps || l.Len(1) != cfg.Sink+cfg.Recent {
		t.Errorf("head 0 keeps %d tokens, head 1 %d; want %d and %d", l.Len(0), l.Len(1), steps, cfg.Sink+cfg.Recent)
	}
	if got, want := l.IndexBytes(), int64(4*3*(cfg.Sink+cfg.Recent)); got != want {
		t.Errorf("index map %d bytes, want %d (streaming heads only)", got, want)
	}
}

// opaque hides a store's Fixed method: ExpectedAttention then computes
// its scores afresh at every rescore.
type opaque struct{ Store }

// ExpectedAttention's cached dots give the scores of the direct
// computation to float32 rounding at every step, with grouped heads, a
// shared decision and a budget that slots are reused under, and the same
// evictions.
func TestExpectedCachedMatchesDirect(t *testing.T) {
	const heads, kvHeads, dim, steps = 4, 2, 16, 300
	for _, shared := range []bool{false, true} {
		cfg := Config{Policy: Expected, Sink: 2, Recent: 6, Heavy: 12, Shared: shared, Heads: heads, KVHeads: kvHeads, Dim: dim, MaxTokens: steps}
		cached, err := NewLayer(cfg)
		if err != nil {
			t.Fatal(err)
		}
		dcfg := cfg
		dcfg.Keys = func(_, dim, capacity int) (Store, error) {
			s, err := newExact(dim, capacity)
			return opaque{s}, err
		}
		direct, err := NewLayer(dcfg)
		if err != nil {
			t.Fatal(err)
		}
		if !cached.fixedKeys() || direct.fixedKeys() {
			t.Fatal("the layers do not take the two paths")
		}
		s := newStream(3, heads, kvHeads, dim)
		out := make([]float32, heads*dim)
		worst := 0.0
		for pos := range steps {
			s.next()
			if err := cached.Step(pos, s.q, s.k, s.v, out); err != nil {
				t.Fatal(err)
			}
			if err := direct.Step(pos, s.q, s.k, s.v, out); err != nil {
				t.Fatal(err)
			}
			cached.expectedScores()
			direct.expectedScores()
			for g := range kvHeads {
				a, b := cached.heads[g], direct.heads[g]
				if !slices.Equal(a.pos, b.pos) {
					t.Fatalf("shared %v, step %d, head %d: kept %v, direct %v", shared, pos, g, a.pos, b.pos)
				}
				top := 0.0
				for _, x := range b.score {
					top = max(top, x)
				}
				for i := range a.score {
					worst = max(worst, math.Abs(a.score[i]-b.score[i])/top)
				}
			}
		}
		if worst > 1e-5 {
			t.Errorf("shared %v: scores differ by up to %.2g of the largest", shared, worst)
		}
		t.Logf("shared %v: largest difference %.2g of the largest score", shared, worst)
	}
}
