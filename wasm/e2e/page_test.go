//go:build !js

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kvscope/kvscope/viz/view"
)

// paused opens a deterministic, paused view at step 200 of the default stream.
const paused = "play=0&at=200"

func TestLoadsAndDraws(t *testing.T) {
	tb := open(t, "")
	tb.waitJS(`window.kvscope.firstFrameMs > 0`, 5*time.Second)
	first := tb.eval(`String(Math.round(window.kvscope.firstFrameMs))`)
	t.Logf("first frame at %s ms after navigation start; milestones (ms): %s", first,
		tb.eval(`JSON.stringify(window.kvscopeTiming, (k, v) => typeof v === "number" ? Math.round(v) : v)`))
	s := tb.state()
	if !s.Playing || len(s.Sides) != 1 {
		t.Fatalf("default page: playing %v, sides %d", s.Playing, len(s.Sides))
	}
	// It decodes on its own.
	tb.waitJS(fmt.Sprintf(`JSON.parse(window.kvscope.state()).step > %d`, s.Step+5), 10*time.Second)
	img := tb.screenshot()
	m := tb.rect("map-0")
	bg := [3]uint8{0x0f, 0x11, 0x15}
	colored := 0
	for y := m.Min.Y; y < m.Max.Y; y += 3 {
		for x := m.Min.X; x < m.Max.X; x += 3 {
			if ok, _ := near(img, x, y, bg, 6); !ok {
				colored++
			}
		}
	}
	if colored < 100 {
		t.Errorf("the token map area has only %d drawn samples", colored)
	}
	if tb.eval(`document.getElementById("loading").hidden ? "1" : ""`) != "1" {
		t.Error("the loading screen is still shown")
	}
	if sum := tb.eval(`document.getElementById("summary").textContent`); !strings.Contains(sum, "Step") {
		t.Errorf("aria-live summary %q", sum)
	}
}

// A control moved on the page reaches the engine, the link, the numbers
// and the drawing: one eviction control and one storage control.
func TestControlsChangeDrawingAndNumbers(t *testing.T) {
	tb := open(t, paused)
	tests := []struct {
		key, value string
		field      string // config field that must take the value
		want       any
		numbers    bool // the memory or fidelity numbers must change
	}{
		{"policy", "streaming", "Policy", "streaming", true},
		{"bits", "4", "Bits", 4.0, true},
		// Every other control's effect on the run is checked natively
		// (viz/view TestControlsChangeTheRun); here, that the page's
		// controls reach the engine, the numbers and the drawing.
	}
	before := tb.settle()
	img0 := tb.screenshot()
	area := tb.rect("app") // the whole page: a longer run shows in the step counter too
	for _, tc := range tests {
		tb.setControl(tc.key, tc.value)
		after := tb.settle()
		if got := configField(after.Sides[0].Config, tc.field); got != tc.want {
			t.Errorf("%s=%s: config %s = %v, want %v", tc.key, tc.value, tc.field, got, tc.want)
		}
		a, b := before.Sides[0], after.Sides[0]
		same := a.Stored == b.Stored && a.Kept == b.Kept && a.Full == b.Full && fmt.Sprint(a.Metrics) == fmt.Sprint(b.Metrics)
		if tc.numbers && same {
			t.Errorf("%s=%s changed no number: stored %d kept %v metrics %v", tc.key, tc.value, b.Stored, b.Kept, b.Metrics)
		}
		img := tb.screenshot()
		if d := differs(img0, img, area); d == 0 {
			t.Errorf("%s=%s did not change the drawing", tc.key, tc.value)
		}
		if !strings.Contains(after.URL, tc.key+"="+tc.value) {
			t.Errorf("URL lacks %s=%s: %s", tc.key, tc.value, after.URL)
		}
		before, img0 = after, img
	}
	if s := tb.state(); s.Playing || s.Broken {
		t.Errorf("after the controls: playing %v broken %v", s.Playing, s.Broken)
	}
}

