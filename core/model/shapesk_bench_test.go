package model_test

import (
	"os"
	"testing"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/model/bench"
	"github.com/kvscope/kvscope/core/model/gguf"
	"github.com/kvscope/kvscope/core/model/ggufwrite"
)

// BenchmarkShapesK decodes one token per iteration with K-quant matrices,
// as the page's Q4_K_M suggestions hold them: Llama-3.2-1B's and
// TinyLlama-1.1B's widths (2048, feed-forward 8192 and 5632), four
// layers and a 32,000-token vocabulary to keep the file small, Q4_K
// matrices and a Q6_K tied embedding, kept quantized, an uncompressed
// cache, 64 tokens of history. It reports tokens/s and, from the shape,
// the multiply-adds per second of the matrices. The file is synthesized
// once into $TMPDIR/kvscope-shapes (bench.Path); run it with
// -bench=ShapesK -benchtime=10x, under wasm as make bench-kernels runs.
func BenchmarkShapesK(b *testing.B) {
	l32 := ggufwrite.Llama32_1B
	l32.Layers, l32.Vocab, l32.Context, l32.EmbedStd = 4, 32000, 2048, 0.09
	tiny := ggufwrite.LlamaSpec{Arch: "llama", Dim: 2048, Layers: 4, Heads: 32, KVHeads: 4, Hidden: 5632, Vocab: 32000, Context: 2048,
		NormEps: 1e-5, RopeBase: 10000, Version: 3, EmbedStd: 0.09}
	for _, s := range []struct {
		name string
		spec ggufwrite.LlamaSpec
	}{{"Llama-3.2-1B-4L", l32}, {"TinyLlama-1.1B-4L", tiny}} {
		s.spec.Type, s.spec.EmbedType = gguf.TypeQ4_K, gguf.TypeQ6_K
		b.Run(s.name+"/Q4_K", func(b *testing.B) {
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
