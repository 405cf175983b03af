package store

// Memory itemizes the bytes a Store holds for its live tokens, as a compact
// layout would hold them: packed codes, FP16 params and FP16 residual rows
// only for what is live (the Go arrays behind a Store are preallocated for
// its capacity and are not what Memory reports).
//
// The storage options' bytes are folded in (Items itemizes them apart):
// sign sketches in Payload, FP16 norms and FP16 outliers with their indices
// in Meta, FP16 sinks in Residual, codebooks and random matrices in Factors.
type Memory struct {
	Payload  int64 // compressed tokens: packed codes (or sign sketches), or 4 (float32) / 2 (FP16) bytes per stored value
	Meta     int64 // params: 4 bytes per (scale, zero point) pair (two FP16 values); norms, outliers and their indices
	Residual int64 // FP16 residual rows: 2 bytes per value of tokens not yet compressed; FP16 sink rows
	Factors  int64 // the low-rank basis: Rank×Dim FP16 values, once per store; codebooks and random matrices
	Holes    int64 // codes of evicted tokens inside per-channel blocks that still hold live tokens
}

// Total returns the sum of every item.
func (m Memory) Total() int64 {
	return m.Payload + m.Meta + m.Residual + m.Factors + m.Holes
}

// Add returns the item-wise sum of m and o, for totals over many stores.
func (m Memory) Add(o Memory) Memory {
	return Memory{
		Payload:  m.Payload + o.Payload,
		Meta:     m.Meta + o.Meta,
		Residual: m.Residual + o.Residual,
		Factors:  m.Factors + o.Factors,
		Holes:    m.Holes + o.Holes,
	}
}
