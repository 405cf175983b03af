package model_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/model/gguf"
	"github.com/kvscope/kvscope/core/model/ggufwrite"
)

func TestReferenceText(t *testing.T) {
	m := realModel(t)
	want := model.Config{Arch: "llama", Dim: 64, Layers: 5, Heads: 8, KVHeads: 4, HeadDim: 8, Hidden: 172, Vocab: 512, ContextLength: 512, NormEps: 1e-5, RopeBase: 10000}
	if !m.Config.Equal(want) {
		t.Errorf("config %+v, want %+v", m.Config, want)
	}
	r := m.NewRunner(fullCache(t, m.Config))
	out, err := r.Generate([]int{m.Tokenizer.BOS}, model.GenerateOptions{MaxTokens: 80})
	if err != nil {
		t.Fatal(err)
	}
	got := m.Tokenizer.Decode(out)
	if !strings.HasPrefix(got, referenceText) {
		t.Fatalf("greedy text from BOS:\n got %q\nwant prefix %q", got, referenceText)
	}
	// Token for token: the generated ids are the reference sentence's encoding.
	ref := m.Tokenizer.Encode(referenceText, false, false)
	for i, id := range ref {
		if out[i] != id {
			t.Fatalf("token %d: generated %d (%q), reference encodes %d (%q)", i, out[i], m.Tokenizer.Piece(out[i]), id, m.Tokenizer.Piece(id))
		}
	}
}

func TestForwardMatchesNaive(t *testing.T) {
	tests := []struct {
		name   string
		m      func(testing.TB) *model.Model
		tokens []int
		tol    float64
	}{
		{"tiny", func(tb testing.TB) *model.Model { return tinyModel(tb, 7) }, []int{1, 11, 8, 9, 12, 7, 16, 10, 3, 13, 8, 8, 15, 14}, 1e-4},
		{"stories260K", realModel, []int{1, 403, 407, 261, 378, 432, 383, 286, 261, 376, 298, 315, 13, 421, 7, 395, 317, 426, 200, 100}, 2e-3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.m(t)
			r := m.NewRunner(fullCache(t, m.Config))
			for i, tok := range tc.tokens {
				got, err := r.Forward(tok)
				if err != nil {
					t.Fatal(err)
				}
				want := naiveLogits(m, tc.tokens[:i+1])
				if d := maxAbsDiff(got, want); d > tc.tol {
					t.Fatalf("position %d: cached logits differ from naive recompute by %g (tolerance %g)", i, d, tc.tol)
				}
			}
		})
	}
}

func TestForwardErrors(t *testing.T) {
	m := tinyModel(t, 1)
	fc, err := model.NewFullCache(m.Config, 3)
	if err != nil {
		t.Fatal(err)
	}
	r := m.NewRunner(fc)
	for _, tok := range []int{-1, m.Config.Vocab} {
		if _, err := r.Forward(tok); err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("Forward(%d): err = %v", tok, err)
		}
	}
	if r.Pos() != 0 {
		t.Fatalf("position advanced to %d after errors", r.Pos())
	}
	for i := 0; i < 3; i++ {
		if _, err := r.Forward(1); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.Forward(1); err == nil || !strings.Contains(err.Error(), "capacity") {
		t.Errorf("Forward past capacity: err = %v", err)
	}
	r.Reset()
	if _, err := r.Forward(1); err != nil || r.Pos() != 1 {
		t.Errorf("after Reset: pos %d err %v", r.Pos(), err)
	}
}

