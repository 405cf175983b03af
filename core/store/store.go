package store

import (
	"fmt"
	"math"

	"github.com/kvscope/kvscope/core/internal/fastmath"
	"github.com/kvscope/kvscope/core/quant"
)

// slot states
const (
	slotFree uint8 = iota
	slotResidual
	slotSealed
	slotSink // an FP16 full row kept for good (Config.Sinks)
)

// none marks an absent slot or block in the int32 links.
const none = -1

// Store holds up to a fixed number of vectors of one head. Each live token
// has a slot, returned by Append and valid until Evict or Reset; slots are
// reused. See Config for the storage choices.
type Store struct {
	cfg      Config
	codec    Codec        // how sealed tokens are coded
	dim      int          // input dimension
	sdim     int          // stored dimension: Rank with a basis, else dim
	capacity int          //
	basis    []float32    // sdim×dim, FP16-rounded; nil without a basis
	rot      []float32    // sdim×dim random orthogonal matrix, FP16-rounded (Turbo, TurboProd: the codec's)
	mat      []float32    // basis or rot: the matrix project applies; nil if neither
	had      bool         // Hadamard rotation of the stored coordinates
	xf       bool         // stored coordinates are not the input's: mat != nil || had
	tables   Items        // the codec's per-store tables (QuantizerDef.Tables)
	blocks   blockCodec   // the codec seals blocks of seal tokens; nil if it codes tokens one by one
	kern     kernels      // the codec's whole-list kernels; nil if it has none
	direct   directCodec  // Append codes straight into the slot (calibrated, nothing before the codec); else nil
	outc     outlierCodec // the codec, when it keeps outliers apart (Config.Outliers)

	// Per slot.
	state []uint8
	res   []uint16 // capacity×dim FP16 residual rows

	free []int32 // free slots, popped from the end

	// Residual FIFO, oldest first: a doubly linked list through the slots.
	next, prev []int32
	head, tail int32
	nres       int
	hold       int // tokens the residual keeps: Residual
	seal       int // tokens sealed together: the codec's block, else 1

	// Dense-and-sparse outliers (outliers.go).
	nout     int       // values kept in FP16 per sealed token
	outIdx   []uint16  // capacity×nout stored-coordinate indices
	outVal   []float32 // capacity×nout values, FP16-rounded
	outDelta []float32 // capacity×nout: value − decoded code, derived (outliers.go)
	outOn    []bool    // sdim: marks the outliers of the token being coded

	// Counters.
	live, sealed    int
	nsink, appended int // live sink tokens; tokens appended toward Sinks since Reset

	// Scratch, sized in New.
	vec    []float32 // dim
	coef   []float32 // sdim
	blk    []float32 // seal×sdim coefficients of a block being sealed
	bslots []int32   // seal slots of a block being sealed
	qs     []float32 // sdim: the query in stored coordinates
}

