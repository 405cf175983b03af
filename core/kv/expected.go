package kv

import "math"

// ExpectedWindow is how many recent queries ExpectedAttention's statistics
// cover, per query head.
const ExpectedWindow = 16

// Expected is ExpectedAttention (Devoto et al., "Expected Attention: KV
// Cache Compression by Estimating Attention from Future Queries
// Distribution", arXiv 2510.00636; kvpress's default press,
// expected_attention_press.py). It predicts the attention future queries
// will pay each key from the mean μ and covariance Σ of the last
// ExpectedWindow queries of each query head: if q ~ N(μ, Σ), then
// E[exp(q·k/√d)] = exp(k·μ/√d + ½·kᵀΣk/d), so a token's score is
//
//	softmax_i(k_i·μ/√d + ½·k_iᵀΣk_i/d) × ‖v_i‖
//
// averaged over the query heads of its key/value head. kvpress always keeps
// the first 4 tokens: here the sinks do (Sink, 4 by default in kvscope).
// Σ is the full covariance of the window, used in its low-rank form
// kᵀΣk = (1/W)·Σ_j ((q_j − μ)·k)², so a rescore costs (W+1) dot products
// per cached key and query head: O(budget·W·Dim) per step, with W = 16
// below Dim = 32.
//
// Over keys stored in a form that never changes once appended (Fixed
// stores: no FP16 residual window, no per-channel group still filling, no
// re-positioning), the rescore keeps each window query's dot product with
// each cached key and computes a new query's dots once, and a new key's
// once: then μ·k is the mean of a key's W dots and (q_j − μ)·k its dot
// less that mean, and a rescore costs O(budget·Dim) for the new query
// plus O(budget·W) for the statistics instead of O(budget·W·Dim). The
// scores are the same up to float32 rounding (the dots are taken before
// centring); TestExpectedCachedMatchesDirect bounds the difference.
//
// Positions: kvpress takes pre-RoPE queries and averages the RoPE rotation
// over the next 512 positions before scoring post-RoPE keys. kvscope's
// synthetic stream has no RoPE: position enters keys and queries through
// rotating "locality" directions built into the vectors, so the recent
// queries are used as they are — they carry the current phase, which
// favours keys the near future will look at. In real-model mode the cache
// holds rotated keys and Step receives rotated queries, so the statistics
// are those of the recent rotated queries, without the averaging over
// future rotations.
//
// State: the query window (W·Heads·Dim float32 per layer) and one float32
// value norm per cached token and head.
func init() {
	define(Expected, &policyDef{
		desc: Description{
			Name: "expected", Label: "ExpectedAttention", Color: "#f0e442", Scored: "highest expected attention", Work: 4,
			Short: "keeps the keys future queries are expected to attend to, times the value's norm",
			Help:  "Predicts the attention future queries will pay each key from the mean and spread of the recent queries — if q is Gaussian, E[exp(q·k/√d)] = exp(k·μ/√d + ½·kᵀΣk/d) — and weighs it by the value's size. kvpress's default: it looks ahead instead of back.",
			Paper: "Devoto et al., Expected Attention: KV Cache Compression by Estimating Attention from Future Queries Distribution, arXiv 2510.00636",
			Reads: []Setting{
				{Param: ParamSink, Budget: true, Means: "4 keeps the first 4 tokens, as kvpress does"},
				{Param: ParamRecent, Budget: true}, {Param: ParamHeavy, Budget: true},
				{Param: ParamShared}, {Param: ParamAlloc}, {Param: ParamMerge},
			},
		},
		budgeted: true, sinks: true, recent: true, scoredRole: Heavy, valueNorms: true, stateBytes: 4,
		setup: func(l *Layer) {
			c := &l.cfg
			l.state = &expectedState{
				ring: make([]float32, ExpectedWindow*c.Heads*c.Dim), mu: make([]float32, c.Dim), dq: make([]float32, c.Dim),
				buf: make([]float32, l.capacity), logit: make([]float64, l.capacity),
			}
		},
		reset: func(l *Layer) {
			st := l.state.(*expectedState)
			st.n, st.next, st.fresh = 0, 0, 0
			for i := range st.at {
				st.at[i] = -1
			}
		},
		observe: func(l *Layer, q []float32, _ int) {
			st := l.state.(*expectedState)
			qs := l.cfg.Heads * l.cfg.Dim
			copy(st.ring[st.next*qs:(st.next+1)*qs], q)
			st.fresh |= 1 << st.next
			st.next = (st.next + 1) % ExpectedWindow
			st.n = min(st.n+1, ExpectedWindow)
		},
		rescore: (*Layer).expectedScores,
		extraBytes: func(l *Layer) int64 {
			return 4 * int64(ExpectedWindow*l.cfg.Heads*l.cfg.Dim)
		},
	})
}

// expectedState holds ExpectedAttention's query window and scratch.
type expectedState struct {
	ring    []float32 // ExpectedWindow × Heads × Dim: the last queries
	n, next int       // queries held; the ring slot written next
	mu, dq  []float32 // Dim
	buf     []float32 // capacity
	logit   []float64 // capacity

	// The cached dots (Fixed key stores): dots[((qh·W)+j)·capacity+slot]
	// is ring query j of query head qh against the key in slot, valid
	// while at[g·capacity+slot] is the position the slot held when they
	// were taken; fresh has bit j set when ring query j changed since.
	dots  []float32
	at    []int32
	fresh uint32
	stale []int // scratch: the slots whose dots are taken afresh
}

