package sim

import (
	"fmt"
	"runtime"
	"testing"
)

// benchSteps measures decode steps of cfg once the history is `at` tokens
// long: the engine is warmed to `at` outside the timer and rebuilt when it
// runs out of tokens. With replay, every engine shares one Stream that a
// first engine recorded to the end outside the timer, as the page's
// engines do after a setting changes.
func benchSteps(b *testing.B, cfg Config, at int, replay bool) {
	const span = 1024
	cfg.Tokens = at + span
	var s *Stream
	if replay {
		var err error
		if s, err = NewStream(cfg); err != nil {
			b.Fatal(err)
		}
		first, err := NewShared(cfg, s)
		if err != nil {
			b.Fatal(err)
		}
		first.RunTo(cfg.Tokens)
	}
	var e *Engine
	fresh := func() {
		b.StopTimer()
		var err error
		if e, err = NewShared(cfg, s); err != nil {
			b.Fatal(err)
		}
		e.RunTo(at)
		b.StartTimer()
	}
	fresh()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if !e.Step() {
			fresh()
			e.Step()
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}

// BenchmarkStep is the page's default configuration decoding at a 4,096-token
// history, with the reference (full attention over the whole history) on at
// every step, every 8th step, and off: first through a fresh stream, then
// replaying a recorded one (what every run after the first does in the
// page: a slider moved, the comparison's second side).
func BenchmarkStep(b *testing.B) {
	for _, replay := range []bool{false, true} {
		for _, stride := range []int{1, 8, 0} {
			name := fmt.Sprintf("history=4096/ref=%d", stride)
			if replay {
				name += "/replay"
			}
			b.Run(name, func(b *testing.B) {
				cfg := DefaultConfig()
				cfg.RefStride = stride
				benchSteps(b, cfg, 4096, replay)
			})
		}
	}
}

// BenchmarkSoak decodes 1,000,000 tokens with the reference off and reports
// how much the live heap grew between step 10,000 and the last step (it
// must not grow: everything is allocated when the engine is built).
func BenchmarkSoak(b *testing.B) {
	for _, tc := range []struct {
		name   string
		tokens int
		ref    int
	}{{"1M-steps/ref=0", 1_000_000, 0}, {"10k-steps/ref=1", 10_000, 1}} {
		b.Run(tc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				cfg := DefaultConfig()
				cfg.Tokens, cfg.RefStride = tc.tokens, tc.ref
				e, err := New(cfg)
				if err != nil {
					b.Fatal(err)
				}
				e.RunTo(min(10_000, tc.tokens) / 2)
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				e.RunTo(tc.tokens)
				runtime.GC()
				runtime.ReadMemStats(&after)
				if e.Err() != nil {
					b.Fatal(e.Err())
				}
				b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)), "heap-growth-B")
				b.ReportMetric(float64(after.HeapAlloc), "heap-B")
			}
		})
	}
}
