//go:build !js

package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/kvscope/kvscope/core/lesson"
	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/viz/view"
)

// A lesson answers from its own start to where the learner ends, however
// the asked slider got there: pressed → (or ←) step by step, dragged by
// the mouse past the asked value and back, or typed in its number box.
// The three answers are the same text, and it is the claim core/lesson
// writes from the lesson's two configurations measured natively.
func TestLessonAnswersHoweverTheControlMoves(t *testing.T) {
	for _, n := range []int{3, 9} {
		l, _ := lesson.Get(n)
		t.Run(l.Slug, func(t *testing.T) {
			var m *model.Model
			if l.Model() {
				needModel(t)
				m = loadStories(t)
			}
			before, err := lesson.Measure(sim.DefaultConfig(), l.Settings, m)
			if err != nil {
				t.Fatal(err)
			}
			after, err := lesson.Measure(sim.DefaultConfig(), l.After(), m)
			if err != nil {
				t.Fatal(err)
			}
			want := l.Claim(before, after)
			key := l.Action.Key
			start, _ := strconv.Atoi(l.Start(key))
			goal, _ := strconv.Atoi(l.Action.Value)
			for _, way := range []string{"keys", "drag", "typed"} {
				tb := lessonTab(t, n)
				slider := tb.eval(fmt.Sprintf(`document.querySelector('input[type=range][data-key=%q]').id`, key))
				box := tb.eval(fmt.Sprintf(`document.querySelector('input[type=number][data-key=%q]').id`, key))
				switch way {
				case "keys":
					arrow := kb.ArrowRight
					if goal < start {
						arrow = kb.ArrowLeft
					}
					if err := chromedp.Do(tb.ctx, chromedp.Focus(chromedp.ID(slider))); err != nil {
						t.Fatal(err)
					}
					for i := 0; i < abs(goal-start); i++ {
						if err := chromedp.Do(tb.ctx, chromedp.KeyEvent(arrow)); err != nil {
							t.Fatal(err)
						}
					}
				case "drag":
					// Past the asked value by half the way (or to the
					// slider's end), then back to it.
					tb.dragSlider(slider, []int{goal + (goal-start)/2, goal})
				case "typed":
					if err := chromedp.Do(tb.ctx, chromedp.Focus(chromedp.ID(box))); err != nil {
						t.Fatal(err)
					}
					tb.do(fmt.Sprintf(`document.getElementById(%q).select()`, box))
					if err := chromedp.Do(tb.ctx, chromedp.KeyEvent(l.Action.Value+kb.Tab)); err != nil {
						t.Fatal(err)
					}
				}
				got := tb.waitLessonAnswer(n, l.Action.Value)
				t.Logf("%s: %s", way, got)
				if got != want {
					t.Errorf("%s: the lesson answers %q; from its start to %s=%s it measures %q", way, got, key, l.Action.Value, want)
				}
			}
		})
	}
}

// A move past the asked value and a move the other way are answered too:
// what the control was set to, the numbers measured from the lesson's
// start, and what to try.
func TestLessonAnswersOtherMoves(t *testing.T) {
	for _, tc := range []struct {
		n     int
		value string
		move  string
	}{
		{3, "10", "beyond"}, // Sink tokens 0 → 4, set to 10
		{2, "h2o", "away"},  // Policy full → window, set to H2O
	} {
		l, _ := lesson.Get(tc.n)
		t.Run(tc.move, func(t *testing.T) {
			set := append([]lesson.Setting(nil), l.Settings...)
			for i := range set {
				if set[i].Key == l.Action.Key {
					set[i].Value = tc.value
				}
			}
			before, err := lesson.Measure(sim.DefaultConfig(), l.Settings, nil)
			if err != nil {
				t.Fatal(err)
			}
			after, err := lesson.Measure(sim.DefaultConfig(), set, nil)
			if err != nil {
				t.Fatal(err)
			}
			tb := lessonTab(t, tc.n)
			tb.setControl(l.Action.Key, tc.value)
			got := tb.waitLessonAnswer(tc.n, tc.value)
			t.Log(got)
			if mv := tb.eval(`JSON.parse(window.kvscope.state()).lesson.move`); mv != tc.move {
				t.Errorf("%s=%s is a move %q, want %q", l.Action.Key, tc.value, mv, tc.move)
			}
			for _, e := range l.Expect {
				if b, a := lesson.Format(e.Metric, before.Get(e.Metric)), lesson.Format(e.Metric, after.Get(e.Metric)); !strings.Contains(got, a) || (b != a && !strings.Contains(got, b)) {
					t.Errorf("the answer lacks the measured %s, %s → %s", e.Metric, b, a)
				}
			}
			if !strings.Contains(got, "lesson asks for") || !strings.Contains(got, domText(tb, "lesson-result")) {
				t.Errorf("card %q, state %q", domText(tb, "lesson-result"), got)
			}
			if tb.eval(`document.getElementById("lesson-next").classList.contains("go") ? "go" : ""`) != "" {
				t.Error("Next is offered as if the asked move were done")
			}
		})
	}
}

