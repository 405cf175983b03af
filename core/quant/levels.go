package quant

// Codebook kernels: the dot product with, and the scaled sum of, codes
// packed as Pack packs them (the low bits first) that stand for levels
// cb[c] rather than for the integers c. Each decodes the codes on the way:
// no pass unpacks them into a buffer. DotPacked's 4-bit kernel is
// DotLevels with the levels 0..15.

// DotLevels returns Σ q_i·cb[c_i] over the len(q) codes of the given width
// (1 to 8 bits) packed in row (for 1 bit, code i is bit i%8 of byte i/8).
// cb has 2^bits entries. The terms go to two partial sums (four codes to a
// byte at 2 bits: two each); the order is fixed, so the result is
// deterministic.
func DotLevels(q []float32, row []byte, bits int, cb []float32) float32 {
	switch bits {
	case 2:
		cb4 := (*[4]float32)(cb)
		var s0, s1 float32
		i := 0
		for ; i+4 <= len(q); i += 4 {
			c0, c1, c2, c3 := levels2(cb4, row[i/4])
			s0 += q[i]*c0 + q[i+1]*c1
			s1 += q[i+2]*c2 + q[i+3]*c3
		}
		for ; i < len(q); i++ {
			s0 += q[i] * cb4[row[i/4]>>(2*(i%4))&3]
		}
		return s0 + s1
	case 4:
		return dotLevels4(q, row, (*[16]float32)(cb))
	}
	var s0, s1 float32
	for i, c := range codes(row, bits, len(q)) {
		t := q[i] * cb[c]
		if i&1 == 0 {
			s0 += t
		} else {
			s1 += t
		}
	}
	return s0 + s1
}

// dotLevels4 is DotLevels at 4 bits: the low nibble's term to one sum, the
// high one's to the other.
func dotLevels4(q []float32, row []byte, cb *[16]float32) float32 {
	var s0, s1 float32
	i := 0
	for ; i+2 <= len(q); i += 2 {
		lo, hi := levels4(cb, row[i/2])
		s0 += q[i] * lo
		s1 += q[i+1] * hi
	}
	if i < len(q) {
		s0 += q[i] * cb[row[i/2]&15]
	}
	return s0 + s1
}

// AddLevels adds a·cb[c_i] to acc[i] for the len(acc) codes packed in row
// as DotLevels reads them.
func AddLevels(acc []float32, a float32, row []byte, bits int, cb []float32) {
	switch bits {
	case 2:
		cb4 := (*[4]float32)(cb)
		i := 0
		for ; i+4 <= len(acc); i += 4 {
			c0, c1, c2, c3 := levels2(cb4, row[i/4])
			acc[i] += a * c0
			acc[i+1] += a * c1
			acc[i+2] += a * c2
			acc[i+3] += a * c3
		}
		for ; i < len(acc); i++ {
			acc[i] += a * cb4[row[i/4]>>(2*(i%4))&3]
		}
		return
	case 4:
		cb16 := (*[16]float32)(cb)
		i := 0
		for ; i+2 <= len(acc); i += 2 {
			lo, hi := levels4(cb16, row[i/2])
			acc[i] += a * lo
			acc[i+1] += a * hi
		}
		if i < len(acc) {
			acc[i] += a * cb16[row[i/2]&15]
		}
		return
	}
	for i, c := range codes(row, bits, len(acc)) {
		acc[i] += a * cb[c]
	}
}

// levels2 returns the levels of the four 2-bit codes of b, low bits first.
func levels2(cb *[4]float32, b byte) (c0, c1, c2, c3 float32) {
	return cb[b&3], cb[b>>2&3], cb[b>>4&3], cb[b>>6]
}

// levels4 returns the levels of the two 4-bit codes of b, low nibble first.
func levels4(cb *[16]float32, b byte) (lo, hi float32) {
	return cb[b&15], cb[b>>4]
}
