package kernels

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/model/gguf"
)

// The K-quant kernels (MatVecQ4_K, MatVecQ5_K, MatVecQ6_K) against float64 references
// natively and under wasm, and the SIMD path against the Go path bit for
// bit when the module is attached.

// kLengths are row lengths in whole super-blocks: one, a few, 4864 (19, a
// Qwen2.5 feed-forward row) and one past MatVecQ4_K's stack of sums.
var kLengths = []int{256, 512, 768, 1280, 4864}

// randHalf is a random block scale: mostly a small normal value of either
// sign, sometimes an extreme one (the largest finite half, a subnormal,
// a zero of either sign).
func randHalf(rng *rand.Rand) uint16 {
	switch rng.IntN(16) {
	case 0:
		return 0x7bff | uint16(rng.IntN(2))<<15 // ±65504
	case 1:
		return uint16(1+rng.IntN(0x3ff)) | uint16(rng.IntN(2))<<15 // subnormal
	case 2:
		return uint16(rng.IntN(2)) << 15 // ±0
	}
	h := math.Float32bits(float32(0.0005 + 0.05*rng.Float64()))
	// round to a half by truncation: exponent rebiased, 10 mantissa bits
	e := int(h>>23&0xff) - 127 + 15
	return uint16(e)<<10 | uint16(h>>13&0x3ff) | uint16(rng.IntN(2))<<15
}

// randKBlocks is rows×n values of blocks of bb bytes, every byte random
// but the half-precision scales (at the offsets halves), drawn by
// randHalf.
func randKBlocks(rng *rand.Rand, rows, n, bb int, halves ...int) []byte {
	nb := rows * n / KBlockValues
	blocks := make([]byte, nb*bb)
	for i := range blocks {
		blocks[i] = byte(rng.Uint32())
	}
	for b := range nb {
		for _, o := range halves {
			binary.LittleEndian.PutUint16(blocks[b*bb+o:], randHalf(rng))
		}
	}
	return blocks
}

func randQ4_K(rng *rand.Rand, rows, n int) []byte {
	return randKBlocks(rng, rows, n, BlockBytesQ4_K, 0, 2)
}

func randQ5_K(rng *rand.Rand, rows, n int) []byte {
	return randKBlocks(rng, rows, n, BlockBytesQ5_K, 0, 2)
}

func randQ6_K(rng *rand.Rand, rows, n int) []byte {
	return randKBlocks(rng, rows, n, BlockBytesQ6_K, 208)
}

// kTerms returns, for a row of blocks, the float64 sum of its values
// (dequantized by the codec, as ggml does) times x, and the sum of the
// magnitudes of the exact terms d·sc·q·x and dmin·m·x that bound the
// kernels' rounding.
func kTerms(t *testing.T, typ gguf.TensorType, row []byte, x []float32) (want, abs float64) {
	t.Helper()
	c, err := typ.Codec()
	if err != nil {
		t.Fatal(err)
	}
	deq := make([]float32, len(x))
	c.Dequantize(deq, row)
	for j, v := range deq {
		want += float64(v) * float64(x[j])
	}
	for b := range len(x) / KBlockValues {
		xb := x[b*KBlockValues:]
		switch typ {
		case gguf.TypeQ4_K:
			blk := (*[BlockBytesQ4_K]byte)(row[b*BlockBytesQ4_K:])
			d, dmin := float64(f16(binary.LittleEndian.Uint16(blk[0:]))), float64(f16(binary.LittleEndian.Uint16(blk[2:])))
			var sc, mn [8]float32
			scalesMinsQ4_K((*[12]byte)(blk[4:16]), &sc, &mn)
			for j := range KBlockValues {
				q := blk[16+32*(j/64)+j%32] >> (4 * (j / 32 % 2)) & 15
				abs += math.Abs(d*float64(sc[j/32])*float64(q)*float64(xb[j])) + math.Abs(dmin*float64(mn[j/32])*float64(xb[j]))
			}
		case gguf.TypeQ5_K:
			blk := (*[BlockBytesQ5_K]byte)(row[b*BlockBytesQ5_K:])
			d, dmin := float64(f16(binary.LittleEndian.Uint16(blk[0:]))), float64(f16(binary.LittleEndian.Uint16(blk[2:])))
			var sc, mn [8]float32
			scalesMinsQ4_K((*[12]byte)(blk[4:16]), &sc, &mn)
			for j := range KBlockValues {
				q := blk[48+32*(j/64)+j%32]>>(4*(j/32%2))&15 | blk[16+j%32]>>(j/32)&1<<4
				abs += math.Abs(d*float64(sc[j/32])*float64(q)*float64(xb[j])) + math.Abs(dmin*float64(mn[j/32])*float64(xb[j]))
			}
		case gguf.TypeQ6_K:
			blk := row[b*BlockBytesQ6_K:]
			d := float64(f16(binary.LittleEndian.Uint16(blk[208:])))
			for j := range KBlockValues {
				abs += math.Abs(d * float64(int8(blk[192+j/16])) * 32 * float64(xb[j]))
			}
		}
	}
	return want, abs
}

