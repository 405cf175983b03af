package synth

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// streamStats are figures measured over a generated stream, with attention
// computed as a decoder does: each position's query attends, by
// softmax(q·k/√d), to every key up to and including its own. Only layer 0
// is measured.
type streamStats struct {
	cfg   Config
	steps int
	kinds []HeadKind

	sinkShare   []float64              // per head: mean attention on positions 0..3, queries at t ≥ 64
	sinkUniform float64                // the same for uniform attention
	recent      []float64              // per head: mean attention on the last 16 positions, t ≥ 64
	recUniform  float64                // the same for uniform attention
	top5        float64                // share of non-sink accumulated attention held by the top 5% of non-sink tokens
	normCorr    float64                // Spearman correlation of key norm and attention per query seen, non-sink tokens
	retSteps    int                    // (head, step) pairs where a retrieval head copied
	retMax      float64                // mean of the largest weight on an old (≥ 32 back), non-sink token at those steps
	retHit      float64                // share of those steps whose largest such weight is on the copied token
	retOn       float64                // mean weight on the copied token at those steps
	outRatio    float64                // mean |k| of outlier channels over the median channel's
	maxRatio    float64                // largest channel's mean |k| over the median channel's
	valueKurt   float64                // excess kurtosis of non-sink values
	outErr      [numPolicies]float64   // mean ‖o − ô‖/‖o‖ of each cache policy, t ≥ 128, over heads
	outErrHead  [numPolicies][]float64 // the same per head
}

// Cache policies replayed on the stream with a 64-token budget, one
// decision per layer shared by all heads.
const (
	polWindow    = iota // the 64 newest tokens
	polStreaming        // 4 sinks + 60 newest
	polSeed000          // 4 sinks + 32 newest + 28 highest accumulated attention (evicted for good)
	polRandom           // 4 sinks + 32 newest + 28 survivors of random eviction
	numPolicies
)

var policyNames = [numPolicies]string{"window", "streaming", "sinks+H2O+recent", "sinks+random+recent"}

const (
	budget       = 64
	budgetSink   = 4
	budgetRecent = 32
)

// evictingCache is a cache that evicts one older token at a time once over
// budget: the lowest score (seed000) or a random one.
type evictingCache struct {
	kept  []int // positions, ascending
	score map[int]float64
	rng   *rand.Rand // nil: evict by score
}

func (c *evictingCache) push(t int) {
	c.kept = append(c.kept, t)
	if len(c.kept) <= budget {
		return
	}
	// Candidates: not a sink, not among the newest budgetRecent.
	lo, hi := 0, len(c.kept)-budgetRecent
	for lo < hi && c.kept[lo] < budgetSink {
		lo++
	}
	victim := lo
	if c.rng != nil {
		victim = lo + c.rng.IntN(hi-lo)
	} else {
		for i := lo; i < hi; i++ {
			if c.score[c.kept[i]] < c.score[c.kept[victim]] {
				victim = i
			}
		}
	}
	delete(c.score, c.kept[victim])
	c.kept = slices.Delete(c.kept, victim, victim+1)
}

