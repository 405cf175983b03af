package sim

import (
	"bytes"
	"testing"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/model/gguf"
	"github.com/kvscope/kvscope/core/model/ggufwrite"
)

// BenchmarkModelRunStories15M is the page's real-model mode on a
// synthesized stories15M-shaped model (dim 288, 6 layers, vocab 32,000,
// seeded random weights): ModelRun's three decoders per token (the
// uncompressed run, the compressed run with the default H2O INT8 cache,
// and the uncompressed shadow of the compressed text) over 64 tokens after
// a short prompt. Sub-benchmarks store the matrices as float32, and as
// Q8_0 and Q4_0 blocks kept quantized. It reports tokens per second (each
// token is three forward passes).
func BenchmarkModelRunStories15M(b *testing.B) {
	for _, typ := range []gguf.TensorType{gguf.TypeF32, gguf.TypeQ8_0, gguf.TypeQ4_0} {
		b.Run(typ.String(), func(b *testing.B) {
			s := ggufwrite.Stories15M
			s.Type, s.EmbedType, s.Seed = typ, typ, 15
			data := ggufwrite.Llama(s)
			m, err := model.LoadOptions(bytes.NewReader(data), int64(len(data)), model.Options{KeepQuantized: true})
			if err != nil {
				b.Fatal(err)
			}
			data = nil
			b.ReportMetric(float64(m.Weights.Bytes())/1e6, "weightMB")
			const n = 64
			steps := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				r, err := NewModelRun(m, DefaultConfig(), "once upon a time", n, false)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				for r.Step() {
					steps++
				}
				if r.Err() != nil {
					b.Fatal(r.Err())
				}
			}
			b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}
