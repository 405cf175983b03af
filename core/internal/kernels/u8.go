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

// dotsU8Go is DotsU8 in Go, two rows per pass: their eight lane sums are
// independent chains and share the loads of q.
func dotsU8Go(dst, q []float32, codes []byte, rows []int) {
	d := len(q)
	i := 0
	for ; i+1 < len(rows); i += 2 {
		ra, rb := codes[rows[i]*d:][:d], codes[rows[i+1]*d:][:d]
		var a0, a1, a2, a3, b0, b1, b2, b3 float32
		j := 0
		for ; j+8 <= d; j += 8 {
			q8, x, y := q[j:j+8:j+8], ra[j:j+8:j+8], rb[j:j+8:j+8]
			a0 += q8[0] * float32(x[0])
			b0 += q8[0] * float32(y[0])
			a1 += q8[1] * float32(x[1])
			b1 += q8[1] * float32(y[1])
			a2 += q8[2] * float32(x[2])
			b2 += q8[2] * float32(y[2])
			a3 += q8[3] * float32(x[3])
			b3 += q8[3] * float32(y[3])
			a0 += q8[4] * float32(x[4])
			b0 += q8[4] * float32(y[4])
			a1 += q8[5] * float32(x[5])
			b1 += q8[5] * float32(y[5])
			a2 += q8[6] * float32(x[6])
			b2 += q8[6] * float32(y[6])
			a3 += q8[7] * float32(x[7])
			b3 += q8[7] * float32(y[7])
		}
		if j+4 <= d {
			q4, x, y := q[j:j+4:j+4], ra[j:j+4:j+4], rb[j:j+4:j+4]
			a0 += q4[0] * float32(x[0])
			b0 += q4[0] * float32(y[0])
			a1 += q4[1] * float32(x[1])
			b1 += q4[1] * float32(y[1])
			a2 += q4[2] * float32(x[2])
			b2 += q4[2] * float32(y[2])
			a3 += q4[3] * float32(x[3])
			b3 += q4[3] * float32(y[3])
			j += 4
		}
		for ; j < d; j++ {
			a0 += q[j] * float32(ra[j])
			b0 += q[j] * float32(rb[j])
		}
		dst[i], dst[i+1] = (a0+a1)+(a2+a3), (b0+b1)+(b2+b3)
	}
	if i < len(rows) {
		r := codes[rows[i]*d:][:d]
		var a0, a1, a2, a3 float32
		j := 0
		for ; j+4 <= d; j += 4 {
			q4, x := q[j:j+4:j+4], r[j:j+4:j+4]
			a0 += q4[0] * float32(x[0])
			a1 += q4[1] * float32(x[1])
			a2 += q4[2] * float32(x[2])
			a3 += q4[3] * float32(x[3])
		}
		for ; j < d; j++ {
			a0 += q[j] * float32(r[j])
		}
		dst[i] = (a0 + a1) + (a2 + a3)
	}
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
