// Package store holds one attention head's cached keys (or values) at a
// chosen precision, addressed by slot, and reports the bytes it really holds.
//
// The eviction layer decides which tokens stay; a Store decides how they are
// kept: float32, FP16, or b-bit integer codes with FP16 params per token,
// per group of channels, per channel or per tensor, optionally behind an
// FP16 residual window of the newest tokens (KIVI) and optionally reduced to
// coefficients on a low-rank basis. Scores are computed from the codes
// directly (Dots), folding scale and zero point into the query.
//
// The frontier options (storeopts.go) add a Hadamard rotation before any
// quantizer (QuaRot), codebook and sketch quantizers without scales
// (TurboQuant-MSE, TurboQuant-prod, QJL), FP16 outliers with their indices
// (KVQuant) and FP16 sink tokens; Items counts every byte they hold.
//
// A Store preallocates everything in New; Append, Evict, Read and Dots
// allocate nothing. A Store is not safe for concurrent use.
package store

import (
	"fmt"
	"math"

	"github.com/kvscope/kvscope/core/quant"
)

// slot states
const (
	slotFree uint8 = iota
	slotResidual
	slotSealed
	slotSink // an FP16 full row kept for good (Config.Sinks)
)

// mode is how sealed tokens are held.
type mode uint8

const (
	modeF32     mode = iota // float32 values
	modeF16                 // FP16 values
	modeToken               // codes, params per token group (PerToken, PerGroup)
	modeFixed               // codes, fixed calibrated params (PerTensor, PerChannel)
	modeChannel             // codes, per-channel params per block of tokens (online PerChannel)
	modeTurbo               // codebook codes and an FP16 norm per token (Turbo, TurboProd; turbo.go)
	modeQJL                 // sign sketch and an FP16 norm per token (QJL; turbo.go)
)

// none marks an absent slot or block in the int32 links.
const none = -1

