package gguf_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/model/gguf"
)

// decodable lists the types a Codec handles, with a bound on the RMS
// error of a round trip of Gaussian values (with outliers) relative to
// their RMS: about 1.3 times what the reference quantizers give here
// (0.0002 F16, 0.0018 BF16, 0.0057 Q8_0, 0.095 Q4_0, 0.100 Q4_1, 0.051
// Q5_0, 0.042 Q5_1, 0.077 Q4_K, 0.044 Q5_K, 0.024 Q6_K).
var decodable = []struct {
	typ    gguf.TensorType
	maxRel float64
}{
	{gguf.TypeF32, 0},
	{gguf.TypeF16, 3e-4},
	{gguf.TypeBF16, 2.5e-3},
	{gguf.TypeQ8_0, 0.0075},
	{gguf.TypeQ4_0, 0.125},
	{gguf.TypeQ4_1, 0.13},
	{gguf.TypeQ5_0, 0.066},
	{gguf.TypeQ5_1, 0.055},
	{gguf.TypeQ4_K, 0.10},
	{gguf.TypeQ5_K, 0.057},
	{gguf.TypeQ6_K, 0.031},
}

func codec(t testing.TB, typ gguf.TensorType) *gguf.Codec {
	t.Helper()
	c, err := typ.Codec()
	if err != nil {
		t.Fatal(err)
	}
	if c.Type() != typ {
		t.Fatalf("%v: codec of type %v", typ, c.Type())
	}
	return c
}

func le16(b []byte, vs ...uint16) []byte {
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint16(b, v)
	}
	return b
}

// Halves used below: 0x3C00 = 1, 0x3800 = 0.5, 0x4000 = 2, 0xBC00 = −1,
// 0x3400 = 0.25.

// legacyBlocks returns hand-built blocks of the 32-value types and the
// values each holds, computed from the format's definition: byte j of the
// 16 nibble bytes is j | (15−j)<<4, so value j < 16 has nibble j and value
// j+16 nibble 15−j.
func legacyBlocks() []struct {
	typ  gguf.TensorType
	data []byte
	want []float32
} {
	nib := make([]byte, 16)
	for j := range nib {
		nib[j] = byte(j) | byte(15-j)<<4
	}
	nibble := func(i int) float32 {
		if i < 16 {
			return float32(i)
		}
		return float32(31 - i)
	}
	// The fifth bits of Q5_0 and Q5_1: values 0, 3, 16 and 31.
	const qh = 1<<0 | 1<<3 | 1<<16 | 1<<31
	fifth := func(i int) float32 { return float32(uint32(qh) >> i & 1 * 16) }
	each := func(f func(i int) float32) []float32 {
		w := make([]float32, 32)
		for i := range w {
			w[i] = f(i)
		}
		return w
	}
	q8 := le16(nil, 0x3800)
	for j := range 32 {
		q8 = append(q8, byte(int8(j*9-128))) // −128 … 151 wrapped: covers the sign bit
	}
	return []struct {
		typ  gguf.TensorType
		data []byte
		want []float32
	}{
		{gguf.TypeQ8_0, q8, each(func(i int) float32 { return 0.5 * float32(int8(i*9-128)) })},
		{gguf.TypeQ4_0, append(le16(nil, 0x4000), nib...), each(func(i int) float32 { return 2 * (nibble(i) - 8) })},
		{gguf.TypeQ4_1, append(le16(nil, 0x3800, 0x3C00), nib...), each(func(i int) float32 { return 0.5*nibble(i) + 1 })},
		{gguf.TypeQ5_0, append(binary.LittleEndian.AppendUint32(le16(nil, 0x4000), qh), nib...),
			each(func(i int) float32 { return 2 * (nibble(i) + fifth(i) - 16) })},
		{gguf.TypeQ5_1, append(binary.LittleEndian.AppendUint32(le16(nil, 0x3800, 0xBC00), qh), nib...),
			each(func(i int) float32 { return 0.5*(nibble(i)+fifth(i)) - 1 })},
	}
}

