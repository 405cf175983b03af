package store

// f32Codec is Uniform's layout at Bits 32: each stored coordinate as the
// float32 it is, 4 bytes (Payload).
type f32Codec struct {
	CodecDefaults
	sd int
	v  []float32 // capacity×sd
}

var _ Codec = (*f32Codec)(nil)

func newF32(sd, capacity int) *f32Codec {
	return &f32Codec{sd: sd, v: make([]float32, capacity*sd)}
}

func (c *f32Codec) row(slot int) []float32 { return c.v[slot*c.sd : (slot+1)*c.sd] }

func (c *f32Codec) Encode(slot int, x []float32)   { copy(c.row(slot), x) }
func (c *f32Codec) Decode(slot int, dst []float32) { copy(dst, c.row(slot)) }
func (c *f32Codec) Items(sealed int) Items         { return Items{Payload: int64(sealed * 4 * c.sd)} }
func (c *f32Codec) Add(acc []float32, w float32, slot int) {
	for j, v := range c.row(slot) {
		acc[j] += w * v
	}
}

func (c *f32Codec) Dot(qs []float32, slot int) float32 {
	var t float32
	for j, v := range c.row(slot) {
		t += qs[j] * v
	}
	return t
}
