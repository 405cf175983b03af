package model_test

import (
	"bytes"
	"testing"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/model/ggufwrite"
)

// BenchmarkShapes decodes one token per iteration with the shapes of the
// small real models (ggufwrite.SmolLM2_135M, Qwen25_05B), Q8_0 matrices
// kept quantized, an uncompressed cache, 64 tokens of history. It reports
// tokens/s and the weights' bytes in memory. Synthesizing a shape takes
// seconds; run it with -bench=Shapes -benchtime=20x.
func BenchmarkShapes(b *testing.B) {
	for _, s := range []struct {
		name string
		spec ggufwrite.LlamaSpec
	}{{"SmolLM2-135M", ggufwrite.SmolLM2_135M}, {"Qwen2.5-0.5B", ggufwrite.Qwen25_05B}} {
		b.Run(s.name, func(b *testing.B) {
			data := ggufwrite.Llama(s.spec)
			m, err := model.LoadOptions(bytes.NewReader(data), int64(len(data)), model.Options{KeepQuantized: true})
			if err != nil {
				b.Fatal(err)
			}
			data = nil
			fc, err := model.NewFullCache(m.Config, 64+b.N)
			if err != nil {
				b.Fatal(err)
			}
			r := m.NewRunner(fc)
			for i := range 64 {
				if _, err := r.Forward(i % m.Config.Vocab); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := r.Forward((i * 7) % m.Config.Vocab); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
			b.ReportMetric(float64(m.Weights.Bytes())/1e6, "MB-weights")
		})
	}
}