func TestPresetApplies(t *testing.T) {
	tb := open(t, paused)
	v0 := tb.state().Version
	tb.do(`(() => { const s = document.getElementById("preset"); s.value = "kivi2"; s.dispatchEvent(new Event("change")); })()`)
	tb.waitJS(fmt.Sprintf(`JSON.parse(window.kvscope.state()).version > %d`, v0), 10*time.Second)
	c := tb.settle().Sides[0].Config
	if c.Policy != "full" || c.Bits != 2 || c.Granularity != "kivi" || c.Residual != 128 {
		t.Errorf("after the KIVI preset: %v", c)
	}
	if got := tb.eval(`document.querySelector("[data-key=bits]:checked").value`); got != "2" {
		t.Errorf("bits control shows %q after the preset", got)
	}
}

func TestURLReproducesSettings(t *testing.T) {
	link := "policy=streaming&sink=2&recent=48&bits=4&gran=kivi&residual=32&seed=42&heads=4&kvheads=4&tokens=300&at=150&play=0&scale=mistral-7b&ctx=131072"
	tb := open(t, link)
	s := tb.settle()
	want := map[string]any{"Policy": "streaming", "Sink": 2.0, "Recent": 48.0, "Bits": 4.0, "Granularity": "kivi",
		"Residual": 32.0, "Seed": 42.0, "Heads": 4.0, "KVHeads": 4.0, "Tokens": 300.0}
	for k, v := range want {
		if got := configField(s.Sides[0].Config, k); got != v {
			t.Errorf("%s = %v, want %v", k, got, v)
		}
	}
	if s.Step != 150 || s.Playing {
		t.Errorf("step %d playing %v, want 150 paused", s.Step, s.Playing)
	}
	if !strings.Contains(s.ScaleTxt, "Mistral-7B at 128K") {
		t.Errorf("model-scale readout %q", s.ScaleTxt)
	}
	if len(s.Notices) != 0 {
		t.Errorf("a valid link gave notices %v", s.Notices)
	}
	// The same link in a second tab draws the same picture.
	img1 := tb.screenshot()
	tb2 := open(t, link)
	tb2.settle()
	img2 := tb2.screenshot()
	if d := differs(img1, img2, tb.rect("viz")); d > 0.001 {
		t.Errorf("two tabs of one link differ in %.4f of the map", d)
	}
	// The page's own URL round-trips.
	hash := tb.eval(`location.hash`)
	for _, kv := range strings.Split(link, "&") {
		if !strings.Contains(hash, kv) {
			t.Errorf("address bar lacks %s: %s", kv, hash)
		}
	}
}

func TestMalformedURLShowsNoticeAndRuns(t *testing.T) {
	tb := open(t, "heads=abc&tokens=99999&policy=zzz&bogus=1&bits=5&sink=%zz&layer=-3")
	s := tb.state()
	if len(s.Notices) < 5 {
		t.Errorf("notices %v", s.Notices)
	}
	shown := tb.eval(`document.getElementById("notices").textContent`)
	for _, want := range []string{"tokens", "policy", "bogus"} {
		if !strings.Contains(shown, want) {
			t.Errorf("visible notices lack %q: %s", want, shown)
		}
	}
	if c := s.Sides[0].Config; c.Tokens != 4096 || c.Policy != "h2o" {
		t.Errorf("clamped config %v", c)
	}
	tb.waitJS(fmt.Sprintf(`JSON.parse(window.kvscope.state()).step > %d`, s.Step+3), 10*time.Second)
	if tb.state().Broken {
		t.Error("page broke")
	}
}

func TestRoleColorsOnScreen(t *testing.T) {
	// H2O with sinks, FP16 storage: every role at full brightness, paused
	// after enough steps for evictions.
	tb := open(t, "policy=h2o&sink=4&recent=24&heavy=16&bits=16&tokens=256&at=120&play=0")
	s := tb.settle()
	img := tb.screenshot()
	for _, role := range []string{"sink", "heavy hitter", "recent", "evicted"} {
		p, ok := s.Sides[0].Probes[role]
		if !ok {
			t.Errorf("no visible %s cell (probes %v)", role, s.Sides[0].Probes)
			continue
		}
		if ok, got := near(img, int(p.X), int(p.Y), p.RGB, 10); !ok {
			t.Errorf("%s cell (head %d, pos %d) at %.0f,%.0f is %v, want %v", role, p.Head, p.Pos, p.X, p.Y, got, p.RGB)
		}
	}
}

