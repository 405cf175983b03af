package store

import "github.com/kvscope/kvscope/core/quant"

// channelCodec is Uniform's online per-channel layout (PerChannel without
// a calibration; KIVI's keys): tokens are sealed GroupSize at a time, as a
// block whose every channel gets an FP16 scale and zero point fitted to
// that block's range (4 bytes per channel and block, Meta). The Store
// holds tokens in its FP16 residual until a block is full (blockCodec). An
// evicted token's codes stay as a hole (Holes) until its whole block is
// evicted. Dots folds each block's params into the query once per call,
// on the block's first use: q'_j = q_j·s_j and Σ q_j·m_j. Without a basis
// or rotation, Dots takes the kernel below (chanDots).
type channelCodec struct {
	s *Store
	codeRows
	sd, seal   int
	par        []quant.Params // blocks×sd
	blockOf    []int32        // per slot: its sealed block
	blockLive  []int32        // per block: live tokens
	blockHoles []int32        // per block: evicted tokens whose codes it still holds
	freeBlocks []int32
	blocks     int       // live blocks
	holes      int       // held holes over all blocks
	qch        []float32 // blocks×sd: qs ⊙ scales of the current call
	qconst     []float32 // per block: Σ qs ⊙ mins
	stamp      []uint32  // per block: call on which qch was filled
	call       uint32
	one        [1]int32 // the slot of a block of one (Encode)
	chanDots   bool     // no basis, no rotation: Dots takes dotsChannel
}

var _ Codec = (*channelCodec)(nil)

func newChannel(s *Store) *channelCodec {
	cfg, sd, capacity := s.cfg, s.sdim, s.capacity
	nb := capacity // each live block holds at least one live token
	c := &channelCodec{s: s, codeRows: newCodeRows(sd, cfg.Bits, capacity), sd: sd, seal: cfg.GroupSize,
		par: make([]quant.Params, nb*sd), blockLive: make([]int32, nb), blockHoles: make([]int32, nb),
		freeBlocks: make([]int32, 0, nb), qch: make([]float32, nb*sd), qconst: make([]float32, nb),
		stamp: make([]uint32, nb), blockOf: make([]int32, capacity)}
	c.chanDots = cfg.Basis == nil && cfg.Rotate == NoRotation
	c.Reset()
	return c
}

func (c *channelCodec) block() int { return c.seal }

func (c *channelCodec) blockParams(b int) []quant.Params { return c.par[b*c.sd : (b+1)*c.sd] }

// Encode seals slot alone, as a block of one.
func (c *channelCodec) Encode(slot int, x []float32) {
	c.one[0] = int32(slot)
	c.sealBlock(c.one[:], x)
}

// sealBlock takes a free block, fits each channel's params to the range
// of the block's tokens (rows of x) and packs each token's codes.
func (c *channelCodec) sealBlock(slots []int32, x []float32) {
	sd := c.sd
	b := c.freeBlocks[len(c.freeBlocks)-1]
	c.freeBlocks = c.freeBlocks[:len(c.freeBlocks)-1]
	par := c.blockParams(int(b))
	for j := range sd {
		lo, hi := x[j], x[j]
		for k := 1; k < len(slots); k++ {
			v := x[k*sd+j]
			if v < lo { // comparisons: the float min and max builtins are calls under WebAssembly
				lo = v
			}
			if v > hi {
				hi = v
			}
		}
		par[j] = mustFit(lo, hi, c.bits)
	}
	for k, slot := range slots {
		for j, v := range x[k*sd : (k+1)*sd] {
			c.cbuf[j] = par[j].Code(v, c.bits)
		}
		quant.Pack(c.row(int(slot)), c.cbuf, c.bits)
		c.blockOf[slot] = b
	}
	c.blockLive[b] = int32(len(slots))
	c.blockHoles[b] = 0
	c.blocks++
}

func (c *channelCodec) Decode(slot int, dst []float32) {
	cb := c.unpacked(slot)
	par := c.blockParams(int(c.blockOf[slot]))
	for j, v := range cb {
		dst[j] = par[j].Value(v)
	}
}

// Prepare starts a call: every block's query fold is made again on its
// first use.
func (c *channelCodec) Prepare([]float32) {
	c.call++
	if c.call == 0 { // wrapped: invalidate every stamp
		clear(c.stamp)
		c.call = 1
	}
}