func TestMatVecK(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1))
	for _, tc := range []struct {
		typ   gguf.TensorType
		bb    int
		f     func(dst []float32, blocks []byte, x []float32)
		rand  func(*rand.Rand, int, int) []byte
		chain func(nb int) int
	}{
		// Q4_K: the product, eight in a lane, the scale's product, eight
		// sub-blocks, d's product, the difference, one per block, two in
		// the final reduction; the min side is no longer (xs: ten, its
		// product, one sum). The codec's dequantized values add three.
		{gguf.TypeQ4_K, BlockBytesQ4_K, MatVecQ4_K, randQ4_K, func(nb int) int { return 1 + 8 + 1 + 8 + 1 + 1 + nb + 2 + 3 }},
		{gguf.TypeQ5_K, BlockBytesQ5_K, MatVecQ5_K, randQ5_K, func(nb int) int { return 1 + 8 + 1 + 8 + 1 + 1 + nb + 2 + 3 }},
		// Q6_K: the product, four in a lane, the scale's product, sixteen
		// sub-blocks, d's product, one per block, two; the codec's values
		// two.
		{gguf.TypeQ6_K, BlockBytesQ6_K, MatVecQ6_K, randQ6_K, func(nb int) int { return 1 + 4 + 1 + 16 + 1 + nb + 2 + 2 }},
	} {
		for _, rows := range rowCounts {
			for _, n := range kLengths {
				blocks := tc.rand(rng, rows, n)
				x := padded(randFloats(rng, n))
				dst, check := canaried(rows)
				tc.f(dst, blocks[:len(blocks):len(blocks)], x)
				check(t)
				rb := n / KBlockValues * tc.bb
				for i := range dst {
					want, abs := kTerms(t, tc.typ, blocks[i*rb:(i+1)*rb], x)
					if !within(dst[i], want, abs, tc.chain(n/KBlockValues)) {
						t.Errorf("%v %d×%d row %d: %v, float64 %v (Σ|terms| %g)", tc.typ, rows, n, i, dst[i], want, abs)
					}
				}
			}
		}
	}
}

// TestMatVecQ4_KLong runs rows longer than MatVecQ4_K's stack of
// sub-block sums (the allocating case) against rows that fit.
func TestMatVecQ4_KLong(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 2))
	n := stackSums*BlockValues + KBlockValues
	blocks := randQ4_K(rng, 2, n)
	x := randFloats(rng, n)
	dst := make([]float32, 2)
	MatVecQ4_K(dst, blocks, x)
	for i := range dst {
		want, abs := kTerms(t, gguf.TypeQ4_K, blocks[i*n/KBlockValues*BlockBytesQ4_K:][:n/KBlockValues*BlockBytesQ4_K], x)
		if !within(dst[i], want, abs, 25+n/KBlockValues) {
			t.Errorf("row %d: %v, float64 %v", i, dst[i], want)
		}
	}
}