// measure generates steps positions of c and measures layer 0.
func measure(tb testing.TB, c Config, steps int) streamStats {
	tb.Helper()
	g, err := New(c)
	if err != nil {
		tb.Fatal(err)
	}
	d, H, KV := c.HeadDim, c.Heads, c.KVHeads
	group := H / KV
	q := make([]float32, g.QLen())
	k := make([]float32, g.KVLen())
	v := make([]float32, g.KVLen())
	keys := make([][]float32, KV)   // [kv][pos·d], layer 0
	values := make([][]float32, KV) // [kv][pos·d], layer 0
	normK := make([][]float64, KV)  // key norms
	st := streamStats{cfg: c, steps: steps, kinds: make([]HeadKind, H),
		sinkShare: make([]float64, H), recent: make([]float64, H)}
	for h := range H {
		st.kinds[h] = g.HeadKind(0, h)
	}
	for p := range st.outErrHead {
		st.outErrHead[p] = make([]float64, H)
	}
	acc := make([]float64, steps)   // accumulated attention, summed over heads
	accHead := make([][]float64, H) // and per head
	for h := range accHead {
		accHead[h] = make([]float64, steps)
	}
	absK := make([]float64, KV*d)  // Σ|k| per (kv head, channel)
	var vs []float64               // non-sink values
	lg := make([]float64, steps)   // one query's logits
	w := make([]float64, steps)    // and weights
	sub := make([]float64, budget) // weights over a policy's cache
	out := make([]float64, d)      // attention output over the whole history
	caches := [2]*evictingCache{
		{score: map[int]float64{}},
		{score: map[int]float64{}, rng: rand.New(rand.NewPCG(7, 7))},
	}
	kept := make([]int, 0, budget)
	var counted, outCounted int
	scale := 1 / math.Sqrt(float64(d))
	for t := range steps {
		g.Next(q, k, v)
		for kh := range KV {
			kv := k[kh*d : (kh+1)*d]
			keys[kh] = append(keys[kh], kv...)
			values[kh] = append(values[kh], v[kh*d:(kh+1)*d]...)
			var n2 float64
			for i, x := range kv {
				absK[kh*d+i] += math.Abs(float64(x))
				n2 += float64(x) * float64(x)
			}
			normK[kh] = append(normK[kh], math.Sqrt(n2))
			if t >= sinkCount { // value noise: the head's mean removed
				for i, x := range v[kh*d : (kh+1)*d] {
					vs = append(vs, float64(x)-float64(g.vMean[kh*d+i]))
				}
			}
		}
		if t >= 64 {
			counted++
			st.sinkUniform += 4 / float64(t+1)
			st.recUniform += 16 / float64(t+1)
		}
		for _, ec := range caches {
			ec.push(t)
		}
		for h := range H {
			kk, vv := keys[h/group], values[h/group]
			logits(lg[:t+1], q[h*d:(h+1)*d], kk, scale)
			softmax(w[:t+1], lg[:t+1])
			for s := range t + 1 {
				acc[s] += w[s]
				accHead[h][s] += w[s]
			}
			if t >= 64 {
				st.sinkShare[h] += w[0] + w[1] + w[2] + w[3]
				for s := t - 15; s <= t; s++ {
					st.recent[h] += w[s]
				}
			}
			if src := g.Target(0, h); src >= 0 {
				best, arg := 0.0, -1
				for s := sinkCount; s <= t-retrievalGap; s++ {
					if w[s] > best {
						best, arg = w[s], s
					}
				}
				st.retSteps++
				st.retMax += best
				st.retOn += w[src]
				if arg == src {
					st.retHit++
				}
			}
			if t >= 128 {
				attend(out, w[:t+1], vv)
			}
			for p := range numPolicies {
				kept = kept[:0]
				switch p {
				case polWindow:
					for s := max(0, t+1-budget); s <= t; s++ {
						kept = append(kept, s)
					}
				case polStreaming:
					for s := range min(budgetSink, t+1) {
						kept = append(kept, s)
					}
					for s := max(budgetSink, t+1-(budget-budgetSink)); s <= t; s++ {
						kept = append(kept, s)
					}
				default:
					kept = append(kept, caches[p-polSeed000].kept...)
				}
				for i, s := range kept {
					sub[i] = lg[s]
				}
				softmax(sub[:len(kept)], sub[:len(kept)])
				if p == polSeed000 {
					for i, s := range kept {
						caches[0].score[s] += sub[i] / float64(H)
					}
				}
				if t >= 128 {
					st.outErrHead[p][h] += outputError(out, vv, kept, sub[:len(kept)])
				}
			}
			if t >= 128 {
				outCounted++
			}
		}
	}
	for h := range H {
		st.sinkShare[h] /= float64(counted)
		st.recent[h] /= float64(counted)
	}
	st.sinkUniform /= float64(counted)
	st.recUniform /= float64(counted)
	if st.retSteps > 0 {
		st.retMax /= float64(st.retSteps)
		st.retHit /= float64(st.retSteps)
		st.retOn /= float64(st.retSteps)
	}
	for p := range st.outErr {
		for h := range H {
			st.outErrHead[p][h] /= float64(outCounted / H)
			st.outErr[p] += st.outErrHead[p][h] / float64(H)
		}
	}

	rest := slices.Clone(acc[sinkCount:])
	var total float64
	for _, x := range rest {
		total += x
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(rest)))
	var top float64
	for _, x := range rest[:len(rest)/20] {
		top += x
	}
	st.top5 = top / total

	// Per head, attention per query that saw the token (kvpress's
	// ObservedAttention) against the key norm, as Knorm ranks tokens.
	obs := make([]float64, steps-sinkCount)
	for h := range H {
		for s := sinkCount; s < steps; s++ {
			obs[s-sinkCount] = accHead[h][s] / float64(steps-s)
		}
		st.normCorr += spearman(obs, normK[h/group][sinkCount:]) / float64(H)
	}

	// Channel magnitudes, pooled over kv heads.
	outlier := make([]bool, KV*d)
	for u := range KV {
		for _, ch := range g.outCh[u*c.OutlierChannels : (u+1)*c.OutlierChannels] {
			outlier[u*d+int(ch)] = true
		}
	}
	var plain []float64
	var outMean float64
	for i, a := range absK {
		if outlier[i] {
			outMean += a / float64(steps)
		} else {
			plain = append(plain, a/float64(steps))
		}
	}
	slices.Sort(plain)
	med := plain[len(plain)/2]
	if c.OutlierChannels > 0 {
		st.outRatio = outMean / float64(KV*c.OutlierChannels) / med
	}
	for _, a := range absK {
		st.maxRatio = max(st.maxRatio, a/float64(steps)/med)
	}
	st.valueKurt = excessKurtosis(vs)
	return st
}

