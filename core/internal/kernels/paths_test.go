package kernels

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// The SIMD path against the Go path, bit for bit. Natively (and on wasm
// without the module) there is only the Go path and these tests skip.

func needSIMD(t *testing.T) {
	t.Helper()
	if !simd128 {
		t.Skipf("path %q: no second path to compare", Path())
	}
}

func sameBits(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for i := range want {
		g, w := math.Float32bits(got[i]), math.Float32bits(want[i])
		if g != w && !(math.IsNaN(float64(got[i])) && math.IsNaN(float64(want[i]))) {
			t.Fatalf("%s [%d]: SIMD %v (%#08x), Go %v (%#08x)", what, i, got[i], g, want[i], w)
		}
	}
}

func TestPathsAgree(t *testing.T) {
	needSIMD(t)
	rng := rand.New(rand.NewPCG(2, 1))
	for _, n := range append([]int{0}, lengths...) {
		for _, rows := range rowCounts {
			w, x := randFloats(rng, rows*n), randFloats(rng, n)
			got, want := make([]float32, rows), make([]float32, rows)
			MatVecF32(got, w, x)
			matVecF32Go(want, w, x)
			sameBits(t, "MatVecF32", got, want)
			if n > 0 {
				const count = 3
				xs := randFloats(rng, count*n)
				got, want = make([]float32, count*rows+1), make([]float32, count*rows+1)
				MatMatF32(got, w, xs, rows, n, rows)
				matMatF32Go(want, w, xs, rows, n, rows)
				sameBits(t, "MatMatF32", got, want)
			}
		}
		a, b := randFloats(rng, n), randFloats(rng, n)
		if n > 0 {
			sameBits(t, "DotF32", []float32{DotF32(a, b)}, []float32{dotGo(a, b)})
		}
		for _, count := range []int{1, 3, 16, 33} {
			stride := n + rng.IntN(4)
			keys := randFloats(rng, (count-1)*stride+n)
			att := randFloats(rng, count)
			if n > 0 {
				got, want := make([]float32, count), make([]float32, count)
				ScoresF32(got, a, keys, stride)
				scoresGo(want, a, keys, stride)
				sameBits(t, "ScoresF32", got, want)
				got, want = make([]float32, n), make([]float32, n)
				WeightedSumF32(got, att, keys, stride)
				weightedSumGo(want, att, keys, stride)
				sameBits(t, "WeightedSumF32", got, want)
			}
		}
	}
	for _, rows := range rowCounts {
		for _, n := range []int{32, 64, 96, 576, 1536} {
			x := randFloats(rng, n)
			for _, tc := range []struct {
				name string
				bb   int
				simd func(dst []float32, blocks []byte, x []float32)
				gof  func(dst []float32, blocks []byte, x []float32)
			}{{"Q8_0", BlockBytesQ8_0, MatVecQ8_0, matVecQ8_0Go}, {"Q4_0", BlockBytesQ4_0, MatVecQ4_0, matVecQ4_0Go}} {
				blocks := randQuant(rng, rows, n, tc.bb).blocks
				got, want := make([]float32, rows), make([]float32, rows)
				tc.simd(got, blocks, x)
				tc.gof(want, blocks, x)
				sameBits(t, tc.name, got, want)
			}
		}
	}
}

// TestPathsAgreeScales runs every one of the 65,536 half-precision scales
// (subnormals, infinities, NaNs) through both paths' Q8_0 kernels: row h
// is one block of scale h whose only nonzero quant, 1, meets x[0] = 1, so
// the row's value is the widened scale.
func TestPathsAgreeScales(t *testing.T) {
	needSIMD(t)
	const rows = 1 << 16
	blocks := make([]byte, rows*BlockBytesQ8_0)
	for h := range rows {
		blk := blocks[h*BlockBytesQ8_0:]
		binary.LittleEndian.PutUint16(blk, uint16(h))
		blk[2] = 1
	}
	x := make([]float32, BlockValues)
	x[0] = 1
	got, want := make([]float32, rows), make([]float32, rows)
	MatVecQ8_0(got, blocks, x)
	matVecQ8_0Go(want, blocks, x)
	sameBits(t, "scales", got, want)
	for h := range rows {
		// An infinite scale times the zero quants is NaN; finite ones
		// come out as themselves.
		if d := f16(uint16(h)); !math.IsInf(float64(d), 0) && !math.IsNaN(float64(d)) && d != want[h] {
			t.Fatalf("scale %#04x: row %v, want %v", h, want[h], d)
		}
	}
}

// TestPathsAgreeAfterGrowth makes the Go program grow its linear memory
// (a new 64 MiB matrix) and runs the kernels on the new memory: the
// module imported the Memory object itself, so it sees the growth.
func TestPathsAgreeAfterGrowth(t *testing.T) {
	needSIMD(t)
	rng := rand.New(rand.NewPCG(2, 2))
	const rows, n = 16 << 10, 1 << 10
	w := make([]float32, rows*n)
	for i := range w {
		w[i] = float32(i%97) - 48
	}
	x := randFloats(rng, n)
	got, want := make([]float32, rows), make([]float32, rows)
	MatVecF32(got, w, x)
	matVecF32Go(want, w, x)
	sameBits(t, "MatVecF32 after growth", got, want)
}
