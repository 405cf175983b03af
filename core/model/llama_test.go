package model_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/model/gguf"
	"github.com/kvscope/kvscope/core/model/ggufwrite"
)

// stories15MTensors synthesizes the tensors of a stories15M-shaped model
// (dim 288, 6 layers, 6 heads, hidden 768, vocab 32,000, context 256) with
// seeded random weights and an untied classifier, once per test binary.
// It also returns each tensor's values.
var stories15MTensors = func() func() ([]ggufwrite.Tensor, [][]float32) {
	var ts []ggufwrite.Tensor
	var xs [][]float32
	return func() ([]ggufwrite.Tensor, [][]float32) {
		if ts == nil {
			s := ggufwrite.Stories15M
			s.Untied, s.Seed = true, 15
			ts = ggufwrite.LlamaWeights(s)
			for _, t := range ts {
				xs = append(xs, decodeF32(t.Data))
			}
		}
		return ts, xs
	}
}()

// encodeLlama encodes the synthesized stories15M tensors with the 2-D
// weights as typ.
func encodeLlama(version uint32, typ gguf.TensorType, untied bool) []byte {
	s := ggufwrite.Stories15M
	var ts []ggufwrite.Tensor
	all, xs := stories15MTensors()
	for i, tn := range all {
		if tn.Name == "output.weight" && !untied {
			continue
		}
		if len(tn.Dims) == 2 {
			switch typ {
			case gguf.TypeF16:
				tn = ggufwrite.F16(tn.Name, xs[i], tn.Dims...)
			case gguf.TypeBF16:
				tn = ggufwrite.BF16(tn.Name, xs[i], tn.Dims...)
			case gguf.TypeQ8_0:
				tn = ggufwrite.Q8_0(tn.Name, xs[i], tn.Dims...)
			case gguf.TypeQ4_0:
				tn = ggufwrite.Q4_0(tn.Name, xs[i], tn.Dims...)
			}
		}
		ts = append(ts, tn)
	}
	return ggufwrite.Encode(version, ggufwrite.LlamaKVs(s), ts)
}