func TestPathsAgreeK(t *testing.T) {
	needSIMD(t)
	rng := rand.New(rand.NewPCG(3, 3))
	for _, rows := range rowCounts {
		for _, n := range append(kLengths, 8192) {
			x := randFloats(rng, n)
			xs := make([]float32, n/BlockValues)
			blockSums(xs, x)
			blocks := randQ4_K(rng, rows, n)
			got, want := make([]float32, rows), make([]float32, rows)
			MatVecQ4_K(got, blocks, x)
			matVecQ4_KGo(want, blocks, x, xs)
			sameBits(t, fmt.Sprintf("Q4_K %d×%d", rows, n), got, want)
			blocks = randQ5_K(rng, rows, n)
			MatVecQ5_K(got, blocks, x)
			matVecQ5_KGo(want, blocks, x, xs)
			sameBits(t, fmt.Sprintf("Q5_K %d×%d", rows, n), got, want)
			blocks = randQ6_K(rng, rows, n)
			MatVecQ6_K(got, blocks, x)
			matVecQ6_KGo(want, blocks, x)
			sameBits(t, fmt.Sprintf("Q6_K %d×%d", rows, n), got, want)
		}
	}
}

// TestPathsAgreeKScales runs every half-precision value as Q4_K's d and
// dmin and Q6_K's d through both paths (subnormals, infinities, NaNs),
// the rest of each block random.
func TestPathsAgreeKScales(t *testing.T) {
	needSIMD(t)
	rng := rand.New(rand.NewPCG(3, 4))
	const rows = 1 << 16
	x := randFloats(rng, KBlockValues)
	xs := make([]float32, KBlockValues/BlockValues)
	blockSums(xs, x)
	got, want := make([]float32, rows), make([]float32, rows)
	q4 := randQ4_K(rng, rows, KBlockValues)
	for h := range rows {
		binary.LittleEndian.PutUint16(q4[h*BlockBytesQ4_K:], uint16(h))
		binary.LittleEndian.PutUint16(q4[h*BlockBytesQ4_K+2:], uint16(h*7919))
	}
	MatVecQ4_K(got, q4, x)
	matVecQ4_KGo(want, q4, x, xs)
	sameBits(t, "Q4_K scales", got, want)
	q5 := randQ5_K(rng, rows, KBlockValues)
	for h := range rows {
		binary.LittleEndian.PutUint16(q5[h*BlockBytesQ5_K:], uint16(h))
		binary.LittleEndian.PutUint16(q5[h*BlockBytesQ5_K+2:], uint16(h*7919))
	}
	MatVecQ5_K(got, q5, x)
	matVecQ5_KGo(want, q5, x, xs)
	sameBits(t, "Q5_K scales", got, want)
	q6 := randQ6_K(rng, rows, KBlockValues)
	for h := range rows {
		binary.LittleEndian.PutUint16(q6[h*BlockBytesQ6_K+208:], uint16(h))
	}
	MatVecQ6_K(got, q6, x)
	matVecQ6_KGo(want, q6, x)
	sameBits(t, "Q6_K scales", got, want)
}

