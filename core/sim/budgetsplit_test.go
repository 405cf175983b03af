package sim

import (
	"testing"

	"github.com/kvscope/kvscope/core/kv"
)

// The sweep and the recall tasks give a policy a budget by one rule: for
// every policy, budget and sink count, the sweep's configuration is the
// task's (they once split h2o's 34 tokens as 4 + 15 + 15 and 4 + 16 + 14,
// and SnapKV's by two different windows).
func TestBudgetSplitIsOneRule(t *testing.T) {
	for _, p := range kv.Policies() {
		for _, budget := range []int{1, 3, 10, 34, 64, 300, 512, 900} {
			for _, sink := range []int{0, 4} {
				base := DefaultConfig()
				base.Policy, base.Sink = p.String(), sink
				sweep, budgeted := Grid{Sink: sink}.Config(base, p.String(), budget)
				task, err := WithBudget(base, budget)
				if err != nil {
					t.Fatalf("%s at %d: %v", p, budget, err)
				}
				if !budgeted {
					continue // full and quest: nothing to set
				}
				if sweep != task {
					t.Errorf("%s at %d with %d sinks: the sweep sets sink %d recent %d heavy %d drop %v, the task %d %d %d %v",
						p, budget, sink, sweep.Sink, sweep.Recent, sweep.Heavy, sweep.DropShare, task.Sink, task.Recent, task.Heavy, task.DropShare)
				}
			}
		}
	}
}
