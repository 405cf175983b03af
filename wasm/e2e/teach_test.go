//go:build !js

package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kvscope/kvscope/core/lesson"
)

// waitLessonPhase waits until the open lesson reaches phase (2 asking, 4
// claim shown) and returns the page's state.
func (tb *tab) waitLessonPhase(n, phase int, timeout time.Duration) {
	tb.t.Helper()
	tb.waitJS(fmt.Sprintf(`(l => l && l.n === %d && l.phase === %d)(JSON.parse(window.kvscope.state()).lesson)`, n, phase), timeout)
}

// A lesson opens by its link, shows what to do, notices the learner
// doing it, and answers with the numbers it measured. Every lesson's
// claim is checked natively (core/lesson: its two configurations run
// through core/sim, its link and action through viz/view), so the browser
// runs one synthetic lesson and the first real-model one (whose claim
// includes the perplexity the page's model run scores).
func TestLessonsByLink(t *testing.T) {
	seen := map[string]bool{}
	for _, l := range lesson.All() {
		if l.Highlight == "chart" || l.Action.Key == "at" || seen[l.Mode] {
			continue // the chart's: TestChartLesson
		}
		seen[l.Mode] = true
		t.Run(l.Slug, func(t *testing.T) {
			if l.Model() {
				needModel(t)
			}
			tb := open(t, fmt.Sprintf("lesson=%d", l.N))
			tb.waitLessonPhase(l.N, 2, 60*time.Second)
			if got := domText(tb, "lesson-title"); got != l.Title {
				t.Errorf("card title %q, want %q", got, l.Title)
			}
			if tb.eval(`document.querySelector(".spot") ? "y" : ""`) != "y" {
				t.Error("no part of the page is highlighted")
			}
			if l.Action.Key == "at" {
				tb.setControl("speed", "240")
				tb.key(" ")
			} else {
				tb.setControl(l.Action.Key, l.Action.Value)
			}
			tb.waitLessonPhase(l.N, 4, 60*time.Second)
			claim := domText(tb, "lesson-result")
			if !regexp.MustCompile(`\d`).MatchString(claim) {
				t.Errorf("the claim has no measured number: %q", claim)
			}
			var s struct {
				Lesson struct{ Claim string } `json:"lesson"`
				URL    string                 `json:"url"`
			}
			json.Unmarshal([]byte(tb.eval(`window.kvscope.state()`)), &s)
			if s.Lesson.Claim != claim {
				t.Errorf("card %q, state %q", claim, s.Lesson.Claim)
			}
			if !strings.Contains(tb.eval(`location.hash`), fmt.Sprintf("lesson=%d", l.N)) {
				t.Errorf("the address lacks the lesson: %s", tb.eval(`location.hash`))
			}
			tb.quotedOnScreen(&l, claim)
			t.Logf("lesson %d: %s", l.N, claim)
		})
	}
}

// A first visit to the plain page offers the lessons once; declining is
// remembered. Each visit runs in a browser context of its own, so its
// localStorage starts empty: the other tests' tabs share the default
// context, and a clear sent to the browser reaches an open renderer's
// cached copy of the storage only later, so a page loaded right after it
// could still read the old value.
func TestFirstVisitOffer(t *testing.T) {
	if skipReason != "" {
		t.Skip(skipReason)
	}
	fresh := func(hash string) *tab {
		t.Helper()
		tb := freshTab(t, viewW, viewH, 1, 60*time.Second)
		tb.visit(hash)
		return tb
	}
	tb := fresh("")
	if _, err := chromedp.Run(tb.ctx, chromedp.Poll[bool](`!document.getElementById("offer").hidden`, chromedp.WithPollingTimeout(5*time.Second))); err != nil {
		t.Fatalf("no offer on a first visit: %v (the page %s, kvscope.lessons %s)", err,
			tb.eval(`location.href`), tb.eval(`String(localStorage.getItem("kvscope.lessons"))`))
	}
	tb.do(`document.getElementById("offer-no").click()`)
	tb.waitJS(`document.getElementById("offer").hidden && localStorage.getItem("kvscope.lessons") === "declined"`, 5*time.Second)
	tb.visit("")
	time.Sleep(300 * time.Millisecond)
	if tb.eval(`document.getElementById("offer").hidden ? "" : "shown"`) != "" {
		t.Error("the offer came back after it was declined")
	}
	// A link with settings never shows it, even on a first visit.
	tb2 := fresh(paused)
	time.Sleep(300 * time.Millisecond)
	if tb2.eval(`document.getElementById("offer").hidden ? "" : "shown"`) != "" {
		t.Error("the offer covers a shared link")
	}
}