func TestPreconditionsK(t *testing.T) {
	f := make([]float32, 600)
	b := make([]byte, 1000)
	for _, tc := range []struct {
		name string
		call func()
		msg  string
	}{
		{"q4_k cols", func() { MatVecQ4_K(f[:1], b, f[:288]) }, "MatVecQ4_K: len(x) = 288 is not a multiple of 256"},
		{"q4_k short", func() { MatVecQ4_K(f[:2], b[:287], f[:256]) }, "MatVecQ4_K: 287 bytes of blocks < 288"},
		{"q5_k short", func() { MatVecQ5_K(f[:2], b[:351], f[:256]) }, "MatVecQ5_K: 351 bytes of blocks < 352"},
		{"q6_k cols", func() { MatVecQ6_K(f[:1], b, f[:32]) }, "MatVecQ6_K: len(x) = 32 is not a multiple of 256"},
		{"q6_k short", func() { MatVecQ6_K(f[:2], b[:419], f[:256]) }, "MatVecQ6_K: 419 bytes of blocks < 420"},
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

func TestEmptyK(t *testing.T) {
	dst := []float32{7, 7}
	MatVecQ4_K(dst, nil, nil)
	MatVecQ6_K(dst[1:], nil, nil)
	if dst[0] != 0 || dst[1] != 0 {
		t.Fatalf("empty x: dst = %v, want zeros", dst)
	}
	MatVecQ4_K(nil, nil, make([]float32, 256))
	MatVecQ6_K(nil, nil, make([]float32, 256))
	MatVecQ5_K(nil, nil, make([]float32, 256))
	MatVecQ5_0(nil, nil, make([]float32, 32))
}

func TestNoAllocsK(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	x := randFloats(rng, 4864)
	dst := make([]float32, 3)
	q4, q6 := randQ4_K(rng, 3, 4864), randQ6_K(rng, 3, 4864)
	q5, q5k := randQ5_0(rng, 3, 4864), randQ5_K(rng, 3, 4864)
	allocs := testing.AllocsPerRun(20, func() {
		MatVecQ4_K(dst, q4, x)
		MatVecQ5_K(dst, q5k, x)
		MatVecQ6_K(dst, q6, x)
		MatVecQ5_0(dst, q5, x)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per run, want 0", allocs)
	}
}

// matVecQ4_KGo and matVecQ5_KGo are the Go path of MatVecQ4_K and
// MatVecQ5_K given x's sub-block sums.
func matVecQ4_KGo(dst []float32, blocks []byte, x, xs []float32) {
	matVecKGo(dst, blocks, x, xs, BlockBytesQ4_K)
}

func matVecQ5_KGo(dst []float32, blocks []byte, x, xs []float32) {
	matVecKGo(dst, blocks, x, xs, BlockBytesQ5_K)
}

// randQ5_0 is rows×n values of Q5_0 blocks, every byte random but the
// scales (randHalf).
func randQ5_0(rng *rand.Rand, rows, n int) []byte {
	nb := rows * n / BlockValues
	blocks := make([]byte, nb*BlockBytesQ5_0)
	for i := range blocks {
		blocks[i] = byte(rng.Uint32())
	}
	for b := range nb {
		binary.LittleEndian.PutUint16(blocks[b*BlockBytesQ5_0:], randHalf(rng))
	}
	return blocks
}

// TestMatVecQ5_0 checks MatVecQ5_0 against the codec's dequantized values
// (exact: d·(q−16) needs 16 bits) dotted in float64, within
// TestMatVecQuant's bound.
func TestMatVecQ5_0(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 6))
	c, err := gguf.TypeQ5_0.Codec()
	if err != nil {
		t.Fatal(err)
	}
	for _, rows := range rowCounts {
		for _, n := range []int{32, 64, 96, 576, 896} {
			blocks := randQ5_0(rng, rows, n)
			deq := make([]float32, rows*n)
			c.Dequantize(deq, blocks)
			x := padded(randFloats(rng, n))
			dst, check := canaried(rows)
			MatVecQ5_0(dst, blocks[:len(blocks):len(blocks)], x)
			check(t)
			for i := range dst {
				want, abs := refDot(deq[i*n:(i+1)*n], x)
				if !within(dst[i], want, abs, 1+8+2+1+n/32) {
					t.Errorf("Q5_0 %d×%d row %d: %v, float64 %v", rows, n, i, dst[i], want)
				}
			}
		}
	}
}

func TestPathsAgreeQ5_0(t *testing.T) {
	needSIMD(t)
	rng := rand.New(rand.NewPCG(3, 7))
	for _, rows := range rowCounts {
		for _, n := range []int{32, 64, 96, 576, 896, 4864} {
			x := randFloats(rng, n)
			blocks := randQ5_0(rng, rows, n)
			got, want := make([]float32, rows), make([]float32, rows)
			MatVecQ5_0(got, blocks, x)
			matVecQ5_0Go(want, blocks, x)
			sameBits(t, fmt.Sprintf("Q5_0 %d×%d", rows, n), got, want)
		}
	}
	// every half as the scale
	const rows = 1 << 16
	blocks := randQ5_0(rng, rows, BlockValues)
	for h := range rows {
		binary.LittleEndian.PutUint16(blocks[h*BlockBytesQ5_0:], uint16(h))
	}
	x := randFloats(rng, BlockValues)
	got, want := make([]float32, rows), make([]float32, rows)
	MatVecQ5_0(got, blocks, x)
	matVecQ5_0Go(want, blocks, x)
	sameBits(t, "Q5_0 scales", got, want)
}

func TestPreconditionsQ5_0(t *testing.T) {
	defer func() {
		if s := fmt.Sprint(recover()); !strings.Contains(s, "kernels: MatVecQ5_0: 43 bytes of blocks < 44") {
			t.Fatalf("panic %q", s)
		}
	}()
	MatVecQ5_0(make([]float32, 2), make([]byte, 43), make([]float32, 32))
}
