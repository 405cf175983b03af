package kv

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// seedCache is a line-by-line port of seed 000's CompressedKVCache
// (update, _evict), kept in the test as the reference the Seed000 policy
// must match decision for decision. Tensors become slices; the mask and
// topk logic is kept as the seed writes it. Scores are float64 so that
// summation order cannot flip a near-tie between the two implementations.
type seedCache struct {
	sinkSize, recentSize, heavyHitterSize int
	keys, values                          [][]float32 // per cached token: heads×dim
	cumulativeAttention                   []float64
	positions                             []int
}

func (c *seedCache) maxCacheSize() int { return c.sinkSize + c.recentSize + c.heavyHitterSize }

// update mirrors CompressedKVCache.update. attn is [heads][current size].
func (c *seedCache) update(newKey, newValue []float32, attn [][]float64) {
	if c.keys == nil {
		c.keys = [][]float32{newKey}
		c.values = [][]float32{newValue}
		c.cumulativeAttention = []float64{0}
		c.positions = []int{0}
		return
	}
	if attn != nil {
		// attention_weights.mean(dim=1): mean over heads.
		for i := range c.cumulativeAttention {
			var s float64
			for h := range attn {
				s += attn[h][i]
			}
			c.cumulativeAttention[i] += s / float64(len(attn))
		}
	}
	newPos := slices.Max(c.positions) + 1
	c.keys = append(c.keys, newKey)
	c.values = append(c.values, newValue)
	c.cumulativeAttention = append(c.cumulativeAttention, 0)
	c.positions = append(c.positions, newPos)
	if len(c.keys) > c.maxCacheSize() {
		c.evict()
	}
}

// topk returns the indices of the k largest values (ties to the lower index).
func topk(x []float64, k int) []int {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(x[b], x[a]) })
	return idx[:k]
}

// evict mirrors CompressedKVCache._evict.
func (c *seedCache) evict() {
	n := len(c.positions)
	// 1. Always keep sink tokens (first sink_size positions).
	sinkMask := make([]bool, n)
	nonSinkPositions := make([]float64, n)
	for i, p := range c.positions {
		sinkMask[i] = p < c.sinkSize
		nonSinkPositions[i] = float64(p)
		if sinkMask[i] {
			nonSinkPositions[i] = -1
		}
	}
	// 2. Keep recent tokens.
	recentMask := make([]bool, n)
	for _, i := range topk(nonSinkPositions, c.recentSize) {
		recentMask[i] = true
	}
	// 3. From remaining, keep heavy hitters.
	remaining := make([]float64, n)
	count := 0
	for i := range remaining {
		if !(sinkMask[i] || recentMask[i]) {
			remaining[i] = c.cumulativeAttention[i]
			count++
		} else {
			remaining[i] = math.Inf(-1)
		}
	}
	heavyMask := make([]bool, n)
	if nHeavy := min(c.heavyHitterSize, count); nHeavy > 0 {
		for _, i := range topk(remaining, nHeavy) {
			heavyMask[i] = true
		}
	}
	var keys, values [][]float32
	var cum []float64
	var pos []int
	for i := range n {
		if sinkMask[i] || recentMask[i] || heavyMask[i] {
			keys = append(keys, c.keys[i])
			values = append(values, c.values[i])
			cum = append(cum, c.cumulativeAttention[i])
			pos = append(pos, c.positions[i])
		}
	}
	c.keys, c.values, c.cumulativeAttention, c.positions = keys, values, cum, pos
}

// randomAttention is seed 000's simulated attention: softmax of Gaussian
// logits over the current cache, per head.
func randomAttention(r *rand.Rand, heads, size int) [][]float64 {
	a := make([][]float64, heads)
	for h := range a {
		a[h] = make([]float64, size)
		var s float64
		for i := range a[h] {
			a[h][i] = math.Exp(r.NormFloat64())
			s += a[h][i]
		}
		for i := range a[h] {
			a[h][i] /= s
		}
	}
	return a
}