// kScales are 12 scale bytes of a Q4_K/Q5_K block and the scale and min
// of each sub-block they encode, decoded by hand: sub-blocks 0–3 are the
// low 6 bits of bytes 0–3 and 4–7; sub-blocks 4–7 take their low 4 bits
// from the nibbles of bytes 8–11 and their top 2 bits from the top bits of
// bytes 0–3 (scale) and 4–7 (min).
var (
	kScales   = []byte{0x41, 0x82, 0xC3, 0x04, 0x45, 0x86, 0xC7, 0x08, 0x91, 0xA2, 0xB3, 0xC4}
	kSubScale = [8]float32{1, 2, 3, 4, 1 | 1<<4, 2 | 2<<4, 3 | 3<<4, 4}
	kSubMin   = [8]float32{5, 6, 7, 8, 9 | 1<<4, 10 | 2<<4, 11 | 3<<4, 12}
)

// kBlocks returns hand-built Q4_K, Q5_K and Q6_K blocks and their values.
func kBlocks() []struct {
	typ  gguf.TensorType
	data []byte
	want []float32
} {
	// Quant byte run c holds sub-block 2c in its low nibbles, 2c+1 in its
	// high ones; byte l of each run is (l mod 16) | (15 − l mod 16)<<4.
	qs := make([]byte, 128)
	for i := range qs {
		l := i % 16
		qs[i] = byte(l) | byte(15-l)<<4
	}
	nibble := func(i int) float32 { // value i's 4-bit quant
		l := i % 16
		if i/32%2 == 1 {
			return float32(15 - l)
		}
		return float32(l)
	}
	qh := make([]byte, 32)
	for l := range qh {
		qh[l] = byte(l*37 + 11)
	}
	// d = 1, dmin = 0.5; w = sc·q − m/2, sub-block i/32.
	q4 := append(le16(nil, 0x3C00, 0x3800), kScales...)
	q4 = append(q4, qs...)
	want4 := make([]float32, 256)
	for i := range want4 {
		want4[i] = kSubScale[i/32]*nibble(i) - 0.5*kSubMin[i/32]
	}
	// Q5_K: the fifth bit of value l of sub-block s is bit s of qh[l mod 32].
	q5 := append(le16(nil, 0x3C00, 0x3800), kScales...)
	q5 = append(append(q5, qh...), qs...)
	want5 := make([]float32, 256)
	for i := range want5 {
		h := float32(qh[i%32] >> (i / 32) & 1 * 16)
		want5[i] = kSubScale[i/32]*(nibble(i)+h) - 0.5*kSubMin[i/32]
	}
	// Q6_K: ql[128], qh[64], 16 int8 scales, d = 0.25 at offset 208.
	ql := make([]byte, 128)
	for i := range ql {
		ql[i] = byte(i*29 + 3)
	}
	qh6 := make([]byte, 64)
	for i := range qh6 {
		qh6[i] = byte(i*53 + 7)
	}
	sc6 := []int8{1, -2, 3, -4, 5, -6, 7, -8, 127, -128, 16, -16, 64, -1, 0, 9}
	q6 := append(append([]byte{}, ql...), qh6...)
	for _, s := range sc6 {
		q6 = append(q6, byte(s))
	}
	q6 = le16(q6, 0x3400)
	want6 := make([]float32, 256)
	for i := range want6 {
		// Half n, group k of 32 in the half, position l in the group.
		n, k, l := i/128, i%128/32, i%32
		b := ql[64*n+l+32*(k&1)]
		q := b & 15
		if k >= 2 {
			q = b >> 4
		}
		q |= qh6[32*n+l] >> (2 * k) & 3 << 4
		want6[i] = 0.25 * float32(sc6[8*n+l/16+2*k]) * float32(int(q)-32)
	}
	return []struct {
		typ  gguf.TensorType
		data []byte
		want []float32
	}{
		{gguf.TypeQ4_K, q4, want4},
		{gguf.TypeQ5_K, q5, want5},
		{gguf.TypeQ6_K, q6, want6},
	}
}

