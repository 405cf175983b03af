package store

import (
	"fmt"

	"github.com/kvscope/kvscope/core/quant"
)

// fixedCodec is Uniform's calibrated layout (PerTensor, or PerChannel with
// a Calib): every token is coded with the calibration's fixed params, one
// pair for the tensor or one per channel, held once per store (Tables:
// 4 bytes each, Meta) — no per-token params. Dots folds the params into
// the query once per call: q·x̂ = Σ q'_j c_j + Σ q_j m_j with q'_j = q_j·s_j.
// Without a basis, rotation, residual, outliers or sinks, Append codes the
// token straight into its row (appendDirect), checking its values on the
// way.
type fixedCodec struct {
	codeRows
	par    []quant.Params // sd: each channel's params (a per-tensor pair repeated)
	lo     []float64      // sd: each channel's Min
	inv    []float64      // sd: each channel's 1/Scale, 0 for Scale 0
	top    float64        // the top code, 2^Bits − 1
	safe   bool           // every level is below quant.MaxFP16 − 1 (see quantizeFixed)
	qch    []float32      // sd: qs ⊙ scales of the current call
	qconst float32        // Σ qs ⊙ mins of the current call
}

var _ Codec = (*fixedCodec)(nil)

func newFixed(s *Store) (Codec, error) {
	cfg, sd := s.cfg, s.sdim
	p, err := cfg.Calib.Params(cfg.Bits)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	c := &fixedCodec{codeRows: newCodeRows(sd, cfg.Bits, s.capacity), par: make([]quant.Params, sd),
		lo: make([]float64, sd), inv: make([]float64, sd), top: float64(int(1)<<cfg.Bits - 1), safe: true,
		qch: make([]float32, sd)}
	for j := range sd {
		q := p[j%len(p)]
		c.par[j] = q
		c.lo[j] = float64(q.Min)
		if q.Scale != 0 {
			c.inv[j] = 1 / float64(q.Scale)
		}
		if float64(q.Min)+c.top*float64(q.Scale) >= quant.MaxFP16-1 {
			c.safe = false
		}
	}
	return c, nil
}

// Encode codes x, which the Store has checked (or clamped) to be finite
// and within FP16, so the kernel cannot fail.
func (c *fixedCodec) Encode(slot int, x []float32) {
	_ = c.quantizeFixed(c.cbuf, x)
	quant.Pack(c.row(slot), c.cbuf, c.bits)
}

// appendDirect codes x straight into slot's row, checking its values on
// the way (8-bit codes need no packing).
func (c *fixedCodec) appendDirect(slot int, x []float32) error {
	if c.bits == 8 {
		return c.quantizeFixed(c.row(slot), x)
	}
	if err := c.quantizeFixed(c.cbuf, x); err != nil {
		return err
	}
	quant.Pack(c.row(slot), c.cbuf, c.bits)
	return nil
}

func (c *fixedCodec) decodedAt(_, j int) float32 { return c.par[j].Value(c.cbuf[j]) }

func (c *fixedCodec) Decode(slot int, dst []float32) {
	for j, v := range c.unpacked(slot) {
		dst[j] = c.par[j].Value(v)
	}
}

func (c *fixedCodec) Prepare(qs []float32) {
	var t float32
	par := c.par[:len(qs)]
	for j, v := range qs {
		c.qch[j] = v * par[j].Scale
		t += v * par[j].Min
	}
	c.qconst = t
}

func (c *fixedCodec) Dot(_ []float32, slot int) float32 {
	return quant.DotPacked(c.qch, c.row(slot), c.bits) + c.qconst
}

func (c *fixedCodec) Add(acc []float32, w float32, slot int) {
	addChannels(acc, w, c.par, c.unpacked(slot))
}

func (*fixedCodec) BeginSum()        {}
func (*fixedCodec) EndSum([]float32) {}
func (*fixedCodec) Evict(int)        {}
func (*fixedCodec) Reset()           {}

func (c *fixedCodec) Items(sealed int) Items { return Items{Payload: int64(sealed * c.rowBytes)} }

