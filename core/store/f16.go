package store

import "github.com/kvscope/kvscope/core/quant"

// f16Codec is Uniform's layout at Bits 16: each stored coordinate in
// FP16, 2 bytes (Payload).
type f16Codec struct {
	CodecDefaults
	sd int
	h  []uint16 // capacity×sd FP16 bits
}

var _ Codec = (*f16Codec)(nil)

func newF16(sd, capacity int) *f16Codec {
	return &f16Codec{sd: sd, h: make([]uint16, capacity*sd)}
}

func (c *f16Codec) row(slot int) []uint16 { return c.h[slot*c.sd : (slot+1)*c.sd] }

func (c *f16Codec) Encode(slot int, x []float32)       { quant.ToFP16(c.row(slot), x) }
func (c *f16Codec) Decode(slot int, dst []float32)     { quant.FromFP16(dst, c.row(slot)) }
func (c *f16Codec) Dot(qs []float32, slot int) float32 { return dotFP16(qs, c.row(slot)) }
func (c *f16Codec) Items(sealed int) Items             { return Items{Payload: int64(sealed * 2 * c.sd)} }
func (c *f16Codec) Add(acc []float32, w float32, slot int) {
	for j, h := range c.row(slot) {
		acc[j] += w * quant.FP16ToFloat32(h)
	}
}
