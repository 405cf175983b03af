package sim

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/model/gguf"
	"github.com/kvscope/kvscope/core/model/ggufwrite"
)

// BenchmarkModelRunStories15M is the page's real-model mode on a
// synthesized stories15M-shaped model (dim 288, 6 layers, vocab 32,000,
// seeded random weights): ModelRun's three decoders (the uncompressed run,
// the compressed run, and the uncompressed shadow of the compressed text)
// over 64 tokens after a short prompt. Sub-benchmarks store the matrices as
// float32, and as Q8_0 and Q4_0 blocks kept quantized, and compress with
// the page's default H2O INT8 cache (the texts may agree for a while, when
// the shadow's pass serves the uncompressed run too) or a 2-token window
// (the texts part at once: three forward passes per token). It reports
// tokens per second, the weights' bytes and the heap in use with the model
// and a whole-context run built.
func BenchmarkModelRunStories15M(b *testing.B) {
	for _, tc := range []struct {
		typ  gguf.TensorType
		name string
		mod  func(*Config)
	}{
		{gguf.TypeF32, "F32/h2o-int8", nil},
		{gguf.TypeF32, "F32/window2", func(c *Config) { c.Policy, c.Sink, c.Recent, c.Heavy = "window", 0, 2, 0 }},
		{gguf.TypeQ8_0, "Q8_0/window2", func(c *Config) { c.Policy, c.Sink, c.Recent, c.Heavy = "window", 0, 2, 0 }},
		{gguf.TypeQ4_0, "Q4_0/window2", func(c *Config) { c.Policy, c.Sink, c.Recent, c.Heavy = "window", 0, 2, 0 }},
	} {
		typ := tc.typ
		b.Run(tc.name, func(b *testing.B) {
			s := ggufwrite.Stories15M
			s.Type, s.EmbedType, s.Seed = typ, typ, 15
			data := ggufwrite.Llama(s)
			m, err := model.LoadOptions(bytes.NewReader(data), int64(len(data)), model.Options{KeepQuantized: true})
			if err != nil {
				b.Fatal(err)
			}
			data = nil
			weightMB, heapMB := float64(m.Weights.Bytes())/1e6, 0.0
			// The heap a page needs: the model and one run's caches (the
			// file's bytes dropped).
			if r, err := NewModelRun(m, DefaultConfig(), "once upon a time", m.Config.ContextLength, false); err == nil {
				var ms runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&ms)
				heapMB = float64(ms.HeapAlloc) / 1e6
				runtime.KeepAlive(r)
			}
			const n = 64
			steps := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				cfg := DefaultConfig()
				if tc.mod != nil {
					tc.mod(&cfg)
				}
				r, err := NewModelRun(m, cfg, "once upon a time", n, false)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				for r.Step() {
				}
				steps += r.Pos()
				if r.Err() != nil {
					b.Fatal(r.Err())
				}
				b.ReportMetric(float64(r.Snapshot(0).Text.Diverge), "diverge")
			}
			b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "tokens/s")
			b.ReportMetric(weightMB, "weightMB")
			b.ReportMetric(heapMB, "heapMB")
		})
	}
}