func (c *channelCodec) Dot(qs []float32, slot int) float32 {
	b := int(c.blockOf[slot])
	return quant.DotPacked(c.blockQuery(b, qs), c.row(slot), c.bits) + c.qconst[b]
}

// blockQuery returns the query folded with block b's per-channel scales,
// q'_j = q_j·s_j, and sets qconst[b] = Σ q_j·m_j; both are made on the
// block's first use in a call (Prepare starts a call) and reused after.
func (c *channelCodec) blockQuery(b int, qs []float32) []float32 {
	sd := c.sd
	qb := c.qch[b*sd : (b+1)*sd]
	if c.stamp[b] != c.call {
		var t float32
		for j, p := range c.blockParams(b) {
			qb[j] = qs[j] * p.Scale
			t += qs[j] * p.Min
		}
		c.qconst[b] = t
		c.stamp[b] = c.call
	}
	return qb
}

func (c *channelCodec) Add(acc []float32, w float32, slot int) {
	addChannels(acc, w, c.blockParams(int(c.blockOf[slot])), c.unpacked(slot))
}

func (*channelCodec) BeginSum()        {}
func (*channelCodec) EndSum([]float32) {}

// Evict frees slot's block with its last live token; until then the
// token's codes are a hole.
func (c *channelCodec) Evict(slot int) {
	b := c.blockOf[slot]
	c.blockLive[b]--
	if c.blockLive[b] == 0 {
		c.holes -= int(c.blockHoles[b])
		c.blockHoles[b] = 0
		c.blocks--
		c.freeBlocks = append(c.freeBlocks, b)
	} else {
		c.blockHoles[b]++
		c.holes++
	}
}

func (c *channelCodec) Reset() {
	c.freeBlocks = c.freeBlocks[:0]
	for b := len(c.blockLive) - 1; b >= 0; b-- {
		c.freeBlocks = append(c.freeBlocks, int32(b))
	}
	clear(c.blockLive)
	clear(c.blockHoles)
	c.blocks, c.holes = 0, 0
}

func (c *channelCodec) Items(sealed int) Items {
	return Items{Payload: int64(sealed * c.rowBytes), Meta: int64(c.blocks * c.sd * 4), Holes: int64(c.holes * c.rowBytes)}
}

func (c *channelCodec) kernelsOn() bool { return c.chanDots }

func (c *channelCodec) sumAll([]float32, []int, []float32) bool { return false }

// dotsAll is Dots for the chanDots layout; q has Dim values, len(dst) ==
// len(slots). Each block's query fold is made on first use in the call,
// as Dot makes it; 2-bit rows are dotted inline as quant.DotPacked dots
// them, other widths through quant.DotPacked. Like the tok8 kernels it
// computes exactly what the general path computes, term for term and in
// the same order, without the per-slot dispatch, calls and unpacking to a
// buffer: at small head dimensions (8 for the test model) the per-slot
// overhead outweighs the arithmetic.
func (c *channelCodec) dotsAll(q []float32, slots []int, dst []float32) bool {
	if !c.chanDots {
		return false
	}
	c.Prepare(q)
	state := c.s.state
	d, rb, bits := c.sd, c.rowBytes, c.bits
	q = q[:d]
	dst = dst[:len(slots)]
	for i, slot := range slots {
		if state[slot] != slotSealed {
			dst[i] = c.s.unsealedDot(q, slot)
			continue
		}
		b := int(c.blockOf[slot])
		qb := c.blockQuery(b, q)
		row := c.codes[slot*rb:][:rb]
		var t float32
		if bits == 2 {
			t = dot2(qb, row)
		} else {
			t = quant.DotPacked(qb, row, bits)
		}
		dst[i] = t + c.qconst[b]
	}
	return true
}

// dot2 is quant.DotPacked(q, src, 2): four codes per byte, low bits
// first; full bytes add their four terms to the running sum as one
// expression, and a partial last byte's terms are summed apart and added
// at the end. src holds at least (len(q)+3)/4 bytes.
func dot2(q []float32, src []byte) float32 {
	var s float32
	i := 0
	for ; i+3 < len(q); i += 4 {
		b := src[i/4]
		s += q[i]*float32(b&3) + q[i+1]*float32(b>>2&3) +
			q[i+2]*float32(b>>4&3) + q[i+3]*float32(b>>6)
	}
	if i == len(q) {
		return s
	}
	var r float32
	b := src[i/4]
	for k := 0; i < len(q); i, k = i+1, k+2 {
		r += q[i] * float32(b>>k&3)
	}
	return s + r
}
