package kernels

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/x448/float16"
)

// The tests run natively (the Go path) and as wasm under Node with
// testdata/exec_node.js (the SIMD path when static/kernels.wasm is there).
// Against float64 references they bound each result by the float32
// rounding its summation order allows; between the paths they demand equal
// bits.

const u = 0x1p-24 // float32's unit roundoff

// within reports whether got is within k·u·Σ|terms| of the float64 sum
// want: the forward error bound of a float32 sum of products whose longest
// chain of roundings is k.
func within(got float32, want, absSum float64, k int) bool {
	return math.Abs(float64(got)-want) <= float64(k)*u*absSum*1.000001
}

// Lengths around every width the kernels split at (4, 8, 16, 32), with
// each remainder mod 8.
var lengths = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 15, 16, 17, 20, 23, 31, 32, 33, 48, 63, 64, 65, 100, 255, 576}

// Row counts around the four-row groups.
var rowCounts = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 13}

func randFloats(rng *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(rng.NormFloat64())
	}
	return s
}

// padded returns n values inside a larger slice whose other values are
// NaN: a kernel that reads past either end turns its result into NaN.
func padded(vals []float32) []float32 {
	buf := make([]float32, len(vals)+32)
	for i := range buf {
		buf[i] = float32(math.NaN())
	}
	s := buf[16 : 16+len(vals) : 16+len(vals)]
	copy(s, vals)
	return s
}

// canaried returns a zeroed slice of n values between sentinels, and a
// check that the sentinels are intact (a kernel wrote past the slice).
func canaried(n int) ([]float32, func(t *testing.T)) {
	buf := make([]float32, n+32)
	for i := range buf {
		buf[i] = 12345
	}
	s := buf[16 : 16+n : 16+n]
	clear(s)
	return s, func(t *testing.T) {
		t.Helper()
		for i, v := range buf {
			if (i < 16 || i >= 16+n) && v != 12345 {
				t.Fatalf("wrote outside dst at %d", i-16)
			}
		}
	}
}

func refDot(a, b []float32) (sum, abs float64) {
	for i := range a {
		p := float64(a[i]) * float64(b[i])
		sum += p
		abs += math.Abs(p)
	}
	return sum, abs
}

// dotChain is the longest rounding chain of DotF32 over n values: the
// product, n/8 additions to a lane sum and one more for a chunk of four,
// three in the lanes' reduction, n%4 in the tail.
func dotChain(n int) int { return 1 + n/8 + 1 + 3 + n%4 }

// orderDot is DotF32's stated row order written out plainly: eight lane
// sums, lane j%8 taking product j of the whole chunks of eight and lanes
// 0..3 the next four, the fixed reduction, then the tail one by one.
func orderDot(a, b []float32) float32 {
	var lane [8]float32
	n := len(a)
	body := n / 8 * 8
	if n%8 >= 4 {
		body += 4
	}
	for j := range body {
		lane[j%8] += float32(a[j] * b[j])
	}
	s := ((lane[0] + lane[4]) + (lane[2] + lane[6])) + ((lane[1] + lane[5]) + (lane[3] + lane[7]))
	for j := body; j < n; j++ {
		s += float32(a[j] * b[j])
	}
	return s
}

// TestDotOrder pins DotF32, MatVecF32 and ScoresF32 (on whichever path
// runs) to the stated order, bit for bit, so that neither path can drift
// from it together with the other.
func TestDotOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 9))
	for _, n := range lengths {
		for _, rows := range rowCounts {
			w, x := randFloats(rng, rows*n), randFloats(rng, n)
			dst := make([]float32, rows)
			MatVecF32(dst, w, x)
			stride := n + rng.IntN(3)
			keys := randFloats(rng, (rows-1)*stride+n)
			att := make([]float32, rows)
			ScoresF32(att, x, keys, stride)
			for i := range rows {
				if want := orderDot(w[i*n:(i+1)*n], x); math.Float32bits(dst[i]) != math.Float32bits(want) {
					t.Fatalf("MatVecF32 %d×%d row %d: %v, order %v", rows, n, i, dst[i], want)
				}
				if want := orderDot(keys[i*stride:i*stride+n], x); math.Float32bits(att[i]) != math.Float32bits(want) {
					t.Fatalf("ScoresF32 %d keys of %d row %d: %v, order %v", rows, n, i, att[i], want)
				}
			}
			if got, want := DotF32(w[:n], x), orderDot(w[:n], x); math.Float32bits(got) != math.Float32bits(want) {
				t.Fatalf("DotF32 n=%d: %v, order %v", n, got, want)
			}
		}
	}
}

