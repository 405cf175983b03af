package quant

import "fmt"

// DotPacked returns Σ q[i]·code_i over the len(q) codes packed in src at the
// given width, without unpacking them to memory: the codes stay integers and
// only the query is floating point. Callers fold scale and zero point in
// around it (see the store package). It panics if bits is unsupported or src
// is shorter than PackedLen(len(q), bits). It allocates nothing.
func DotPacked(q []float32, src []byte, bits int) float32 {
	if n := PackedLen(len(q), bits); len(src) < n {
		panic(fmt.Sprintf("quant: DotPacked over %d bytes, need %d", len(src), n))
	}
	var s float32
	switch bits {
	case 8:
		src = src[:len(q)]
		for i, c := range src {
			s += q[i] * float32(c)
		}
		return s
	case 4:
		i := 0
		for ; i+1 < len(q); i += 2 {
			b := src[i/2]
			s += q[i]*float32(b&0xf) + q[i+1]*float32(b>>4)
		}
		if i < len(q) {
			s += q[i] * float32(src[i/2]&0xf)
		}
		return s
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

// dotBits is the generic bit-stream kernel of DotPacked; src starts on a
// byte boundary.
func dotBits(q []float32, src []byte, bits int) float32 {
	mask := uint32(1)<<bits - 1
	var s float32
	var buf uint32
	nb, j := 0, 0
	for i := range q {
		for nb < bits {
			buf |= uint32(src[j]) << nb
			j++
			nb += 8
		}
		s += q[i] * float32(buf&mask)
		buf >>= bits
		nb -= bits
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
