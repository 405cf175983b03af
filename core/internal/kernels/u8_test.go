package kernels

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// orderDotU8 is DotsU8's stated order, one value at a time.
func orderDotU8(q []float32, c []byte) float32 {
	var a [4]float32
	n4 := len(q) - len(q)%4
	for j := range n4 {
		a[j%4] += q[j] * float32(c[j])
	}
	for j := n4; j < len(q); j++ {
		a[0] += q[j] * float32(c[j])
	}
	return (a[0] + a[1]) + (a[2] + a[3])
}

// randCodes returns slots rows of n random byte codes and len(rows) row
// numbers among them, in a random order with repeats.
func randCodes(rng *rand.Rand, slots, n, count int) ([]byte, []int) {
	codes := make([]byte, slots*n)
	for i := range codes {
		codes[i] = byte(rng.UintN(256))
	}
	rows := make([]int, count)
	for i := range rows {
		rows[i] = rng.IntN(slots)
	}
	return codes, rows
}

// TestDotsU8 holds DotsU8, on the path in use and on the Go path, to its
// stated order bit for bit: every length around the splits, row counts
// around the Go path's pairs, rows in any order and repeated.
func TestDotsU8(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 1))
	for _, n := range append([]int{0}, lengths...) {
		for _, count := range append([]int{0}, rowCounts...) {
			q := padded(randFloats(rng, n))
			codes, rows := randCodes(rng, 7, n, count)
			want := make([]float32, count)
			for i, r := range rows {
				want[i] = orderDotU8(q, codes[r*n:(r+1)*n])
			}
			got, check := canaried(count)
			DotsU8(got, q, codes, rows)
			check(t)
			sameBits(t, fmt.Sprintf("n %d count %d", n, count), got, want)
			clear(got)
			dotsU8Go(got, q, codes, rows)
			sameBits(t, fmt.Sprintf("go n %d count %d", n, count), got, want)
		}
	}
}

// TestAffineU8 holds AffineU8 to its order: each row in turn adds
// a·c + b to every value, rounded at each step, onto what dst held.
func TestAffineU8(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	for _, n := range lengths {
		for _, count := range append([]int{0}, rowCounts...) {
			codes, rows := randCodes(rng, 9, n, count)
			a, b := padded(randFloats(rng, count)), padded(randFloats(rng, count))
			start := randFloats(rng, n)
			want := append([]float32(nil), start...)
			for i, r := range rows {
				for j := range want {
					want[j] = want[j] + (a[i]*float32(codes[r*n+j]) + b[i])
				}
			}
			got, check := canaried(n)
			copy(got, start)
			AffineU8(got, a, b, codes, rows)
			check(t)
			sameBits(t, fmt.Sprintf("n %d count %d", n, count), got, want)
			copy(got, start)
			affineU8Go(got, a, b, codes, rows)
			sameBits(t, fmt.Sprintf("go n %d count %d", n, count), got, want)
		}
	}
}

func TestU8Preconditions(t *testing.T) {
	f, codes := make([]float32, 8), make([]byte, 16)
	for _, tc := range []struct {
		name string
		call func()
		msg  string
	}{
		{"dots short dst", func() { DotsU8(f[:1], f[:4], codes, []int{0, 1}) }, "DotsU8: 1 results < 2 rows"},
		{"dots row past", func() { DotsU8(f, f[:4], codes, []int{4}) }, "DotsU8: row 4 of 4 codes outside 16 bytes"},
		{"dots negative row", func() { DotsU8(f, f[:4], codes, []int{-1}) }, "DotsU8: row -1"},
		{"affine short a", func() { AffineU8(f[:4], f[:1], f, codes, []int{0, 1}) }, "AffineU8: 1 and 8 factors < 2 rows"},
		{"affine row past", func() { AffineU8(f[:8], f, f, codes, []int{2}) }, "AffineU8: row 2 of 8 codes outside 16 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s := fmt.Sprint(r); r == nil || !strings.Contains(s, tc.msg) {
					t.Fatalf("panic %v, want one containing %q", r, tc.msg)
				}
			}()
			tc.call()
		})
	}
}

// FuzzDotsU8 holds both byte-code kernels to their orders on codes, row
// numbers and lengths cut from the fuzzer's bytes.
func FuzzDotsU8(f *testing.F) {
	f.Add([]byte("kvscope byte codes, any length"), uint8(13), uint8(3))
	f.Add([]byte{0, 255, 128, 1, 2, 3, 4, 5, 6, 7, 8, 9}, uint8(4), uint8(9))
	f.Fuzz(func(t *testing.T, data []byte, nb, cb uint8) {
		if len(data) == 0 {
			return
		}
		n, count := int(nb)%70, int(cb)%12
		slots := 5
		codes := make([]byte, slots*n)
		for i := range codes {
			codes[i] = data[i%len(data)]
		}
		rows := make([]int, count)
		q, a, b := make([]float32, n), make([]float32, count), make([]float32, count)
		for i := range rows {
			rows[i] = int(data[(i+1)%len(data)]) % slots
			a[i] = float32(int8(data[(3*i)%len(data)])) / 7
			b[i] = float32(int8(data[(5*i+1)%len(data)])) / 3
		}
		for j := range q {
			q[j] = float32(int8(data[(2*j+1)%len(data)])) / 5
		}
		got, want := make([]float32, count), make([]float32, count)
		DotsU8(got, q, codes, rows)
		for i, r := range rows {
			want[i] = orderDotU8(q, codes[r*n:(r+1)*n])
		}
		sameBits(t, "dots", got, want)
		out, ref := make([]float32, n), make([]float32, n)
		AffineU8(out, a, b, codes, rows)
		for i, r := range rows {
			for j := range ref {
				ref[j] = ref[j] + (a[i]*float32(codes[r*n+j]) + b[i])
			}
		}
		sameBits(t, "affine", out, ref)
	})
}