// visit navigates the tab to the page with hash (may be empty) and waits
// until the page is ready.
func (tb *tab) visit(hash string) {
	tb.t.Helper()
	url := serverURL + "/"
	if hash != "" {
		url += "#" + hash
	}
	if err := chromedp.Do(tb.ctx, chromedp.Navigate(url)); err != nil {
		tb.t.Fatal(err)
	}
	tb.waitJS(`document.body.dataset.ready === "1"`, 45*time.Second)
}

// The memory-versus-fidelity chart: it fills in off the main thread while
// the page keeps drawing, has a curve per policy and the learner's point,
// its points equal what the page's own engine measures for the same
// setting, and clicking a point applies it. It logs the sweep's time and
// the frame rate during it.
//
// The chart is opened as a visitor would, after reading the page for a
// moment: once the page has warmed its worker up (static/panels.js).
func TestChartSweepAndPick(t *testing.T) {
	tb := open(t, "play=0&at=512")
	tb.waitJS(`window.kvscopeWarmMs !== undefined`, 30*time.Second)
	t.Logf("warm-up: a 128-token sweep in one worker, %s ms", tb.eval(`String(window.kvscopeWarmMs)`))
	sweepChart(tb, "after the warm-up")

	var rows []map[string]any
	json.Unmarshal([]byte(tb.eval(`JSON.stringify(window.kvscopeChart.rows())`)), &rows)
	policies := map[string]bool{}
	for _, r := range rows {
		policies[r["policy"].(string)] = true
	}
	if len(policies) < 14 {
		t.Errorf("curves for %d policies: %v", len(policies), policies)
	}
	if n := tb.eval(`String(document.querySelectorAll("#chart .kvchart-curve").length)`); n == "0" {
		t.Error("no curves drawn")
	}
	tb.waitJS(`document.querySelector("#chart .kvchart-you")`, 5*time.Second)

	// A click on a legend key brings that policy forward, in the page's
	// own DOM: its curves stay, the others fade; a second click undoes it.
	fadedCurves := `[...document.querySelectorAll("#chart .kvchart-curve")].filter((c) => Number(c.getAttribute("opacity")) < 1).map((c) => c.dataset.policy).join(",")`
	tb.do(`document.querySelector('#chart .kvchart-key[data-policy="h2o"]').dispatchEvent(new MouseEvent("click", {bubbles: true}))`)
	if f := tb.eval(fadedCurves); f == "" || strings.Contains(f, "h2o") {
		t.Errorf("after a click on H2O's legend key the faded curves are %q", f)
	}
	tb.do(`document.querySelector('#chart .kvchart-key[data-policy="h2o"]').dispatchEvent(new MouseEvent("click", {bubbles: true}))`)
	if f := tb.eval(fadedCurves); f != "" {
		t.Errorf("after a second click the faded curves are %q", f)
	}

	// Three points against the page's engine.
	for _, want := range []struct {
		policy string
		budget float64
	}{{"h2o", 0}, {"window", 0}, {"streaming", 0}} {
		var row map[string]any
		for _, r := range rows {
			if r["policy"] == want.policy && r["bits"].(float64) == 8 {
				if row == nil || math.Abs(r["budget"].(float64)-64) < math.Abs(row["budget"].(float64)-64) {
					row = r
				}
			}
		}
		if row == nil {
			t.Fatalf("no %s row", want.policy)
		}
		idx := int(row["index"].(float64))
		v0 := tb.state().Version
		tb.do(fmt.Sprintf(`document.querySelector('#chart .kvchart-point[data-index="%d"]').dispatchEvent(new MouseEvent("click", {bubbles: true}))`, idx))
		tb.waitJS(fmt.Sprintf(`JSON.parse(window.kvscope.state()).version > %d`, v0), 5*time.Second)
		s := tb.settle().Sides[0]
		if s.Config.Policy != want.policy || float64(s.Config.Sink) != row["sink"].(float64) || float64(s.Config.Recent) != row["recent"].(float64) || float64(s.Config.Heavy) != row["heavy"].(float64) {
			t.Errorf("clicking %v applied %+v", row, s.Config)
			continue
		}
		if float64(s.Stored) != row["bytes"].(float64) || math.Abs(s.Mean.Mass-row["mass"].(float64)) > 1e-9 || math.Abs(s.Mean.OutErr-row["output_error"].(float64)) > 1e-9 {
			t.Errorf("%s at budget %v: chart says %v bytes, mass %v, output error %v; the page's engine %d bytes, mass %v, output error %v",
				want.policy, row["budget"], row["bytes"], row["mass"], row["output_error"], s.Stored, s.Mean.Mass, s.Mean.OutErr)
		}
	}
}