func TestSeed000MatchesReference(t *testing.T) {
	for _, tc := range []struct {
		name                       string
		heads, dim                 int
		sink, recent, heavy, steps int
	}{
		{"seed-shape-small", 4, 8, 4, 32, 28, 400},
		{"tiny-budget", 2, 4, 1, 2, 1, 200},
		{"no-heavy", 3, 4, 4, 8, 0, 150},
		{"no-sink", 3, 4, 0, 5, 7, 150},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := NewLayer(Config{Policy: Seed000, Sink: tc.sink, Recent: tc.recent, Heavy: tc.heavy,
				Heads: tc.heads, KVHeads: tc.heads, Dim: tc.dim, MaxTokens: tc.steps})
			if err != nil {
				t.Fatal(err)
			}
			ref := &seedCache{sinkSize: tc.sink, recentSize: tc.recent, heavyHitterSize: tc.heavy}
			r := rand.New(rand.NewPCG(7, 9))
			kv := tc.heads * tc.dim
			attn32 := make([][]float32, tc.heads)
			for step := range tc.steps {
				k, v := make([]float32, kv), make([]float32, kv)
				for i := range k {
					k[i], v[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
				}
				var attn [][]float64
				if ref.keys != nil {
					attn = randomAttention(r, tc.heads, len(ref.keys))
				}
				ref.update(k, v, attn)
				var a32 [][]float32
				if attn != nil {
					for h := range attn {
						attn32[h] = attn32[h][:0]
						for _, x := range attn[h] {
							attn32[h] = append(attn32[h], float32(x))
						}
					}
					a32 = attn32
				}
				if err := l.Update(step, k, v, a32); err != nil {
					t.Fatal(err)
				}
				for g := range tc.heads {
					got := l.Positions(g)
					if len(got) != len(ref.positions) {
						t.Fatalf("step %d head %d: %d tokens kept, reference keeps %d", step, g, len(got), len(ref.positions))
					}
					for i, p := range got {
						if int(p) != ref.positions[i] {
							t.Fatalf("step %d head %d: keeps %v, reference keeps %v", step, g, got, ref.positions)
						}
					}
				}
			}
			// The kept keys are the reference's kept keys.
			buf := make([]float32, tc.dim)
			for g := range tc.heads {
				ks, _ := l.Stores(g)
				for i := range l.Positions(g) {
					kslot, _ := l.Slots(g, i)
					ks.Read(kslot, buf)
					if !slices.Equal(buf, ref.keys[i][g*tc.dim:(g+1)*tc.dim]) {
						t.Fatalf("head %d token %d: stored key differs from the reference's", g, i)
					}
				}
			}
			t.Logf("%d steps: identical keep sets at every step; final positions %v", tc.steps, l.Positions(0))
		})
	}
}

// Step derives seed 000's "attention before the new token" from the
// attention it computes with the token; it must decide as Update does when
// Update is given exactly those renormalized weights.
func TestSeed000StepMatchesUpdate(t *testing.T) {
	const heads, dim, steps = 4, 8, 300
	cfg := Config{Policy: Seed000, Sink: 2, Recent: 6, Heavy: 5, Heads: heads, KVHeads: heads, Dim: dim, MaxTokens: steps}
	a, _ := NewLayer(cfg)
	b, _ := NewLayer(cfg)
	r := rand.New(rand.NewPCG(1, 2))
	q, k, v, out := make([]float32, heads*dim), make([]float32, heads*dim), make([]float32, heads*dim), make([]float32, heads*dim)
	ws := make([][]float32, heads)
	for step := range steps {
		for i := range q {
			q[i], k[i], v[i] = float32(r.NormFloat64()*2), float32(r.NormFloat64()), float32(r.NormFloat64())
		}
		// Attention of q over b's cache before the token: compute it with b's own stores.
		for h := range heads {
			ks, _ := b.Stores(h)
			n := b.Len(h)
			ws[h] = make([]float32, n)
			slots := make([]int, n)
			for i := range n {
				slots[i], _ = b.Slots(h, i)
			}
			ks.Dots(q[h*dim:(h+1)*dim], slots, ws[h])
			softmax(ws[h], float32(1/math.Sqrt(dim)))
		}
		if err := a.Step(step, q, k, v, out); err != nil {
			t.Fatal(err)
		}
		var w [][]float32
		if step > 0 {
			w = ws
		}
		if err := b.Update(step, k, v, w); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a.Positions(0), b.Positions(0)) {
			t.Fatalf("step %d: Step keeps %v, Update keeps %v", step, a.Positions(0), b.Positions(0))
		}
		for i, s := range a.Scores(0) {
			if d := math.Abs(s - b.Scores(0)[i]); d > 1e-5 {
				t.Fatalf("step %d token %d: scores %v vs %v", step, i, s, b.Scores(0)[i])
			}
		}
	}
}