// New returns an empty Store for vectors of dim values holding at most
// capacity tokens at once, with every buffer allocated. It returns an error
// if cfg.Validate(dim) does or capacity < 1.
//
// With online PerChannel, a block seals only when GroupSize tokens older than
// the residual window are live together; a capacity below GroupSize+Residual
// therefore keeps every token in FP16.
func New(cfg Config, dim, capacity int) (*Store, error) {
	if err := cfg.Validate(dim); err != nil {
		return nil, err
	}
	if capacity < 1 {
		return nil, fmt.Errorf("store: capacity %d < 1", capacity)
	}
	s := &Store{cfg: cfg, dim: dim, sdim: dim, capacity: capacity, hold: cfg.Residual, seal: 1}
	if cfg.Basis != nil {
		s.sdim = len(cfg.Basis) / dim
		s.basis = make([]float32, len(cfg.Basis))
		for i, v := range cfg.Basis {
			s.basis[i] = quant.RoundFP16(v)
		}
	}
	s.mat, s.had = s.basis, cfg.Rotate == Hadamard
	sd := s.sdim
	d := cfg.Quantizer.def()
	var err error
	if d.build != nil {
		s.codec, err = d.build(s)
	} else {
		s.codec, err = d.New(cfg, sd, capacity)
		if err == nil && s.codec == nil {
			err = fmt.Errorf("store: quantizer %v made no codec", cfg.Quantizer)
		}
	}
	if err != nil {
		return nil, err
	}
	s.tables = cfg.Tables(sd)
	if b, ok := s.codec.(blockCodec); ok {
		s.blocks, s.seal = b, b.block()
		s.blk = make([]float32, min(s.seal, capacity)*sd)
		s.bslots = make([]int32, 0, min(s.seal, capacity))
	}
	if k, ok := s.codec.(kernels); ok && k.kernelsOn() {
		s.kern = k
	}
	if dc, ok := s.codec.(directCodec); ok && cfg.Basis == nil && cfg.Residual == 0 && !s.had && cfg.Outliers == 0 && cfg.Sinks == 0 {
		s.direct = dc
	}
	s.outc, _ = s.codec.(outlierCodec)
	s.xf = s.mat != nil || s.had
	s.allocOptions()
	if s.usesResidual() || cfg.Sinks > 0 {
		s.res = make([]uint16, capacity*dim)
	}
	s.state = make([]uint8, capacity)
	s.free = make([]int32, 0, capacity)
	s.next = make([]int32, capacity)
	s.prev = make([]int32, capacity)
	s.vec = make([]float32, dim)
	s.coef = make([]float32, sd)
	s.qs = make([]float32, sd)
	s.Reset()
	return s, nil
}

// usesResidual reports whether tokens pass through the FP16 residual.
// Fixed reports whether a token keeps its stored form from Append until
// it is evicted: true without an FP16 residual window and without
// per-channel groups, which compress tokens after they arrive. A reader
// may then keep what it computed from a slot (a dot product, say) until
// the slot is freed.
func (s *Store) Fixed() bool { return !s.usesResidual() }

func (s *Store) usesResidual() bool { return s.hold > 0 || s.blocks != nil }

// Reset evicts every token, returning the Store to its state after New. It
// allocates nothing.
func (s *Store) Reset() {
	clear(s.state)
	s.free = s.free[:0]
	for i := s.capacity - 1; i >= 0; i-- {
		s.free = append(s.free, int32(i))
	}
	s.head, s.tail, s.nres = none, none, 0
	s.codec.Reset()
	s.live, s.sealed = 0, 0
	s.nsink, s.appended = 0, 0
}

// Len returns the number of live tokens.
func (s *Store) Len() int { return s.live }

// Cap returns the capacity given to New.
func (s *Store) Cap() int { return s.capacity }

// Dim returns the dimension of the vectors the Store takes and returns.
func (s *Store) Dim() int { return s.dim }

// Config returns the configuration given to New.
func (s *Store) Config() Config { return s.cfg }

// Append stores x, the newest token, and returns its slot. The token enters
// the FP16 residual if there is one (which may compress the oldest residual
// tokens) and is compressed at once otherwise.
//
// Append returns an error, and changes nothing, if the store is full, len(x)
// is not Dim, or x holds NaN or Inf, or, unless Bits is 32 with no residual,
// a value beyond ±quant.MaxFP16. It allocates nothing.
func (s *Store) Append(x []float32) (int, error) {
	return s.append(x)
}

// Check returns the error Append would return for x's length or values
// (NaN, ±Inf, or beyond FP16 where FP16 is involved) without storing
// anything; it does not report a full store. It allocates nothing.
func (s *Store) Check(x []float32) error {
	if len(x) != s.dim {
		return fmt.Errorf("store: Append of %d values, want %d", len(x), s.dim)
	}
	limit := float32(math.MaxFloat32)
	if s.fp16Bound() {
		limit = quant.MaxFP16
	}
	for _, v := range x {
		if !(v >= -limit && v <= limit) {
			return appendErr(v)
		}
	}
	return nil
}