func TestPath(t *testing.T) {
	p := Path()
	if p != "go" && p != "wasm simd128" && p != "amd64 sse2" {
		t.Fatalf("Path() = %q", p)
	}
	if want := os.Getenv("KVSCOPE_WANT_PATH"); want != "" && p != want {
		t.Fatalf("Path() = %q, want %q (KVSCOPE_WANT_PATH)", p, want)
	}
	t.Logf("path: %s", p)
}

func TestDotF32(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range append([]int{0}, lengths...) {
		a, b := padded(randFloats(rng, n)), padded(randFloats(rng, n))
		got := DotF32(a, b)
		want, abs := refDot(a, b)
		if !within(got, want, abs, dotChain(n)) {
			t.Errorf("n=%d: DotF32 = %v, float64 %v", n, got, want)
		}
	}
}

func TestMatVecF32(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, rows := range rowCounts {
		for _, n := range lengths {
			w, x := padded(randFloats(rng, rows*n)), padded(randFloats(rng, n))
			dst, check := canaried(rows)
			MatVecF32(dst, w, x)
			check(t)
			for i := range dst {
				want, abs := refDot(w[i*n:(i+1)*n], x)
				if !within(dst[i], want, abs, dotChain(n)) {
					t.Errorf("%d×%d row %d: %v, float64 %v", rows, n, i, dst[i], want)
				}
				if d := DotF32(w[i*n:(i+1)*n], x); math.Float32bits(d) != math.Float32bits(dst[i]) {
					t.Errorf("%d×%d row %d: %v ≠ DotF32 %v", rows, n, i, dst[i], d)
				}
			}
		}
	}
}

// TestMatMatF32: every result is MatVecF32's for its row and vector, bit
// for bit, with a stride that leaves gaps (which must stay untouched).
func TestMatMatF32(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 7))
	for _, rows := range rowCounts {
		for _, n := range lengths {
			for _, count := range []int{1, 2, 5} {
				w, x := padded(randFloats(rng, rows*n)), padded(randFloats(rng, count*n))
				stride := rows + rng.IntN(3)
				dst, check := canaried((count-1)*stride + rows)
				for i := range dst {
					dst[i] = 777
				}
				MatMatF32(dst, w, x, rows, n, stride)
				check(t)
				want := make([]float32, rows)
				for v := range count {
					MatVecF32(want, w, x[v*n:(v+1)*n])
					for i := range stride {
						if v*stride+i >= len(dst) {
							break
						}
						got := dst[v*stride+i]
						if i >= rows {
							if got != 777 {
								t.Fatalf("%d×%d, %d vectors, stride %d: wrote the gap at vector %d, %d", rows, n, count, stride, v, i)
							}
						} else if math.Float32bits(got) != math.Float32bits(want[i]) {
							t.Fatalf("%d×%d, %d vectors: vector %d row %d: %v ≠ MatVecF32 %v", rows, n, count, v, i, got, want[i])
						}
					}
				}
			}
		}
	}
}

// quantMatrix is a random rows×n matrix in raw GGUF blocks of one type,
// with each block's scale and the dequantized values for references.
type quantMatrix struct {
	blocks []byte
	deq    []float32 // rows·n values d·q, exact in float32
}

