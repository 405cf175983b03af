package store

import (
	"fmt"
	"strings"
)

// A Codec holds the sealed tokens of one Store in its own layout: each
// token's stored coordinates (StoredDim values, after the basis projection
// and the rotations; see Config), indexed by the Store's slot. The Store
// keeps everything else — the FP16 residual window and sinks, the basis and
// rotations, the outliers, which slots are live — and calls the Codec only
// for sealed slots.
//
// Each quantizer is one Codec type in its own file (f32.go, f16.go,
// token.go, fixed.go, channel.go for Uniform's layouts; turbo.go, qjl.go),
// registered with its QuantizerDef. Every method is called on the decoding
// path and must allocate nothing; a Codec is used by one Store at a time.
type Codec interface {
	// Encode codes c, the stored coordinates of the token entering slot,
	// into the slot. c is read only and not kept.
	Encode(slot int, c []float32)
	// Decode sets dst (StoredDim values) to what slot's codes decode to.
	Decode(slot int, dst []float32)
	// Prepare is called once per Store.Dots call, with the query in stored
	// coordinates, before any Dot of that call: the place to fold the
	// query with per-call tables.
	Prepare(qs []float32)
	// Dot returns qs·x̂ for slot's token in stored coordinates: the dot
	// product with what Decode returns, up to float32 rounding.
	Dot(qs []float32, slot int) float32
	// BeginSum, Add and EndSum make one Store.WeightedSum call: BeginSum,
	// then Add(acc, w, slot) for each sealed slot, adding w·x̂ of slot's
	// token to acc (StoredDim values), then EndSum(acc) for anything
	// accumulated apart.
	BeginSum()
	Add(acc []float32, w float32, slot int)
	EndSum(acc []float32)
	// Evict releases slot's token; Reset releases every token.
	Evict(slot int)
	Reset()
	// Items returns the bytes the codec holds for the sealed live tokens,
	// sealed of them: their payload, per-token params and norms, sketches,
	// holes it still holds. The per-store tables are QuantizerDef.Tables's,
	// not counted here.
	Items(sealed int) Items
}

// CodecDefaults gives a Codec that embeds it Prepare, BeginSum, EndSum,
// Evict and Reset that do nothing.
type CodecDefaults struct{}

// Prepare does nothing.
func (CodecDefaults) Prepare([]float32) {}

// BeginSum does nothing.
func (CodecDefaults) BeginSum() {}

// EndSum does nothing.
func (CodecDefaults) EndSum([]float32) {}

// Evict does nothing.
func (CodecDefaults) Evict(int) {}

// Reset does nothing.
func (CodecDefaults) Reset() {}

// A QuantizerDef is everything about one quantizer: its names, the rules
// it adds to Config.Validate, its per-store tables and its Codec.
// Register adds one; the built-in quantizers are defined the same way,
// each in its codec's file.
type QuantizerDef struct {
	Name  string // what ParseQuantizer accepts and Quantizer.String returns: lower case, no spaces
	Label string // a short title for menus
	Help  string // one line: what a token holds and how it is scored
	// Values is the name of the quantizer a KV cache codes its values with
	// when its keys use this one ("" for this one): a key quantizer built
	// for unbiased dot products may have a better partner for the vectors
	// attention outputs are made of.
	Values string
	// Validate, if set, checks c beyond Config.Validate's own rules (Bits
	// ≤ 8; no Basis, Calib or Outliers for a quantizer other than
	// Uniform) for a stored dimension of stored values.
	Validate func(c Config, stored int) error
	// Tables, if set, returns the bytes a Store of c holds once whatever
	// its tokens — codebooks, random matrices, calibrated params — for a
	// stored dimension of stored values (Codebook, Rotation or Meta).
	// The Store counts exactly these, so Config.Tables can project them
	// to any head dimension without building a Store.
	Tables func(c Config, stored int) Items
	// New returns the Codec of a Store of c holding at most capacity
	// tokens of stored values each, with every buffer allocated. It is nil
	// in the built-in quantizers' definitions (Quantizer.Def), which the
	// Store builds itself.
	New func(c Config, stored, capacity int) (Codec, error)

	// build, for the built-in codecs, is New with the Store itself: they
	// share its matrices and scratch and offer it kernels (see codec
	// hooks below).
	build func(s *Store) (Codec, error)
}

// quantizers holds every quantizer's definition, indexed by Quantizer: the
// built-in ones at their constants (defined by their files' init), then
// the registered ones.
var quantizers []*QuantizerDef

// Quantizers lists the names ParseQuantizer accepts, in Quantizer order;
// Register appends to it. Read it, do not change it.
var Quantizers []string

