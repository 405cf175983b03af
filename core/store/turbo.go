package store

import (
	"math"

	"github.com/kvscope/kvscope/core/quant"
)

// Turbo and TurboProd are TurboQuant (see Quantizer): per token its FP16
// norm and, for the rotated unit vector, the codes of the nearest
// Lloyd–Max levels; TurboProd codes at Bits−1 bits and adds a 1-bit QJL
// sketch of the residual with its FP16 norm (sketch.go). The random
// rotation Π is the Store's projection matrix: tokens and queries are
// rotated by the Store, like a low-rank basis of full rank, and the codec
// works in the rotated coordinates. Per store: the codebook, 2^bits FP16
// levels (Codebook), Π and the sketch matrix, FP16 (Rotation).
func init() {
	defineQuantizer(Turbo, &QuantizerDef{
		Name: "turbo", Label: "TurboQuant",
		Help:   "TurboQuant-MSE (norm, random rotation, Lloyd–Max codebook)",
		Tables: turboTables,
		build:  func(s *Store) (Codec, error) { return newTurbo(s) },
	})
	defineQuantizer(TurboProd, &QuantizerDef{
		Name: "turbo-prod", Label: "TurboQuant-prod", Values: "turbo",
		Help:   "(bits−1)-bit turbo + 1-bit QJL sketch of the residual (unbiased q·k)",
		Tables: turboTables,
		build:  func(s *Store) (Codec, error) { return newTurbo(s) },
	})
}

// turboBits returns the code width and sketch rows of c's Turbo or
// TurboProd quantizer for a stored dimension of sd values.
func turboBits(c Config, sd int) (bits, m int) {
	if c.Quantizer == TurboProd {
		return c.Bits - 1, sd
	}
	return c.Bits, 0
}

// turboTables counts the codebook and the rotation (and TurboProd's
// sketch matrix), 2 bytes per FP16 value.
func turboTables(c Config, sd int) Items {
	bits, m := turboBits(c, sd)
	return Items{Codebook: int64(2 << bits), Rotation: int64(2 * (sd*sd + m*sd))}
}

type turboCodec struct {
	sd, bits, rowBytes int
	cb                 []float32 // 2^bits levels / √sd (levels FP16-rounded)
	thr                []float32 // 2^bits − 1 midpoints between consecutive levels
	codes              []byte    // capacity×rowBytes
	cbuf               []uint8   // sd codes
	norm               []float32 // capacity: ‖stored vector‖, an FP16 value
	rnorm              []float32 // capacity: ‖residual‖, an FP16 value (TurboProd)
	rbuf               []float32 // sd: the residual being sketched (TurboProd)
	sk                 *sketch   // TurboProd's sketch of the residual; nil for Turbo
}

var _ Codec = (*turboCodec)(nil)

// newTurbo makes the codebook, draws the rotation from Seed (and gives it
// to the Store as its projection) and, for TurboProd, the sketch.
func newTurbo(s *Store) (*turboCodec, error) {
	cfg, sd, capacity := s.cfg, s.sdim, s.capacity
	bits, m := turboBits(cfg, sd)
	levels, err := quant.LloydMax(bits)
	if err != nil {
		return nil, err
	}
	c := &turboCodec{sd: sd, bits: bits, rowBytes: packedBits(sd, bits)}
	// Coordinates of a rotated unit vector are close to N(0, 1/d): the
	// N(0, 1) levels, held in FP16, scaled by 1/√d.
	inv := 1 / math.Sqrt(float64(sd))
	c.cb = make([]float32, len(levels))
	for i, l := range levels {
		c.cb[i] = float32(float64(quant.RoundFP16(float32(l))) * inv)
	}
	c.thr = make([]float32, len(levels)-1)
	for i := range c.thr {
		c.thr[i] = (c.cb[i] + c.cb[i+1]) / 2
	}
	rot, err := quant.RandomOrthogonal(cfg.Seed, sd)
	if err != nil {
		return nil, err
	}
	for i, v := range rot {
		rot[i] = quant.RoundFP16(v)
	}
	s.rot, s.mat = rot, rot
	c.codes = make([]byte, capacity*c.rowBytes)
	c.cbuf = make([]uint8, sd)
	c.norm = make([]float32, capacity)
	if m > 0 {
		if c.sk, err = newSketch(cfg.Seed, m, sd, capacity); err != nil {
			return nil, err
		}
		c.rnorm = make([]float32, capacity)
		c.rbuf = make([]float32, sd)
	}
	return c, nil
}

func (c *turboCodec) row(slot int) []byte { return c.codes[slot*c.rowBytes : (slot+1)*c.rowBytes] }