func randQuant(rng *rand.Rand, rows, n, blockBytes int) quantMatrix {
	nb := rows * n / BlockValues
	m := quantMatrix{blocks: make([]byte, nb*blockBytes), deq: make([]float32, rows*n)}
	for b := range nb {
		blk := m.blocks[b*blockBytes : (b+1)*blockBytes]
		d := float16.Fromfloat32(float32(0.001 + 0.02*rng.Float64()))
		if rng.IntN(2) == 0 {
			d = float16.Fromfloat32(-d.Float32())
		}
		binary.LittleEndian.PutUint16(blk, d.Bits())
		for j := 2; j < blockBytes; j++ {
			blk[j] = byte(rng.Uint32())
		}
		for j := range BlockValues {
			var q int
			if blockBytes == BlockBytesQ8_0 {
				q = int(int8(blk[2+j]))
			} else {
				q = int(blk[2+j%16]>>(4*(j/16))&15) - 8
			}
			m.deq[b*BlockValues+j] = d.Float32() * float32(q)
		}
	}
	return m
}

func TestMatVecQuant(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 3))
	for _, tc := range []struct {
		name       string
		blockBytes int
		f          func(dst []float32, blocks []byte, x []float32)
	}{{"Q8_0", BlockBytesQ8_0, MatVecQ8_0}, {"Q4_0", BlockBytesQ4_0, MatVecQ4_0}} {
		for _, rows := range rowCounts {
			for _, n := range []int{32, 64, 96, 576} {
				m := randQuant(rng, rows, n, tc.blockBytes)
				x := padded(randFloats(rng, n))
				dst, check := canaried(rows)
				tc.f(dst, m.blocks[:len(m.blocks):len(m.blocks)], x)
				check(t)
				for i := range dst {
					want, abs := refDot(m.deq[i*n:(i+1)*n], x)
					// product, eight in a lane, two in the block's
					// reduction, the scale's product, one per block.
					if !within(dst[i], want, abs, 1+8+2+1+n/32) {
						t.Errorf("%s %d×%d row %d: %v, float64 %v", tc.name, rows, n, i, dst[i], want)
					}
				}
			}
		}
	}
}

func TestScoresF32(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 4))
	for _, count := range []int{0, 1, 2, 5, 17} {
		for _, n := range lengths {
			stride := n + rng.IntN(3)*7
			keys := padded(randFloats(rng, max(0, (count-1)*stride+n)))
			q := padded(randFloats(rng, n))
			att, check := canaried(count)
			ScoresF32(att, q, keys, stride)
			check(t)
			for k := range att {
				want, abs := refDot(q, keys[k*stride:k*stride+n])
				if !within(att[k], want, abs, dotChain(n)) {
					t.Errorf("count %d n %d stride %d key %d: %v, float64 %v", count, n, stride, k, att[k], want)
				}
			}
		}
	}
}

func TestWeightedSumF32(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 5))
	for _, count := range []int{0, 1, 2, 5, 17, 64} {
		for _, n := range lengths {
			stride := n + rng.IntN(3)*5
			vals := padded(randFloats(rng, max(0, (count-1)*stride+n)))
			att := padded(randFloats(rng, count))
			out, check := canaried(n)
			WeightedSumF32(out, att, vals, stride)
			check(t)
			for i := range out {
				var want, abs float64
				for k, a := range att {
					p := float64(a) * float64(vals[k*stride+i])
					want += p
					abs += math.Abs(p)
				}
				if !within(out[i], want, abs, 1+count) {
					t.Errorf("count %d n %d stride %d out %d: %v, float64 %v", count, n, stride, i, out[i], want)
				}
			}
		}
	}
}

// TestF16 checks the half-precision widening against x448/float16 on all
// 65,536 values (NaNs as NaNs).
func TestF16(t *testing.T) {
	for h := range 1 << 16 {
		got, want := f16(uint16(h)), float16.Frombits(uint16(h)).Float32()
		if math.IsNaN(float64(want)) {
			if !math.IsNaN(float64(got)) {
				t.Fatalf("f16(%#04x) = %v, want NaN", h, got)
			}
			continue
		}
		if math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("f16(%#04x) = %v (%#08x), want %v (%#08x)", h, got, math.Float32bits(got), want, math.Float32bits(want))
		}
	}
}

