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
// Reads: Sink, Recent, Heavy, Shared. Budget: Sink + Recent + Heavy.
// State: the query window (W·Heads·Dim float32 per layer) and one float32
// value norm per cached token and head.
func init() {
	define(Expected, &policyDef{
		name: "expected", params: budgetParams | ParamShared, budgeted: true, sinks: true, recent: true,
		scoredRole: Heavy, valueNorms: true, stateBytes: 4,
		setup: func(l *Layer) {
			c := &l.cfg
			l.state = &expectedState{
				ring: make([]float32, ExpectedWindow*c.Heads*c.Dim), mu: make([]float32, c.Dim), dq: make([]float32, c.Dim),
				buf: make([]float32, l.capacity), logit: make([]float64, l.capacity),
			}
		},
		reset: func(l *Layer) {
			st := l.state.(*expectedState)
			st.n, st.next = 0, 0
		},
		observe: func(l *Layer, q []float32, _ int) {
			st := l.state.(*expectedState)
			qs := l.cfg.Heads * l.cfg.Dim
			copy(st.ring[st.next*qs:(st.next+1)*qs], q)
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
}

// expectedScores sets every head's scores to ExpectedAttention's.
func (l *Layer) expectedScores() {
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
				h.score[i] += x / z / float64(l.group)
			}
		}
		for i, vn := range h.vnorm {
			h.score[i] *= float64(vn)
		}
	}
}
