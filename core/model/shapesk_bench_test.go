package model_test

import (
	"os"
	"testing"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/model/bench"
	"github.com/kvscope/kvscope/core/model/gguf"
	"github.com/kvscope/kvscope/core/model/ggufwrite"
)

// BenchmarkShapesK decodes one token per iteration with the matrices of
// the page's Q4_K_M suggestions: Llama-3.2-1B's and TinyLlama-1.1B's
// widths (2048, feed-forward 8192 and 5632) with Q4_K matrices and a Q6_K
// tied embedding, Qwen2.5-0.5B's (896, 4864) with Q5_0 and Q8_0; four
// layers and a 32,000-token vocabulary to keep the files small. The
// matrices are kept quantized, the cache uncompressed, with 64 tokens of
// history. It reports tokens/s and, from the shape, the multiply-adds per
// second of the matrices. Each file is synthesized once into
// $TMPDIR/kvscope-shapes (bench.Path: a minute or two natively, so run
// it natively first); run it with -bench=ShapesK -benchtime=10x, under
// wasm as make bench-kernels runs.
func BenchmarkShapesK(b *testing.B) {
	l32 := ggufwrite.Llama32_1B
	l32.Layers, l32.Vocab, l32.Context, l32.EmbedStd = 4, 32000, 2048, 0.09
	tiny := ggufwrite.LlamaSpec{Arch: "llama", Dim: 2048, Layers: 4, Heads: 32, KVHeads: 4, Hidden: 5632, Vocab: 32000, Context: 2048,
		NormEps: 1e-5, RopeBase: 10000, Version: 3, EmbedStd: 0.09}
	qwen := ggufwrite.Qwen25_05B
	qwen.Layers, qwen.Vocab, qwen.Context, qwen.EmbedStd = 4, 32000, 2048, 0.13
	for _, s := range []struct {
		name       string
		spec       ggufwrite.LlamaSpec
		typ, embed gguf.TensorType
	}{
		{"Llama-3.2-1B-4L/Q4_K", l32, gguf.TypeQ4_K, gguf.TypeQ6_K},
		{"TinyLlama-1.1B-4L/Q4_K", tiny, gguf.TypeQ4_K, gguf.TypeQ6_K},
		// Qwen2.5-0.5B's Q4_K_M file is mostly Q5_0 (its 896 columns are
		// no multiple of 256) with a Q8_0 embedding.
		{"Qwen2.5-0.5B-4L/Q5_0", qwen, gguf.TypeQ5_0, gguf.TypeQ8_0},
	} {
		s.spec.Type, s.spec.EmbedType = s.typ, s.embed
		b.Run(s.name, func(b *testing.B) {
			path, err := bench.Path(s.spec)
			if err != nil {
				b.Fatal(err)
			}
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			st, err := f.Stat()
			if err != nil {
				b.Fatal(err)
			}
			m, err := model.LoadOptions(f, st.Size(), model.Options{KeepQuantized: true})
			if err != nil {
				b.Fatal(err)
			}
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
			c := s.spec
			kv := c.Dim / c.Heads * c.KVHeads
			macs := c.Layers*(2*c.Dim*c.Dim+2*c.Dim*kv+3*c.Dim*c.Hidden) + c.Vocab*c.Dim
			tps := float64(b.N) / b.Elapsed().Seconds()
			b.ReportMetric(tps, "tokens/s")
			b.ReportMetric(tps*float64(macs)/1e9, "GMAC/s")
		})
	}
}
