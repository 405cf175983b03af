package model

import (
	"fmt"

	"github.com/kvscope/kvscope/core/internal/kernels"
	"github.com/kvscope/kvscope/core/model/gguf"
)

// MulMat sets dst[t*Rows+i] = Σ_j m[i][j]·x[t*Cols+j] for the n positions
// t < n: the matrix times n vectors at once, as a prompt is processed. It
// reads each weight row once for all n positions (kernels.MatMatF32: four
// rows against every position in turn) — stored rows dequantized four at
// a time into rows (4·Cols values; F32 matrices need none) — so the
// weights stream once per prompt instead of once per token. On F32 a
// position's products equal MulVec's bit for bit; on stored types up to
// float32 rounding (the sums of a quantized row run over its dequantized
// values). It allocates nothing.
func (m *Matrix) MulMat(dst, x []float32, n int, rows []float32) {
	c := m.Cols
	x = x[:n*c]
	if m.Type == gguf.TypeF32 {
		kernels.MatMatF32(dst, m.F[:m.Rows*c], x, m.Rows, c, m.Rows)
		return
	}
	for i := 0; i < m.Rows; i += 4 {
		k := min(4, m.Rows-i)
		w := rows[:k*c]
		for r := range k {
			m.Row(i+r, w[r*c:(r+1)*c])
		}
		kernels.MatMatF32(dst[i:], w, x, k, c, m.Rows)
	}
}

// batch is the Runner's scratch for Prefill: n positions of every
// per-token vector, grown as prompts grow.
type batch struct {
	n                     int
	x, xb, q, k, v, att   []float32
	xb2, hb, hb2, rowsBuf []float32
}

func (b *batch) grow(c Config, n int) {
	if n <= b.n {
		return
	}
	b.n = n
	b.x, b.xb, b.xb2 = make([]float32, n*c.Dim), make([]float32, n*c.Dim), make([]float32, n*c.Dim)
	b.q, b.att = make([]float32, n*c.QDim()), make([]float32, n*c.QDim())
	b.k, b.v = make([]float32, n*c.KVDim()), make([]float32, n*c.KVDim())
	b.hb, b.hb2 = make([]float32, n*c.Hidden), make([]float32, n*c.Hidden)
	b.rowsBuf = make([]float32, 4*max(c.Dim, c.QDim(), c.Hidden))
}

// Prefill feeds tokens at positions Pos(), Pos()+1, … in one pass per
// layer: each weight matrix multiplies every position at once (MulMat),
// and attention runs through the cache position by position, layer by
// layer — the cache sees every position of layer l before any of layer
// l+1, which Cache implementations that keep layers apart (FullCache)
// accept. It returns the logits after the last token (the slice Logits
// returns), computing the classifier for that position only, and equals
// feeding the tokens to Forward one by one up to float32 rounding. It
// returns an error for an empty list, a token out of range or a cache
// error; the position then does not advance.
func (r *Runner) Prefill(tokens []int) ([]float32, error) {
	c := r.m.Config
	w := &r.m.Weights
	n := len(tokens)
	if n == 0 {
		return nil, fmt.Errorf("model: prefill of no tokens")
	}
	for _, t := range tokens {
		if t < 0 || t >= c.Vocab {
			return nil, fmt.Errorf("model: token %d out of range [0, %d)", t, c.Vocab)
		}
	}
	b := &r.batch
	b.grow(c, n)
	d, qd, kd, hd := c.Dim, c.QDim(), c.KVDim(), c.Hidden
	x := b.x[:n*d]
	for t, tok := range tokens {
		xt := x[t*d : (t+1)*d]
		w.Embedding.Row(tok, xt)
		if c.EmbedScale != 0 {
			for i := range xt {
				xt[i] *= c.EmbedScale
			}
		}
	}
	rows := b.rowsBuf
	for l := range w.Layers {
		ly := &w.Layers[l]
		m := &ly.Mats
		for t := range n {
			rmsNorm(b.xb[t*d:(t+1)*d], x[t*d:(t+1)*d], ly.AttnNorm, c.NormEps)
		}
		m.Wq.MulMat(b.q, b.xb, n, rows)
		m.Wk.MulMat(b.k, b.xb, n, rows)
		m.Wv.MulMat(b.v, b.xb, n, rows)
		for t := range n {
			q, k, v := b.q[t*qd:(t+1)*qd], b.k[t*kd:(t+1)*kd], b.v[t*kd:(t+1)*kd]
			addBias(q, ly.BQ)
			addBias(k, ly.BK)
			addBias(v, ly.BV)
			headNorm(q, ly.QNorm, c.NormEps)
			headNorm(k, ly.KNorm, c.NormEps)
			if err := r.cache.Attend(l, r.pos+t, q, k, v, b.att[t*qd:(t+1)*qd]); err != nil {
				return nil, err
			}
		}
		m.Wo.MulMat(b.xb2, b.att, n, rows)
		for t := range n {
			r.residualInto(x[t*d:(t+1)*d], b.xb2[t*d:(t+1)*d], ly.PostAttnNorm)
			rmsNorm(b.xb[t*d:(t+1)*d], x[t*d:(t+1)*d], ly.FFNNorm, c.NormEps)
		}
		m.WGate.MulMat(b.hb, b.xb, n, rows)
		m.WUp.MulMat(b.hb2, b.xb, n, rows)
		r.gate(b.hb[:n*hd], b.hb2[:n*hd])
		m.WDown.MulMat(b.xb2, b.hb, n, rows)
		for t := range n {
			r.residualInto(x[t*d:(t+1)*d], b.xb2[t*d:(t+1)*d], ly.PostFFNNorm)
		}
	}
	copy(r.x, x[(n-1)*d:n*d])
	rmsNorm(r.x, r.x, w.OutputNorm, c.NormEps)
	w.Classifier.MulVec(r.logits, r.x)
	r.pos += n
	return r.logits, nil
}
