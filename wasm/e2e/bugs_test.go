//go:build !js

package e2e

import (
	"fmt"
	"image"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// Compare mode: a side rebuilt after its settings moved catches up to the
// step on screen, and from then on both sides always show the same step.
func TestCompareSidesShareTheStep(t *testing.T) {
	tb := open(t, "tokens=128&cmp=1&play=0&at=128")
	s := tb.settle()
	if s.Step != 128 || len(s.Sides) != 2 {
		t.Fatalf("opened at step %d with %d sides", s.Step, len(s.Sides))
	}
	tb.do(`(() => { const r = document.querySelector("input[name=edit][value='1']"); r.checked = true; r.dispatchEvent(new Event("change")); })()`)
	tb.setControl("bits", "2")
	s = tb.settle()
	a, b := s.Sides[0], s.Sides[1]
	if b.Config.Bits != 2 || a.Config.Bits == 2 {
		t.Fatalf("bits: A %d, B %d", a.Config.Bits, b.Config.Bits)
	}
	if a.Step != 128 || b.Step != 128 || b.Kept <= 0 {
		t.Errorf("after editing B: A at step %d, B at step %d keeping %v tokens per head", a.Step, b.Step, b.Kept)
	}
	tb.key("ArrowRight") // the run is complete: nothing moves
	s = tb.settle()
	if s.Sides[0].Step != s.Sides[1].Step {
		t.Errorf("after a step at the end: A at %d, B at %d", s.Sides[0].Step, s.Sides[1].Step)
	}
	// Playing from the start, then moving B's setting while it plays.
	tb.key("r")
	tb.key(" ")
	tb.waitJS(`JSON.parse(window.kvscope.state()).step > 40`, 20*time.Second)
	tb.setControl("bits", "4")
	for i := 0; i < 20; i++ {
		s := tb.state()
		if len(s.Sides) == 2 && !s.Replay && s.Sides[0].Step != s.Sides[1].Step {
			t.Fatalf("while playing: A at %d, B at %d", s.Sides[0].Step, s.Sides[1].Step)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A link asking to play plays once the real model has loaded, and
// switching to the real model while playing keeps playing.
func TestModelLinkPlays(t *testing.T) {
	needModel(t)
	tb := open(t, "mode=model&policy=window&recent=8&bits=32&play=1")
	tb.waitJS(`(s => s.playing && s.step > 12)(JSON.parse(window.kvscope.state()))`, 30*time.Second)

	tb2 := open(t, "play=1")
	tb2.setControl("mode", "model")
	tb2.waitJS(`(s => s.mode === "model" && s.playing && s.step > 12)(JSON.parse(window.kvscope.state()))`, 30*time.Second)
}

// StreamingLLM keeps what its title and controls say: switching to it
// keeps the total budget, as sinks + recent, and core keeps exactly that.
func TestStreamingKeepsWhatItSays(t *testing.T) {
	tb := open(t, paused)
	before := tb.settle().Sides[0]
	tb.setControl("policy", "streaming")
	s := tb.settle().Sides[0]
	c := s.Config
	if c.Sink+c.Recent != before.Config.Sink+before.Config.Recent+before.Config.Heavy {
		t.Errorf("budget moved: %d sinks + %d recent after %d + %d + %d", c.Sink, c.Recent, before.Config.Sink, before.Config.Recent, before.Config.Heavy)
	}
	if s.Kept != float64(c.Sink+c.Recent) {
		t.Errorf("each head keeps %v tokens; the settings say %d sinks + %d recent", s.Kept, c.Sink, c.Recent)
	}
	want := fmt.Sprintf("keeps %d tokens: %d sinks + %d recent", c.Sink+c.Recent, c.Sink, c.Recent)
	if !strings.Contains(s.Name, want) {
		t.Errorf("title %q lacks %q", s.Name, want)
	}
	if txt := tb.eval(`document.getElementById("memratio-0").textContent`); strings.Contains(txt, "selects") {
		t.Errorf("the memory line says StreamingLLM selects what each query reads: %q", txt)
	}
	if cls := tb.eval(`document.querySelector("#heavy-r").parentElement.className`); !strings.Contains(cls, "irrelevant") {
		t.Errorf("heavy hitters not shown as unused by StreamingLLM: %q", cls)
	}
}

// Navigating the open tab to another link applies it.
func TestNewLinkInOpenTab(t *testing.T) {
	tb := open(t, paused)
	tb.do(`location.hash = "policy=window&recent=16&bits=2&play=0"`)
	tb.waitJS(`(c => c.Policy === "window" && c.Recent === 16 && c.Bits === 2)(JSON.parse(window.kvscope.state()).sides[0].config)`, 10*time.Second)
}

// The memory line says "larger" when the cache holds more than FP16 would.
func TestMemoryLineSaysLarger(t *testing.T) {
	tb := open(t, "policy=full&bits=32&play=0&at=100")
	tb.settle()
	if txt := tb.eval(`document.getElementById("memratio-0").textContent`); !strings.Contains(txt, "× larger than the FP16 history") {
		t.Errorf("float32 full cache: %q", txt)
	}
}

// The first frame the page shows describes a placed map and a read prompt.
func TestFirstFrameNumbers(t *testing.T) {
	tb := open(t, "")
	axis := tb.eval(`document.getElementById("axis-0").textContent`)
	m := regexp.MustCompile(`positions (\d+)–(\d+) of (\d+) · ([0-9.]+) px per token`).FindStringSubmatch(axis)
	if m == nil {
		t.Fatalf("axis line %q", axis)
	}
	if n, _ := strconv.Atoi(m[3]); n < 16 {
		t.Errorf("first frame shows %d positions, fewer than the 16-token prompt: %q", n, axis)
	}
	if px, _ := strconv.ParseFloat(m[4], 64); px <= 0 {
		t.Errorf("first frame: %q", axis)
	}
	if info := tb.eval(`document.getElementById("stepinfo").textContent`); strings.Contains(info, "replaying") || strings.Contains(info, "catching") {
		t.Errorf("first frame step line %q", info)
	}
}

// After a click on a header button the shortcuts still work: Space plays
// and pauses instead of pressing the button again, → steps.
func TestShortcutsAfterAButtonClick(t *testing.T) {
	tb := open(t, paused)
	s0 := tb.state()
	if err := chromedp.Do(tb.ctx, chromedp.Click(chromedp.ID("fwd"))); err != nil {
		t.Fatal(err)
	}
	tb.waitJS(fmt.Sprintf(`JSON.parse(window.kvscope.state()).step === %d`, s0.Step+1), 5*time.Second)
	if f := tb.eval(`document.activeElement.id`); f != "fwd" {
		t.Logf("focus after the click: %q", f)
	}
	if err := chromedp.Do(tb.ctx, chromedp.KeyEvent(kb.ArrowRight)); err != nil {
		t.Fatal(err)
	}
	tb.waitJS(fmt.Sprintf(`JSON.parse(window.kvscope.state()).step === %d`, s0.Step+2), 5*time.Second)
	if err := chromedp.Do(tb.ctx, chromedp.KeyEvent(" ")); err != nil {
		t.Fatal(err)
	}
	tb.waitJS(`JSON.parse(window.kvscope.state()).playing`, 5*time.Second)
	if err := chromedp.Do(tb.ctx, chromedp.KeyEvent(" ")); err != nil {
		t.Fatal(err)
	}
	tb.waitJS(`!JSON.parse(window.kvscope.state()).playing`, 5*time.Second)
}

// Notices of a link with many bad values sit in one panel, with their
// heading, that does not cover the map, and one button dismisses them.
func TestNoticesPanel(t *testing.T) {
	tb := open(t, "sink=-3&bits=5&policy=nope&tokens=99999&dim=7&play=0")
	tb.settle()
	if tb.eval(`document.getElementById("notices").hidden ? "hidden" : ""`) != "" {
		t.Fatal("no notices shown")
	}
	if h := tb.eval(`(document.querySelector("#notices .ntitle") || {}).textContent || ""`); !strings.Contains(h, "This link had settings") {
		t.Errorf("heading %q", h)
	}
	if n := tb.eval(`String(document.querySelectorAll("#notices li").length)`); n != "5" {
		t.Errorf("%s notices listed, want 5", n)
	}
	nr, mr := tb.rect("notices"), tb.rect("map-0")
	if nr.Overlaps(mr) {
		t.Errorf("notices %v cover the map %v", nr, mr)
	}
	if n := tb.eval(`String(document.querySelectorAll("#notices button").length)`); n != "1" {
		t.Errorf("%s dismiss buttons, want 1", n)
	}
	tb.do(`document.getElementById("notices-dismiss").click()`)
	tb.waitJS(`document.getElementById("notices").hidden`, 5*time.Second)
	tb.settle()
	if r := tb.rect("map-0"); r.Min.Y >= mr.Min.Y {
		t.Errorf("the map did not move up once the notices went: %v then %v", mr, r)
	}
}

// Dragging a slider updates the map and the numbers during the drag:
// every input event, without a change event (the release).
func TestSliderDragIsLive(t *testing.T) {
	tb := open(t, paused)
	tb.settle()
	img0 := tb.screenshot()
	m := tb.rect("map-0")
	prev := tb.state().Sides[0]
	for _, v := range []int{40, 48, 56} {
		v0 := tb.state().Version
		tb.do(fmt.Sprintf(`(() => { const el = document.getElementById("recent-r"); el.value = "%d"; el.dispatchEvent(new Event("input", {bubbles: true})); })()`, v))
		tb.waitJS(fmt.Sprintf(`JSON.parse(window.kvscope.state()).version > %d`, v0), 5*time.Second)
		s := tb.settle().Sides[0]
		if s.Config.Recent != v || s.Kept == prev.Kept {
			t.Errorf("slider at %d: recent %d, kept %v (was %v)", v, s.Config.Recent, s.Kept, prev.Kept)
		}
		if got := tb.eval(`document.getElementById("recent-n").value`); got != strconv.Itoa(v) {
			t.Errorf("the number beside the slider shows %s, want %d", got, v)
		}
		img := tb.screenshot()
		if d := differs(img0, img, m); d == 0 {
			t.Errorf("slider at %d: the map did not change", v)
		}
		img0, prev = img, s
	}
	_ = image.Rect
}

// The attention rows under the map answer hover: the position, and its
// weight over the full history and through the cache.
func TestAttentionRowsAnswerHover(t *testing.T) {
	tb := open(t, paused)
	tb.settle()
	r := tb.rect("attn-0")
	x, y := r.Max.X-20, (r.Min.Y+r.Max.Y)/2
	tb.do(fmt.Sprintf(`document.getElementById("attn-0").dispatchEvent(new PointerEvent("pointermove", {clientX: %d, clientY: %d, bubbles: true}))`, x, y))
	tb.waitJS(`!document.getElementById("tooltip").hidden && document.getElementById("tooltip").textContent.includes("over the full history")`, 5*time.Second)
	txt := tb.eval(`document.getElementById("tooltip").textContent`)
	if !regexp.MustCompile(`^position \d+`).MatchString(txt) || !strings.Contains(txt, "through the cache") {
		t.Errorf("tooltip over the attention rows: %q", txt)
	}
	if strings.Contains(txt, "e-") {
		t.Errorf("an exponent in the tooltip: %q", txt)
	}
}

// Every figure the page shows explains itself: each marked element names
// a definition, and hovering or focusing it shows the formula, which way
// is better and what it means. The figures are listed by the elements
// that show them, so a figure added without a definition fails here.
func TestEveryFigureDefined(t *testing.T) {
	for _, hash := range []string{paused, "mode=model&play=0"} {
		tb := open(t, hash)
		tb.settle()
		missing := tb.eval(`(() => {
			const need = ["#metric-rows th", "#memratio-0", "#mem-0-0", "#mem-0-1", "#mem-0-2", "#seglegend .chip", "#scale-0",
				"#budget-grid", "#sink-grid", "#texts .textstats > span"];
			const out = [];
			for (const sel of need) {
				const els = document.querySelectorAll(sel);
				if (!els.length) { out.push(sel + ": not found"); continue; }
				for (const el of els) {
					if (el.closest(".model-only") && !document.body.classList.contains("mode-model")) continue;
					const d = el.closest("[data-def]") || el.querySelector("[data-def]") || (el.previousElementSibling && el.previousElementSibling.querySelector("[data-def]"));
					if (!d || !window.kvscopeDefs[d.dataset.def]) out.push(sel + " “" + el.textContent.trim().slice(0, 30) + "”");
				}
			}
			for (const el of document.querySelectorAll("[data-def]")) {
				if (!window.kvscopeDefs[el.dataset.def]) out.push("data-def=" + el.dataset.def + " has no definition");
			}
			return out.join("; ");
		})()`)
		if missing != "" {
			t.Errorf("%s: figures without a definition: %s", hash, missing)
		}
		// Keyboard focus shows the definition.
		tb.do(`document.querySelector("#metric-rows [data-def=mass]").focus()`)
		tb.waitJS(`!document.getElementById("def").hidden && document.getElementById("def").dataset.for === "mass"`, 5*time.Second)
		if txt := domText(tb, "def"); !strings.Contains(txt, "Higher is better") || !strings.Contains(txt, "full-history attention weight") {
			t.Errorf("the definition of attention mass kept reads %q", txt)
		}
	}
}
