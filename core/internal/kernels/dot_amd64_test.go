//go:build amd64 && !purego

package kernels

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// The assembly path (dot_amd64.s) against the Go path, bit for bit (NaNs
// as NaNs: which NaN an operation on two NaNs returns depends on the
// order of its operands, which Go's compiler chooses).

func sameAsm(t testing.TB, what string, got, want []float32) {
	t.Helper()
	for i := range want {
		g, w := math.Float32bits(got[i]), math.Float32bits(want[i])
		if g != w && !(math.IsNaN(float64(got[i])) && math.IsNaN(float64(want[i]))) {
			t.Fatalf("%s [%d]: asm %v (%#08x), Go %v (%#08x)", what, i, got[i], g, want[i], w)
		}
	}
}

// specials are values that reach the edges of float32: zeros of both
// signs, subnormals, the largest finite values (whose products overflow),
// infinities (whose sums of opposite signs are NaN) and NaNs.
var specials = []float32{
	0, float32(math.Copysign(0, -1)), 1, -1,
	math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, 0x1p-130, -0x1.8p-140, 0x1p-126, 0x1.fffffcp-127,
	math.MaxFloat32, -math.MaxFloat32, 0x1p100, -0x1p64, 0x1p-70,
	float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), math.Float32frombits(0xffc00001), math.Float32frombits(0x7f800001),
}

// gens make n values: normal ones, ones of every binary exponent (many
// products underflow to subnormals or overflow), and mostly normal ones
// with specials among them.
var gens = []struct {
	name string
	f    func(rng *rand.Rand, n int) []float32
}{
	{"normal", randFloats},
	{"exponents", func(rng *rand.Rand, n int) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = float32(math.Ldexp(rng.NormFloat64(), rng.IntN(280)-150))
		}
		return s
	}},
	{"specials", func(rng *rand.Rand, n int) []float32 {
		s := randFloats(rng, n)
		for i := range s {
			if rng.IntN(6) == 0 {
				s[i] = specials[rng.IntN(len(specials))]
			}
		}
		return s
	}},
}

// dotLengths are every length to 40 (each remainder mod 8 five times) and
// a few longer ones, among them the model's 576 and 1536.
func dotLengths() []int {
	var ns []int
	for n := range 41 {
		ns = append(ns, n)
	}
	return append(ns, 47, 63, 64, 65, 100, 255, 576, 1000, 1536)
}

// offsetCopy returns vals in a NaN-padded buffer starting off values past
// a 64-byte boundary, so loads of every alignment are taken and a read
// past either end turns a result into NaN.
func offsetCopy(vals []float32, off int) []float32 {
	buf := make([]float32, len(vals)+48)
	for i := range buf {
		buf[i] = float32(math.NaN())
	}
	s := buf[16+off : 16+off+len(vals) : 16+off+len(vals)]
	copy(s, vals)
	return s
}

// TestAsmDots: dotsSSE2 through each F32 kernel, and wsumSSE2, equal the
// Go path, on every length to 40, row counts around the groups of four,
// strides from n to n+7 (odd ones leave the rows unaligned), unaligned
// starts, and values normal, of every exponent and special. Reads past
// the inputs give NaNs; writes past dst are caught.
func TestAsmDots(t *testing.T) {
	if Path() != "amd64 sse2" {
		t.Fatalf("Path() = %q, want amd64 sse2", Path())
	}
	rng := rand.New(rand.NewPCG(3, 1))
	counts := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 17}
	for _, g := range gens {
		for _, n := range dotLengths() {
			for _, count := range counts {
				stride := n + rng.IntN(8)
				x := offsetCopy(g.f(rng, n), rng.IntN(4))
				keys := offsetCopy(g.f(rng, max(0, (count-1)*stride+n)), rng.IntN(4))
				got, check := canaried(count)
				want := make([]float32, count)
				hostScoresF32(got, x, keys, stride)
				check(t)
				dotsGo(want, x, keys, stride)
				sameAsm(t, g.name+" scores", got, want)

				if count > 0 {
					att := offsetCopy(g.f(rng, count), rng.IntN(4))
					got, check := canaried(n)
					want := make([]float32, n)
					hostWeightedSumF32(got, att, keys, stride)
					check(t)
					weightedSumGo(want, att, keys, stride)
					sameAsm(t, g.name+" wsum", got, want)
				}

				w := offsetCopy(g.f(rng, count*n), rng.IntN(4))
				got, check = canaried(count)
				hostMatVecF32(got, w, x)
				check(t)
				matVecF32Go(want, w, x)
				sameAsm(t, g.name+" matvec", got, want)
				for i := range count {
					row := w[i*n : (i+1)*n]
					sameAsm(t, g.name+" dot", []float32{hostDotF32(row, x)}, []float32{dotGo(row, x)})
				}

				if n > 0 && count > 0 && n <= 100 {
					const vecs = 3
					xs := offsetCopy(g.f(rng, vecs*n), rng.IntN(4))
					ds := count + rng.IntN(3)
					got, check = canaried((vecs-1)*ds + count)
					want := make([]float32, len(got))
					hostMatMatF32(got, w, xs, count, n, ds)
					check(t)
					matMatF32Go(want, w, xs, count, n, ds)
					sameAsm(t, g.name+" matmat", got, want)
				}
			}
		}
	}
}