// Hand-built blocks of every quantized type dequantize to the values the
// format defines, exactly; a few values are also spelled out.
func TestDequantizeHandBuilt(t *testing.T) {
	blocks := append(legacyBlocks(), kBlocks()...)
	for _, tc := range blocks {
		t.Run(tc.typ.String(), func(t *testing.T) {
			c := codec(t, tc.typ)
			if len(tc.data) != tc.typ.BlockBytes() || len(tc.want) != tc.typ.BlockElems() {
				t.Fatalf("hand-built block of %d bytes, %d values", len(tc.data), len(tc.want))
			}
			got := make([]float32, len(tc.want))
			c.Dequantize(got, tc.data)
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("value %d: got %v, want %v", i, got[i], tc.want[i])
				}
			}
		})
	}
	// Spot values worked out by hand, which hold the oracle above to the
	// definition.
	want := map[gguf.TensorType][]float32{}
	for _, b := range blocks {
		want[b.typ] = b.want
	}
	for _, tc := range []struct {
		typ  gguf.TensorType
		i    int
		want float32
	}{
		{gguf.TypeQ8_0, 0, -64}, {gguf.TypeQ8_0, 15, 3.5}, {gguf.TypeQ8_0, 31, -52.5}, // int8(31·9 − 128) = −105
		{gguf.TypeQ4_0, 0, -16}, {gguf.TypeQ4_0, 16, 14},
		{gguf.TypeQ4_1, 1, 1.5}, {gguf.TypeQ4_1, 31, 1},
		{gguf.TypeQ5_0, 0, 0}, {gguf.TypeQ5_0, 1, -30}, {gguf.TypeQ5_0, 3, 6}, {gguf.TypeQ5_0, 31, 0},
		{gguf.TypeQ5_1, 3, 8.5}, {gguf.TypeQ5_1, 17, 6},
		{gguf.TypeQ4_K, 0, -2.5},     // sub-block 0: 1·0 − 5/2
		{gguf.TypeQ4_K, 32, 27},      // sub-block 1: 2·15 − 6/2
		{gguf.TypeQ4_K, 129, 4.5},    // sub-block 4: 17·1 − 25/2
		{gguf.TypeQ4_K, 160, 489},    // sub-block 5: 34·15 − 42/2
		{gguf.TypeQ4_K, 194, 72.5},   // sub-block 6: 51·2 − 59/2
		{gguf.TypeQ4_K, 255, -6},     // sub-block 7: 4·0 − 12/2
		{gguf.TypeQ5_K, 0, 13.5},     // qh[0] = 0b1011, bit 0: 1·(0 + 16) − 5/2
		{gguf.TypeQ5_K, 32, 59},      // bit 1: 2·(15 + 16) − 6/2
		{gguf.TypeQ5_K, 64, -3.5},    // bit 2 clear: 3·0 − 7/2
		{gguf.TypeQ5_K, 96, 120},     // bit 3: 4·(15 + 16) − 8/2
		{gguf.TypeQ6_K, 0, 4.75},     // ql[0] = 3, qh[0] = 7: q = 3 | 3<<4 − 32 = 19; 0.25·1·19
		{gguf.TypeQ6_K, 136, 857.25}, // ql[72] = 43 → 11, qh[40] = 79 → 3: q = 27; scale 127
		{gguf.TypeQ6_K, 200, -480},   // high nibble of ql[72] = 2, qh[40]>>4&3 = 0: q = −30; scale 64
		{gguf.TypeQ6_K, 255, -58.5},  // high nibble of ql[127] = 6, qh[63]>>6 = 0: q = −26; scale 9
	} {
		if got := want[tc.typ][tc.i]; got != tc.want {
			t.Errorf("%v value %d: oracle %v, hand value %v", tc.typ, tc.i, got, tc.want)
		}
	}
}

// Q6_K reads d from offset 208, which is not 2-byte aligned within a row of
// blocks; changing those two bytes and only them scales every value.
func TestQ6KScaleOffset(t *testing.T) {
	blk := kBlocks()[2]
	c := codec(t, gguf.TypeQ6_K)
	row := append(append([]byte{}, blk.data...), blk.data...) // the second d at 418
	binary.LittleEndian.PutUint16(row[208+210:], 0x4000)      // 2 instead of 0.25
	got := make([]float32, 512)
	c.Dequantize(got, row)
	for i := range 256 {
		if got[i] != blk.want[i] || got[256+i] != 8*blk.want[i] {
			t.Fatalf("value %d: got %v and %v, want %v and %v", i, got[i], got[256+i], blk.want[i], 8*blk.want[i])
		}
	}
}