// quotedOnScreen checks that each fidelity figure lesson l's claim quotes
// is on screen as the learner ends: the same number under the same label
// and kind — the fidelity table's column over the run, or a real model's
// figures over the run under its texts.
func (tb *tab) quotedOnScreen(l *lesson.Lesson, claim string) {
	tb.t.Helper()
	nospace := func(s string) string { return strings.ReplaceAll(s, " ", "") }
	for _, e := range l.Expect {
		m, ok := sim.FindMeasure(e.Metric)
		if !ok || e.Metric == "ppl" {
			continue // memory and perplexity are not fidelity figures of a kind
		}
		var id, label string
		switch k := view.MetricOf(e.Metric); {
		case k >= 0:
			id = fmt.Sprintf("mr-0-%d", k)
			label = tb.eval(fmt.Sprintf(`document.querySelector("#metric-rows tr:nth-child(%d) th").textContent + " " + document.querySelector("#metric-head tr.kinds th:nth-child(2)").textContent`, k+1))
		case e.Metric == "top1":
			id, label = "agree", tb.eval(`document.getElementById("agree").parentElement.firstChild.textContent.trim()`)
		case e.Metric == "next_kl":
			id, label = "kl-mean", tb.eval(`document.getElementById("kl-mean").parentElement.firstChild.textContent.trim()`)
		default:
			tb.t.Errorf("the page shows no %s over the run", e.Metric)
			continue
		}
		fig := domText(tb, id)
		if want := m.Label + " " + sim.OverTheRun; label != want {
			tb.t.Errorf("the page labels %s %q, want %q", e.Metric, label, want)
		}
		if !strings.Contains(strings.ToLower(claim), strings.ToLower(label)) || !strings.Contains(nospace(claim), nospace(fig)) {
			tb.t.Errorf("the claim %q does not quote the page's %s, %s", claim, label, fig)
		}
	}
}

// lessonTab opens lesson n by its link in a tab of its own that may live
// for three minutes (a real-model lesson loads its model, replays its
// start and then the learner's move), and waits until it asks.
func lessonTab(t *testing.T, n int) *tab {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
	tb := freshTab(t, viewW, viewH, 1, 3*time.Minute)
	tb.visit(fmt.Sprintf("lesson=%d", n))
	tb.waitLessonPhase(n, 2, 90*time.Second)
	return tb
}

// The chart lesson answers a pick of another point than the one it asks
// for: what the pick stores and keeps against the budget, and to try
// again.
func TestChartLessonOtherPick(t *testing.T) {
	l, _ := lesson.Get(10)
	tb := lessonTab(t, l.N)
	pick := map[string]string{"policy": "streaming", "sink": "4", "recent": "28"}
	b, _ := json.Marshal(pick)
	tb.do(fmt.Sprintf(`window.kvscope.applySettings(%q)`, string(b)))
	var vals []string
	for _, s := range l.Asked() {
		v, ok := pick[s.Key]
		if !ok {
			v = l.Start(s.Key)
		}
		vals = append(vals, v)
	}
	got := tb.waitLessonAnswer(l.N, strings.Join(vals, "&"))
	t.Log(got)
	if mv := tb.eval(`JSON.parse(window.kvscope.state()).lesson.move`); mv != "away" || !strings.Contains(got, "budget") || !strings.Contains(got, "Try again") {
		t.Errorf("another point (%s): %q", mv, got)
	}
}

// waitLessonAnswer waits until lesson n answers the state where its asked
// settings read value and the runs have caught up, and returns the answer
// as the card shows it (which must be the state's).
func (tb *tab) waitLessonAnswer(n int, value string) string {
	tb.t.Helper()
	tb.waitJS(fmt.Sprintf(`(s => s.lesson && s.lesson.n === %d && s.lesson.phase === 4 && s.lesson.value === %q && !s.replaying)(JSON.parse(window.kvscope.state()))`, n, value), 90*time.Second)
	var s struct {
		Lesson struct{ Claim string } `json:"lesson"`
	}
	json.Unmarshal([]byte(tb.eval(`window.kvscope.state()`)), &s)
	if card := domText(tb, "lesson-result"); card != s.Lesson.Claim {
		tb.t.Errorf("the card says %q, the page's state %q", card, s.Lesson.Claim)
	}
	return s.Lesson.Claim
}