// TestHighDPI draws at two device pixels per CSS pixel: the canvas uses
// every device pixel and the cells land where the page says they are.
func TestHighDPI(t *testing.T) {
	tb := openScaled(t, "policy=h2o&sink=4&recent=24&heavy=16&bits=16&tokens=256&at=120&play=0", 2)
	s := tb.settle()
	if s.Scale != 2 {
		t.Fatalf("device scale %v, want 2", s.Scale)
	}
	img := tb.screenshot()
	if w := img.Bounds().Dx(); w != 2*viewW {
		t.Fatalf("screenshot %d px wide, want %d", w, 2*viewW)
	}
	for _, role := range []string{"sink", "heavy hitter", "recent", "evicted"} {
		p, ok := s.Sides[0].Probes[role]
		if !ok {
			t.Errorf("no visible %s cell", role)
			continue
		}
		if ok, got := near(img, int(2*p.X), int(2*p.Y), p.RGB, 10); !ok {
			t.Errorf("%s cell at device %.0f,%.0f is %v, want %v", role, 2*p.X, 2*p.Y, got, p.RGB)
		}
	}
}

func TestKeyboard(t *testing.T) {
	tb := open(t, paused)
	s := tb.state()
	tb.key("ArrowRight")
	tb.waitJS(fmt.Sprintf(`JSON.parse(window.kvscope.state()).step === %d`, s.Step+1), 5*time.Second)
	tb.key("ArrowLeft")
	tb.key("ArrowLeft")
	tb.waitJS(fmt.Sprintf(`JSON.parse(window.kvscope.state()).step === %d`, s.Step-1), 5*time.Second)
	tb.key(" ")
	tb.waitJS(`JSON.parse(window.kvscope.state()).playing`, 5*time.Second)
	tb.key(" ")
	tb.waitJS(`!JSON.parse(window.kvscope.state()).playing`, 5*time.Second)
	tb.key("r")
	tb.waitJS(fmt.Sprintf(`JSON.parse(window.kvscope.state()).step <= %d`, 16), 5*time.Second)
}

func TestCompareMode(t *testing.T) {
	tb := open(t, "cmp=1&b.policy=window&b.recent=32&b.sink=0&play=0&at=300")
	s := tb.settle()
	if !s.Compare || len(s.Sides) != 2 {
		t.Fatalf("compare: %v, sides %d", s.Compare, len(s.Sides))
	}
	a, b := s.Sides[0], s.Sides[1]
	if b.Config.Policy != "window" || a.Config.Seed != b.Config.Seed {
		t.Errorf("B config %v", b.Config)
	}
	if a.Metrics.Mass == b.Metrics.Mass {
		t.Errorf("A and B show the same attention mass %v", a.Metrics.Mass)
	}
	if tb.eval(`document.getElementById("side-1").hidden ? "hidden" : "shown"`) != "shown" {
		t.Error("B's map is hidden")
	}
	// Controls edit B after choosing it.
	tb.do(`(() => { const r = document.querySelector("input[name=edit][value='1']"); r.checked = true; r.dispatchEvent(new Event("change")); })()`)
	tb.waitJS(`document.querySelector("[data-key=policy]").value === "window"`, 5*time.Second)
	tb.setControl("recent", "64")
	s = tb.settle()
	if s.Sides[1].Config.Recent != 64 || s.Sides[0].Config.Recent == 64 {
		t.Errorf("editing B: A recent %v, B recent %v", s.Sides[0].Config.Recent, s.Sides[1].Config.Recent)
	}
}