// gaussian returns n seeded N(0, 1) values with a few outliers, as weight
// rows have.
func gaussian(n int, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 7))
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
		if rng.IntN(200) == 0 {
			x[i] *= 6
		}
	}
	return x
}

// Quantizing then dequantizing Gaussian rows stays within each type's RMS
// error bound; all-zero and constant rows come back exactly (no NaN from a
// zero scale).
func TestQuantizeRoundTrip(t *testing.T) {
	const n = 1024
	for _, tc := range decodable {
		t.Run(tc.typ.String(), func(t *testing.T) {
			c := codec(t, tc.typ)
			x := gaussian(n, uint64(tc.typ))
			blocks := make([]byte, tc.typ.RowBytes(n))
			c.Quantize(blocks, x)
			y := make([]float32, n)
			c.Dequantize(y, blocks)
			var se, sx float64
			for i := range x {
				se += (float64(y[i]) - float64(x[i])) * (float64(y[i]) - float64(x[i]))
				sx += float64(x[i]) * float64(x[i])
			}
			rel := math.Sqrt(se / sx)
			t.Logf("RMS error / RMS value %.4f (bound %.4f)", rel, tc.maxRel)
			if rel > tc.maxRel || (tc.maxRel == 0 && rel != 0) {
				t.Errorf("relative RMS error %.4f, want ≤ %.4f", rel, tc.maxRel)
			}
			for _, v := range []float32{0, 1} {
				for i := range x {
					x[i] = v
				}
				c.Quantize(blocks, x)
				c.Dequantize(y, blocks)
				for i := range y {
					if math.Abs(float64(y[i]-v)) > 1e-3 {
						t.Fatalf("constant %v: value %d came back as %v", v, i, y[i])
					}
				}
			}
		})
	}
}

// The reference quantizers reproduce llama.cpp's choices on values where
// the rounding is unambiguous: Q8_0 and Q4_0 of a ramp.
func TestQuantizeLegacyBits(t *testing.T) {
	x := make([]float32, 32)
	for i := range x {
		x[i] = float32(i - 16) // −16 … 15
	}
	b := make([]byte, 34)
	codec(t, gguf.TypeQ8_0).Quantize(b, x)
	// d = 16/127; q = round(x·127/16).
	if h := binary.LittleEndian.Uint16(b); h != 0x3008 {
		t.Errorf("Q8_0 d bits %#04x, want 0x3008 (16/127 in half)", h)
	}
	if int8(b[2]) != -127 || int8(b[2+16]) != 0 || int8(b[2+31]) != 119 {
		t.Errorf("Q8_0 quants %d %d %d, want −127 0 119", int8(b[2]), int8(b[18]), int8(b[33]))
	}
	b = b[:18]
	codec(t, gguf.TypeQ4_0).Quantize(b, x)
	// The largest magnitude is −16, so d = 2 and q = min(15, ⌊x/2 + 8.5⌋).
	if h := binary.LittleEndian.Uint16(b); h != 0x4000 {
		t.Errorf("Q4_0 d bits %#04x, want 0x4000", h)
	}
	for j := range 16 {
		lo, hi := int(b[2+j]&15), int(b[2+j]>>4)
		wantLo := min(15, int(math.Floor(float64(x[j])/2+8.5)))
		wantHi := min(15, int(math.Floor(float64(x[j+16])/2+8.5)))
		if lo != wantLo || hi != wantHi {
			t.Fatalf("Q4_0 byte %d: nibbles %d %d, want %d %d", j, lo, hi, wantLo, wantHi)
		}
	}
}

