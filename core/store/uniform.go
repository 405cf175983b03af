package store

import "github.com/kvscope/kvscope/core/quant"

// Uniform is the default quantizer: float32 (Bits 32), FP16 (Bits 16), or
// integer codes of Bits bits with an FP16 scale and zero point per token
// or group (token.go), per calibrated channel or tensor (fixed.go), or per
// channel of each block of GroupSize tokens (channel.go). Its only
// per-store table is a calibration's params, 4 bytes a channel (Meta).
func init() {
	defineQuantizer(Uniform, &QuantizerDef{
		Name: "uniform", Label: "uniform (scale + zero point)",
		Help: "scale + zero point per granularity",
		Tables: func(c Config, _ int) Items {
			if c.Calib == nil || c.Bits > quant.MaxBits {
				return Items{}
			}
			return Items{Meta: int64(4 * c.Calib.Channels())}
		},
		build: func(s *Store) (Codec, error) {
			cfg := s.cfg
			switch {
			case cfg.Bits == 32:
				return newF32(s.sdim, s.capacity), nil
			case cfg.Bits == 16:
				return newF16(s.sdim, s.capacity), nil
			case cfg.Calib != nil:
				return newFixed(s)
			case cfg.Granularity == PerChannel:
				return newChannel(s), nil
			}
			return newToken(s), nil
		},
	})
}

// codeRows are a codec's packed integer codes, rowBytes per slot, with
// scratch to unpack one row.
type codeRows struct {
	bits, rowBytes int
	codes          []byte  // capacity×rowBytes
	cbuf           []uint8 // sd codes: unpacking scratch, and the codes Encode has just packed
}

func newCodeRows(sd, bits, capacity int) codeRows {
	rb := quant.PackedLen(sd, bits)
	return codeRows{bits: bits, rowBytes: rb, codes: make([]byte, capacity*rb), cbuf: make([]uint8, sd)}
}

func (r *codeRows) row(slot int) []byte { return r.codes[slot*r.rowBytes : (slot+1)*r.rowBytes] }

// unpacked returns slot's codes one per byte: the row itself at 8 bits,
// else unpacked into cbuf (valid until the next call).
func (r *codeRows) unpacked(slot int) []uint8 {
	if r.bits == 8 {
		return r.row(slot)
	}
	quant.Unpack(r.cbuf, r.row(slot), r.bits)
	return r.cbuf
}

// addAffine adds a·codes[j] + b to out[j] for every j < len(out); codes
// has at least len(out) entries. Four channels per iteration amortize the
// loop overhead; each out[j] sees the same arithmetic as one at a time.
func addAffine(out []float32, a, b float32, codes []uint8) {
	codes = codes[:len(out)]
	j := 0
	for ; j < len(out)-3; j += 4 {
		out[j] += a*codeF32[codes[j]] + b
		out[j+1] += a*codeF32[codes[j+1]] + b
		out[j+2] += a*codeF32[codes[j+2]] + b
		out[j+3] += a*codeF32[codes[j+3]] + b
	}
	for ; j < len(out); j++ {
		out[j] += a*codeF32[codes[j]] + b
	}
}

// addChannels adds wi·(par[j].Scale·codes[j] + par[j].Min) to acc[j] for
// every channel j < len(acc); par and codes have at least len(acc) entries.
func addChannels(acc []float32, wi float32, par []quant.Params, codes []uint8) {
	par, codes = par[:len(acc)], codes[:len(acc)]
	j := 0
	for ; j < len(acc)-3; j += 4 {
		acc[j] += wi * (par[j].Scale*codeF32[codes[j]] + par[j].Min)
		acc[j+1] += wi * (par[j+1].Scale*codeF32[codes[j+1]] + par[j+1].Min)
		acc[j+2] += wi * (par[j+2].Scale*codeF32[codes[j+2]] + par[j+2].Min)
		acc[j+3] += wi * (par[j+3].Scale*codeF32[codes[j+3]] + par[j+3].Min)
	}
	for ; j < len(acc); j++ {
		acc[j] += wi * (par[j].Scale*codeF32[codes[j]] + par[j].Min)
	}
}

// codeF32[c] is float32(c): one load instead of a conversion.
var codeF32 = func() (t [256]float32) {
	for c := range t {
		t[c] = float32(c)
	}
	return t
}()

// mustFit is quant.Fit for a range the store has already checked: finite
// and within FP16, with supported bits.
func mustFit(lo, hi float32, bits int) quant.Params {
	p, err := quant.Fit(lo, hi, bits)
	if err != nil {
		panic("store: internal error: " + err.Error())
	}
	return p
}