// nearest returns the code of the level nearest to u: the number of
// midpoints below u.
func (c *turboCodec) nearest(u float32) uint8 {
	lo, hi := 0, len(c.thr)
	for lo < hi {
		mid := (lo + hi) / 2
		if u > c.thr[mid] {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return uint8(lo)
}

// Encode codes x, a token's rotated coordinates: its norm, the nearest
// level of each coordinate of x/‖x‖, and for TurboProd the sketch of the
// residual x − ‖x‖·ĉ with its norm.
func (c *turboCodec) Encode(slot int, x []float32) {
	n := fp16Norm(x)
	c.norm[slot] = n
	var inv float32
	if n > 0 {
		inv = 1 / n
	}
	for j, v := range x {
		c.cbuf[j] = c.nearest(v * inv)
	}
	packAny(c.row(slot), c.cbuf, c.bits)
	if c.sk == nil {
		return
	}
	r := c.rbuf
	for j, v := range x {
		r[j] = v - n*c.cb[c.cbuf[j]]
	}
	c.rnorm[slot] = fp16Norm(r)
	c.sk.encode(slot, r)
}

// sketchNorm returns √(π/2)/m·‖r‖ of slot's residual (TurboProd).
func (c *turboCodec) sketchNorm(slot int) float32 {
	return float32(quant.QJLScale(c.sk.m)) * c.rnorm[slot]
}

// Decode sets dst to ‖x‖·ĉ, plus √(π/2)/m·‖r‖·Sᵀ·sign(S·r) with a sketch.
func (c *turboCodec) Decode(slot int, dst []float32) {
	unpackAny(c.cbuf, c.row(slot), c.bits)
	n := c.norm[slot]
	for j, v := range c.cbuf {
		dst[j] = n * c.cb[v]
	}
	if c.sk != nil {
		c.sk.addSigns(dst, slot, c.sketchNorm(slot))
	}
}

// Prepare computes the sketch of the query, S·qs, and its sum (TurboProd).
func (c *turboCodec) Prepare(qs []float32) {
	if c.sk != nil {
		c.sk.prepare(qs)
	}
}

// Dot returns ‖x‖·Σ qs_j·ĉ_j, plus with a sketch √(π/2)/m·‖r‖·Σ_i
// ±(S·qs)_i = √(π/2)/m·‖r‖·(2·Σ_{i: sign +} (S·qs)_i − Σ_i (S·qs)_i).
func (c *turboCodec) Dot(qs []float32, slot int) float32 {
	t := quant.DotLevels(qs[:c.sd], c.row(slot), c.bits, c.cb) * c.norm[slot]
	if c.sk != nil {
		t += c.sketchNorm(slot) * (2*c.sk.signDot(slot) - c.sk.sqSum)
	}
	return t
}

func (c *turboCodec) BeginSum() {
	if c.sk != nil {
		c.sk.begin()
	}
}

// Add adds w·x̂ to acc; the sketch's part goes into the sketch's
// accumulator, taken through Sᵀ once by EndSum.
func (c *turboCodec) Add(acc []float32, w float32, slot int) {
	quant.AddLevels(acc[:c.sd], w*c.norm[slot], c.row(slot), c.bits, c.cb)
	if c.sk != nil {
		c.sk.add(slot, w*c.sketchNorm(slot))
	}
}

func (c *turboCodec) EndSum(acc []float32) {
	if c.sk != nil {
		c.sk.end(acc)
	}
}

func (*turboCodec) Evict(int) {}
func (*turboCodec) Reset()    {}

// Items counts the codes, the norms (two per token for TurboProd) and the
// sketches.
func (c *turboCodec) Items(sealed int) Items {
	m := Items{Payload: int64(sealed * c.rowBytes), Norms: int64(sealed * 2)}
	if c.sk != nil {
		m.Norms *= 2
		m.Sketch = int64(sealed * c.sk.bytes)
	}
	return m
}

// packedBits is ⌈n·bits/8⌉ for 1 ≤ bits ≤ 8.
func packedBits(n, bits int) int { return (n*bits + 7) / 8 }

// packAny packs codes of 1 to 8 bits as quant.Pack does (1-bit codes,
// which quant does not take, bit i of the stream being code i).
func packAny(dst []byte, codes []uint8, bits int) {
	if bits > 1 {
		quant.Pack(dst, codes, bits)
		return
	}
	dst = dst[:packedBits(len(codes), 1)]
	clear(dst)
	for i, c := range codes {
		dst[i>>3] |= (c & 1) << (i & 7)
	}
}

// unpackAny is the inverse of packAny.
func unpackAny(dst []uint8, src []byte, bits int) {
	if bits > 1 {
		quant.Unpack(dst, src, bits)
		return
	}
	for i := range dst {
		dst[i] = src[i>>3] >> (i & 7) & 1
	}
}

// fp16Norm returns ‖c‖ rounded to FP16 (clamped to quant.MaxFP16).
func fp16Norm(c []float32) float32 {
	var n2 float64
	for _, v := range c {
		n2 += float64(v) * float64(v)
	}
	return quant.RoundFP16(float32(min(math.Sqrt(n2), quant.MaxFP16)))
}
