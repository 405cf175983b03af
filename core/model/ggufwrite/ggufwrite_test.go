package ggufwrite_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/model/gguf"
	"github.com/kvscope/kvscope/core/model/ggufwrite"
)

// Quant refuses what it cannot encode, naming the tensor and the problem.
func TestQuantErrors(t *testing.T) {
	x := make([]float32, 256)
	for _, tc := range []struct {
		typ  gguf.TensorType
		dims []uint64
		want string
	}{
		{gguf.TypeQ2_K, []uint64{256}, `ggufwrite: tensor "t": gguf: type Q2_K not supported`},
		{gguf.TypeQ8_0, []uint64{128}, `ggufwrite: tensor "t": 256 values in dims [128]`},
		{gguf.TypeQ4_K, []uint64{128, 2}, "rows of whole Q4_K blocks of 256"},
		{gguf.TypeF32, nil, "256 values in dims []"},
	} {
		if _, err := ggufwrite.Quant("t", tc.typ, x, tc.dims...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %v: err = %v, want one containing %q", tc.typ, tc.dims, err, tc.want)
		}
	}
}

// A tensor from Quant reads back through package gguf as its codec
// dequantizes it, and the named helpers are Quant.
func TestQuantReadsBack(t *testing.T) {
	x := make([]float32, 512)
	for i := range x {
		x[i] = float32(i%37)/8 - 2
	}
	for _, typ := range []gguf.TensorType{gguf.TypeF32, gguf.TypeF16, gguf.TypeBF16, gguf.TypeQ8_0, gguf.TypeQ4_0,
		gguf.TypeQ4_1, gguf.TypeQ5_0, gguf.TypeQ5_1, gguf.TypeQ4_K, gguf.TypeQ5_K, gguf.TypeQ6_K} {
		tn, err := ggufwrite.Quant("w", typ, x, 256, 2)
		if err != nil {
			t.Fatal(err)
		}
		data := ggufwrite.Encode(3, nil, []ggufwrite.Tensor{tn})
		f, err := gguf.LoadBytes(data)
		if err != nil {
			t.Fatal(err)
		}
		got, err := f.ReadFloat32("w")
		if err != nil {
			t.Fatal(err)
		}
		c, _ := typ.Codec()
		want := make([]float32, len(x))
		c.Dequantize(want, tn.Data)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%v: value %d read back as %v, codec %v", typ, i, got[i], want[i])
			}
		}
	}
	for _, tc := range []struct {
		typ    gguf.TensorType
		helper func(string, []float32, ...uint64) ggufwrite.Tensor
	}{{gguf.TypeF32, ggufwrite.F32}, {gguf.TypeF16, ggufwrite.F16}, {gguf.TypeBF16, ggufwrite.BF16}, {gguf.TypeQ8_0, ggufwrite.Q8_0}, {gguf.TypeQ4_0, ggufwrite.Q4_0}} {
		q, _ := ggufwrite.Quant("w", tc.typ, x, 512)
		if h := tc.helper("w", x, 512); h.Type != tc.typ || !bytes.Equal(h.Data, q.Data) {
			t.Errorf("%v helper differs from Quant", tc.typ)
		}
	}
}

// Example: the bytes 256 values take in each type Quant encodes.
func ExampleQuant() {
	x := make([]float32, 256)
	for _, typ := range []gguf.TensorType{gguf.TypeF32, gguf.TypeF16, gguf.TypeBF16, gguf.TypeQ8_0, gguf.TypeQ4_0,
		gguf.TypeQ4_1, gguf.TypeQ5_0, gguf.TypeQ5_1, gguf.TypeQ4_K, gguf.TypeQ5_K, gguf.TypeQ6_K} {
		t, err := ggufwrite.Quant("w", typ, x, 256)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%v %d; ", typ, len(t.Data))
	}
	fmt.Println()
	// Output:
	// F32 1024; F16 512; BF16 512; Q8_0 272; Q4_0 144; Q4_1 160; Q5_0 176; Q5_1 192; Q4_K 144; Q5_K 176; Q6_K 210;
}