// loadFile loads the model in the file at path, as the command does.
func loadFile(t *testing.T, path string, opts model.Options) *model.Model {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.LoadOptions(f, st.Size(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Synthesized stories15M-shaped files load with each tensor type, GGUF v2
// and v3, tied and untied; the forward pass equals a float64 recompute on
// the same (dequantized) weights, whether matrices are kept as stored or
// widened; keeping them saves what their blocks weigh.
func TestStories15MShapes(t *testing.T) {
	want := model.Config{Arch: "llama", Dim: 288, Layers: 6, Heads: 6, KVHeads: 6, HeadDim: 48, Hidden: 768, Vocab: 32000, ContextLength: 256, NormEps: 1e-5, RopeBase: 10000}
	tokens := []int{1, 31999, 7}
	for i, tc := range []struct {
		typ     gguf.TensorType
		version uint32
		untied  bool
		tol     float64
	}{
		{gguf.TypeF32, 3, false, 2e-3},
		{gguf.TypeF16, 2, false, 2e-3},
		{gguf.TypeBF16, 3, false, 2e-3},
		{gguf.TypeQ8_0, 2, true, 2e-3},
		{gguf.TypeQ4_0, 3, false, 2e-3},
	} {
		data := encodeLlama(tc.version, tc.typ, tc.untied)
		quant := tc.typ != gguf.TypeF32
		var logits [2][]float32
		var size [2]int64
		for k, keep := range []bool{false, true} {
			var m *model.Model
			switch {
			case !quant && keep:
				logits[1], size[1] = logits[0], size[0] // nothing to keep quantized
				continue
			case i == 0: // from a file, as the command reads one
				path := filepath.Join(t.TempDir(), "stories15M-shape.gguf")
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
				m = loadFile(t, path, model.Options{KeepQuantized: keep})
			default:
				var err error
				if m, err = model.LoadOptions(bytes.NewReader(data), int64(len(data)), model.Options{KeepQuantized: keep}); err != nil {
					t.Fatal(err)
				}
			}
			if !m.Config.Equal(want) {
				t.Fatalf("%v: config %+v, want %+v", tc.typ, m.Config, want)
			}
			if bytesTied(m) == tc.untied {
				t.Fatalf("%v: tied %v, written untied %v", tc.typ, bytesTied(m), tc.untied)
			}
			r := m.NewRunner(fullCache(t, m.Config))
			for _, tok := range tokens {
				l, err := r.Forward(tok)
				if err != nil {
					t.Fatal(err)
				}
				logits[k] = append(logits[k][:0], l...)
			}
			if keep || !quant {
				ref := naiveLogits(m, tokens)
				if d := maxAbsDiff(logits[k], ref); d > tc.tol {
					t.Fatalf("%v (keep quantized %v): logits differ from the float64 recompute by %g", tc.typ, keep, d)
				}
			}
			size[k] = m.Weights.Bytes()
			quantized := m.Weights.Layers[0].Mats.Wq.Type != gguf.TypeF32
			if quantized != (keep && quant) {
				t.Fatalf("%v keep %v: matrices held as %v", tc.typ, keep, m.Weights.Layers[0].Mats.Wq.Type)
			}
			if quantized != (m.Weights.Layers[0].Wq == nil) {
				t.Fatalf("%v keep %v: float32 slice present %v", tc.typ, keep, m.Weights.Layers[0].Wq != nil)
			}
		}
		if d := maxAbsDiff(logits[0], logits[1]); d > 1e-3 {
			t.Fatalf("%v: kept quantized and widened logits differ by %g", tc.typ, d)
		}
		ratio := float64(size[1]) / float64(size[0])
		t.Logf("%v (v%d, untied %v): weights %.1f MB widened to float32, %.1f MB kept (%.3f×)", tc.typ, tc.version, tc.untied, float64(size[0])/1e6, float64(size[1])/1e6, ratio)
		// Matrices take the type's bytes per weight, norms 4.
		want := float64(tc.typ.BlockBytes()) / float64(tc.typ.BlockElems()) / 4
		if ratio < want || ratio > want*1.02 {
			t.Errorf("%v kept in %.4f of the float32 bytes, want %.4f", tc.typ, ratio, want)
		}
	}
}

// The 32,000-piece vocabulary round-trips text, falling back to bytes for
// characters it lacks.
func TestVocab32000RoundTrip(t *testing.T) {
	pieces, scores, types := ggufwrite.Vocab(32000)
	tok, err := model.NewTokenizer(pieces, scores, types, 1, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if tok.VocabSize() != 32000 || tok.Piece(3) != "<0x00>" || tok.Type(258) != model.TokenByte || tok.Type(31999) != model.TokenNormal {
		t.Fatalf("vocabulary: %d pieces, %q, %d, %d", tok.VocabSize(), tok.Piece(3), tok.Type(258), tok.Type(31999))
	}
	for _, text := range []string{
		"Once upon a time, there was a little girl named Lily.",
		"héllo wörld — 中文 🙂 tab\tand\nnewline",
		"the quick brown fox jumps over the lazy dog",
	} {
		ids := tok.Encode(text, true, false)
		if got := tok.Decode(ids); got != text {
			t.Errorf("round trip of %q gave %q", text, got)
		}
		if strings.Contains(text, "the quick") && len(ids) > len(text)/2 {
			t.Errorf("%q: %d tokens, merges not applied", text, len(ids))
		}
	}
	ids := tok.Encode("中", false, false)
	if len(ids) != 4 || tok.Type(ids[1]) != model.TokenByte || tok.Piece(ids[1]) != "<0xE4>" {
		t.Fatalf("中 encodes to %v, want ▁ and three byte pieces", ids)
	}
}

// The llama.cpp metadata keys set the rope base, the context length and
// the norm epsilon.
func TestLlamaMetadataKeys(t *testing.T) {
	s := ggufwrite.LlamaSpec{Dim: 64, Layers: 1, Heads: 4, KVHeads: 2, Hidden: 96, Vocab: 400, Context: 96,
		NormEps: 3e-6, RopeBase: 500000, Version: 2, Type: gguf.TypeQ8_0, EmbedType: gguf.TypeQ4_0, Seed: 2}
	data := ggufwrite.Llama(s)
	m, err := model.LoadOptions(bytes.NewReader(data), int64(len(data)), model.Options{KeepQuantized: true})
	if err != nil {
		t.Fatal(err)
	}
	c := m.Config
	if c.RopeBase != 500000 || c.ContextLength != 96 || c.NormEps != 3e-6 || c.KVHeads != 2 || c.HeadDim != 16 {
		t.Fatalf("config %+v", c)
	}
	if m.Weights.Embedding.Type != gguf.TypeQ4_0 || !bytesTied(m) {
		t.Fatalf("embedding %v, tied %v", m.Weights.Embedding.Type, bytesTied(m))
	}
	tokens := []int{1, 300, 5, 399, 42}
	r := m.NewRunner(fullCache(t, c))
	var got []float32
	for _, tok := range tokens {
		if got, err = r.Forward(tok); err != nil {
			t.Fatal(err)
		}
	}
	if d := maxAbsDiff(got, naiveLogits(m, tokens)); d > 1e-3 {
		t.Fatalf("logits differ from the float64 recompute by %g", d)
	}
	if math.IsNaN(float64(got[0])) {
		t.Fatal("NaN logits")
	}
}

// bytesTied reports whether the classifier shares the embedding's storage.
func bytesTied(m *model.Model) bool {
	e, c := &m.Weights.Embedding, &m.Weights.Classifier
	return len(e.Q) > 0 && len(c.Q) > 0 && &e.Q[0] == &c.Q[0] || len(e.F) > 0 && len(c.F) > 0 && &e.F[0] == &c.F[0]
}

// A tensor type the loader cannot decode is named in the error.
func TestUnsupportedTensorType(t *testing.T) {
	s := ggufwrite.LlamaSpec{Dim: 64, Layers: 1, Heads: 4, KVHeads: 4, Hidden: 96, Vocab: 300, Context: 32,
		NormEps: 1e-5, RopeBase: 10000, Version: 3, Type: gguf.TypeF16, Seed: 1}
	kvs := ggufwrite.LlamaKVs(s)
	ts := ggufwrite.LlamaWeights(s)
	for i, tn := range ts {
		if tn.Name == "blk.0.ffn_up.weight" {
			ts[i] = ggufwrite.Tensor{Name: tn.Name, Dims: tn.Dims, Type: gguf.TypeIQ4_NL, Data: make([]byte, 64*96/32*18)}
		}
	}
	data := ggufwrite.Encode(3, kvs, ts)
	for _, keep := range []bool{false, true} {
		_, err := model.LoadOptions(bytes.NewReader(data), int64(len(data)), model.Options{KeepQuantized: keep})
		if err == nil || !strings.Contains(err.Error(), `"blk.0.ffn_up.weight": type IQ4_NL not supported`) {
			t.Errorf("keep %v: err = %v, want one naming IQ4_NL and the tensor", keep, err)
		}
	}
}
