package gguf_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/internal/testmodel"
	"github.com/kvscope/kvscope/core/model/gguf"
	"github.com/kvscope/kvscope/core/model/ggufwrite"
)

// allTypesKVs returns one metadata entry of every value type, including arrays of
// strings and an array of arrays.
func allTypesKVs() []gguf.KV {
	s := ggufwrite.Scalar
	a := ggufwrite.Array
	return []gguf.KV{
		{"general.architecture", s("llama")},
		{"u8", s(uint8(200))},
		{"i8", s(int8(-100))},
		{"u16", s(uint16(60000))},
		{"i16", s(int16(-30000))},
		{"u32", s(uint32(4000000000))},
		{"i32", s(int32(-2000000000))},
		{"f32", s(float32(1.5))},
		{"bool", s(true)},
		{"str", s("héllo ▁world")},
		{"u64", s(uint64(1) << 60)},
		{"i64", s(int64(-1) << 60)},
		{"f64", s(math.Pi)},
		{"arr.u8", a([]uint8{1, 2, 3})},
		{"arr.i8", a([]int8{-1, 2})},
		{"arr.u16", a([]uint16{7})},
		{"arr.i16", a([]int16{-7})},
		{"arr.u32", a([]uint32{1, 2})},
		{"arr.i32", a([]int32{-1, 6})},
		{"arr.f32", a([]float32{0.5, -2})},
		{"arr.bool", a([]bool{true, false})},
		{"arr.str", a([]string{"<s>", "", "▁a"})},
		{"arr.u64", a([]uint64{9})},
		{"arr.i64", a([]int64{-9})},
		{"arr.f64", a([]float64{2.25})},
		{"arr.arr", a([]gguf.Value{a([]string{"x"}), a([]uint8{})})},
		{"arr.empty", a([]string{})},
	}
}

func testTensors() []ggufwrite.Tensor {
	x := make([]float32, 64)
	for i := range x {
		x[i] = float32(i)/8 - 4
	}
	return []ggufwrite.Tensor{
		ggufwrite.F32("a.f32", x[:6], 3, 2),
		ggufwrite.F16("b.f16", x[:64], 64),
		ggufwrite.Q8_0("c.q8", x, 32, 2),
		ggufwrite.F32("d.scalar", []float32{7}, 1),
	}
}

func TestLoadRoundTrip(t *testing.T) {
	for _, version := range []uint32{1, 2, 3} {
		for _, align := range []uint32{0, 8, 64} {
			kvs := allTypesKVs()
			wantAlign := gguf.DefaultAlignment
			if align != 0 {
				kvs = append(kvs, gguf.KV{Key: "general.alignment", Value: ggufwrite.Scalar(align)})
				wantAlign = int(align)
			}
			data := ggufwrite.Encode(version, kvs, testTensors())
			f, err := gguf.Load(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatalf("v%d align %d: %v", version, align, err)
			}
			if f.Version != version || f.Alignment != wantAlign {
				t.Errorf("v%d: got version %d alignment %d, want %d", version, f.Version, f.Alignment, wantAlign)
			}
			if f.DataOffset%int64(wantAlign) != 0 {
				t.Errorf("v%d: data offset %d not aligned to %d", version, f.DataOffset, wantAlign)
			}
			if !reflect.DeepEqual(f.Metadata, kvs) {
				t.Errorf("v%d: metadata mismatch:\n got %v\nwant %v", version, f.Metadata, kvs)
			}
			for _, want := range testTensors() {
				ti, ok := f.Tensor(want.Name)
				if !ok {
					t.Fatalf("v%d: tensor %q missing", version, want.Name)
				}
				if !reflect.DeepEqual(ti.Dims, want.Dims) || ti.Type != want.Type {
					t.Errorf("v%d: tensor %q: dims %v type %v, want %v %v", version, want.Name, ti.Dims, ti.Type, want.Dims, want.Type)
				}
				if ti.NumBytes() != uint64(len(want.Data)) {
					t.Errorf("v%d: tensor %q: NumBytes %d, want %d", version, want.Name, ti.NumBytes(), len(want.Data))
				}
			}
		}
	}
}

