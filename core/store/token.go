package store

import "github.com/kvscope/kvscope/core/quant"

// tokenCodec is Uniform's per-token layout (PerToken, PerGroup): each
// sealed token's codes are packed in a row of its own, with an FP16 scale
// and zero point per token or per group of GroupSize channels fitted to
// that token's range (4 bytes each, Meta). Dots folds them into the query:
// q·x̂ = Σ_g s_g·Σ q_i c_i + m_g·Σ q_i, with Σ q_i over each group once per
// call. 8-bit and 2-bit codes of one group per token have kernels of their
// own (tok8.go).
type tokenCodec struct {
	s *Store
	codeRows
	groups, gsize int
	aligned       bool           // every group's codes start on a byte boundary
	gbytes        int            // bytes of one group's codes when aligned
	par           []quant.Params // capacity×groups
	qsum          []float32      // groups: Σ qs over each group (Prepare)
	tok8          bool           // 8-bit codes, one group per token, no basis, rotation or outliers: the kernels of tok8.go
	fa, fb        []float32      // tok8: capacity; a WeightedSum's factors w·Scale and w·Min per slot
	tok2          bool           // 2-bit codes, one group per token, likewise (tok8.go)
}

var _ Codec = (*tokenCodec)(nil)

func newToken(s *Store) *tokenCodec {
	cfg, sd := s.cfg, s.sdim
	c := &tokenCodec{s: s, codeRows: newCodeRows(sd, cfg.Bits, s.capacity), groups: 1, gsize: sd}
	if cfg.Granularity == PerGroup {
		c.groups, c.gsize = sd/cfg.GroupSize, cfg.GroupSize
	}
	c.aligned = c.gsize*cfg.Bits%8 == 0
	c.gbytes = c.gsize * cfg.Bits / 8
	plain := cfg.Basis == nil && cfg.Rotate == NoRotation && cfg.Outliers == 0
	c.tok8 = cfg.Bits == 8 && c.groups == 1 && plain
	c.tok2 = cfg.Bits == 2 && c.groups == 1 && plain
	if c.tok8 {
		c.fa, c.fb = make([]float32, s.capacity), make([]float32, s.capacity)
	}
	c.par = make([]quant.Params, s.capacity*c.groups)
	c.qsum = make([]float32, c.groups)
	return c
}

func (c *tokenCodec) params(slot int) []quant.Params {
	return c.par[slot*c.groups : (slot+1)*c.groups]
}

// Encode fits each group's params to its range (leaving the Store's
// outliers out of it) and packs the codes.
func (c *tokenCodec) Encode(slot int, x []float32) {
	par := c.params(slot)
	s := c.s
	for g := range c.groups {
		grp := x[g*c.gsize : (g+1)*c.gsize]
		var lo, hi float32
		if s.nout > 0 {
			lo, hi = s.inlierRange(grp, g*c.gsize)
		} else {
			lo, hi = grp[0], grp[0]
			for _, v := range grp {
				if v < lo { // comparisons: the float min and max builtins are calls under WebAssembly
					lo = v
				}
				if v > hi {
					hi = v
				}
			}
		}
		par[g] = mustFit(lo, hi, c.bits)
		quant.Quantize(c.cbuf[g*c.gsize:(g+1)*c.gsize], grp, par[g], c.bits)
	}
	quant.Pack(c.row(slot), c.cbuf, c.bits)
}

func (c *tokenCodec) decodedAt(slot, j int) float32 {
	return c.par[slot*c.groups+j/c.gsize].Value(c.cbuf[j])
}

func (c *tokenCodec) Decode(slot int, dst []float32) {
	cb := c.unpacked(slot)
	for g, p := range c.params(slot) {
		for j, v := range cb[g*c.gsize : (g+1)*c.gsize] {
			dst[g*c.gsize+j] = p.Value(v)
		}
	}
}

func (c *tokenCodec) Prepare(qs []float32) {
	for g := range c.groups {
		var t float32
		for _, v := range qs[g*c.gsize : (g+1)*c.gsize] {
			t += v
		}
		c.qsum[g] = t
	}
}

func (c *tokenCodec) Dot(qs []float32, slot int) float32 {
	par := c.params(slot)
	row := c.row(slot)
	var t float32
	if c.aligned {
		gb := c.gbytes
		for g, p := range par {
			d := quant.DotPacked(qs[g*c.gsize:(g+1)*c.gsize], row[g*gb:(g+1)*gb], c.bits)
			t += p.Scale*d + p.Min*c.qsum[g]
		}
		return t
	}
	quant.Unpack(c.cbuf, row, c.bits)
	for g, p := range par {
		d := quant.DotCodes(qs[g*c.gsize:(g+1)*c.gsize], c.cbuf[g*c.gsize:(g+1)*c.gsize])
		t += p.Scale*d + p.Min*c.qsum[g]
	}
	return t
}

func (c *tokenCodec) Add(acc []float32, w float32, slot int) {
	cb := c.unpacked(slot)
	for g, p := range c.params(slot) {
		addAffine(acc[g*c.gsize:(g+1)*c.gsize], w*p.Scale, w*p.Min, cb[g*c.gsize:(g+1)*c.gsize])
	}
}

func (*tokenCodec) BeginSum()         {}
func (*tokenCodec) EndSum([]float32)  {}
func (*tokenCodec) Evict(int)         {}
func (*tokenCodec) Reset()            {}
func (c *tokenCodec) kernelsOn() bool { return c.tok8 || c.tok2 }
func (c *tokenCodec) Items(sealed int) Items {
	return Items{Payload: int64(sealed * c.rowBytes), Meta: int64(sealed * c.groups * 4)}
}

func (c *tokenCodec) dotsAll(q []float32, slots []int, dst []float32) bool {
	if !c.tok8 {
		return false
	}
	c.dotsTok8(q, slots, dst)
	return true
}

func (c *tokenCodec) sumAll(w []float32, slots []int, dst []float32) bool {
	switch {
	case c.tok8:
		c.weightedTok8(w, slots, dst)
	case c.tok2:
		c.weightedTok2(w, slots, dst)
	default:
		return false
	}
	return true
}
