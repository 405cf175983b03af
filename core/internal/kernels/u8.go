package kernels

import (
	"fmt"
	"math"
)

// The byte-code gathers: core/store's 8-bit tokens keep one byte code per
// value, a row of n codes per slot, and attention reads the slots it
// keeps in a given order. The row numbers are Go ints (the store's slot
// lists), read in place.

// DotsU8 sets dst[i] = Σ_j q[j]·codes[rows[i]·len(q)+j] for every i below
// len(rows), len(dst) ≥ len(rows). Order per row: four lane sums a_l from
// +0, a_l += q[j]·c[j] for j ≡ l (mod 4) over the first len(q) − len(q)%4
// values in increasing j, then the last len(q)%4 products added to a0 one
// by one, then s = (a0+a1) + (a2+a3): quant.DotPacked's order at 8 bits.
// Every row must lie inside codes.
func DotsU8(dst, q []float32, codes []byte, rows []int) {
	if len(dst) < len(rows) {
		panic(fmt.Sprintf("kernels: DotsU8: %d results < %d rows", len(dst), len(rows)))
	}
	checkRows("DotsU8", codes, rows, len(q))
	if len(rows) == 0 {
		return
	}
	if simd128 && len(q) > 0 {
		simdDotsU8(dst, q, codes, rows)
		return
	}
	dotsU8Go(dst, q, codes, rows)
}

// AffineU8 adds, for each i below len(rows) in turn, a[i]·c + b[i] to
// every dst[j], c = codes[rows[i]·len(dst)+j], rounding as
// dst[j] = dst[j] + ((a[i]·c) + b[i]): the weighted sum of len(rows)
// affine-coded rows (code·scale + min, weighted). len(a) and len(b) are
// at least len(rows), and every row must lie inside codes.
func AffineU8(dst, a, b []float32, codes []byte, rows []int) {
	if len(a) < len(rows) || len(b) < len(rows) {
		panic(fmt.Sprintf("kernels: AffineU8: %d and %d factors < %d rows", len(a), len(b), len(rows)))
	}
	checkRows("AffineU8", codes, rows, len(dst))
	if len(rows) == 0 || len(dst) == 0 {
		return
	}
	if simd128 {
		simdAffineU8(dst, a, b, codes, rows)
		return
	}
	affineU8Go(dst, a, b, codes, rows)
}

// checkRows panics unless every row of n codes that rows names lies inside
// codes.
func checkRows(name string, codes []byte, rows []int, n int) {
	limit := math.MaxInt // rows of no codes take no bytes
	if n > 0 {
		limit = len(codes) / n
	}
	for _, r := range rows {
		if r < 0 || r >= limit {
			panic(fmt.Sprintf("kernels: %s: row %d of %d codes outside %d bytes", name, r, n, len(codes)))
		}
	}
}

// dotsU8Go is DotsU8 in Go, two rows per pass: their lane sums are
// independent chains and share the loads of q.
func dotsU8Go(dst, q []float32, codes []byte, rows []int) {
	d := len(q)
	for i := 0; i < len(rows); i += 2 {
		// An odd count's last row is its own pair, computed twice.
		ra, rb := codes[rows[i]*d:][:d], codes[rows[min(i+1, len(rows)-1)]*d:][:d]
		var a0, a1, a2, a3, b0, b1, b2, b3 float32
		j := 0
		for ; j+4 <= d; j += 4 {
			q4 := (*[4]float32)(q[j:])
			a0, a1, a2, a3 = lanesU8(q4, (*[4]byte)(ra[j:]), a0, a1, a2, a3)
			b0, b1, b2, b3 = lanesU8(q4, (*[4]byte)(rb[j:]), b0, b1, b2, b3)
		}
		for ; j < d; j++ {
			a0 += q[j] * float32(ra[j])
			b0 += q[j] * float32(rb[j])
		}
		dst[i] = (a0 + a1) + (a2 + a3)
		if i+1 < len(rows) {
			dst[i+1] = (b0 + b1) + (b2 + b3)
		}
	}
}

// lanesU8 returns four lane sums after one chunk of four codes:
// a_l + q[l]·c[l]. It is small enough for the compiler to inline.
func lanesU8(q *[4]float32, c *[4]byte, a0, a1, a2, a3 float32) (float32, float32, float32, float32) {
	return a0 + q[0]*float32(c[0]), a1 + q[1]*float32(c[1]), a2 + q[2]*float32(c[2]), a3 + q[3]*float32(c[3])
}

// affineU8Go is AffineU8 in Go, four rows per pass sharing each dst[j]
// load and store (dst[j] sees the same additions in the same order).
func affineU8Go(dst, a, b []float32, codes []byte, rows []int) {
	d := len(dst)
	i := 0
	for ; i+3 < len(rows); i += 4 {
		a4, b4 := a[i:i+4:i+4], b[i:i+4:i+4]
		c0, c1, c2, c3 := codes[rows[i]*d:][:d], codes[rows[i+1]*d:][:d], codes[rows[i+2]*d:][:d], codes[rows[i+3]*d:][:d]
		for j := range dst {
			o := dst[j] + (a4[0]*float32(c0[j]) + b4[0])
			o = o + (a4[1]*float32(c1[j]) + b4[1])
			o = o + (a4[2]*float32(c2[j]) + b4[2])
			dst[j] = o + (a4[3]*float32(c3[j]) + b4[3])
		}
	}
	for ; i < len(rows); i++ {
		ai, bi := a[i], b[i]
		for j, c := range codes[rows[i]*d:][:d] {
			dst[j] = dst[j] + (ai*float32(c) + bi)
		}
	}
}
