package sim

import (
	"math"
	"testing"

	"github.com/kvscope/kvscope/core/model"
)

// Every heatmap cell equals the single run of its policy, budget and
// depth, with the full cache's score of its instance beside it, whether
// the sweep measures a cell per call or a few tokens per call.
func TestTaskHeatmapCellsAreSingleRuns(t *testing.T) {
	m := loadModel(t)
	cfg := DefaultConfig()
	cfg.Policy, cfg.Bits, cfg.Granularity = "h2o", 8, "channel" // calibrated storage too
	spec := TaskSpec{Kind: TaskName, Seed: 5, Length: 96}
	depths, budgets := []float64{0, 0.5, 1}, []int{8, 32}
	var whole []TaskCell
	for _, chunk := range []int{0, 7} {
		s, err := NewTaskHeatmap(m, cfg, spec, depths, budgets, false)
		if err != nil {
			t.Fatal(err)
		}
		s.SetChunk(chunk)
		if s.Len() != 6 || s.Done() != 0 {
			t.Fatalf("%d cells planned, %d done", s.Len(), s.Done())
		}
		calls := 0
		for s.Next() {
			calls++
			if c := s.Cells(); s.Done() > 0 && !c[s.Done()-1].Done {
				t.Fatal("a counted cell is not marked done")
			}
		}
		if s.Err() != nil {
			t.Fatal(s.Err())
		}
		if s.Done() != 6 || (chunk == 0 && calls != 5) || (chunk > 0 && calls < 6*96/7) {
			t.Fatalf("chunk %d: %d cells done after %d calls", chunk, s.Done(), calls)
		}
		if chunk == 0 {
			whole = append([]TaskCell(nil), s.Cells()...)
			continue
		}
		for i, c := range s.Cells() {
			if c != whole[i] {
				t.Fatalf("cell %d measured in chunks %+v, whole %+v", i, c, whole[i])
			}
		}
	}
	for i, c := range whole {
		if c.Depth != depths[i/2] || c.Budget != budgets[i%2] || c.Policy != "h2o" || c.Bits != 8 || c.Task != TaskName {
			t.Fatalf("cell %d is %+v", i, c)
		}
		sp := spec
		sp.Depth = c.Depth
		tk := buildTask(t, m, sp)
		single, err := RunTask(m, cfg, tk, c.Budget, false)
		if err != nil {
			t.Fatal(err)
		}
		fc, err := model.NewFullCache(m.Config, 0)
		if err != nil {
			t.Fatal(err)
		}
		full, err := ScoreTask(m, fc, tk)
		if err != nil {
			t.Fatal(err)
		}
		if c.Score != single || c.Full != full {
			t.Fatalf("cell %d: %+v / full %+v; single run %+v / full %+v", i, c.Score, c.Full, single, full)
		}
		t.Logf("depth %.1f budget %2d: %.3f nats/token (full %.3f)", c.Depth, c.Budget, c.Score.LogProb, c.Full.LogProb)
	}
}

// Curves cover each policy at each budget; "full" counts the instance's
// length as its budget; invalid plans are refused up front.
func TestTaskCurves(t *testing.T) {
	m := loadModel(t)
	cfg := DefaultConfig()
	cfg.Bits = 32
	spec := TaskSpec{Kind: TaskMagic, Seed: 1, Length: 80, Depth: 0.5}
	s, err := NewTaskCurves(m, cfg, spec, []string{"full", "window", "streaming"}, []int{4, 16}, false)
	if err != nil {
		t.Fatal(err)
	}
	for s.Next() {
	}
	if s.Err() != nil {
		t.Fatal(s.Err())
	}
	n := len(s.Task(0.5).Tokens)
	cells := s.Cells()
	if len(cells) != 6 || cells[0].Budget != n || math.Abs(cells[0].Score.LogProb-cells[0].Full.LogProb) > 1e-4 || cells[2].Policy != "window" || cells[5].Budget != 16 {
		t.Fatalf("cells %+v", cells)
	}
	for _, bad := range []func() error{
		func() error { _, err := NewTaskCurves(m, cfg, spec, []string{"h2o"}, []int{0}, false); return err },
		func() error { _, err := NewTaskCurves(m, cfg, spec, []string{"lru"}, []int{4}, false); return err },
		func() error { _, err := NewTaskCurves(m, cfg, spec, nil, []int{4}, false); return err },
		func() error { _, err := NewTaskHeatmap(m, cfg, spec, []float64{2}, []int{4}, false); return err },
		func() error { _, err := NewTaskHeatmap(m, cfg, spec, []float64{0}, []int{0}, false); return err },
		func() error { _, err := NewTaskHeatmap(m, cfg, spec, []float64{0}, nil, false); return err },
	} {
		if bad() == nil {
			t.Error("an invalid sweep was accepted")
		}
	}
}