func TestPreconditions(t *testing.T) {
	f := make([]float32, 100)
	b := make([]byte, 1000)
	for _, tc := range []struct {
		name string
		call func()
		msg  string
	}{
		{"dot short b", func() { DotF32(f[:5], f[:4]) }, "DotF32: len(b) = 4 < len(a) = 5"},
		{"matvec short w", func() { MatVecF32(f[:3], f[:8], f[:3]) }, "MatVecF32: len(w) = 8 < 3 rows × 3"},
		{"matmat cols", func() { MatMatF32(f, f, f[:7], 1, 2, 1) }, "MatMatF32: len(x) = 7 is not a multiple of 2 columns"},
		{"matmat zero cols", func() { MatMatF32(f, f, nil, 1, 0, 1) }, "MatMatF32: len(x) = 0 is not a multiple of 0 columns"},
		{"matmat short w", func() { MatMatF32(f, f[:8], f[:6], 3, 3, 3) }, "MatMatF32: len(w) = 8 < 3 rows × 3"},
		{"matmat stride", func() { MatMatF32(f, f, f[:6], 3, 3, 2) }, "MatMatF32: stride 2 < 3 values"},
		{"matmat short dst", func() { MatMatF32(f[:5], f, f[:6], 3, 3, 3) }, "MatMatF32: 5 values < 6"},
		{"q8 cols", func() { MatVecQ8_0(f[:1], b, f[:33]) }, "MatVecQ8_0: len(x) = 33 is not a multiple of 32"},
		{"q8 short", func() { MatVecQ8_0(f[:2], b[:67], f[:32]) }, "MatVecQ8_0: 67 bytes of blocks < 68"},
		{"q4 short", func() { MatVecQ4_0(f[:2], b[:71], f[:64]) }, "MatVecQ4_0: 71 bytes of blocks < 72"},
		{"scores stride", func() { ScoresF32(f[:2], f[:8], f, 7) }, "ScoresF32: stride 7 < 8 values"},
		{"scores short", func() { ScoresF32(f[:3], f[:8], f[:25], 9) }, "ScoresF32: 25 values < 26"},
		{"wsum short", func() { WeightedSumF32(f[:8], f[:3], f[:25], 9) }, "WeightedSumF32: 25 values < 26"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s := fmt.Sprint(r); r == nil || !strings.HasPrefix(s, "kernels: ") || !strings.Contains(s, tc.msg) {
					t.Fatalf("panic %v, want one containing %q", r, tc.msg)
				}
			}()
			tc.call()
		})
	}
}

// TestEmpty checks the zero-length cases, which pass no address to the
// module: empty outputs are left alone, empty inner lengths give zeros.
func TestEmpty(t *testing.T) {
	dst := []float32{7, 7}
	MatVecF32(dst, nil, nil)
	ScoresF32(dst, nil, nil, 0)
	if dst[0] != 0 || dst[1] != 0 {
		t.Fatalf("empty x: dst = %v, want zeros", dst)
	}
	dst = []float32{7, 7}
	WeightedSumF32(dst, nil, nil, 2)
	if dst[0] != 0 || dst[1] != 0 {
		t.Fatalf("empty att: out = %v, want zeros", dst)
	}
	MatVecF32(nil, nil, dst)
	MatMatF32(nil, make([]float32, 6), nil, 3, 2, 3)
	MatMatF32(nil, dst, dst, 0, 2, 1)
	MatVecQ8_0(nil, nil, make([]float32, 32))
	MatVecQ4_0(dst[:0], nil, nil)
	ScoresF32(nil, dst, nil, 2)
	WeightedSumF32(nil, dst, nil, 0)
	if DotF32(nil, nil) != 0 {
		t.Fatal("DotF32(nil, nil) ≠ 0")
	}
}

func TestNoAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 6))
	x := randFloats(rng, 64)
	w := randFloats(rng, 5*64)
	dst := make([]float32, 5)
	q8 := randQuant(rng, 5, 64, BlockBytesQ8_0).blocks
	q4 := randQuant(rng, 5, 64, BlockBytesQ4_0).blocks
	allocs := testing.AllocsPerRun(20, func() {
		DotF32(x, x)
		MatVecF32(dst, w, x)
		MatMatF32(dst, w, x, 5, 64, 5)
		MatVecQ8_0(dst, q8, x)
		MatVecQ4_0(dst, q4, x)
		ScoresF32(dst, x[:8], w, 64)
		WeightedSumF32(x[:8], dst, w, 64)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per run, want 0", allocs)
	}
}