func TestReadFloat32(t *testing.T) {
	x := make([]float32, 64)
	for i := range x {
		x[i] = float32(i)/8 - 4 // exactly representable in F16
	}
	bf := make([]byte, 2*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint16(bf[2*i:], uint16(math.Float32bits(v)>>16))
	}
	tests := []struct {
		name   string
		tensor ggufwrite.Tensor
		tol    float64
	}{
		{"F32", ggufwrite.F32("t", x, 64), 0},
		{"F16", ggufwrite.F16("t", x, 16, 4), 0},
		{"BF16", ggufwrite.Tensor{Name: "t", Dims: []uint64{64}, Type: gguf.TypeBF16, Data: bf}, 0},
		{"Q8_0", ggufwrite.Q8_0("t", x, 32, 2), 4.0 / 127},
		{"Q4_0", ggufwrite.Q4_0("t", x, 32, 2), 4.0 / 8},
		{"BF16 writer", ggufwrite.BF16("t", x, 64), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := ggufwrite.Encode(3, nil, []ggufwrite.Tensor{ggufwrite.F32("pad", []float32{1, 2, 3}, 3), tc.tensor})
			f, err := gguf.Load(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			got, err := f.ReadFloat32("t")
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(x) {
				t.Fatalf("got %d elements, want %d", len(got), len(x))
			}
			for i := range x {
				if d := math.Abs(float64(got[i] - x[i])); d > tc.tol {
					t.Fatalf("element %d: got %v, want %v (tolerance %v)", i, got[i], x[i], tc.tol)
				}
			}
		})
	}
}

func TestReadFloat32Errors(t *testing.T) {
	data := ggufwrite.Encode(2, nil, []ggufwrite.Tensor{
		ggufwrite.F32("f", []float32{1, 2}, 2),
		{Name: "blk.0.attn_q.weight", Dims: []uint64{256}, Type: gguf.TypeQ2_K, Data: make([]byte, 84)},
	})
	f, err := gguf.Load(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.ReadFloat32("missing"); err == nil || !strings.Contains(err.Error(), "no tensor") {
		t.Errorf("missing tensor: err = %v", err)
	}
	if _, err := f.ReadFloat32("blk.0.attn_q.weight"); err == nil || err.Error() != `gguf: tensor "blk.0.attn_q.weight": type Q2_K not supported` {
		t.Errorf("Q2_K: err = %v", err)
	}
	ti, _ := f.Tensor("f")
	if err := f.ReadFloat32Into(ti, make([]float32, 3)); err == nil {
		t.Error("wrong destination length: no error")
	}
}

// A File from LoadBytes reads the same values as one from Load, and its
// ReadBytes are sub-slices of the loaded bytes, capacity clipped.
func TestLoadBytes(t *testing.T) {
	data := ggufwrite.Encode(3, allTypesKVs(), testTensors())
	fr, err := gguf.Load(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	fb, err := gguf.LoadBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fr.Tensors, fb.Tensors) || !reflect.DeepEqual(fr.Metadata, fb.Metadata) {
		t.Fatal("LoadBytes parsed another header")
	}
	for i := range fb.Tensors {
		ti := &fb.Tensors[i]
		a, err1 := fr.ReadFloat32(ti.Name)
		b, err2 := fb.ReadFloat32(ti.Name)
		if err1 != nil || err2 != nil || !reflect.DeepEqual(a, b) {
			t.Fatalf("%s: %v, %v", ti.Name, err1, err2)
		}
		raw, err := fb.ReadBytes(ti)
		if err != nil {
			t.Fatal(err)
		}
		start := fb.DataOffset + int64(ti.Offset)
		if len(raw) != int(ti.NumBytes()) || cap(raw) != len(raw) || &raw[0] != &data[start] {
			t.Fatalf("%s: ReadBytes is not data[%d:%d] clipped", ti.Name, start, start+int64(ti.NumBytes()))
		}
	}
	bad := gguf.TensorInfo{Name: "x", Dims: []uint64{32}, Type: gguf.TypeQ8_0, Offset: uint64(len(data))}
	if _, err := fb.ReadBytes(&bad); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("a tensor past the end: err = %v", err)
	}
	if _, err := gguf.LoadBytes(data[:10]); err == nil {
		t.Error("LoadBytes accepted a truncated header")
	}
}

