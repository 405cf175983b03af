package model_test

import (
	"bytes"
	"testing"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/model/gguf"
	"github.com/kvscope/kvscope/core/model/ggufwrite"
)

// BenchmarkDecode measures greedy decoding of stories260K with the FullCache:
// each iteration decodes 256 tokens from BOS. It reports tokens/s.
func BenchmarkDecode(b *testing.B) {
	m := realModel(b)
	const tokens = 256
	r := m.NewRunner(fullCache(b, m.Config))
	b.ReportAllocs()
	for b.Loop() {
		r.Reset()
		tok := m.Tokenizer.BOS
		for i := 0; i < tokens; i++ {
			logits, err := r.Forward(tok)
			if err != nil {
				b.Fatal(err)
			}
			tok = model.Argmax(logits)
		}
	}
	b.ReportMetric(float64(b.N*tokens)/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkForward measures one decoding step of stories260K with 128 to 255
// tokens cached (mean ≈ 192): the runner is refilled to 128 tokens, untimed,
// every 128 steps.
func BenchmarkForward(b *testing.B) {
	m := realModel(b)
	r := m.NewRunner(fullCache(b, m.Config))
	b.ReportAllocs()
	for b.Loop() {
		if r.Pos() == 0 || r.Pos() == 256 {
			b.StopTimer()
			r.Reset()
			for r.Pos() < 128 {
				if _, err := r.Forward(300); err != nil {
					b.Fatal(err)
				}
			}
			b.StartTimer()
		}
		if _, err := r.Forward(300); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncode measures tokenizing the reference paragraph.
func BenchmarkEncode(b *testing.B) {
	tok := realModel(b).Tokenizer
	b.ReportAllocs()
	for b.Loop() {
		tok.Encode(referenceText, true, false)
	}
}

// BenchmarkDecodeStories15M measures one decoder (the FullCache) on a
// synthesized stories15M-shaped model, matrices as float32 or kept as
// Q8_0 / Q4_0 blocks: each iteration decodes 64 tokens from BOS. It
// reports tokens/s.
func BenchmarkDecodeStories15M(b *testing.B) {
	for _, typ := range []gguf.TensorType{gguf.TypeF32, gguf.TypeQ8_0, gguf.TypeQ4_0} {
		b.Run(typ.String(), func(b *testing.B) {
			s := ggufwrite.Stories15M
			s.Type, s.EmbedType, s.Seed = typ, typ, 15
			data := ggufwrite.Llama(s)
			m, err := model.LoadOptions(bytes.NewReader(data), int64(len(data)), model.Options{KeepQuantized: true})
			if err != nil {
				b.Fatal(err)
			}
			const tokens = 64
			r := m.NewRunner(fullCache(b, m.Config))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r.Reset()
				tok := m.Tokenizer.BOS
				for range tokens {
					logits, err := r.Forward(tok)
					if err != nil {
						b.Fatal(err)
					}
					tok = model.Argmax(logits)
				}
			}
			b.ReportMetric(float64(b.N*tokens)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}