func TestForwardAllocatesNothing(t *testing.T) {
	m := tinyModel(t, 2)
	r := m.NewRunner(fullCache(t, m.Config))
	allocs := testing.AllocsPerRun(20, func() {
		if _, err := r.Forward(8); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("Forward allocates %v times per call, want 0", allocs)
	}
}

func TestTiedOutput(t *testing.T) {
	ts := tinyTensors(tinyConfig, 3)
	untied := append(ts, ggufwrite.F32("output.weight", make([]float32, tinyConfig.Dim*tinyConfig.Vocab), uint64(tinyConfig.Dim), uint64(tinyConfig.Vocab)))
	for _, tc := range []struct {
		name string
		ts   []ggufwrite.Tensor
		tied bool
	}{{"tied", ts, true}, {"untied", untied, false}} {
		data := ggufwrite.Encode(2, tinyKVs(tinyConfig), tc.ts)
		m, err := model.Load(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		tied := &m.Weights.Output[0] == &m.Weights.TokenEmbedding[0]
		if tied != tc.tied {
			t.Errorf("%s: output tied = %v", tc.name, tied)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	c := tinyConfig
	s := ggufwrite.Scalar
	setKV := func(key string, v gguf.Value) []gguf.KV {
		kvs := tinyKVs(c)
		for i := range kvs {
			if kvs[i].Key == key {
				kvs[i].Value = v
				return kvs
			}
		}
		return append(kvs, gguf.KV{Key: key, Value: v})
	}
	dropKV := func(key string) []gguf.KV {
		var kvs []gguf.KV
		for _, kv := range tinyKVs(c) {
			if kv.Key != key {
				kvs = append(kvs, kv)
			}
		}
		return kvs
	}
	tensors := func(edit func(ts []ggufwrite.Tensor) []ggufwrite.Tensor) []ggufwrite.Tensor {
		return edit(tinyTensors(c, 1))
	}
	same := func(ts []ggufwrite.Tensor) []ggufwrite.Tensor { return ts }
	tests := []struct {
		name string
		kvs  []gguf.KV
		ts   []ggufwrite.Tensor
		want string
	}{
		{"architecture", setKV("general.architecture", s("gpt2")), tensors(same), "general.architecture"},
		{"missing dim", dropKV("llama.embedding_length"), tensors(same), "llama.embedding_length missing"},
		{"string dim", setKV("llama.block_count", s("5")), tensors(same), "llama.block_count"},
		{"heads not multiple", setKV("llama.attention.head_count_kv", s(uint32(3))), tensors(same), "not a multiple"},
		{"dim not heads×headDim", setKV("llama.attention.head_count", s(uint32(5))), tensors(same), "head dim"},
		{"huge context", setKV("llama.context_length", s(uint32(1<<30))), tensors(same), "context length"},
		{"zero layers", setKV("llama.block_count", s(uint32(0))), tensors(same), "layers 0"},
		{"bad eps", setKV("llama.attention.layer_norm_rms_epsilon", s(float32(-1))), tensors(same), "epsilon"},
		{"partial rope", setKV("llama.rope.dimension_count", s(uint32(2))), tensors(same), "rope.dimension_count"},
		{"no tokens", dropKV("tokenizer.ggml.tokens"), tensors(same), "tokenizer.ggml.tokens"},
		{"scores mistyped", setKV("tokenizer.ggml.scores", ggufwrite.Array([]string{"x"})), tensors(same), "scores"},
		{"scores short", setKV("tokenizer.ggml.scores", ggufwrite.Array([]float32{1})), tensors(same), "scores"},
		{"bad bos", setKV("tokenizer.ggml.bos_token_id", s(uint32(999))), tensors(same), "bos_token_id"},
		{"other tokenizer", setKV("tokenizer.ggml.model", s("gpt2")), tensors(same), "tokenizer.ggml.model"},
		{"missing tensor", tinyKVs(c), tensors(func(ts []ggufwrite.Tensor) []ggufwrite.Tensor { return ts[:len(ts)-1] }), "blk.1.ffn_down.weight missing"},
		{"wrong shape", tinyKVs(c), tensors(func(ts []ggufwrite.Tensor) []ggufwrite.Tensor {
			ts[0].Dims = []uint64{uint64(c.Vocab), uint64(c.Dim)}
			return ts
		}), "token_embd.weight has shape [17 16], config needs [16 17]"},
		{"undecodable type", tinyKVs(c), tensors(func(ts []ggufwrite.Tensor) []ggufwrite.Tensor {
			ts[1] = ggufwrite.Tensor{Name: ts[1].Name, Dims: []uint64{32}, Type: gguf.TypeQ4_0, Data: make([]byte, 18)}
			return ts
		}), "output_norm.weight has shape"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := ggufwrite.Encode(3, tc.kvs, tc.ts)
			_, err := model.Load(bytes.NewReader(data), int64(len(data)))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "model: ") {
				t.Fatalf("err = %v, want model:-prefixed error containing %q", err, tc.want)
			}
		})
	}
}

func TestLoadF16AndQ8(t *testing.T) {
	// The same weights stored as F16 and Q8_0 decode to nearly the same model.
	ts := tinyTensors(tinyConfig, 5)
	ref := tinyModel(t, 5)
	for _, typ := range []gguf.TensorType{gguf.TypeF16, gguf.TypeQ8_0} {
		conv := make([]ggufwrite.Tensor, len(ts))
		for i, tn := range ts {
			x := decodeF32(tn.Data)
			if typ == gguf.TypeF16 || tn.Dims[0]%32 != 0 {
				conv[i] = ggufwrite.F16(tn.Name, x, tn.Dims...)
			} else {
				conv[i] = ggufwrite.Q8_0(tn.Name, x, tn.Dims...)
			}
		}
		data := ggufwrite.Encode(3, tinyKVs(tinyConfig), conv)
		m, err := model.Load(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("%v: %v", typ, err)
		}
		d := maxAbsDiff(m.Weights.Layers[1].WUp, ref.Weights.Layers[1].WUp)
		if d == 0 || d > 0.02 {
			t.Errorf("%v: weights differ from F32 by %g, want small but nonzero", typ, d)
		}
	}
}

func decodeF32(b []byte) []float32 {
	x := make([]float32, len(b)/4)
	for i := range x {
		x[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return x
}