func TestScreenshot(t *testing.T) {
	out := os.Getenv("KVSCOPE_SCREENSHOT")
	if out == "" {
		t.Skip("set KVSCOPE_SCREENSHOT to a PNG path to write the README's screenshot")
	}
	tb := open(t, "play=0&at=400")
	tb.settle()
	if err := os.WriteFile(out, tb.screenshotPNG(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", out)
}

// TestFrameTimes logs requestAnimationFrame intervals while the default
// configuration plays at a history of 4,096 tokens (the longest run,
// where a frame has the most to draw), and while paused for comparison.
// It asserts that the measured frames were of that run, playing, and
// that frames arrive; the figures are for people (headless software
// rendering on a shared machine is not a visitor's GPU): a measurement,
// run by make measure.
func TestFrameTimes(t *testing.T) {
	measureOnly(t)
	const start = view.MaxTokens - 512
	tb := open(t, fmt.Sprintf("tokens=%d&at=%d&play=1", view.MaxTokens, start))
	s0 := tb.state()
	playing := frameIntervals(t, tb, 120)
	s := tb.state()
	if s.Tokens != view.MaxTokens || !s.Playing || s.Replay || s0.Step < start || s.Step <= s0.Step || s.Step >= view.MaxTokens {
		t.Fatalf("measured run: tokens %d, steps %d→%d, playing %v, replaying %v; want %d tokens, playing from step %d on",
			s.Tokens, s0.Step, s.Step, s.Playing, s.Replay, view.MaxTokens, start)
	}
	tb.key(" ")
	tb.waitJS(`!JSON.parse(window.kvscope.state()).playing`, 5*time.Second)
	idle := frameIntervals(t, tb, 40)
	q := func(d []float64, p float64) float64 { return d[int(p*float64(len(d)-1))] }
	t.Logf("frame intervals while playing steps %d–%d of %d (%d frames): p50 %.1f ms, p95 %.1f ms, max %.1f ms; paused: p50 %.1f ms, p95 %.1f ms",
		s0.Step, s.Step, s.Tokens, len(playing), q(playing, 0.5), q(playing, 0.95), playing[len(playing)-1], q(idle, 0.5), q(idle, 0.95))
	t.Logf("Go per frame (moving averages): Update %.2f ms, Draw %.2f ms", s.UpdMs, s.DrawMs)
}

// frameIntervals returns n sorted requestAnimationFrame intervals, ms.
func frameIntervals(t *testing.T, tb *tab, n int) []float64 {
	raw := tb.evalAsync(fmt.Sprintf(`new Promise(done => {
		const ts = [];
		const tick = (t) => { ts.push(t); if (ts.length <= %d) requestAnimationFrame(tick); else done(JSON.stringify(ts)); };
		requestAnimationFrame(tick);
	})`, n))
	var ts []float64
	if err := json.Unmarshal([]byte(raw), &ts); err != nil || len(ts) < 2 {
		t.Fatalf("frames %q: %v", raw, err)
	}
	d := make([]float64, 0, len(ts)-1)
	for i := 1; i < len(ts); i++ {
		d = append(d, ts[i]-ts[i-1])
	}
	sort.Float64s(d)
	return d
}

// TestReplaySpeed opens a 4,096-token run at its last step with the
// reference at every step, then moves two compression settings. The first
// run records the stream and its reference; every later one replays the
// recording (sim.Stream), which is what makes a slider feel live. It logs
// how long each took; it asserts only that each run reached its end with
// a reference (which core/sim's stream tests check natively): a
// measurement, run by make measure.
func TestReplaySpeed(t *testing.T) {
	measureOnly(t)
	const n = view.MaxTokens
	t0 := time.Now()
	tb := open(t, fmt.Sprintf("tokens=%d&at=%d&play=0&ref=1", n, n))
	s := tb.settle()
	first := time.Since(t0)
	if s.Step != n || len(s.Sides) == 0 || s.Sides[0].Config.RefStride != 1 {
		t.Fatalf("first run: step %d of %d, sides %d", s.Step, n, len(s.Sides))
	}
	t.Logf("first run to step %d (stream generated, reference computed at every step), load included: %.1f s", n, first.Seconds())
	for _, c := range [][2]string{{"heavy", "40"}, {"bits", "4"}} {
		t0 := time.Now()
		f0 := tb.state().Frames
		tb.setControl(c[0], c[1])
		s := tb.settle()
		d := time.Since(t0)
		t.Logf("frames %d, Update %.1f ms, Draw %.1f ms (moving averages)", s.Frames-f0, s.UpdMs, s.DrawMs)
		if s.Step != n || s.Sides[0].Metrics.Mass <= 0 {
			t.Fatalf("%s=%s: step %d of %d, attention mass %v", c[0], c[1], s.Step, n, s.Sides[0].Metrics.Mass)
		}
		t.Logf("%s=%s: replayed %d steps with the reference in %.2f s (%.0f steps/s; the engine alone, as the page measured it: %.0f steps/s)",
			c[0], c[1], n, d.Seconds(), n/d.Seconds(), s.StepsPerS)
	}
}