// attend sets out = Σ_s w[s]·values[s].
func attend(out, w []float64, values []float32) {
	d := len(out)
	clear(out)
	for s, ws := range w {
		for i, x := range values[s*d : (s+1)*d] {
			out[i] += ws * float64(x)
		}
	}
}

// outputError returns ‖o − ô‖/‖o‖ where ô = Σ_i sub[i]·values[kept[i]].
func outputError(o []float64, values []float32, kept []int, sub []float64) float64 {
	d := len(o)
	var num, den float64
	for i := range d {
		var oh float64
		for j, s := range kept {
			oh += sub[j] * float64(values[s*d+i])
		}
		num += (o[i] - oh) * (o[i] - oh)
		den += o[i] * o[i]
	}
	return math.Sqrt(num / den)
}

// logits sets lg[s] = q·keys[s]·scale.
func logits(lg []float64, q, keys []float32, scale float64) {
	d := len(q)
	for s := range lg {
		var dot float64
		for i, x := range keys[s*d : (s+1)*d] {
			dot += float64(q[i]) * float64(x)
		}
		lg[s] = dot * scale
	}
}

// softmax sets dst = softmax(src); dst and src may be the same slice.
func softmax(dst, src []float64) {
	hi := math.Inf(-1)
	for _, x := range src {
		hi = max(hi, x)
	}
	var sum float64
	for i, x := range src {
		dst[i] = math.Exp(x - hi)
		sum += dst[i]
	}
	for i := range dst {
		dst[i] /= sum
	}
}

// excessKurtosis returns the sample excess kurtosis of xs.
func excessKurtosis(xs []float64) float64 {
	var mean float64
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	var m2, m4 float64
	for _, x := range xs {
		d2 := (x - mean) * (x - mean)
		m2 += d2
		m4 += d2 * d2
	}
	m2 /= float64(len(xs))
	m4 /= float64(len(xs))
	return m4/(m2*m2) - 3
}

// spearman returns the rank correlation of a and b.
func spearman(a, b []float64) float64 {
	ra, rb := ranks(a), ranks(b)
	n := float64(len(a))
	var ma, mb float64
	for i := range ra {
		ma += ra[i]
		mb += rb[i]
	}
	ma /= n
	mb /= n
	var sab, saa, sbb float64
	for i := range ra {
		sab += (ra[i] - ma) * (rb[i] - mb)
		saa += (ra[i] - ma) * (ra[i] - ma)
		sbb += (rb[i] - mb) * (rb[i] - mb)
	}
	return sab / math.Sqrt(saa*sbb)
}

func ranks(xs []float64) []float64 {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(i, j int) bool { return xs[idx[i]] < xs[idx[j]] })
	r := make([]float64, len(xs))
	for rank, i := range idx {
		r[i] = float64(rank)
	}
	return r
}

// kindMean averages a per-head figure over heads of kind k (NaN if none).
func (st streamStats) kindMean(fig []float64, k HeadKind) float64 {
	var sum float64
	var n int
	for h, kind := range st.kinds {
		if kind == k {
			sum += fig[h]
			n++
		}
	}
	return sum / float64(n)
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func (st streamStats) log(tb testing.TB) {
	tb.Helper()
	c := st.cfg
	tb.Logf("T=%d heads=%d/%d dim=%d sink=%g heavy=%g local=%g retrieval=%g outliers=%d×%g df=%g kinds=%v",
		st.steps, c.Heads, c.KVHeads, c.HeadDim, c.SinkStrength, c.HeavyStrength, c.Locality, c.RetrievalShare,
		c.OutlierChannels, c.OutlierScale, c.TailDF, st.kinds)
	tb.Logf("  sink share (t ≥ 64): all heads %.3f = %.1f× uniform %.4f; sink heads %.3f; per head %.3f",
		mean(st.sinkShare), mean(st.sinkShare)/st.sinkUniform, st.sinkUniform, st.kindMean(st.sinkShare, Sink), st.sinkShare)
	tb.Logf("  last-16 share (t ≥ 64): local heads %.3f = %.1f× uniform %.4f; per head %.3f",
		st.kindMean(st.recent, Local), st.kindMean(st.recent, Local)/st.recUniform, st.recUniform, st.recent)
	tb.Logf("  top 5%% of non-sink tokens hold %.3f of non-sink accumulated attention", st.top5)
	tb.Logf("  Spearman(key norm, attention per query) = %.3f", st.normCorr)
	tb.Logf("  retrieval: %d head-steps, mean max old-token weight %.3f, argmax on the copied token %.2f, weight on it %.3f",
		st.retSteps, st.retMax, st.retHit, st.retOn)
	tb.Logf("  key channels: outliers %.1f×, largest %.1f× the median channel; value excess kurtosis %.2f",
		st.outRatio, st.maxRatio, st.valueKurt)
	for p, e := range st.outErr {
		tb.Logf("  64-token cache %-20s output error %.3f, sink heads %.3f, per head %.2f",
			policyNames[p], e, st.kindMean(st.outErrHead[p], Sink), st.outErrHead[p])
	}
}
