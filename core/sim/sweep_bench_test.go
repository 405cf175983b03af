package sim

import (
	"context"
	"testing"
)

// BenchmarkSweep is the page's chart: every policy × DefaultBudgets on the
// default 512-token stream, INT8 per token, the reference at every step.
// "record" builds the stream and its reference too (a worker's first
// sweep); "recorded" reuses a recording (every later sweep of the stream).
// One op is the whole sweep; rows/op counts the configurations.
//
//	go test -run '^$' -bench BenchmarkSweep -benchtime 2x ./core/sim
func BenchmarkSweep(b *testing.B) {
	base := DefaultConfig()
	for _, name := range []string{"record", "recorded"} {
		b.Run(name, func(b *testing.B) {
			s, err := NewStream(base)
			if err != nil {
				b.Fatal(err)
			}
			if name == "recorded" {
				if err := Sweep(context.Background(), base, Grid{Policies: []string{"full"}}, s, func(Row) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
			rows := 0
			b.ResetTimer()
			for range b.N {
				if name == "record" {
					s = nil
				}
				rows = 0
				if err := Sweep(context.Background(), base, DefaultGrid(), s, func(Row) error { rows++; return nil }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(rows), "rows/op")
		})
	}
}
