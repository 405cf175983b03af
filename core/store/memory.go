package store

// Memory itemizes the bytes a Store holds for its live tokens, as a compact
// layout would hold them: packed codes, FP16 params and FP16 residual rows
// only for what is live (the Go arrays behind a Store are preallocated for
// its capacity and are not what Memory reports).
type Memory struct {
	Payload  int64 // compressed tokens: packed codes, or 4 (float32) / 2 (FP16) bytes per stored value
	Meta     int64 // params: 4 bytes per (scale, zero point) pair (two FP16 values)
	Residual int64 // FP16 residual rows: 2 bytes per value of tokens not yet compressed
	Factors  int64 // the low-rank basis: Rank×Dim FP16 values, once per store
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
