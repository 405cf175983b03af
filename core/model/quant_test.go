package model_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/model/gguf"
	"github.com/kvscope/kvscope/core/model/ggufwrite"
)

// quantSpec is a small llama whose matrices have rows of 256 or 512
// values, so that every type, K-quants included, can store them.
func quantSpec(typ gguf.TensorType) ggufwrite.LlamaSpec {
	return ggufwrite.LlamaSpec{Dim: 256, Layers: 2, Heads: 4, KVHeads: 2, Hidden: 512, Vocab: 300, Context: 32,
		NormEps: 1e-5, RopeBase: 10000, Version: 3, Type: typ, EmbedType: typ, Seed: uint64(typ) + 1}
}

// A synthesized llama in each type loads with matrices widened to float32,
// kept as stored (from a reader, a copy) and kept from a byte slice (an
// alias); all three give the float64 recompute's logits over the exactly
// dequantized weights within 1e-4, hold the type they should, and count
// exactly the bytes the file's tensors weigh when kept.
func TestLlamaEveryType(t *testing.T) {
	tokens := []int{1, 290, 7, 42, 299}
	for _, typ := range []gguf.TensorType{gguf.TypeF32, gguf.TypeF16, gguf.TypeBF16, gguf.TypeQ8_0, gguf.TypeQ4_0,
		gguf.TypeQ4_1, gguf.TypeQ5_0, gguf.TypeQ5_1, gguf.TypeQ4_K, gguf.TypeQ5_K, gguf.TypeQ6_K} {
		t.Run(typ.String(), func(t *testing.T) {
			data := ggufwrite.Llama(quantSpec(typ))
			f, err := gguf.Load(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			var fileBytes int64 // what the tensors weigh in the file (tied: once)
			for i := range f.Tensors {
				fileBytes += int64(f.Tensors[i].NumBytes())
			}
			var ref []float32
			for _, v := range []struct {
				name  string
				keep  bool
				bytes bool
			}{{"widened", false, false}, {"kept", true, false}, {"kept from bytes", true, true}} {
				var m *model.Model
				if v.bytes {
					m, err = model.LoadBytes(data, model.Options{KeepQuantized: v.keep})
				} else {
					m, err = model.LoadOptions(bytes.NewReader(data), int64(len(data)), model.Options{KeepQuantized: v.keep})
				}
				if err != nil {
					t.Fatal(v.name, err)
				}
				wantType := gguf.TypeF32
				if v.keep {
					wantType = typ
				}
				if got := m.Weights.Layers[1].Mats.WDown.Type; got != wantType || m.Weights.Embedding.Type != wantType {
					t.Fatalf("%s: matrices held as %v and %v, want %v", v.name, got, m.Weights.Embedding.Type, wantType)
				}
				if v.keep && m.Weights.Bytes() != fileBytes {
					t.Errorf("%s: weights hold %d bytes, the file's tensors %d", v.name, m.Weights.Bytes(), fileBytes)
				}
				r := m.NewRunner(fullCache(t, m.Config))
				var logits []float32
				for _, tok := range tokens {
					if logits, err = r.Forward(tok); err != nil {
						t.Fatal(err)
					}
				}
				if d := maxAbsDiff(logits, naiveLogits(m, tokens)); d > 1e-4 {
					t.Errorf("%s: logits differ from the float64 recompute by %.3g", v.name, d)
				}
				if ref == nil {
					ref = append([]float32(nil), logits...)
				} else if d := maxAbsDiff(logits, ref); d > 1e-4 {
					t.Errorf("%s: logits differ from the widened model's by %.3g", v.name, d)
				}
			}
		})
	}
}

// A model kept from a byte slice aliases it: its matrices are the file's
// bytes, not a copy (so the page holds the file once). From a reader they
// are a copy.
func TestLoadBytesAliases(t *testing.T) {
	data := ggufwrite.Llama(quantSpec(gguf.TypeQ4_K))
	f, err := gguf.LoadBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	ti, _ := f.Tensor("blk.1.ffn_down.weight")
	off := f.DataOffset + int64(ti.Offset)
	for _, fromBytes := range []bool{true, false} {
		var m *model.Model
		if fromBytes {
			m, err = model.LoadBytes(data, model.Options{KeepQuantized: true})
		} else {
			m, err = model.LoadOptions(bytes.NewReader(data), int64(len(data)), model.Options{KeepQuantized: true})
		}
		if err != nil {
			t.Fatal(err)
		}
		q := m.Weights.Layers[1].Mats.WDown.Q
		before := q[5]
		data[off+5] ^= 0xFF
		aliased := q[5] != before
		data[off+5] ^= 0xFF
		if aliased != fromBytes {
			t.Errorf("from bytes %v: matrix aliases the file %v", fromBytes, aliased)
		}
		if cap(q) != len(q) {
			t.Errorf("from bytes %v: matrix capacity %d beyond its %d bytes", fromBytes, cap(q), len(q))
		}
	}
	l, err := model.NewLoaderBytes(data, model.Options{KeepQuantized: true})
	if err != nil {
		t.Fatal(err)
	}
	for l.Next() {
	}
	m, err := l.Model()
	if err != nil {
		t.Fatal(err)
	}
	q := m.Weights.Layers[1].Mats.WDown.Q
	data[off] ^= 1
	if q[0] != data[off] {
		t.Error("NewLoaderBytes copied the matrix")
	}
	data[off] ^= 1
}

// Decoding a kept-quantized model allocates nothing, whatever the type.
func TestForwardKeptAllocatesNothing(t *testing.T) {
	for _, typ := range []gguf.TensorType{gguf.TypeQ4_K, gguf.TypeQ5_K, gguf.TypeQ6_K, gguf.TypeQ5_0, gguf.TypeF16} {
		data := ggufwrite.Llama(quantSpec(typ))
		m, err := model.LoadBytes(data, model.Options{KeepQuantized: true})
		if err != nil {
			t.Fatal(err)
		}
		r := m.NewRunner(fullCache(t, m.Config))
		tok := 1
		if n := testing.AllocsPerRun(10, func() {
			if _, err := r.Forward(tok); err != nil {
				t.Fatal(err)
			}
			tok = (tok*7 + 3) % m.Config.Vocab
		}); n != 0 {
			t.Errorf("%v: %v allocations per token", typ, n)
		}
	}
}

// Example: a synthesized Q4_K llama held in memory, loaded without copying
// its matrices.
func ExampleLoadBytes() {
	s := ggufwrite.LlamaSpec{Dim: 256, Layers: 1, Heads: 4, KVHeads: 4, Hidden: 512, Vocab: 300, Context: 32,
		NormEps: 1e-5, RopeBase: 10000, Version: 3, Type: gguf.TypeQ4_K, EmbedType: gguf.TypeQ6_K, Seed: 1}
	data := ggufwrite.Llama(s)
	m, err := model.LoadBytes(data, model.Options{KeepQuantized: true})
	if err != nil {
		panic(err)
	}
	w := m.Weights
	fmt.Printf("file %d bytes; embedding %v, %d bytes; attn_q %v, %d bytes; all weights %d bytes\n",
		len(data), w.Embedding.Type, w.Embedding.Bytes(), w.Layers[0].Mats.Wq.Type, w.Layers[0].Mats.Wq.Bytes(), w.Bytes())
	// Output:
	// file 442560 bytes; embedding Q6_K, 63000 bytes; attn_q Q4_K, 36864 bytes; all weights 434712 bytes
}