// fixedKeys reports whether every head's keys keep their stored form
// from Append to eviction, so that dots taken once stay valid.
func (l *Layer) fixedKeys() bool {
	for g := range l.heads {
		f, ok := l.heads[g].keys.(interface{ Fixed() bool })
		if !ok || !f.Fixed() {
			return false
		}
	}
	return true
}

// expectedScores sets every head's scores to ExpectedAttention's.
func (l *Layer) expectedScores() {
	if l.fixedKeys() {
		l.expectedScoresCached()
		return
	}
	l.expectedScoresDirect()
}

// expectedScoresCached is expectedScores from the cached dots.
func (l *Layer) expectedScoresCached() {
	st := l.state.(*expectedState)
	c := &l.cfg
	d := c.Dim
	qs := c.Heads * d
	const w = ExpectedWindow
	if st.n == 0 {
		return
	}
	capa := l.capacity
	if st.dots == nil {
		st.dots = make([]float32, c.Heads*w*capa)
		st.at = make([]int32, c.KVHeads*capa)
		for i := range st.at {
			st.at[i] = -1
		}
		st.stale = make([]int, 0, capa)
		st.fresh = 1<<w - 1
	}
	isd := 1 / math.Sqrt(float64(d))
	f := 0.5 / (float64(st.n) * float64(d))
	inv := 1 / float64(st.n)
	for g := range l.heads {
		h := &l.heads[g]
		n := len(h.pos)
		at := st.at[g*capa : (g+1)*capa]
		// Keys new to their slot: their dots with every ring query.
		st.stale = st.stale[:0]
		for i, slot := range h.kslot {
			if at[slot] != h.pos[i] {
				st.stale = append(st.stale, slot)
				at[slot] = h.pos[i]
			}
		}
		clear(h.score)
		for r := range l.group {
			qh := g*l.group + r
			base := qh * w * capa
			for j := range st.n {
				q := st.ring[j*qs+qh*d : j*qs+(qh+1)*d]
				row := st.dots[base+j*capa : base+(j+1)*capa]
				switch {
				case st.fresh&(1<<j) != 0:
					buf := st.buf[:n]
					h.keys.Dots(q, h.kslot, buf)
					for i, slot := range h.kslot {
						row[slot] = buf[i]
					}
				case len(st.stale) > 0:
					buf := st.buf[:len(st.stale)]
					h.keys.Dots(q, st.stale, buf)
					for i, slot := range st.stale {
						row[slot] = buf[i]
					}
				}
			}
			logit := st.logit[:n]
			for i, slot := range h.kslot {
				var m float64
				for j := range st.n {
					m += float64(st.dots[base+j*capa+slot])
				}
				m *= inv
				var v float64
				for j := range st.n {
					x := float64(st.dots[base+j*capa+slot]) - m
					v += x * x
				}
				logit[i] = m*isd + f*v
			}
			addSoftmax(h.score, logit, float64(l.group))
		}
		for i, vn := range h.vnorm {
			h.score[i] *= float64(vn)
		}
	}
	st.fresh = 0
}

// addSoftmax adds softmax(logit)/group to score, overwriting logit.
func addSoftmax(score, logit []float64, group float64) {
	m := math.Inf(-1)
	for _, x := range logit {
		m = math.Max(m, x)
	}
	var z float64
	for i, x := range logit {
		logit[i] = math.Exp(x - m)
		z += logit[i]
	}
	for i, x := range logit {
		score[i] += x / z / group
	}
}

// expectedScoresDirect is expectedScores computed afresh from the window.
func (l *Layer) expectedScoresDirect() {
	st := l.state.(*expectedState)
	c := &l.cfg
	d := c.Dim
	qs := c.Heads * d
	if st.n == 0 {
		return
	}
	isd := 1 / math.Sqrt(float64(d))
	for g := range l.heads {
		h := &l.heads[g]
		n := len(h.pos)
		clear(h.score)
		for r := range l.group {
			qh := g*l.group + r
			clear(st.mu)
			for j := range st.n {
				for c, x := range st.ring[j*qs+qh*d : j*qs+(qh+1)*d] {
					st.mu[c] += x
				}
			}
			for c := range st.mu {
				st.mu[c] /= float32(st.n)
			}
			logit, buf := st.logit[:n], st.buf[:n]
			h.keys.Dots(st.mu, h.kslot, buf)
			for i, x := range buf {
				logit[i] = float64(x) * isd
			}
			// ½·kᵀΣk/d with Σ = (1/W)·Σ_j (q_j − μ)(q_j − μ)ᵀ.
			f := 0.5 / (float64(st.n) * float64(d))
			for j := range st.n {
				for c, x := range st.ring[j*qs+qh*d : j*qs+(qh+1)*d] {
					st.dq[c] = x - st.mu[c]
				}
				h.keys.Dots(st.dq, h.kslot, buf)
				for i, x := range buf {
					logit[i] += f * float64(x) * float64(x)
				}
			}
			addSoftmax(h.score, logit, float64(l.group))
		}
		for i, vn := range h.vnorm {
			h.score[i] *= float64(vn)
		}
	}
}
