package store

import (
	"fmt"

	"github.com/kvscope/kvscope/core/quant"
)

// maxSketchRows bounds QJL's m = Bits·StoredDim, so that the sketch
// matrix stays reasonable.
const maxSketchRows = 1 << 12

// QJL (see Quantizer) keeps per token the FP16 norm ‖x‖ and the 1-bit
// sketch of x with m = Bits·StoredDim rows (sketch.go): Bits sign bits per
// coordinate (Sketch) and 2 bytes (Norms). Per store: the m×StoredDim
// sketch matrix, FP16 (Rotation). The estimate of q·x is linear in q, so
// Decode returns the vector √(π/2)/m·‖x‖·Sᵀ·sign(S·x) whose dot with q it
// is.
func init() {
	defineQuantizer(QJL, &QuantizerDef{
		Name: "qjl", Label: "QJL sketch (keys)", Values: "uniform",
		Help: "bits·dim sign bits of a Gaussian sketch + norm",
		Validate: func(c Config, stored int) error {
			if c.Bits*stored > maxSketchRows {
				return fmt.Errorf("store: QJL sketch of %d×%d rows is too large (at most %d)", c.Bits, stored, maxSketchRows)
			}
			return nil
		},
		Tables: func(c Config, sd int) Items { return Items{Rotation: int64(2 * c.Bits * sd * sd)} },
		build:  func(s *Store) (Codec, error) { return newQJL(s) },
	})
}

type qjlCodec struct {
	norm []float32 // capacity: ‖x‖, an FP16 value
	sk   *sketch
}

var _ Codec = (*qjlCodec)(nil)

func newQJL(s *Store) (*qjlCodec, error) {
	sk, err := newSketch(s.cfg.Seed, s.cfg.Bits*s.sdim, s.sdim, s.capacity)
	if err != nil {
		return nil, err
	}
	return &qjlCodec{norm: make([]float32, s.capacity), sk: sk}, nil
}

func (c *qjlCodec) Encode(slot int, x []float32) {
	c.norm[slot] = fp16Norm(x)
	c.sk.encode(slot, x)
}

// sketchNorm returns √(π/2)/m·‖x‖ of slot's token.
func (c *qjlCodec) sketchNorm(slot int) float32 {
	return float32(quant.QJLScale(c.sk.m)) * c.norm[slot]
}

func (c *qjlCodec) Decode(slot int, dst []float32) {
	clear(dst)
	c.sk.addSigns(dst, slot, c.sketchNorm(slot))
}

func (c *qjlCodec) Prepare(qs []float32) { c.sk.prepare(qs) }

func (c *qjlCodec) Dot(_ []float32, slot int) float32 {
	var t float32
	t += c.sketchNorm(slot) * (2*c.sk.signDot(slot) - c.sk.sqSum)
	return t
}

func (c *qjlCodec) BeginSum()                            { c.sk.begin() }
func (c *qjlCodec) Add(_ []float32, w float32, slot int) { c.sk.add(slot, w*c.sketchNorm(slot)) }
func (c *qjlCodec) EndSum(acc []float32)                 { c.sk.end(acc) }
func (*qjlCodec) Evict(int)                              {}
func (*qjlCodec) Reset()                                 {}
func (c *qjlCodec) Items(sealed int) Items {
	return Items{Norms: int64(sealed * 2), Sketch: int64(sealed * c.sk.bytes)}
}
