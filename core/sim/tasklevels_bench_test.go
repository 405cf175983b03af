package sim

import (
	"fmt"
	"testing"

	"github.com/kvscope/kvscope/core/model"
)

// BenchmarkTaskLevels measures how well the model does each task at all:
// with the full cache, against the control (the needle replaced by another
// draw: the level without the information) and a 16-token window, over 8
// seeds of 256-token instances at depths 0, 0.5 and 1. It reports mean
// log-probabilities (nats per token) and top-1 shares as metrics; run it
// with -benchtime 1x.
func BenchmarkTaskLevels(b *testing.B) {
	m := loadModel(b)
	window := DefaultConfig()
	window.Policy, window.Bits = "window", 32
	for _, kind := range TaskKinds {
		for _, depth := range []float64{0, 0.5, 1} {
			b.Run(fmt.Sprintf("%s/depth%.1f", kind, depth), func(b *testing.B) {
				var full, control, win TaskScore
				for range b.N {
					full, control, win = TaskScore{}, TaskScore{}, TaskScore{}
					const seeds = 8
					for seed := range uint64(seeds) {
						spec := TaskSpec{Kind: kind, Seed: seed + 1, Length: 256, Depth: depth}
						for i, sc := range []*TaskScore{&full, &control, &win} {
							spec.Control = i == 1
							t, err := BuildTask(m.Tokenizer, m.Config.ContextLength, spec)
							if err != nil {
								b.Fatal(err)
							}
							var s TaskScore
							if i == 2 {
								s, err = RunTask(m, window, t, 16, false)
							} else {
								fc, ferr := model.NewFullCache(m.Config, 0)
								if ferr != nil {
									b.Fatal(ferr)
								}
								s, err = ScoreTask(m, fc, t)
							}
							if err != nil {
								b.Fatal(err)
							}
							sc.LogProb += s.LogProb / seeds
							sc.Top1 += s.Top1 / seeds
						}
					}
				}
				b.ReportMetric(full.LogProb, "full-nats")
				b.ReportMetric(full.Top1, "full-top1")
				b.ReportMetric(control.LogProb, "control-nats")
				b.ReportMetric(control.Top1, "control-top1")
				b.ReportMetric(win.LogProb, "window16-nats")
			})
		}
	}
}