func (s *Store) append(x []float32) (int, error) {
	if len(x) != s.dim {
		return 0, fmt.Errorf("store: Append of %d values, want %d", len(x), s.dim)
	}
	if s.direct != nil && len(s.free) > 0 {
		// Code into the free slot, checking the values on the way; the
		// slot is taken only once every value passed.
		slot := s.free[len(s.free)-1]
		if err := s.direct.appendDirect(int(slot), x); err != nil {
			return 0, err
		}
		s.free = s.free[:len(s.free)-1]
		s.live++
		s.state[slot] = slotSealed
		s.sealed++
		return int(slot), nil
	}
	limit := float32(math.MaxFloat32)
	if s.fp16Bound() {
		limit = quant.MaxFP16
	}
	if !inRange(x, limit) {
		for _, v := range x {
			if !(v >= -limit && v <= limit) {
				return 0, appendErr(v)
			}
		}
	}
	if len(s.free) == 0 {
		return 0, fmt.Errorf("store: full (capacity %d)", s.capacity)
	}
	slot := s.free[len(s.free)-1]
	s.free = s.free[:len(s.free)-1]
	s.live++
	if s.appended < s.cfg.Sinks {
		s.appended++
		quant.ToFP16(s.resRow(int(slot)), x)
		s.state[slot] = slotSink
		s.nsink++
		return int(slot), nil
	}
	if !s.usesResidual() {
		s.compress(int(slot), x)
		return int(slot), nil
	}
	quant.ToFP16(s.resRow(int(slot)), x)
	s.state[slot] = slotResidual
	s.pushResidual(slot)
	for s.nres-s.hold >= s.seal {
		s.sealOldest()
	}
	return int(slot), nil
}

// inRange reports whether every value of x is a number within ±limit
// (limit positive and finite). For non-negative floats the order of the
// bit patterns is the order of the values, and ±Inf and NaN have larger
// patterns than any finite limit, so it takes the largest pattern with the
// sign cleared: an unsigned maximum per value and no branch, where two
// comparisons per value made Append's check branch-bound.
func inRange(x []float32, limit float32) bool {
	const sign = 1 << 31
	var m0, m1, m2, m3 uint32
	j := 0
	for ; j+4 <= len(x); j += 4 {
		x4 := x[j : j+4 : j+4]
		m0 = max(m0, math.Float32bits(x4[0])&^sign)
		m1 = max(m1, math.Float32bits(x4[1])&^sign)
		m2 = max(m2, math.Float32bits(x4[2])&^sign)
		m3 = max(m3, math.Float32bits(x4[3])&^sign)
	}
	for ; j < len(x); j++ {
		m0 = max(m0, math.Float32bits(x[j])&^sign)
	}
	return max(m0, m1, m2, m3) <= math.Float32bits(limit)
}

// UndoableAppend reports whether Evict of the slot Append has just
// returned puts the Store back exactly as it was before that Append: true
// unless tokens pass through an FP16 residual window, where an Append may
// compress older tokens. (Append refuses NaN and ±Inf, changing nothing, in
// every configuration.) A caller appending one token to several stores uses
// it to undo a partial append instead of validating the token beforehand.
func (s *Store) UndoableAppend() bool { return !s.usesResidual() && s.cfg.Sinks == 0 }

// fp16Bound reports whether Append refuses values beyond ±quant.MaxFP16:
// whenever any FP16 is involved.
func (s *Store) fp16Bound() bool {
	return s.cfg.Bits != 32 || s.usesResidual() || s.cfg.Sinks > 0
}

// appendErr is Append's error for a value v outside ±quant.MaxFP16 (or
// the float32 range) or not a number.
func appendErr(v float32) error {
	if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
		return fmt.Errorf("store: Append of %g", v)
	}
	return fmt.Errorf("store: Append of %g, beyond FP16 range ±%d", v, quant.MaxFP16)
}