// header builds the start of a file by hand, for malformed-input cases.
func header(version uint32, nTensors, nKV uint64) []byte {
	b := []byte(gguf.Magic)
	b = binary.LittleEndian.AppendUint32(b, version)
	if version == 1 {
		b = binary.LittleEndian.AppendUint32(b, uint32(nTensors))
		b = binary.LittleEndian.AppendUint32(b, uint32(nKV))
	} else {
		b = binary.LittleEndian.AppendUint64(b, nTensors)
		b = binary.LittleEndian.AppendUint64(b, nKV)
	}
	return b
}

func appendStr(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(len(s)))
	return append(b, s...)
}

func TestLoadErrors(t *testing.T) {
	u32 := binary.LittleEndian.AppendUint32
	u64 := binary.LittleEndian.AppendUint64
	kv := func(key string, typ uint32, val []byte) []byte {
		b := appendStr(header(3, 0, 1), key)
		b = u32(b, typ)
		return append(b, val...)
	}
	tensor := func(name string, dims []uint64, typ uint32, off uint64, extra int) []byte {
		b := appendStr(header(3, 1, 0), name)
		b = u32(b, uint32(len(dims)))
		for _, d := range dims {
			b = u64(b, d)
		}
		b = u32(b, typ)
		b = u64(b, off)
		for len(b)%32 != 0 {
			b = append(b, 0)
		}
		return append(b, make([]byte, extra)...)
	}
	dupKV := appendStr(header(3, 0, 2), "k")
	dupKV = u32(dupKV, uint32(gguf.TypeUint8))
	dupKV = append(dupKV, 1)
	dupKV = appendStr(dupKV, "k")
	dupKV = u32(dupKV, uint32(gguf.TypeUint8))
	dupKV = append(dupKV, 1)

	nested := u32(nil, uint32(gguf.TypeArray))
	for i := 0; i < 20; i++ {
		nested = u64(nested, 1)
		nested = u32(nested, uint32(gguf.TypeArray))
	}
	nested = u64(nested, 0)

	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "not a GGUF file"},
		{"bad magic", []byte("GGML\x01\x00\x00\x00"), "magic"},
		{"version 0", header(0, 0, 0), "unsupported version 0"},
		{"version 4", header(4, 0, 0), "unsupported version 4"},
		{"huge tensor count", header(3, 1<<62, 0), "tensor count"},
		{"huge kv count v1", header(1, 0, 1<<31), "metadata count"},
		{"truncated counts", header(3, 0, 0)[:16], "truncated"},
		{"huge key length", append(u64(header(3, 0, 1), 1<<40), make([]byte, 16)...), "metadata key length"},
		{"unknown value type", kv("k", 13, nil), "unknown value type 13"},
		{"huge string", kv("k", uint32(gguf.TypeString), u64(nil, 1<<50)), "string length"},
		{"huge array", kv("k", uint32(gguf.TypeArray), u64(u32(nil, uint32(gguf.TypeUint64)), 1<<40)), "array length"},
		{"huge string array", kv("k", uint32(gguf.TypeArray), u64(u32(nil, uint32(gguf.TypeString)), 1000)), "array length"},
		{"array of unknown", kv("k", uint32(gguf.TypeArray), u64(u32(nil, 99), 0)), "unknown value type 99"},
		{"deep arrays", kv("k", uint32(gguf.TypeArray), nested), "nested deeper"},
		{"bad bool", kv("k", uint32(gguf.TypeBool), []byte{2}), "invalid bool"},
		{"duplicate key", dupKV, "duplicate metadata key"},
		{"alignment 0", kv("general.alignment", uint32(gguf.TypeUint32), u32(nil, 0)), "power of two"},
		{"alignment 3", kv("general.alignment", uint32(gguf.TypeUint32), u32(nil, 3)), "power of two"},
		{"alignment string", kv("general.alignment", uint32(gguf.TypeString), appendStr(nil, "32")), "power of two"},
		{"zero dims", tensor("t", nil, 0, 0, 0), "0 dimensions"},
		{"five dims", tensor("t", []uint64{1, 1, 1, 1, 1}, 0, 0, 0), "5 dimensions"},
		{"zero dim", tensor("t", []uint64{4, 0}, 0, 0, 0), "dimension 1 is 0"},
		{"overflowing dims", tensor("t", []uint64{1 << 30, 1 << 30, 1 << 30}, 0, 0, 0), "more than"},
		{"unknown tensor type", tensor("t", []uint64{4}, 77, 0, 16), "unknown tensor type"},
		{"partial block", tensor("t", []uint64{16}, uint32(gguf.TypeQ8_0), 0, 34), "block size"},
		{"data past end", tensor("t", []uint64{4}, 0, 0, 15), "past the end"},
		{"offset past end", tensor("t", []uint64{4}, 0, 1<<63, 16), "past the end"},
		{"misaligned offset", tensor("t", []uint64{4}, 0, 4, 64), "not a multiple"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := gguf.Load(bytes.NewReader(tc.data), int64(len(tc.data)))
			if err == nil {
				t.Fatalf("Load succeeded, want error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "gguf: ") {
				t.Fatalf("err = %q, want gguf:-prefixed error containing %q", err, tc.want)
			}
		})
	}
}