// dragSlider presses the mouse on the range input id, drags it through
// each value of path in turn, held inside the slider's ends (moving a
// fraction of a pixel at a time once near, reading the input's value after
// every move), and releases it there.
func (tb *tab) dragSlider(id string, path []int) {
	tb.t.Helper()
	tb.do(fmt.Sprintf(`document.getElementById(%q).scrollIntoView({block: "center"})`, id))
	var g struct{ X, Y, W, H, Min, Max, Value float64 }
	json.Unmarshal([]byte(tb.eval(fmt.Sprintf(`(() => { const el = document.getElementById(%q), r = el.getBoundingClientRect();
		return JSON.stringify({X: r.x, Y: r.y, W: r.width, H: r.height, Min: +el.min, Max: +el.max, Value: +el.value}); })()`, id))), &g)
	if g.W <= 0 || g.Max <= g.Min {
		tb.t.Fatalf("slider %s: %+v", id, g)
	}
	value := func() int {
		v, _ := strconv.Atoi(tb.eval(fmt.Sprintf(`document.getElementById(%q).value`, id)))
		return v
	}
	perValue := g.W / (g.Max - g.Min) // px per step, near enough: the thumb takes a little of the width
	x, y := g.X+(g.Value-g.Min)*perValue+perValue/2, g.Y+g.H/2
	x = math.Max(g.X+1, math.Min(x, g.X+g.W-1))
	held := func(p *input.DispatchMouseEventParams) {
		p.Button, p.Buttons, p.ClickCount = input.MouseButtonLeft, 1, 1
	}
	mouse := func(typ input.DispatchMouseEventType) {
		tb.t.Helper()
		if err := chromedp.Do(tb.ctx, chromedp.MouseEvent(typ, x, y, held)); err != nil {
			tb.t.Fatal(err)
		}
	}
	mouse(chromedp.MousePressed)
	for _, goal := range path {
		goal = int(math.Max(g.Min+1, math.Min(float64(goal), g.Max-1)))
		for i := 0; i < 4000; i++ {
			v := value()
			if v == goal {
				break
			}
			step := math.Max(0.1, math.Abs(float64(goal-v))*perValue/2)
			if goal < v {
				step = -step
			}
			x += step
			if x < g.X-20 || x > g.X+g.W+20 {
				tb.t.Fatalf("dragging %s to %d left the slider at x %.1f (value %d)", id, goal, x, v)
			}
			mouse(chromedp.MouseMoved)
		}
		if v := value(); v != goal {
			tb.t.Fatalf("dragging %s: %d, want %d", id, v, goal)
		}
	}
	mouse(chromedp.MouseReleased)
}

// loadStories loads the page's built-in model natively.
func loadStories(t *testing.T) *model.Model {
	t.Helper()
	p, _ := filepath.Abs("../../static/stories260K.gguf")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.LoadBytes(b, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// A link to a lesson kvscope does not have says so in the notices, and
// opens the page without a lesson.
func TestLessonLinkNotices(t *testing.T) {
	for _, v := range []string{"99", "abc", "0"} {
		t.Run(v, func(t *testing.T) {
			tb := open(t, "play=0&lesson="+v)
			tb.waitJS(fmt.Sprintf(`!document.getElementById("notices").hidden && document.getElementById("notices").textContent.includes(%q)`, `lesson="`+v+`"`), 10*time.Second)
			if tb.eval(`document.getElementById("lesson").hidden ? "" : "shown"`) != "" {
				t.Error("a lesson card opened")
			}
		})
	}
}

// The header's Lessons button, pressed while the first visit's offer of
// the lessons is on screen, answers the offer: it goes, and lesson 1 opens.
func TestLessonsButtonAnswersTheOffer(t *testing.T) {
	if skipReason != "" {
		t.Skip(skipReason)
	}
	tb := freshTab(t, viewW, viewH, 1, 90*time.Second)
	tb.visit("")
	tb.waitJS(`!document.getElementById("offer").hidden`, 5*time.Second)
	if err := chromedp.Do(tb.ctx, chromedp.Click(chromedp.ID("lessons"))); err != nil {
		t.Fatal(err)
	}
	tb.waitLessonPhase(1, 2, 60*time.Second)
	if tb.eval(`document.getElementById("offer").hidden ? "" : "shown"`) != "" {
		t.Error("the offer stays on screen above the lesson")
	}
}