// Evict removes the token in slot. Its bytes are released at once, except
// for a token of a sealed online per-channel block that still holds live
// tokens: its codes stay as a hole (Memory.Holes) until the whole block is
// evicted. It returns an error if slot is out of range or free. It
// allocates nothing.
func (s *Store) Evict(slot int) error {
	if slot < 0 || slot >= s.capacity || s.state[slot] == slotFree {
		return fmt.Errorf("store: Evict of slot %d, which holds no token", slot)
	}
	switch s.state[slot] {
	case slotResidual:
		s.unlinkResidual(int32(slot))
	case slotSink:
		s.nsink--
	case slotSealed:
		s.sealed--
		s.codec.Evict(slot)
	}
	s.state[slot] = slotFree
	s.free = append(s.free, int32(slot))
	s.live--
	return nil
}

// Kind returns how the token in slot is held, Empty for a free slot. It
// panics if slot is out of range.
func (s *Store) Kind(slot int) Kind {
	switch s.state[slot] {
	case slotFree:
		return Empty
	case slotResidual, slotSink:
		return Full
	}
	switch {
	case s.basis != nil:
		return LowRank
	case s.cfg.Bits >= 16:
		return Full
	}
	return Quantized
}

// Read sets dst to the reconstruction x̂ of the token in slot: what the
// stored bytes decode to. It panics if len(dst) is not Dim or the slot holds
// no token. It allocates nothing.
func (s *Store) Read(slot int, dst []float32) {
	if len(dst) != s.dim {
		panic(fmt.Sprintf("store: Read into %d values, want %d", len(dst), s.dim))
	}
	switch s.state[slot] {
	case slotFree:
		panic(fmt.Sprintf("store: Read of free slot %d", slot))
	case slotResidual, slotSink:
		quant.FromFP16(dst, s.resRow(slot))
		return
	}
	if !s.xf {
		s.decode(slot, dst)
		return
	}
	s.decode(slot, s.coef)
	s.back(dst, s.coef, false)
}

// back sets dst (Dim values), or adds to it when add is set, the input
// coordinates of c (sdim stored coordinates, overwritten): the inverse
// Hadamard rotation (the rotation itself) in place, then Mᵀ·c for the
// projection matrix M (basis or random rotation) if there is one. Without
// add, dst is cleared and every term added; with add, zero coefficients are
// skipped.
func (s *Store) back(dst, c []float32, add bool) {
	if s.had {
		quant.Hadamard(c)
	}
	if s.mat == nil {
		if !add {
			copy(dst, c)
			return
		}
		for k, v := range c {
			dst[k] += v
		}
		return
	}
	if !add {
		for k := range dst {
			dst[k] = 0
		}
	}
	for r, v := range c {
		if add && v == 0 {
			continue
		}
		row := s.mat[r*s.dim : (r+1)*s.dim]
		for k, b := range row {
			dst[k] += v * b
		}
	}
}

// decode sets dst (sdim values) to the dequantized stored vector of a sealed
// slot, its outliers put back.
func (s *Store) decode(slot int, dst []float32) {
	s.codec.Decode(slot, dst)
	if s.nout > 0 {
		s.putOutliers(slot, dst)
	}
}

// Memory returns the bytes the Store holds, itemized (see Memory; Items
// itemizes them further). It costs O(1).
func (s *Store) Memory() Memory { return s.Items().Memory() }

// Items returns the bytes the Store holds, itemized finely (see Items). It
// costs O(1).
func (s *Store) Items() Items {
	m := s.codec.Items(s.sealed).Add(s.tables)
	m.Residual += int64(s.nres * s.dim * 2)
	if s.basis != nil {
		m.Factors += int64(len(s.basis) * 2)
	}
	s.optionMemory(&m)
	return m
}

func (s *Store) resRow(slot int) []uint16 { return s.res[slot*s.dim : (slot+1)*s.dim] }