// randomRow returns a row of nb blocks of typ holding arbitrary bit
// patterns, except that its half-precision parameters are finite and
// moderate, so that dot products are finite.
func randomRow(typ gguf.TensorType, nb int, rng *rand.Rand) []byte {
	bb := typ.BlockBytes()
	row := make([]byte, nb*bb)
	for i := range row {
		row[i] = byte(rng.Uint32())
	}
	halves := map[gguf.TensorType][]int{
		gguf.TypeQ8_0: {0}, gguf.TypeQ4_0: {0}, gguf.TypeQ4_1: {0, 2}, gguf.TypeQ5_0: {0}, gguf.TypeQ5_1: {0, 2},
		gguf.TypeQ4_K: {0, 2}, gguf.TypeQ5_K: {0, 2}, gguf.TypeQ6_K: {208},
	}[typ]
	for b := range nb {
		switch typ {
		case gguf.TypeF32:
			binary.LittleEndian.PutUint32(row[4*b:], math.Float32bits(float32(rng.NormFloat64())))
		case gguf.TypeF16:
			binary.LittleEndian.PutUint16(row[2*b:], 0x3000+uint16(rng.IntN(0x1800))|uint16(rng.IntN(2))<<15)
		case gguf.TypeBF16:
			binary.LittleEndian.PutUint16(row[2*b:], 0x3C00+uint16(rng.IntN(0x0600))|uint16(rng.IntN(2))<<15)
		}
		for _, off := range halves {
			binary.LittleEndian.PutUint16(row[b*bb+off:], 0x1800+uint16(rng.IntN(0x1400))|uint16(rng.IntN(2))<<15)
		}
	}
	return row
}

// Dot equals, bit for bit, the sum its doc describes over Dequantize's
// values (dotInOrder), and that sum is within 1e-5 of Σ|w·x| of the
// float64 dot product, on rows of arbitrary bits and on quantized Gaussian
// rows of one to several chunks.
func TestDotMatchesDequantized(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range decodable {
		t.Run(tc.typ.String(), func(t *testing.T) {
			c := codec(t, tc.typ)
			be := tc.typ.BlockElems()
			for trial := range 40 {
				nb := 1 + rng.IntN(max(8, 1024/be))
				n := nb * be
				row := randomRow(tc.typ, nb, rng)
				x := gaussian(n, uint64(trial))
				if trial%2 == 1 {
					row = make([]byte, tc.typ.RowBytes(n))
					c.Quantize(row, gaussian(n, uint64(trial+100)))
				}
				w := make([]float32, n)
				c.Dequantize(w, row)
				got, want := c.Dot(row, x), dotInOrder(w, x)
				if math.Float32bits(got) != math.Float32bits(want) {
					t.Fatalf("trial %d (%d values): dot %v, in Dot's order over the dequantized values %v", trial, n, got, want)
				}
				var ref, mag float64
				for j := range w {
					ref += float64(w[j]) * float64(x[j])
					mag += math.Abs(float64(w[j]) * float64(x[j]))
				}
				if d := math.Abs(float64(got) - ref); d > 1e-5*mag || math.IsNaN(float64(got)) {
					t.Fatalf("trial %d (%d values): dot %v, dequantized %v, |Δ| = %.3g of Σ|w·x| %.3g", trial, n, got, ref, d, mag)
				}
			}
		})
	}
}

// dotInOrder is Codec.Dot's documented sum over w and x, written out: per
// chunk of 256 values, four lanes over the whole groups of four, the rest
// to lane 0, (l0 + l1) + (l2 + l3); the chunks' sums in order.
func dotInOrder(w, x []float32) float32 {
	var s float32
	for c := 0; c < len(w); c += 256 {
		end := min(c+256, len(w))
		whole := c + (end-c)/4*4
		var l [4]float32
		for j := c; j < end; j++ {
			lane := (j - c) % 4
			if j >= whole {
				lane = 0
			}
			l[lane] += float32(w[j] * x[j])
		}
		s += (l[0] + l[1]) + (l[2] + l[3])
	}
	return s
}