// TestAsmExported: the exported F32 kernels take the assembly path and
// keep the row order (TestDotOrder pins it on random rows too).
func TestAsmExported(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 2))
	for _, n := range dotLengths() {
		a, b := gens[2].f(rng, n), gens[2].f(rng, n)
		got, want := DotF32(a, b), orderDot(a, b)
		sameAsm(t, "DotF32", []float32{got}, []float32{want})
		sameAsm(t, "dotGo", []float32{dotGo(a, b)}, []float32{want})
	}
}

// floatsOf reads data as little-endian float32 bit patterns: every NaN
// payload, subnormal and infinity is reachable.
func floatsOf(data []byte) []float32 {
	s := make([]float32, len(data)/4)
	for i := range s {
		s[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
	}
	return s
}

// FuzzAsmDots holds dotsSSE2 equal to dotsGo, and wsumSSE2 to
// weightedSumGo, on rows, x and weights cut from the fuzzer's bytes
// (repeated when short): n, the row count and the extra stride come from
// three bytes of their own.
func FuzzAsmDots(f *testing.F) {
	le := func(vals ...float32) []byte {
		b := make([]byte, 4*len(vals))
		for i, v := range vals {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
		}
		return b
	}
	f.Add(le(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13), uint8(13), uint8(5), uint8(1))
	f.Add(le(specials...), uint8(20), uint8(4), uint8(3))
	f.Add(le(math.MaxFloat32, 2, -math.MaxFloat32, 2, 0x1p-140, 0x1p-10), uint8(37), uint8(9), uint8(7))
	f.Add(le(float32(math.Inf(1)), 1, float32(math.Inf(-1)), 1, 0, 3), uint8(12), uint8(2), uint8(0))
	rng := rand.New(rand.NewPCG(3, 3))
	f.Add(le(gens[1].f(rng, 200)...), uint8(100), uint8(6), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, nb, cb, sb uint8) {
		vals := floatsOf(data)
		if len(vals) == 0 {
			return
		}
		n, count := int(nb)%130, int(cb)%12
		stride := n + int(sb)%9
		get := func(off, k int) []float32 {
			s := make([]float32, k)
			for i := range s {
				s[i] = vals[(off+i)%len(vals)]
			}
			return s
		}
		x := offsetCopy(get(0, n), int(sb)%4)
		rows := offsetCopy(get(n, max(0, (count-1)*stride+n)), int(nb)%4)
		got, want := make([]float32, count), make([]float32, count)
		hostScoresF32(got, x, rows, stride)
		dotsGo(want, x, rows, stride)
		sameAsm(t, "dots", got, want)
		if count > 0 {
			sameAsm(t, "dot", []float32{hostDotF32(rows[:n], x)}, []float32{dotGo(rows[:n], x)})
			att := get(2*n, count)
			got, want := make([]float32, n), make([]float32, n)
			hostWeightedSumF32(got, att, rows, stride)
			weightedSumGo(want, att, rows, stride)
			sameAsm(t, "wsum", got, want)
		}
	})
}

// TestAsmQ8_0: the SSE2 Q8_0 product equals the Go path bit for bit, on
// random blocks at every row count around the pairs and lengths of one to
// 48 blocks, and with scales of every half-precision bit pattern
// (subnormal, infinite and NaN scales included).
func TestAsmQ8_0(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, nb := range []int{1, 2, 3, 5, 18, 48} {
		for _, rows := range rowCounts {
			n := nb * BlockValues
			m := randQuant(rng, rows, n, BlockBytesQ8_0)
			x := offsetCopy(randFloats(rng, n), rng.IntN(4))
			got, check := canaried(rows)
			want := make([]float32, rows)
			hostMatVecQ8_0(got, m.blocks, x)
			check(t)
			matVecQ8_0Go(want, m.blocks, x)
			sameAsm(t, "q8_0", got, want)
		}
	}
	const rows = 64
	m := randQuant(rng, rows, 2*BlockValues, BlockBytesQ8_0)
	x := randFloats(rng, 2*BlockValues)
	got, want := make([]float32, rows), make([]float32, rows)
	for h := 0; h < 1<<16; h += rows * 2 {
		for b := range 2 * rows {
			binary.LittleEndian.PutUint16(m.blocks[b*BlockBytesQ8_0:], uint16(h+b))
		}
		hostMatVecQ8_0(got, m.blocks, x)
		matVecQ8_0Go(want, m.blocks, x)
		sameAsm(t, "q8_0 scales", got, want)
	}
	if allocs := testing.AllocsPerRun(10, func() { MatVecQ8_0(got, m.blocks, x) }); allocs != 0 {
		t.Errorf("%v allocations per MatVecQ8_0", allocs)
	}
}
