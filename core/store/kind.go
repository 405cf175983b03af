package store

// Kind is how one slot's token is held.
type Kind uint8

// Kinds. The zero value, Empty, is a free slot.
const (
	Empty     Kind = iota // no token
	Full                  // float32 or FP16 full vector, including the FP16 residual
	Quantized             // integer codes with params, codebook codes, or a sign sketch (with norms)
	LowRank               // Rank basis coefficients (float32, FP16 or quantized)
)

// String returns the kind's lower-case name.
func (k Kind) String() string {
	switch k {
	case Empty:
		return "empty"
	case Full:
		return "full"
	case Quantized:
		return "quantized"
	case LowRank:
		return "low rank"
	}
	return "unknown"
}