// Lengths that do not match panic with a message naming the type.
func TestCodecLengthPanics(t *testing.T) {
	c := codec(t, gguf.TypeQ4_K)
	for name, f := range map[string]func(){
		"dequantize short": func() { c.Dequantize(make([]float32, 256), make([]byte, 143)) },
		"dot partial":      func() { c.Dot(make([]byte, 144), make([]float32, 255)) },
		"quantize long":    func() { c.Quantize(make([]byte, 145), make([]float32, 256)) },
	} {
		func() {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.HasPrefix(s, "gguf: Q4_K: ") {
					t.Errorf("%s: recovered %v, want a gguf: Q4_K panic", name, r)
				}
			}()
			f()
		}()
	}
}

// Every type has its ggml block size; those the package cannot decode say
// so by name.
func TestTypeSizes(t *testing.T) {
	for _, tc := range []struct {
		typ          gguf.TensorType
		name         string
		elems, bytes int
		decodes      bool
	}{
		{gguf.TypeF32, "F32", 1, 4, true}, {gguf.TypeF16, "F16", 1, 2, true}, {gguf.TypeBF16, "BF16", 1, 2, true},
		{gguf.TypeQ4_0, "Q4_0", 32, 18, true}, {gguf.TypeQ4_1, "Q4_1", 32, 20, true},
		{gguf.TypeQ5_0, "Q5_0", 32, 22, true}, {gguf.TypeQ5_1, "Q5_1", 32, 24, true},
		{gguf.TypeQ8_0, "Q8_0", 32, 34, true}, {gguf.TypeQ8_1, "Q8_1", 32, 36, false},
		{gguf.TypeQ2_K, "Q2_K", 256, 84, false}, {gguf.TypeQ3_K, "Q3_K", 256, 110, false},
		{gguf.TypeQ4_K, "Q4_K", 256, 144, true}, {gguf.TypeQ5_K, "Q5_K", 256, 176, true},
		{gguf.TypeQ6_K, "Q6_K", 256, 210, true}, {gguf.TypeQ8_K, "Q8_K", 256, 292, false},
		{gguf.TypeIQ2_XXS, "IQ2_XXS", 256, 66, false}, {gguf.TypeIQ4_NL, "IQ4_NL", 32, 18, false},
		{gguf.TypeIQ4_XS, "IQ4_XS", 256, 136, false}, {gguf.TypeTQ2_0, "TQ2_0", 256, 66, false},
		{gguf.TypeMXFP4, "MXFP4", 32, 17, false}, {gguf.TypeI8, "I8", 1, 1, false},
		{gguf.TensorType(4), "TensorType(4)", 0, 0, false}, {gguf.TensorType(1000), "TensorType(1000)", 0, 0, false},
	} {
		if tc.typ.String() != tc.name || tc.typ.BlockElems() != tc.elems || tc.typ.BlockBytes() != tc.bytes {
			t.Errorf("%v: %s, %d values in %d bytes; want %s, %d in %d", uint32(tc.typ), tc.typ, tc.typ.BlockElems(), tc.typ.BlockBytes(), tc.name, tc.elems, tc.bytes)
		}
		_, err := tc.typ.Codec()
		if (err == nil) != tc.decodes {
			t.Errorf("%v: Codec error %v, want decodable %v", tc.typ, err, tc.decodes)
		}
		if err != nil && err.Error() != fmt.Sprintf("gguf: type %s not supported", tc.name) {
			t.Errorf("%v: error %q", tc.typ, err)
		}
	}
	if got := gguf.TypeQ4_K.RowBytes(512); got != 288 {
		t.Errorf("Q4_K RowBytes(512) = %d, want 288", got)
	}
	if gguf.TypeQ4_K.RowBytes(100) != -1 || gguf.TensorType(4).RowBytes(32) != -1 || gguf.TypeF16.RowBytes(-2) != -1 {
		t.Error("RowBytes of a partial block, an unknown type or a negative count is not −1")
	}
}

