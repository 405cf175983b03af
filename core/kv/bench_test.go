package kv_test

import "testing"

// BenchmarkSeed000Update is one decode step of seed 000's workload — 32
// heads × 128 dims, budget 64 — in steady state: attention accumulated, the
// token stored, one token evicted. Inputs are generated beforehand, as for
// seed 000's CompressedKVCache.update. int8 quantizes every token into
// INT8 per-channel storage as it arrives; float32 keeps it as given, the
// work seed 000's update itself does (it quantizes only in
// get_quantized_state). core/kv/testdata/seed000_torch.py times the
// PyTorch class on the same inputs' shapes.
func BenchmarkSeed000Update(b *testing.B) {
	for _, bits := range []int{8, 32} {
		name := "int8"
		if bits == 32 {
			name = "float32"
		}
		b.Run(name, func(b *testing.B) { benchSeed000(b, bits) })
	}
}

func benchSeed000(b *testing.B, bits int) {
	const warm, ring = 200, 512
	run, err := newSeed000RunBits(warm+ring, bits)
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
