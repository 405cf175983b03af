package quant

import "fmt"

// DotPacked returns Σ q[i]·code_i over the len(q) codes packed in src at the
// given width, without unpacking them to memory: the codes stay integers and
// only the query is floating point. Callers fold scale and zero point in
// around it (see the store package). The terms are added in a fixed order
// that keeps several partial sums (four for 8 bits, two for 4 bits) so the
// additions need not wait on each other; the result is deterministic and
// equals DotCodes up to float32 rounding. It panics if bits is unsupported
// or src is shorter than PackedLen(len(q), bits). It allocates nothing and
// costs O(len(q)).
func DotPacked(q []float32, src []byte, bits int) float32 {
	if bits < MinBits || bits > MaxBits || len(src) < (len(q)*bits+7)/8 {
		panic(fmt.Sprintf("quant: DotPacked of %d codes of %d bits over %d bytes", len(q), bits, len(src)))
	}
	var s float32
	switch bits {
	case 8:
		// Four partial sums: the additions of one sum wait on each other,
		// the four sums do not.
		src = src[:len(q)]
		var s0, s1, s2, s3 float32
		i := 0
		for ; i < len(q)-3; i += 4 {
			s0 += q[i] * codeF32[src[i]]
			s1 += q[i+1] * codeF32[src[i+1]]
			s2 += q[i+2] * codeF32[src[i+2]]
			s3 += q[i+3] * codeF32[src[i+3]]
		}
		for ; i < len(q); i++ {
			s0 += q[i] * codeF32[src[i]]
		}
		return (s0 + s1) + (s2 + s3)
	case 4:
		return dotLevels4(q, src, (*[16]float32)(codeF32[:16]))
	case 2:
		i := 0
		for ; i+3 < len(q); i += 4 {
			b := src[i/4]
			s += q[i]*float32(b&3) + q[i+1]*float32(b>>2&3) +
				q[i+2]*float32(b>>4&3) + q[i+3]*float32(b>>6)
		}
		return s + dotBits(q[i:], src[i/4:], 2)
	case 3:
		i, j := 0, 0
		for ; i+7 < len(q); i, j = i+8, j+3 {
			w := uint32(src[j]) | uint32(src[j+1])<<8 | uint32(src[j+2])<<16
			s += q[i]*float32(w&7) + q[i+1]*float32(w>>3&7) +
				q[i+2]*float32(w>>6&7) + q[i+3]*float32(w>>9&7) +
				q[i+4]*float32(w>>12&7) + q[i+5]*float32(w>>15&7) +
				q[i+6]*float32(w>>18&7) + q[i+7]*float32(w>>21&7)
		}
		return s + dotBits(q[i:], src[j:], 3)
	}
	return dotBits(q, src, bits)
}

// codeF32[c] is float32(c): one load instead of a conversion.
var codeF32 = func() (t [256]float32) {
	for c := range t {
		t[c] = float32(c)
	}
	return t
}()

// dotBits is the generic bit-stream kernel of DotPacked; src starts on a
// byte boundary.
func dotBits(q []float32, src []byte, bits int) float32 {
	var s float32
	for i, c := range codes(src, bits, len(q)) {
		s += q[i] * float32(c)
	}
	return s
}

// DotCodes returns Σ q[i]·float32(codes[i]), the unpacked reference of
// DotPacked. It panics if the lengths differ.
func DotCodes(q []float32, codes []uint8) float32 {
	if len(q) != len(codes) {
		panic("quant: DotCodes length mismatch")
	}
	var s float32
	for i, c := range codes {
		s += q[i] * float32(c)
	}
	return s
}
