package kv_test

import "testing"

// BenchmarkSeed000Update is one decode step of seed 000's workload — 32
// heads × 128 dims, budget 64, INT8 per-channel storage — in steady state:
// attention accumulated, the token quantized and stored, one token evicted.
// Inputs are generated beforehand, as for seed 000's CompressedKVCache.update.
func BenchmarkSeed000Update(b *testing.B) {
	const warm, ring = 200, 512
	run, err := newSeed000Run(warm + ring)
	if err != nil {
		b.Fatal(err)
	}
	for t := range warm {
		if err := run.step(t); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	pos := warm
	for i := 0; i < b.N; i++ {
		if pos == warm+ring {
			// Rewind to the warm state: reuse the pregenerated steps.
			b.StopTimer()
			run.layer.Reset()
			for t := range warm {
				_ = run.step(t)
			}
			pos = warm
			b.StartTimer()
		}
		// Steady-state inputs: the cache is full, every step has 64 weights.
		if err := run.step(pos); err != nil {
			b.Fatal(err)
		}
		pos++
	}
}