// quantizeFixed sets dst[j] (len(x) ≤ sdim codes, one byte each) to the
// code of x[j] under the calibrated params of channel j, exactly as
// quant.Params.Code does, and returns Append's error for the first value of
// x that is NaN, infinite or beyond ±quant.MaxFP16 (dst is then partly
// written). When safe holds the range check costs nothing for values
// strictly inside their channel's levels, 0 < t < top: such a value is
// finite and, every level lying below MaxFP16 − 1, within FP16 range; only
// values that clamp (or land on code 0 exactly) are checked explicitly.
func (c *fixedCodec) quantizeFixed(dst []uint8, x []float32) error {
	lo, inv := c.lo[:len(x)], c.inv[:len(x)]
	dst = dst[:len(x)]
	top := c.top
	if !c.safe {
		for _, v := range x {
			if !(v >= -quant.MaxFP16 && v <= quant.MaxFP16) {
				return appendErr(v)
			}
		}
	}
	// Each x[j] is dead once converted and no t is a call argument: the
	// conversion can then write the register x[j] was loaded into instead
	// of merging into one that may hold the previous iteration's t
	// (CVTSS2SD keeps the upper half of its destination, a false dependency
	// that chains the iterations and made this loop several times slower).
	// quantizeFixedSlow recomputes what it needs. Four values per iteration
	// amortize the loop overhead.
	j := 0
	for {
		j += fixedRun(dst[j:], x[j:], lo[j:], inv[j:], top)
		if j > len(x)-4 {
			return c.quantizeFixedSlow(dst, x, j, len(x))
		}
		// One of the next four values may clamp: code them one by one.
		if err := c.quantizeFixedSlow(dst, x, j, j+4); err != nil {
			return err
		}
		j += 4
	}
}

// fixedRun codes x four values at a time, while all four codes lie
// strictly inside (0, top), and returns how many values it coded; see
// quantizeFixed. dst, lo and inv have at least len(x) entries.
//
// Each value costs a subtraction, a multiplication, the rounding addition,
// one conversion and one unsigned comparison of its result: a code c with
// 1 ≤ c ≤ top−1 proves 0 < t < top (quant.RoundCode), which is both the
// range in which quant.Params.Code returns exactly c and, under fixSafe,
// proof that the value is finite and within FP16 range. Anything else —
// clamped codes, code 0, NaN, infinities — ends the run.
func fixedRun(dst []uint8, x []float32, lo, inv []float64, top float64) int {
	lo, inv, dst = lo[:len(x)], inv[:len(x)], dst[:len(x)]
	inner := uint64(top) - 1 // codes 1..top−1
	j := 0
	for ; j < len(x)-3; j += 4 {
		c0 := quant.RoundCode((float64(x[j]) - lo[j]) * inv[j])
		c1 := quant.RoundCode((float64(x[j+1]) - lo[j+1]) * inv[j+1])
		c2 := quant.RoundCode((float64(x[j+2]) - lo[j+2]) * inv[j+2])
		c3 := quant.RoundCode((float64(x[j+3]) - lo[j+3]) * inv[j+3])
		if uint64(c0-1) >= inner || uint64(c1-1) >= inner || uint64(c2-1) >= inner || uint64(c3-1) >= inner {
			break
		}
		dst[j] = uint8(c0)
		dst[j+1] = uint8(c1)
		dst[j+2] = uint8(c2)
		dst[j+3] = uint8(c3)
	}
	return j
}

// quantizeFixedSlow is quantizeFixed one value at a time over x[from:to],
// for four values one of which may clamp and for the tail.
func (c *fixedCodec) quantizeFixedSlow(dst []uint8, x []float32, from, to int) error {
	for k := from; k < to; k++ {
		if t := (float64(x[k]) - c.lo[k]) * c.inv[k]; t > 0 && t < c.top {
			dst[k] = uint8(quant.RoundHalfUp(t))
			continue
		}
		c, err := c.clampFixed(x[k], c.lo[k], c.inv[k])
		if err != nil {
			return err
		}
		dst[k] = c
	}
	return nil
}

// clampFixed returns the code of v under the calibrated channel params
// (lo, inv) = (Min, 1/Scale), for a value whose code may clamp, or Append's
// error if v is not a finite value within FP16 range. It is kept out of
// line, off the common path.
//
//go:noinline
func (c *fixedCodec) clampFixed(v float32, lo, inv float64) (uint8, error) {
	if !(v >= -quant.MaxFP16 && v <= quant.MaxFP16) {
		return 0, appendErr(v)
	}
	t := (float64(v) - lo) * inv
	switch {
	case t >= c.top:
		return uint8(c.top), nil
	case t > 0:
		return uint8(quant.RoundHalfUp(t)), nil
	}
	return 0, nil
}