// pushResidual appends slot at the newest end of the residual FIFO.
func (s *Store) pushResidual(slot int32) {
	s.prev[slot], s.next[slot] = s.tail, none
	if s.tail == none {
		s.head = slot
	} else {
		s.next[s.tail] = slot
	}
	s.tail = slot
	s.nres++
}

// unlinkResidual removes slot from the residual FIFO.
func (s *Store) unlinkResidual(slot int32) {
	p, n := s.prev[slot], s.next[slot]
	if p == none {
		s.head = n
	} else {
		s.next[p] = n
	}
	if n == none {
		s.tail = p
	} else {
		s.prev[n] = p
	}
	s.nres--
}

// sealOldest compresses the s.seal oldest residual tokens: one token at a
// time, or a block of the codec's.
func (s *Store) sealOldest() {
	if s.blocks == nil {
		slot := s.head
		s.unlinkResidual(slot)
		quant.FromFP16(s.vec, s.resRow(int(slot)))
		s.compress(int(slot), s.vec)
		return
	}
	s.bslots = s.bslots[:0]
	sd := s.sdim
	for range s.seal {
		slot := s.head
		s.unlinkResidual(slot)
		s.bslots = append(s.bslots, slot)
		k := len(s.bslots) - 1
		quant.FromFP16(s.vec, s.resRow(int(slot)))
		s.project(s.blk[k*sd:(k+1)*sd], s.vec)
	}
	s.blocks.sealBlock(s.bslots, s.blk[:len(s.bslots)*sd])
	for _, slot := range s.bslots {
		s.state[slot] = slotSealed
	}
	s.sealed += len(s.bslots)
}

// compress stores x (dim values) in slot: projected to the stored
// coordinates, its outliers taken apart, coded by the codec.
func (s *Store) compress(slot int, x []float32) {
	c := x
	if s.xf {
		c = s.coef
		s.project(c, x)
	}
	if s.nout > 0 {
		s.takeOutliers(slot, c)
	}
	s.codec.Encode(slot, c)
	if s.nout > 0 {
		s.cacheDeltas(slot)
	}
	s.state[slot] = slotSealed
	s.sealed++
}

// project sets c (sdim values) to the stored coordinates of token x (see
// toStored), with the coordinates that will be held in FP16 — unless Bits
// is 32 — clamped to ±quant.MaxFP16 (reachable only for vectors of norm
// near it).
func (s *Store) project(c, x []float32) { s.toStored(c, x, s.cfg.Bits != 32) }

// toStored sets c (sdim values) to the stored coordinates of x (dim
// values): M·x with a projection matrix (basis or random rotation), x
// itself otherwise, then rotated by the Hadamard matrix if Rotate asks;
// with clamp, each coordinate is clamped to ±quant.MaxFP16 after each of
// the two. Tokens are projected with clamping (project), queries without
// (Dots).
func (s *Store) toStored(c, x []float32, clamp bool) {
	d := s.dim
	switch {
	case s.rot != nil:
		for r := range c {
			t := fastmath.Dot4(s.rot[r*d:(r+1)*d], x)
			if clamp {
				t = max(-quant.MaxFP16, min(quant.MaxFP16, t))
			}
			c[r] = t
		}
	case s.mat == nil:
		copy(c, x)
	default:
		for r := range c {
			var t float32
			for k, b := range s.mat[r*d : (r+1)*d] {
				t += b * x[k]
			}
			if clamp {
				t = max(-quant.MaxFP16, min(quant.MaxFP16, t))
			}
			c[r] = t
		}
	}
	if s.had {
		quant.Hadamard(c)
		if clamp {
			for r, t := range c {
				c[r] = max(-quant.MaxFP16, min(quant.MaxFP16, t))
			}
		}
	}
}

// fp16 decodes FP16 bits.
func fp16(h uint16) float32 { return quant.FP16ToFloat32(h) }