// TestChartSweepCold opens the chart the moment the page is ready, before
// the warm-up has run: the sweep starts on the browser's baseline code.
func TestChartSweepCold(t *testing.T) {
	measureOnly(t)
	sweepChart(open(t, "play=0&at=512"), "opened at once")
}

// sweepChart opens the chart, waits for its sweep while counting the
// page's animation frames, and logs the sweep's time (from the request
// to the workers to the last row, as the page measures it) and the frame
// rate.
func sweepChart(tb *tab, when string) {
	t := tb.t
	t.Helper()
	t0 := time.Now()
	tb.do(`document.getElementById("chartbox").open = true`)
	frames := tb.evalAsync(`new Promise(done => {
		const ts = [];
		const tick = (t) => { ts.push(t); if (window.kvscopeSweepMs === undefined && ts.length < 5000) requestAnimationFrame(tick); else done(JSON.stringify(ts)); };
		requestAnimationFrame(tick);
	})`)
	wall := time.Since(t0)
	var ts []float64
	json.Unmarshal([]byte(frames), &ts)
	fps := 0.0
	if len(ts) > 1 {
		fps = float64(len(ts)-1) / ((ts[len(ts)-1] - ts[0]) / 1000)
	}
	t.Logf("sweep of every policy × 8 budgets (512 tokens, INT8), chart %s: %s ms in the workers, %.1f s from opening the chart; the page drew %.0f frames/s meanwhile",
		when, tb.eval(`String(window.kvscopeSweepMs)`), wall.Seconds(), fps)
}

// The chart lesson: pick the best point within the budget on the chart.
func TestChartLesson(t *testing.T) {
	l, _ := lesson.Get(10)
	tb := open(t, "lesson=10")
	tb.waitLessonPhase(10, 2, 60*time.Second)
	if tb.eval(`document.getElementById("chartbox").open ? "open" : ""`) != "open" {
		t.Fatal("the chart lesson did not open the chart")
	}
	tb.waitJS(`document.querySelector("#chart .kvchart-budget")`, 10*time.Second)
	set := map[string]string{l.Action.Key: l.Action.Value}
	for _, a := range l.Action.Also {
		set[a.Key] = a.Value
	}
	b, _ := json.Marshal(set)
	tb.do(fmt.Sprintf(`window.kvscope.applySettings(%q)`, string(b)))
	tb.waitLessonPhase(10, 4, 60*time.Second)
	if claim := domText(tb, "lesson-result"); !strings.Contains(claim, "budget") {
		t.Errorf("claim %q", claim)
	}
}

// TestScreenshotChart writes the README's picture of the memory-versus-
// fidelity chart when KVSCOPE_SCREENSHOT_CHART names a PNG path (make
// screenshot).
func TestScreenshotChart(t *testing.T) {
	out := os.Getenv("KVSCOPE_SCREENSHOT_CHART")
	if out == "" {
		t.Skip("set KVSCOPE_SCREENSHOT_CHART to a PNG path to picture the chart")
	}
	tb := open(t, "play=0&at=512")
	tb.do(`document.getElementById("chartbox").open = true`)
	tb.waitJS(`window.kvscopeSweepMs !== undefined`, 120*time.Second)
	tb.do(`document.getElementById("chartbox").scrollIntoView()`)
	time.Sleep(300 * time.Millisecond)
	b, err := chromedp.Run(tb.ctx, chromedp.Screenshot(chromedp.ID("chartbox")))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", out)
}