// FuzzDecode feeds arbitrary bytes to every codec as whole blocks: decoding
// and dotting never panic, and the dot is finite whenever every
// dequantized value is and the vector is small.
func FuzzDecode(f *testing.F) {
	for _, tc := range append(legacyBlocks(), kBlocks()...) {
		f.Add(uint8(tc.typ), tc.data)
	}
	f.Add(uint8(gguf.TypeF16), []byte{0x00, 0x7C, 0x01, 0x7C, 0xFF, 0xFF})
	f.Fuzz(func(t *testing.T, typ uint8, data []byte) {
		c, err := gguf.TensorType(typ).Codec()
		if err != nil {
			return
		}
		bb, be := c.Type().BlockBytes(), c.Type().BlockElems()
		nb := len(data) / bb
		data = data[:nb*bb]
		w := make([]float32, nb*be)
		c.Dequantize(w, data)
		x := make([]float32, len(w))
		finite := true
		for i, v := range w {
			x[i] = 1e-6 * float32(i%7-3)
			finite = finite && !math.IsInf(float64(v), 0) && !math.IsNaN(float64(v)) && math.Abs(float64(v)) < 1e30
		}
		if d := c.Dot(data, x); finite && (math.IsNaN(float64(d)) || math.IsInf(float64(d), 0)) {
			t.Fatalf("%v: dot %v over finite values", c.Type(), d)
		}
	})
}

// Example: a row of 32 values stored as Q8_0 (34 bytes), decoded back, and
// dotted with a vector.
func ExampleCodec() {
	c, err := gguf.TypeQ8_0.Codec()
	if err != nil {
		panic(err)
	}
	x := make([]float32, 32)
	for i := range x {
		x[i] = float32(i) / 4
	}
	row := make([]byte, gguf.TypeQ8_0.RowBytes(len(x)))
	c.Quantize(row, x)
	w := make([]float32, len(x))
	c.Dequantize(w, row)
	ones := make([]float32, len(x))
	for i := range ones {
		ones[i] = 1
	}
	fmt.Printf("%d bytes; x[5] = %.4f, w[5] = %.4f; Σx = 124, Σw = %.2f\n", len(row), x[5], w[5], c.Dot(row, ones))
	_, err = gguf.TypeQ2_K.Codec()
	fmt.Println(err)
	// Output:
	// 34 bytes; x[5] = 1.2500, w[5] = 1.2207; Σx = 124, Σw = 124.02
	// gguf: type Q2_K not supported
}

// MulVec equals Dot row by row, exactly, on rows of one chunk and of
// several, and neither allocates.
func TestCodecMulVec(t *testing.T) {
	for _, tc := range decodable {
		c := codec(t, tc.typ)
		for _, n := range []int{256, 5 * 256} {
			const rows = 5
			m := make([]byte, rows*tc.typ.RowBytes(n))
			c.Quantize(m, gaussian(rows*n, uint64(n)))
			x := gaussian(n, 11)
			dst := make([]float32, rows)
			c.MulVec(dst, m, x)
			rb := tc.typ.RowBytes(n)
			w := make([]float32, n)
			for i := range rows {
				if d := c.Dot(m[i*rb:(i+1)*rb], x); d != dst[i] {
					t.Fatalf("%v, %d values: row %d: MulVec %v, Dot %v", tc.typ, n, i, dst[i], d)
				}
				c.Dequantize(w, m[i*rb:(i+1)*rb])
				var ref, mag float64
				for j := range w {
					ref += float64(w[j]) * float64(x[j])
					mag += math.Abs(float64(w[j]) * float64(x[j]))
				}
				if d := math.Abs(float64(dst[i]) - ref); d > 1e-5*mag {
					t.Fatalf("%v, %d values: row %d: %v, dequantized %v", tc.typ, n, i, dst[i], ref)
				}
			}
			if a := testing.AllocsPerRun(5, func() { c.MulVec(dst, m, x) }); a != 0 {
				t.Errorf("%v: MulVec allocates %v times", tc.typ, a)
			}
			if a := testing.AllocsPerRun(5, func() { sink = c.Dot(m[:rb], x) }); a != 0 {
				t.Errorf("%v: Dot allocates %v times", tc.typ, a)
			}
		}
		func() {
			defer func() {
				if r, _ := recover().(string); !strings.HasPrefix(r, "gguf: "+tc.typ.String()+": ") {
					t.Errorf("%v: MulVec of a short matrix: recovered %q", tc.typ, r)
				}
			}()
			c.MulVec(make([]float32, 2), make([]byte, tc.typ.RowBytes(256)), make([]float32, 256))
		}()
	}
}
