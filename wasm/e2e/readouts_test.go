//go:build !js

package e2e

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kvscope/kvscope/core/lesson"
	"github.com/kvscope/kvscope/viz/view"
)

// The header's readouts say what they mean: the speed with its unit, and
// Reset's title the step it really goes back to (the end of the prompt,
// where a run never stops short of), which a press of Reset reaches.
func TestHeaderSaysWhatItDoes(t *testing.T) {
	tb := open(t, paused)
	f, _, _ := view.Lookup("speed")
	if out := domText(tb, "speed-out"); !strings.HasSuffix(out, " "+f.Unit) || f.Unit == "" {
		t.Errorf("the speed reads %q, without its unit", out)
	}
	s := tb.state()
	prompt := s.Sides[0].Config.Prompt
	title := tb.eval(`document.getElementById("reset").title`)
	if !strings.Contains(title, "step "+strconv.Itoa(prompt)) {
		t.Errorf("Reset's title %q does not name step %d, the end of the prompt", title, prompt)
	}
	if err := chromedp.Do(tb.ctx, chromedp.Click(chromedp.ID("reset"))); err != nil {
		t.Fatal(err)
	}
	tb.waitJS(fmt.Sprintf(`JSON.parse(window.kvscope.state()).step === %d`, prompt), 10*time.Second)
}

// "Seed 000" is defined where the page writes it: in the lesson that
// names it and in the list of techniques.
func TestSeed000Defined(t *testing.T) {
	n := 0
	for _, l := range lesson.All() {
		if strings.Contains(strings.ToLower(l.Notice), "seed 000") {
			n = l.N
			break
		}
	}
	if n == 0 {
		t.Skip("no lesson names seed 000")
	}
	tb := open(t, fmt.Sprintf("lesson=%d", n))
	tb.waitLessonPhase(n, 2, 60*time.Second)
	for _, sel := range []string{"#lesson-notice", "dl.techniques"} {
		q := fmt.Sprintf(`document.querySelector(%q + " [data-def=seed000]")`, sel)
		tb.waitJS(q, 5*time.Second)
		tb.do(q + `.scrollIntoView({block: "center"})`)
		time.Sleep(300 * time.Millisecond) // a scroll hides a definition shown
		tb.do(q + `.focus({preventScroll: true})`)
		tb.waitJS(`!document.getElementById("def").hidden && document.getElementById("def").dataset.for === "seed000"`, 5*time.Second)
		if txt := domText(tb, "def"); !strings.Contains(txt, "Combining Techniques") {
			t.Errorf("%s: seed 000's definition reads %q", sel, txt)
		}
	}
}

// The map's hover card writes every number in plain notation: hovered
// over every third position of every head's row in view of a TOVA cache,
// whose scores (this step's attention) run down to ten-thousandths and
// far below, no card shows an exponent, and some show such a score.
func TestHoverCardPlainNumbers(t *testing.T) {
	tb := open(t, "policy=tova&play=0&at=512")
	tb.waitJS(`JSON.parse(window.kvscope.state()).sides[0].cellCSS > 0`, 10*time.Second)
	s := tb.settle()
	m := tb.rect("map-0")
	cell, rows := s.Sides[0].CellCSS, s.Sides[0].Config.KVHeads
	raw := tb.evalAsync(fmt.Sprintf(`(async () => {
		const map = document.getElementById("map-0"), tip = document.getElementById("tooltip"), out = [];
		const frame = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
		for (let row = 0; row < %d; row++) {
			const y = %d + (row + 0.5) * %f;
			for (let x = %d + %f / 2; x < %d; x += 3 * %f) {
				map.dispatchEvent(new PointerEvent("pointermove", {clientX: x, clientY: y, bubbles: true}));
				await frame();
				if (!tip.hidden) out.push(tip.textContent);
			}
		}
		return JSON.stringify(out);
	})()`, rows, m.Min.Y, float64(m.Dy())/float64(rows), m.Min.X, cell, m.Max.X, cell))
	var tips []string
	if err := json.Unmarshal([]byte(raw), &tips); err != nil || len(tips) == 0 {
		t.Fatalf("no hover cards: %v %q", err, raw)
	}
	exp := regexp.MustCompile(`\d[eE][-+]?\d`)
	small := 0
	for _, tip := range tips {
		if exp.MatchString(tip) {
			t.Errorf("an exponent in the hover card: %q", tip)
		}
		if strings.Contains(tip, "score: 0.0000") || strings.Contains(tip, "score: <0.000001") {
			small++
		}
	}
	t.Logf("%d hover cards, %d with a score below 0.0001", len(tips), small)
	if small == 0 {
		t.Error("no hover card showed a score below 0.0001: the test did not see the numbers it is about")
	}
}