// defineQuantizer records built-in quantizer q; each codec file calls it
// from init.
func defineQuantizer(q Quantizer, d *QuantizerDef) {
	for len(quantizers) <= int(q) {
		quantizers = append(quantizers, nil)
		Quantizers = append(Quantizers, "")
	}
	if quantizers[q] != nil {
		panic("store: quantizer " + d.Name + " defined twice")
	}
	quantizers[q], Quantizers[q] = d, d.Name
}

// Register adds the quantizer d describes and returns its Quantizer, for
// Config.Quantizer: ParseQuantizer, Quantizers and every Store, Validate and
// Tables then know it as they know the built-in ones. It returns an error,
// registering nothing, if d has no New, its name is empty, holds upper
// case or spaces, or is taken. Register it from an init function (or
// before any Store is built): it is not safe for concurrent use.
func Register(d QuantizerDef) (Quantizer, error) {
	switch {
	case d.New == nil:
		return 0, fmt.Errorf("store: quantizer %q has no New", d.Name)
	case d.Name == "" || d.Name != strings.ToLower(d.Name) || strings.ContainsAny(d.Name, " \t\n,"):
		return 0, fmt.Errorf("store: quantizer name %q must be lower case without spaces or commas", d.Name)
	}
	if _, err := ParseQuantizer(d.Name); err == nil {
		return 0, fmt.Errorf("store: quantizer %q is already defined", d.Name)
	}
	q := Quantizer(max(len(quantizers), int(numQuantizers)))
	if int(q) > 255 {
		return 0, fmt.Errorf("store: too many quantizers")
	}
	defineQuantizer(q, &d)
	return q, nil
}

// def returns q's definition, nil for an unknown q.
func (q Quantizer) def() *QuantizerDef {
	if int(q) < len(quantizers) {
		return quantizers[q]
	}
	return nil
}

// Def returns a copy of q's definition, false for an unknown q.
func (q Quantizer) Def() (QuantizerDef, bool) {
	if d := q.def(); d != nil {
		return *d, true
	}
	return QuantizerDef{}, false
}

// String returns the name ParseQuantizer accepts.
func (q Quantizer) String() string { return nameOf(Quantizers, q, "Quantizer") }

// ParseQuantizer returns the Quantizer of the given name ("" is Uniform),
// or an error naming the quantizers there are.
func ParseQuantizer(s string) (Quantizer, error) {
	if s == "" {
		return Uniform, nil
	}
	return parseName[Quantizer](Quantizers, s, "quantizer")
}

// Tables returns the bytes a Store of c holds once whatever its tokens,
// for a stored dimension of stored values: its quantizer's codebooks,
// random matrices and calibrated params (QuantizerDef.Tables), as Items
// reports them. The low-rank basis, which Config.Basis fixes to one shape,
// is not included. It is zero for an unknown quantizer or one with no
// tables, and costs O(1): a projection to another head dimension asks it
// instead of building a Store.
func (c Config) Tables(stored int) Items {
	if d := c.Quantizer.def(); d != nil && d.Tables != nil {
		return d.Tables(c, stored)
	}
	return Items{}
}

// The hooks below are offered by built-in codecs only, found by the Store
// in New.

// blockCodec seals tokens in blocks of block() (the online per-channel
// layout): the Store holds them in its FP16 residual until a block is
// full, then calls sealBlock with the block's slots and their stored
// coordinates (len(slots) rows).
type blockCodec interface {
	block() int
	sealBlock(slots []int32, c []float32)
}

// kernels are whole-list Dots and WeightedSum over slots of every state
// (sealed, residual, sink), computing exactly what the Store's general path
// computes, for layouts common enough to deserve them (tok8.go,
// lowbit.go). Each reports whether it took the call; kernelsOn, asked once
// in New, whether the codec's layout has any kernel at all.
type kernels interface {
	kernelsOn() bool
	dotsAll(q []float32, slots []int, dst []float32) bool
	sumAll(w []float32, slots []int, dst []float32) bool
}

// outlierCodec is a codec that can hold a token's outliers apart (the
// dense-and-sparse option, outliers.go): Encode leaves the outliers marked
// in the Store out of its ranges, and decodedAt returns the value the code
// of stored coordinate j decodes to, right after Encode of slot.
type outlierCodec interface {
	decodedAt(slot, j int) float32
}

// directCodec codes a token straight from Append's input, checking its
// values on the way (calibrated params, no basis, rotation, residual,
// outliers or sinks): appendDirect returns Append's error, having coded
// slot partly, for the first value it refuses.
type directCodec interface {
	appendDirect(slot int, x []float32) error
}