// Store holds up to a fixed number of vectors of one head. Each live token
// has a slot, returned by Append and valid until Evict or Reset; slots are
// reused. See Config for the storage choices.
type Store struct {
	cfg      Config
	mode     mode
	dim      int // input dimension
	sdim     int // stored dimension: Rank with a basis, else dim
	capacity int
	rowBytes int       // payload bytes of one compressed token
	basis    []float32 // sdim×dim, FP16-rounded; nil without a basis
	rot      []float32 // sdim×dim random orthogonal matrix, FP16-rounded (Turbo, TurboProd)
	mat      []float32 // basis or rot: the matrix project applies; nil if neither
	had      bool      // Hadamard rotation of the stored coordinates
	xf       bool      // stored coordinates are not the input's: mat != nil || had

	// Per slot.
	state  []uint8
	f32    []float32      // capacity×sdim (modeF32)
	f16    []uint16       // capacity×sdim (modeF16)
	codes  []byte         // capacity×rowBytes (code modes)
	tokPar []quant.Params // capacity×groups (modeToken)
	res    []uint16       // capacity×dim FP16 residual rows
	block  []int32        // sealed slot's block (modeChannel)

	free []int32 // free slots, popped from the end

	// Residual FIFO, oldest first: a doubly linked list through the slots.
	next, prev []int32
	head, tail int32
	nres       int
	hold       int // tokens the residual keeps: Residual
	seal       int // tokens sealed together: GroupSize for modeChannel, else 1

	// Token groups (modeToken).
	groups, gsize int
	aligned       bool // every group's codes start on a byte boundary
	gbytes        int  // bytes of one group's codes when aligned
	tok8          bool // 8-bit codes, one group per token, no basis: the common per-token layout
	tok2          bool // 2-bit codes, one group per token, no basis: KIVI's values (lowbit.go)
	chanDots      bool // online per-channel blocks, no basis: KIVI's keys (lowbit.go)

	// Channel params: modeFixed keeps one block (the calibration's params,
	// a per-tensor pair repeated for every channel); modeChannel keeps
	// blocks of sdim params.
	chPar      []quant.Params // blocks×sdim (modeChannel) or sdim (modeFixed)
	calPar     int            // modeFixed: params the calibration holds (1 or sdim)
	fixLo      []float64      // modeFixed, sdim: each channel's Min
	fixInv     []float64      // modeFixed, sdim: each channel's 1/Scale, 0 for Scale 0
	fixTop     float64        // modeFixed: the top code, 2^Bits − 1
	fixSafe    bool           // modeFixed: every level is below quant.MaxFP16 − 1 (see quantizeFixed)
	direct     bool           // Append quantizes straight into the slot (modeFixed, no basis, no residual)
	blockLive  []int32
	blockHoles []int32
	freeBlocks []int32

	// Codebook and sketch modes (turbo.go).
	cbBits  int       // code width of modeTurbo: Bits, or Bits−1 with a sketch
	cb      []float32 // 2^cbBits levels / √sdim (levels FP16-rounded)
	cbThr   []float32 // 2^cbBits − 1 midpoints between consecutive cb levels
	norm    []float32 // capacity: ‖stored vector‖, an FP16 value
	rnorm   []float32 // capacity: ‖residual‖, an FP16 value (TurboProd)
	rbuf    []float32 // sdim: the residual being sketched
	sk      []float32 // m×sdim Gaussian sketch matrix, FP16-rounded; nil without a sketch
	m       int       // sketch rows
	skBytes int       // bytes of one token's signs, ⌈m/8⌉
	signs   []byte    // capacity×skBytes
	sq      []float32 // m: S·qs of the current Dots call; sketch accumulator of WeightedSum
	sqSum   float32   // Σ sq of the current Dots call

	// Dense-and-sparse outliers (outliers.go).
	nout     int       // values kept in FP16 per sealed token
	outIdx   []uint16  // capacity×nout stored-coordinate indices
	outVal   []float32 // capacity×nout values, FP16-rounded
	outDelta []float32 // capacity×nout: value − decoded code, derived (outliers.go)
	outOn    []bool    // sdim: marks the outliers of the token being coded

	// Counters.
	live, sealed, blocks, holes int
	nsink, appended             int // live sink tokens; tokens appended toward Sinks since Reset

	// Scratch, sized in New.
	vec    []float32 // dim
	coef   []float32 // sdim
	cbuf   []uint8   // sdim codes
	blk    []float32 // seal×sdim coefficients of a block being sealed
	bslots []int32   // seal slots of a block being sealed
	qs     []float32 // sdim: the query in stored coordinates
	qsum   []float32 // groups: Σ qs over each group (modeToken)
	qch    []float32 // blocks×sdim (modeChannel) or sdim (modeFixed): qs ⊙ scales
	qconst []float32 // per block: Σ qs ⊙ mins
	stamp  []uint32  // per block: call on which qch was filled
	call   uint32
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
	switch {
	case cfg.Quantizer != Uniform:
		if err := s.initCodebook(); err != nil {
			return nil, err
		}
	case cfg.Bits == 32:
		s.mode, s.rowBytes = modeF32, 4*sd
		s.f32 = make([]float32, capacity*sd)
	case cfg.Bits == 16:
		s.mode, s.rowBytes = modeF16, 2*sd
		s.f16 = make([]uint16, capacity*sd)
	case cfg.Calib != nil:
		s.mode = modeFixed
		p, err := cfg.Calib.Params(cfg.Bits)
		if err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		s.calPar = len(p)
		s.chPar = make([]quant.Params, sd)
		s.fixLo = make([]float64, sd)
		s.fixInv = make([]float64, sd)
		s.fixTop = float64(int(1)<<cfg.Bits - 1)
		s.fixSafe = true
		for j := range sd {
			q := p[j%len(p)]
			s.chPar[j] = q
			s.fixLo[j] = float64(q.Min)
			if q.Scale != 0 {
				s.fixInv[j] = 1 / float64(q.Scale)
			}
			if float64(q.Min)+s.fixTop*float64(q.Scale) >= quant.MaxFP16-1 {
				s.fixSafe = false
			}
		}
		s.direct = cfg.Basis == nil && cfg.Residual == 0 && !s.had && cfg.Outliers == 0 && cfg.Sinks == 0
		s.qch = make([]float32, sd)
		s.qconst = make([]float32, 1)
	case cfg.Granularity == PerChannel:
		s.mode, s.seal = modeChannel, cfg.GroupSize
		nb := capacity // each live block holds at least one live token
		s.chPar = make([]quant.Params, nb*sd)
		s.blockLive = make([]int32, nb)
		s.blockHoles = make([]int32, nb)
		s.freeBlocks = make([]int32, 0, nb)
		s.qch = make([]float32, nb*sd)
		s.qconst = make([]float32, nb)
		s.stamp = make([]uint32, nb)
		s.block = make([]int32, capacity)
		s.blk = make([]float32, min(cfg.GroupSize, capacity)*sd)
		s.bslots = make([]int32, 0, min(cfg.GroupSize, capacity))
		s.chanDots = cfg.Basis == nil && !s.had
	default: // PerToken, PerGroup
		s.mode = modeToken
		s.groups, s.gsize = 1, sd
		if cfg.Granularity == PerGroup {
			s.groups, s.gsize = sd/cfg.GroupSize, cfg.GroupSize
		}
		s.aligned = s.gsize*cfg.Bits%8 == 0
		s.gbytes = s.gsize * cfg.Bits / 8
		plain := cfg.Basis == nil && !s.had && cfg.Outliers == 0
		s.tok8 = cfg.Bits == 8 && s.groups == 1 && plain
		s.tok2 = cfg.Bits == 2 && s.groups == 1 && plain
		s.tokPar = make([]quant.Params, capacity*s.groups)
		s.qsum = make([]float32, s.groups)
	}
	if s.mode >= modeToken && s.mode <= modeChannel {
		s.rowBytes = quant.PackedLen(sd, cfg.Bits)
		s.codes = make([]byte, capacity*s.rowBytes)
		s.cbuf = make([]uint8, sd)
	}
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

func (s *Store) usesResidual() bool { return s.hold > 0 || s.mode == modeChannel }

// Reset evicts every token, returning the Store to its state after New. It
// allocates nothing.
func (s *Store) Reset() {
	clear(s.state)
	s.free = s.free[:0]
	for i := s.capacity - 1; i >= 0; i-- {
		s.free = append(s.free, int32(i))
	}
	s.head, s.tail, s.nres = none, none, 0
	if s.mode == modeChannel {
		s.freeBlocks = s.freeBlocks[:0]
		for b := len(s.blockLive) - 1; b >= 0; b-- {
			s.freeBlocks = append(s.freeBlocks, int32(b))
		}
		clear(s.blockLive)
		clear(s.blockHoles)
	}
	s.live, s.sealed, s.blocks, s.holes = 0, 0, 0, 0
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
	if s.direct && len(s.free) > 0 {
		// Quantize into the free slot's row, checking the values on the way;
		// the slot is taken only once every value passed.
		slot := s.free[len(s.free)-1]
		var err error
		if s.cfg.Bits == 8 {
			err = s.quantizeFixed(s.codeRow(int(slot)), x)
		} else if err = s.quantizeFixed(s.cbuf, x); err == nil {
			quant.Pack(s.codeRow(int(slot)), s.cbuf, s.cfg.Bits)
		}
		if err != nil {
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

// quantizeFixed sets dst[j] (len(x) ≤ sdim codes, one byte each) to the
// code of x[j] under the calibrated params of channel j, exactly as
// quant.Params.Code does, and returns Append's error for the first value of
// x that is NaN, infinite or beyond ±quant.MaxFP16 (dst is then partly
// written). When fixSafe holds the range check costs nothing for values
// strictly inside their channel's levels, 0 < t < top: such a value is
// finite and, every level lying below MaxFP16 − 1, within FP16 range; only
// values that clamp (or land on code 0 exactly) are checked explicitly.
func (s *Store) quantizeFixed(dst []uint8, x []float32) error {
	lo, inv := s.fixLo[:len(x)], s.fixInv[:len(x)]
	dst = dst[:len(x)]
	top := s.fixTop
	if !s.fixSafe {
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
			return s.quantizeFixedSlow(dst, x, j, len(x))
		}
		// One of the next four values may clamp: code them one by one.
		if err := s.quantizeFixedSlow(dst, x, j, j+4); err != nil {
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
func (s *Store) quantizeFixedSlow(dst []uint8, x []float32, from, to int) error {
	for k := from; k < to; k++ {
		if t := (float64(x[k]) - s.fixLo[k]) * s.fixInv[k]; t > 0 && t < s.fixTop {
			dst[k] = uint8(quant.RoundHalfUp(t))
			continue
		}
		c, err := s.clampFixed(x[k], s.fixLo[k], s.fixInv[k])
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
func (s *Store) clampFixed(v float32, lo, inv float64) (uint8, error) {
	if !(v >= -quant.MaxFP16 && v <= quant.MaxFP16) {
		return 0, appendErr(v)
	}
	t := (float64(v) - lo) * inv
	switch {
	case t >= s.fixTop:
		return uint8(s.fixTop), nil
	case t > 0:
		return uint8(quant.RoundHalfUp(t)), nil
	}
	return 0, nil
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
		if s.mode == modeChannel {
			b := s.block[slot]
			s.blockLive[b]--
			if s.blockLive[b] == 0 {
				s.holes -= int(s.blockHoles[b])
				s.blockHoles[b] = 0
				s.blocks--
				s.freeBlocks = append(s.freeBlocks, b)
			} else {
				s.blockHoles[b]++
				s.holes++
			}
		}
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
	case s.mode <= modeF16:
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
// slot.
func (s *Store) decode(slot int, dst []float32) {
	sd := s.sdim
	switch s.mode {
	case modeF32:
		copy(dst, s.f32[slot*sd:(slot+1)*sd])
		return
	case modeF16:
		quant.FromFP16(dst, s.f16[slot*sd:(slot+1)*sd])
		return
	case modeTurbo, modeQJL:
		s.decodeCodebook(slot, dst)
		return
	}
	cb := s.unpacked(slot)
	switch s.mode {
	case modeToken:
		par := s.tokPar[slot*s.groups : (slot+1)*s.groups]
		for g, p := range par {
			for j, c := range cb[g*s.gsize : (g+1)*s.gsize] {
				dst[g*s.gsize+j] = p.Value(c)
			}
		}
	case modeFixed:
		for j, c := range cb {
			dst[j] = s.chPar[j].Value(c)
		}
	case modeChannel:
		par := s.chPar[int(s.block[slot])*sd : (int(s.block[slot])+1)*sd]
		for j, c := range cb {
			dst[j] = par[j].Value(c)
		}
	}
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
	m := Items{
		Payload:  int64(s.sealed * s.rowBytes),
		Residual: int64(s.nres * s.dim * 2),
		Holes:    int64(s.holes * s.rowBytes),
	}
	if s.basis != nil {
		m.Factors = int64(len(s.basis) * 2)
	}
	switch s.mode {
	case modeToken:
		m.Meta = int64(s.sealed * s.groups * 4)
	case modeFixed:
		m.Meta = int64(s.calPar * 4)
	case modeChannel:
		m.Meta = int64(s.blocks * s.sdim * 4)
	}
	s.optionMemory(&m)
	return m
}

func (s *Store) resRow(slot int) []uint16 { return s.res[slot*s.dim : (slot+1)*s.dim] }

// unpacked returns slot's codes one per byte: the row itself at 8 bits,
// else unpacked into the store's scratch (valid until the next call).
func (s *Store) unpacked(slot int) []uint8 {
	if s.cfg.Bits == 8 {
		return s.codeRow(slot)
	}
	quant.Unpack(s.cbuf, s.codeRow(slot), s.cfg.Bits)
	return s.cbuf
}

func (s *Store) codeRow(slot int) []byte {
	return s.codes[slot*s.rowBytes : (slot+1)*s.rowBytes]
}

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

// sealOldest compresses the s.seal oldest residual tokens.
func (s *Store) sealOldest() {
	if s.mode != modeChannel {
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
	b := s.freeBlocks[len(s.freeBlocks)-1]
	s.freeBlocks = s.freeBlocks[:len(s.freeBlocks)-1]
	par := s.chPar[int(b)*sd : (int(b)+1)*sd]
	for j := range sd {
		lo, hi := s.blk[j], s.blk[j]
		for k := 1; k < len(s.bslots); k++ {
			v := s.blk[k*sd+j]
			if v < lo { // comparisons: the float min and max builtins are calls under WebAssembly
				lo = v
			}
			if v > hi {
				hi = v
			}
		}
		par[j] = mustFit(lo, hi, s.cfg.Bits)
	}
	for k, slot := range s.bslots {
		for j, v := range s.blk[k*sd : (k+1)*sd] {
			s.cbuf[j] = par[j].Code(v, s.cfg.Bits)
		}
		quant.Pack(s.codeRow(int(slot)), s.cbuf, s.cfg.Bits)
		s.block[slot] = b
		s.state[slot] = slotSealed
	}
	s.blockLive[b] = int32(len(s.bslots))
	s.blockHoles[b] = 0
	s.blocks++
	s.sealed += len(s.bslots)
}

// compress stores x (dim values) in slot, compressed per the mode; not used
// by modeChannel, whose tokens are sealed in blocks.
func (s *Store) compress(slot int, x []float32) {
	c := x
	if s.xf {
		c = s.coef
		s.project(c, x)
	}
	if s.nout > 0 {
		s.takeOutliers(slot, c)
	}
	sd := s.sdim
	switch s.mode {
	case modeTurbo, modeQJL:
		s.compressCodebook(slot, c)
	case modeF32:
		copy(s.f32[slot*sd:(slot+1)*sd], c)
	case modeF16:
		quant.ToFP16(s.f16[slot*sd:(slot+1)*sd], c)
	case modeToken:
		par := s.tokPar[slot*s.groups : (slot+1)*s.groups]
		for g := range s.groups {
			grp := c[g*s.gsize : (g+1)*s.gsize]
			var lo, hi float32
			if s.nout > 0 {
				lo, hi = s.inlierRange(grp, g*s.gsize)
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
			par[g] = mustFit(lo, hi, s.cfg.Bits)
			quant.Quantize(s.cbuf[g*s.gsize:(g+1)*s.gsize], grp, par[g], s.cfg.Bits)
		}
		quant.Pack(s.codeRow(slot), s.cbuf, s.cfg.Bits)
	case modeFixed:
		// c is finite and within FP16 here (checked or clamped), so the
		// kernel cannot fail.
		_ = s.quantizeFixed(s.cbuf, c)
		quant.Pack(s.codeRow(slot), s.cbuf, s.cfg.Bits)
	}
	if s.nout > 0 {
		s.cacheDeltas(slot)
	}
	s.state[slot] = slotSealed
	s.sealed++
}

// project sets c (sdim values) to the stored coordinates of x: M·x with a
// projection matrix (basis or random rotation), x itself otherwise, then
// rotated by the Hadamard matrix if Rotate asks. Coordinates that will be
// held in FP16 are clamped to ±quant.MaxFP16 (reachable only for vectors of
// norm near it).
func (s *Store) project(c, x []float32) {
	switch {
	case s.rot != nil:
		s.rotate(c, x)
	case s.mat == nil:
		copy(c, x)
	default:
		for r := range c {
			var d float32
			for k, b := range s.mat[r*s.dim : (r+1)*s.dim] {
				d += b * x[k]
			}
			if s.mode != modeF32 {
				d = max(-quant.MaxFP16, min(quant.MaxFP16, d))
			}
			c[r] = d
		}
	}
	if s.had {
		quant.Hadamard(c)
		if s.mode != modeF32 {
			for r, d := range c {
				c[r] = max(-quant.MaxFP16, min(quant.MaxFP16, d))
			}
		}
	}
}

// mustFit is quant.Fit for a range the store has already checked: finite
// and within FP16, with supported bits.
func mustFit(lo, hi float32, bits int) quant.Params {
	p, err := quant.Fit(lo, hi, bits)
	if err != nil {
		panic("store: internal error: " + err.Error())
	}
	return p
}

// fp16 decodes FP16 bits.
func fp16(h uint16) float32 { return quant.FP16ToFloat32(h) }
