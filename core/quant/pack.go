package quant

import (
	"fmt"
	"iter"
)

// Codes of b bits are packed densely, least significant bit first: code i
// occupies bits i·b … i·b+b−1 of the stream, and stream bit k is bit k%8 of
// byte k/8. A 3-bit code can therefore straddle two bytes. Unused bits of the
// last byte are zero.

// PackedLen returns the bytes that n codes of the given width occupy,
// ⌈n·bits/8⌉. It panics if n < 0 or bits is unsupported.
func PackedLen(n, bits int) int {
	if n < 0 || ValidBits(bits) != nil {
		panic(fmt.Sprintf("quant: PackedLen(%d, %d) out of range", n, bits))
	}
	return (n*bits + 7) / 8
}

// Pack writes codes into dst[:PackedLen(len(codes), bits)] and returns that
// slice; bits above the width of each code are ignored. It panics if bits is
// unsupported or dst is too short. It allocates nothing.
func Pack(dst []byte, codes []uint8, bits int) []byte {
	n := PackedLen(len(codes), bits)
	if len(dst) < n {
		panic(fmt.Sprintf("quant: Pack into %d bytes, need %d", len(dst), n))
	}
	dst = dst[:n]
	mask := uint32(1)<<bits - 1
	switch bits {
	case 8:
		copy(dst, codes)
		return dst
	case 4:
		i := 0
		for ; i+1 < len(codes); i += 2 {
			dst[i/2] = codes[i]&0xf | codes[i+1]<<4
		}
		if i < len(codes) {
			dst[i/2] = codes[i] & 0xf
		}
		return dst
	}
	var buf uint32
	nb, j := 0, 0
	for _, c := range codes {
		buf |= (uint32(c) & mask) << nb
		nb += bits
		for nb >= 8 {
			dst[j] = byte(buf)
			j++
			buf >>= 8
			nb -= 8
		}
	}
	if nb > 0 {
		dst[j] = byte(buf)
	}
	return dst
}

// Unpack sets dst[i] to code i of src for every i < len(dst). It panics if
// bits is unsupported or src is shorter than PackedLen(len(dst), bits). It
// allocates nothing.
func Unpack(dst []uint8, src []byte, bits int) {
	if n := PackedLen(len(dst), bits); len(src) < n {
		panic(fmt.Sprintf("quant: Unpack from %d bytes, need %d", len(src), n))
	}
	switch bits {
	case 8:
		copy(dst, src)
		return
	case 4:
		i := 0
		for ; i+1 < len(dst); i += 2 {
			b := src[i/2]
			dst[i], dst[i+1] = b&0xf, b>>4
		}
		if i < len(dst) {
			dst[i] = src[i/2] & 0xf
		}
		return
	}
	for i, c := range codes(src, bits, len(dst)) {
		dst[i] = uint8(c)
	}
}

// codes yields the index and value of each of the first n codes of the
// given width (1 to 8 bits) packed in src as Pack packs them, in order; src
// must hold at least ⌈n·bits/8⌉ bytes (a shorter one panics with an index
// out of range). It is the one bit-stream decoder of the package: every
// kernel without a width of its own reads codes through it. Ranged over, it
// inlines into the caller's loop: no call per code, no allocation.
func codes(src []byte, bits, n int) iter.Seq2[int, uint32] {
	return func(yield func(int, uint32) bool) {
		// w is bits, unsigned and masked to 15 so that the compiler sees
		// every shift below is by less than 32 and checks none of them.
		w := uint(bits) & 15
		mask := uint32(1)<<w - 1
		var buf uint32
		var nb uint // bits in buf
		j := 0
		for i := range n {
			if nb < w { // one byte is enough: w ≤ 8
				buf |= uint32(src[j]) << nb
				j++
				nb += 8
			}
			if !yield(i, buf&mask) {
				return
			}
			buf >>= w
			nb -= w
		}
	}
}
