package store

// Items itemizes the bytes a Store holds more finely than Memory, naming
// what the rotation, codebook, sketch, outlier and sink options hold. Its
// first five items are Memory's without those options; Memory folds the
// others into them (see Items.Memory).
type Items struct {
	Payload  int64 // packed codes of sealed tokens, or their float32 / FP16 values
	Meta     int64 // FP16 scale and zero point pairs, 4 bytes each
	Residual int64 // FP16 residual rows of tokens not yet compressed
	Factors  int64 // the FP16 low-rank basis, once per store
	Holes    int64 // codes of evicted tokens inside per-channel blocks that still hold live tokens

	Norms        int64 // FP16 norms: ‖x‖ per token (Turbo, TurboProd, QJL) and ‖r‖ of the residual (TurboProd)
	Sketch       int64 // QJL sign bits: ⌈m/8⌉ bytes per token (TurboProd, QJL)
	Codebook     int64 // FP16 codebook levels, 2 bytes × 2^bits once per store (Turbo, TurboProd)
	Rotation     int64 // FP16 random matrices once per store: rotation Π (d×d values), sketch S (m×d); the Hadamard rotation holds none
	Outliers     int64 // FP16 outlier values: 2 bytes each (Config.Outliers)
	OutlierIndex int64 // their indices: 1 byte each, 2 above 256 stored values
	Sinks        int64 // FP16 rows of the sink tokens (Config.Sinks)
}

// Memory folds the items into Memory's five: sign sketches are payload
// (they are the compressed token); norms and outliers with their indices
// are per-token side data beside the scales (Meta); FP16 sinks are
// uncompressed rows (Residual); codebooks and random matrices are fixed
// per-store tables (Factors). The total is unchanged.
func (m Items) Memory() Memory {
	return Memory{
		Payload:  m.Payload + m.Sketch,
		Meta:     m.Meta + m.Norms + m.Outliers + m.OutlierIndex,
		Residual: m.Residual + m.Sinks,
		Factors:  m.Factors + m.Codebook + m.Rotation,
		Holes:    m.Holes,
	}
}

// Total returns the sum of every item.
func (m Items) Total() int64 { return m.Memory().Total() }

// Add returns the item-wise sum of m and o, for totals over many stores.
func (m Items) Add(o Items) Items {
	return Items{
		Payload: m.Payload + o.Payload, Meta: m.Meta + o.Meta, Residual: m.Residual + o.Residual,
		Factors: m.Factors + o.Factors, Holes: m.Holes + o.Holes,
		Norms: m.Norms + o.Norms, Sketch: m.Sketch + o.Sketch, Codebook: m.Codebook + o.Codebook,
		Rotation: m.Rotation + o.Rotation, Outliers: m.Outliers + o.Outliers,
		OutlierIndex: m.OutlierIndex + o.OutlierIndex, Sinks: m.Sinks + o.Sinks,
	}
}
