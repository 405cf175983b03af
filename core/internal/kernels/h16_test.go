package kernels

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/x448/float16"
)

// h16Lengths are row lengths around the chunk of 256 and the widths the
// chunk's dot splits at.
var h16Lengths = []int{1, 3, 4, 7, 8, 9, 12, 15, 255, 256, 257, 260, 300, 513, 576, 1037}

// h16Kinds are the two 16-bit formats: the product, and the exact
// widening the test holds it to (x448/float16 for F16).
var h16Kinds = []struct {
	name    string
	product func(dst []float32, rows []byte, x []float32)
	widen   func(uint16) float32
}{
	{"F16", MatVecF16, func(h uint16) float32 { return float16.Frombits(h).Float32() }},
	{"BF16", MatVecBF16, func(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }},
}

// randH16 is rows×n random 16-bit patterns with no NaN (a NaN's payload
// is not compared).
func randH16(rng *rand.Rand, rows, n int, widen func(uint16) float32) []byte {
	b := make([]byte, 2*rows*n)
	for i := 0; i < len(b); i += 2 {
		h := uint16(rng.Uint32())
		for math.IsNaN(float64(widen(h))) {
			h = uint16(rng.Uint32())
		}
		binary.LittleEndian.PutUint16(b[i:], h)
	}
	return b
}

// TestMatVecH16Order pins MatVecF16 and MatVecBF16 (on whichever path
// runs) to their stated order, bit for bit: per chunk of 256, the
// widened values' orderDot with x, the chunks added in order.
func TestMatVecH16Order(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	for _, k := range h16Kinds {
		for _, rows := range []int{1, 2, 5} {
			for _, n := range h16Lengths {
				m := randH16(rng, rows, n, k.widen)
				x := padded(randFloats(rng, n))
				dst, check := canaried(rows)
				k.product(dst, m[:len(m):len(m)], x)
				check(t)
				for i := range dst {
					var s float32
					for c := 0; c < n; c += H16Chunk {
						w := make([]float32, min(H16Chunk, n-c))
						for j := range w {
							w[j] = k.widen(binary.LittleEndian.Uint16(m[2*(i*n+c+j):]))
						}
						s += orderDot(w, x[c:c+len(w)])
					}
					if math.Float32bits(s) != math.Float32bits(dst[i]) {
						t.Fatalf("%s %d×%d row %d: %v, the stated order %v", k.name, rows, n, i, dst[i], s)
					}
				}
			}
		}
	}
}

// TestPathsAgreeH16 runs every 16-bit pattern (subnormals, infinities,
// NaNs) through both paths, then random matrices.
func TestPathsAgreeH16(t *testing.T) {
	needSIMD(t)
	rng := rand.New(rand.NewPCG(7, 2))
	const n = 1 << 16
	all := make([]byte, 2*n)
	for h := range n {
		binary.LittleEndian.PutUint16(all[2*h:], uint16(h))
	}
	x := randFloats(rng, n)
	for _, tc := range []struct {
		name      string
		simd, run func(dst []float32, rows []byte, x []float32)
	}{{"F16", simdMatVecF16, matVecF16Go}, {"BF16", simdMatVecBF16, matVecBF16Go}} {
		// One value a row, then all of them in one row.
		got, want := make([]float32, n), make([]float32, n)
		tc.simd(got, all, x[:1])
		tc.run(want, all, x[:1])
		sameBits(t, tc.name+" every pattern", got, want)
		tc.simd(got[:1], all, x)
		tc.run(want[:1], all, x)
		sameBits(t, tc.name+" one long row", got[:1], want[:1])
		for _, rows := range []int{1, 3, 8} {
			for _, m := range h16Lengths {
				b := make([]byte, 2*rows*m)
				for i := range b {
					b[i] = byte(rng.Uint32())
				}
				tc.simd(got[:rows], b, x[:m])
				tc.run(want[:rows], b, x[:m])
				sameBits(t, fmt.Sprintf("%s %d×%d", tc.name, rows, m), got[:rows], want[:rows])
			}
		}
	}
}

// TestH16EdgeCases: a short matrix panics with a kernels: message, an
// empty x gives zeros, no rows is nothing to do, and the products
// allocate nothing.
func TestH16EdgeCases(t *testing.T) {
	rows, x, dst := make([]byte, 2*2*600), make([]float32, 600), []float32{7, 7}
	for _, k := range h16Kinds {
		t.Run(k.name, func(t *testing.T) {
			k.product(dst, nil, nil)
			if dst[0] != 0 || dst[1] != 0 {
				t.Fatalf("empty x: dst = %v, want zeros", dst)
			}
			k.product(nil, nil, x)
			if a := testing.AllocsPerRun(10, func() { k.product(dst, rows, x) }); a != 0 {
				t.Fatalf("%v allocations per run, want 0", a)
			}
			defer func() {
				r := recover()
				want := "MatVec" + k.name + ": 5 bytes of blocks < 6 for 1 rows × 3"
				if s := fmt.Sprint(r); r == nil || !strings.HasPrefix(s, "kernels: ") || !strings.Contains(s, want) {
					t.Fatalf("panic %v, want one containing %q", r, want)
				}
			}()
			k.product(dst[:1], rows[:5], x[:3])
		})
	}
}