func TestDuplicateTensor(t *testing.T) {
	data := ggufwrite.Encode(2, nil, []ggufwrite.Tensor{
		ggufwrite.F32("t", []float32{1}, 1), ggufwrite.F32("t", []float32{2}, 1),
	})
	if _, err := gguf.Load(bytes.NewReader(data), int64(len(data))); err == nil || !strings.Contains(err.Error(), "duplicate tensor") {
		t.Fatalf("err = %v, want duplicate tensor", err)
	}
}

// TestTruncations loads every prefix of a valid file that ends before the last
// tensor's data does: each must fail cleanly.
func TestTruncations(t *testing.T) {
	for _, version := range []uint32{1, 3} {
		data := ggufwrite.Encode(version, allTypesKVs(), testTensors())
		full, err := gguf.Load(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		last := full.Tensors[len(full.Tensors)-1]
		end := int(full.DataOffset) + int(last.Offset) + int(last.NumBytes())
		for n := 0; n < end; n++ {
			if _, err := gguf.Load(bytes.NewReader(data[:n]), int64(n)); err == nil {
				t.Fatalf("v%d: prefix of %d/%d bytes loaded without error", version, n, len(data))
			}
		}
	}
}

func TestValueAccessors(t *testing.T) {
	a := ggufwrite.Array
	s := ggufwrite.Scalar
	tests := []struct {
		v       gguf.Value
		i       int64
		iok     bool
		f       float64
		fok     bool
		ints    []int64
		intsOK  bool
		length  int
		typName string
	}{
		{s(uint32(7)), 7, true, 7, true, nil, false, 0, "uint32"},
		{s(int8(-3)), -3, true, -3, true, nil, false, 0, "int8"},
		{s(uint64(math.MaxUint64)), 0, false, 0, false, nil, false, 0, "uint64"},
		{s(float32(0.5)), 0, false, 0.5, true, nil, false, 0, "float32"},
		{s("x"), 0, false, 0, false, nil, false, 0, "string"},
		{a([]int32{1, -2}), 0, false, 0, false, []int64{1, -2}, true, 2, "array"},
		{a([]uint64{math.MaxUint64}), 0, false, 0, false, nil, false, 1, "array"},
		{a([]string{"a", "b", "c"}), 0, false, 0, false, nil, false, 3, "array"},
	}
	for _, tc := range tests {
		i, iok := tc.v.Int()
		f, fok := tc.v.Float()
		ints, intsOK := tc.v.Ints()
		if i != tc.i || iok != tc.iok || f != tc.f || fok != tc.fok || !reflect.DeepEqual(ints, tc.ints) || intsOK != tc.intsOK || tc.v.Len() != tc.length || tc.v.Type.String() != tc.typName {
			t.Errorf("%v: Int %v,%v Float %v,%v Ints %v,%v Len %d Type %v", tc.v, i, iok, f, fok, ints, intsOK, tc.v.Len(), tc.v.Type)
		}
	}
	if got, ok := a([]float64{1.5}).Float32s(); !ok || got[0] != 1.5 {
		t.Errorf("Float32s of []float64: %v %v", got, ok)
	}
	if got := gguf.ValueType(42).String(); got != "ValueType(42)" {
		t.Errorf("unknown ValueType String = %q", got)
	}
	if got := gguf.TensorType(99).String(); got != "TensorType(99)" {
		t.Errorf("unknown TensorType String = %q", got)
	}
}

func TestRealModel(t *testing.T) {
	data := testmodel.Bytes(t)
	f, err := gguf.Load(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if f.Version != 1 || f.Alignment != 32 {
		t.Errorf("version %d alignment %d, want 1 and 32", f.Version, f.Alignment)
	}
	arch, _ := f.Lookup("general.architecture")
	if s, _ := arch.Str(); s != "llama" {
		t.Errorf("architecture %v, want llama", arch.Data)
	}
	toks, _ := f.Lookup("tokenizer.ggml.tokens")
	if ss, ok := toks.Strings(); !ok || len(ss) != 512 {
		t.Errorf("tokens: %d strings (ok=%v), want 512", len(ss), ok)
	}
	emb, ok := f.Tensor("token_embd.weight")
	if !ok || !reflect.DeepEqual(emb.Dims, []uint64{64, 512}) || emb.Type != gguf.TypeF32 {
		t.Fatalf("token_embd.weight: %+v", emb)
	}
	if _, err := f.ReadFloat32("token_embd.weight"); err != nil {
		t.Fatal(err)
	}
}

// TestDequantizeBlocks decodes one block of each type written by hand:
// the bytes below are the formats' definitions, not the writer's output.
func TestDequantizeBlocks(t *testing.T) {
	f16 := func(bits ...uint16) []byte {
		var b []byte
		for _, x := range bits {
			b = binary.LittleEndian.AppendUint16(b, x)
		}
		return b
	}
	// Q8_0: scale 0.5 (F16 0x3800), quants 0, 1, −1, 127, −128, then 2, 3, ….
	q8 := f16(0x3800)
	q8 = append(q8, 0, 1, 0xFF, 127, 0x80)
	want8 := []float32{0, 0.5, -0.5, 63.5, -64}
	for j := 5; j < 32; j++ {
		q8 = append(q8, byte(j-3))
		want8 = append(want8, 0.5*float32(j-3))
	}
	// Q4_0: scale 2 (F16 0x4000); byte j holds quant j (low nibble) and
	// quant j+16 (high nibble); x = 2·(q − 8).
	q4 := f16(0x4000)
	want4 := make([]float32, 32)
	for j := range 16 {
		lo, hi := byte(j), byte(15-j)
		q4 = append(q4, hi<<4|lo)
		want4[j], want4[j+16] = 2*float32(int(lo)-8), 2*float32(int(hi)-8)
	}
	if want4[0] != -16 || want4[15] != 14 || want4[16] != 14 || want4[31] != -16 {
		t.Fatalf("hand-computed Q4_0 block is off: %v", want4)
	}
	// F16: 1, −2, 0.5, 65504 (largest), 2^−24 (smallest subnormal), −0.
	// BF16: the top half of the float32 bits: 1, −2, 3.140625, 1e38-ish.
	tests := []struct {
		name string
		typ  gguf.TensorType
		n    uint64
		data []byte
		want []float32
	}{
		{"F16", gguf.TypeF16, 6, f16(0x3C00, 0xC000, 0x3800, 0x7BFF, 0x0001, 0x8000), []float32{1, -2, 0.5, 65504, 0x1p-24, 0}},
		{"BF16", gguf.TypeBF16, 4, f16(0x3F80, 0xC000, 0x4049, 0x7E96), []float32{1, -2, 3.140625, math.Float32frombits(0x7E960000)}},
		{"Q8_0", gguf.TypeQ8_0, 32, q8, want8},
		{"Q4_0", gguf.TypeQ4_0, 32, q4, want4},
	}
	for _, tc := range tests {
		data := ggufwrite.Encode(2, nil, []ggufwrite.Tensor{{Name: "t", Dims: []uint64{tc.n}, Type: tc.typ, Data: tc.data}})
		f, err := gguf.Load(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(tc.name, err)
		}
		got, err := f.ReadFloat32("t")
		if err != nil {
			t.Fatal(tc.name, err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
		ti, _ := f.Tensor("t")
		if raw, err := f.ReadBytes(ti); err != nil || !bytes.Equal(raw, tc.data) {
			t.Errorf("%s: ReadBytes %v, %v", tc.name, raw, err)
		}
	}
}
