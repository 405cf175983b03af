package lesson

import (
	"context"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/internal/testenv"
	"github.com/kvscope/kvscope/core/internal/testmodel"
	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/sim"
)

// measurePair runs a lesson's state before and after its action, reading
// the synthetic stream from s when it matches (as the page's replays
// share one recording: the same numbers, computed faster).
func measurePair(t *testing.T, l *Lesson, s *sim.Stream) (before, after Numbers) {
	t.Helper()
	var m *model.Model
	if l.Model() {
		m = testmodel.Model(t)
	}
	var err error
	if before, err = measure(sim.DefaultConfig(), l.Settings, m, s); err != nil {
		t.Fatal(err)
	}
	if after, err = measure(sim.DefaultConfig(), l.After(), m, s); err != nil {
		t.Fatal(err)
	}
	return before, after
}

// defaultStream records the page's default 512-token stream, which every
// synthetic lesson decodes.
func defaultStream(t *testing.T) *sim.Stream {
	s, err := sim.NewStream(sim.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Measuring over a shared recording gives Measure's numbers.
func TestMeasureShared(t *testing.T) {
	testenv.NativeOnly(t)
	l, _ := Get(4)
	s := defaultStream(t)
	for range 2 {
		got, err := measure(sim.DefaultConfig(), l.Settings, nil, s)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Measure(sim.DefaultConfig(), l.Settings, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("shared %+v, alone %+v", got, want)
		}
	}
}

// Every lesson's claim holds: run through core/sim before and after its
// action, each measure it teaches moves the way it says, and the claim
// prints those very numbers with the words their change earned.
func TestLessonsClaimWhatTheyMeasure(t *testing.T) {
	testenv.NativeOnly(t)
	s := defaultStream(t)
	for i := range All() {
		l := &All()[i]
		t.Run(l.Slug, func(t *testing.T) {
			before, after := measurePair(t, l, s)
			claim := l.Claim(before, after)
			t.Logf("lesson %d (%s): %s", l.N, l.Title, claim)
			if !l.Holds(before, after) {
				t.Errorf("the lesson's expectations %v do not hold: before %+v, after %+v", l.Expect, before, after)
			}
			for _, e := range l.Expect {
				b, a := before.Get(e.Metric), after.Get(e.Metric)
				if !strings.Contains(claim, Format(e.Metric, b)) || !strings.Contains(claim, Format(e.Metric, a)) {
					t.Errorf("claim lacks the measured %s %s → %s", e.Metric, Format(e.Metric, b), Format(e.Metric, a))
				}
				if l.Slug != "chart" && !strings.Contains(strings.ToLower(claim), strings.ToLower(change(e.Metric, b, a))) {
					t.Errorf("claim lacks %q", change(e.Metric, b, a))
				}
			}
			// Generated, not fixed: the numbers the other way round make
			// the other claim.
			if back := l.Claim(after, before); back == claim {
				t.Errorf("the claim does not depend on the numbers: %q", back)
			}
		})
	}
}

// The chart lesson's action is the point a learner should find: the row
// of the page's sweep (every policy × 8 budgets, INT8) that keeps the
// most attention mass within the budget, and the claim says it fits.
func TestChartLessonPicksTheBest(t *testing.T) {
	testenv.NativeOnly(t)
	l, err := Get(10)
	if err != nil {
		t.Fatal(err)
	}
	if l.Budget != ChartBudget {
		t.Fatalf("lessons.json gives the chart lesson a budget of %d bytes, ChartBudget is %d", l.Budget, ChartBudget)
	}
	base, err := Config(sim.DefaultConfig(), l.Settings)
	if err != nil {
		t.Fatal(err)
	}
	// The chart's budgets up to the first at which every policy stores
	// more than the lesson's budget (larger budgets store more still).
	g := sim.DefaultGrid()
	g.Budgets = sim.DefaultBudgets(base.Tokens)[:5]
	s := defaultStream(t)
	var rows []sim.Row
	if err := sim.Sweep(context.Background(), base, g, s, func(r sim.Row) error { rows = append(rows, r); return nil }); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Budget == g.Budgets[4] && r.Bytes <= l.Budget {
			t.Errorf("%s at budget %d stores %d bytes, within the budget: the test must sweep larger budgets", r.Policy, r.Budget, r.Bytes)
		}
	}
	best, ok := Best(rows, l.Budget, "mass")
	if !ok {
		t.Fatal("no point within the budget")
	}
	want, err := Config(sim.DefaultConfig(), l.After())
	if err != nil {
		t.Fatal(err)
	}
	if best.Policy != want.Policy || best.Sink != want.Sink || best.Recent != want.Recent || best.Heavy != want.Heavy || best.Bits != want.Bits {
		t.Errorf("the best point within %d bytes is %+v; the lesson asks for %s %d+%d+%d", l.Budget, best, want.Policy, want.Sink, want.Recent, want.Heavy)
	}
	before, after := measurePair(t, l, s)
	if after.Bytes != best.Bytes || after.Mass != best.Mass {
		t.Errorf("the lesson measures %d bytes, mass %v; the chart's point %d, %v", after.Bytes, after.Mass, best.Bytes, best.Mass)
	}
	if c := l.Claim(before, after); !strings.Contains(c, "within the 40 KiB budget") {
		t.Errorf("claim %q", c)
	}
	over := after
	over.Bytes = l.Budget + 1
	if c := l.Claim(before, over); !strings.Contains(c, "over the 40 KiB budget") {
		t.Errorf("claim for a pick over the budget: %q", c)
	}
}
