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

	"github.com/kvscope/kvscope/core/model/ggufwrite"
	"github.com/kvscope/kvscope/viz/view"
)

// needModel skips (fails under CI=true) when the test model is not
// served from static/ (make model puts it there).
func needModel(t *testing.T) {
	t.Helper()
	p, _ := filepath.Abs("../../static/stories260K.gguf")
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing (CI=true): run make model", p)
		}
		t.Skipf("%s is missing: run make model", p)
	}
}

// waitModelRun waits until the model is loaded and the run has caught up.
func (tb *tab) waitModelRun() view.PageState {
	tb.t.Helper()
	tb.waitJS(`(() => { const s = JSON.parse(window.kvscope.state());
		return s.mode === "model" && s.model.loaded && s.text && !s.replaying; })()`, 40*time.Second)
	return tb.state()
}

func domText(tb *tab, id string) string {
	return tb.eval(fmt.Sprintf(`document.getElementById(%q).textContent`, id))
}

// TestModelModeTexts switches the page to the real model, then checks that
// a cache that keeps everything exactly writes the uncompressed text and a
// 4-token window rewrites it, with the divergence marked.
func TestModelModeTexts(t *testing.T) {
	needModel(t)
	tb := open(t, "play=0&at=60&policy=full&bits=32&mtokens=60")
	tb.setControl("mode", "model")
	s := tb.waitModelRun()
	if !s.Model.Known || !strings.HasPrefix(s.Model.SHA256, "c14806920629") || s.Model.Error != "" {
		t.Errorf("model identity: %+v", s.Model)
	}
	if s.Step != 60 || s.Tokens != 60 || s.RunPrompt != 5 {
		t.Errorf("step %d of %d, prompt %d; want 60 of 60, prompt 5 (BOS + 4 tokens)", s.Step, s.Tokens, s.RunPrompt)
	}
	full, comp := domText(tb, "text-full"), domText(tb, "text-comp")
	if !strings.HasPrefix(full, "Once upon a time") || full != comp || full != s.Text.Full || comp != s.Text.Compressed {
		t.Errorf("full budget: page shows\n full %q\n comp %q\nstate %+v", full, comp, s.Text)
	}
	if s.Text.Diverge != -1 || s.Text.Agreement != 1 || s.Text.MeanKL > 1e-4 {
		t.Errorf("full budget measured as lossy: %+v", *s.Text)
	}
	if n := tb.eval(`String(document.querySelectorAll("#texts .diff").length)`); n != "0" {
		t.Errorf("%s spans marked as different with identical texts", n)
	}
	if c := s.Sides[0].Config; c.Layers != 5 || c.KVHeads != 4 || c.HeadDim != 8 {
		t.Errorf("the run's shape is not the model's: %v", c)
	}
	if !strings.Contains(tb.eval(`location.hash`), "mode=model") {
		t.Errorf("the link lacks the mode: %s", tb.eval(`location.hash`))
	}

	tb.setControl("policy", "window")
	tb.setControl("recent", "4")
	s = tb.waitModelRun()
	full, comp = domText(tb, "text-full"), domText(tb, "text-comp")
	t.Logf("window 4:\n full %q\n comp %q\n diverge %d, mean KL %.3f, agreement %.2f; %.0f steps/s (three decoders each)",
		full, comp, s.Text.Diverge, s.Text.MeanKL, s.Text.Agreement, s.StepsPerS)
	if full == comp || s.Text.Diverge < s.RunPrompt || s.Text.MeanKL < 0.05 {
		t.Errorf("a 4-token window left the text intact: %+v", *s.Text)
	}
	if full != s.Text.Full || comp != s.Text.Compressed {
		t.Errorf("the page's texts differ from the run's")
	}
	marked := tb.eval(`Array.from(document.querySelectorAll("#text-comp .diff")).map(e => e.textContent).join("")`)
	if marked == "" || !strings.HasSuffix(comp, marked) {
		t.Errorf("marked tail %q is not the end of %q", marked, comp)
	}
	if first := tb.eval(`document.querySelector("#text-comp .diff").title`); first != fmt.Sprintf("position %d", s.Text.Diverge) {
		t.Errorf("first marked token %q, diverge %d", first, s.Text.Diverge)
	}
	if r := s.Sides[0].Roles; r["evicted"] == 0 {
		t.Errorf("no evicted cells on the map: %v", r)
	}
}

// TestModelModeFromLink opens real-model mode from a link, hovers a token
// of the map, and survives a hostile model file.
func TestModelModeFromLink(t *testing.T) {
	needModel(t)
	tb := open(t, "mode=model&text=Tom+and+Sue&mtokens=40&at=40&play=0&policy=streaming&sink=1&recent=8&layer=4&repos=1")
	s := tb.waitModelRun()
	if s.Step != 40 || !strings.HasPrefix(s.Text.Full, "Tom and Sue") || s.Broken || len(s.Notices) != 0 {
		t.Fatalf("from the link: step %d, text %q, notices %v", s.Step, s.Text.Full, s.Notices)
	}
	if got := tb.eval(`document.querySelector("[data-key=text]").value`); got != "Tom and Sue" {
		t.Errorf("prompt box shows %q", got)
	}
	// Re-positioned keys leave no reference: the fidelity table shows "–",
	// and its KL is the attention's, named apart from the next-token KL.
	for k := 0; k < 5; k++ {
		if got := domText(tb, fmt.Sprintf("mv-0-%d", k)); got != "–" {
			t.Errorf("fidelity row %d shows %q with re-positioned keys, want –", k, got)
		}
	}
	if kl := tb.eval(`document.querySelector("#metric-rows tr:last-child th").textContent`); !strings.HasPrefix(kl, "attention KL") {
		t.Errorf("the fidelity table's KL row is labelled %q", kl)
	}
	// Hover the map's newest columns: the tooltip names the token.
	tb.waitJS(`JSON.parse(window.kvscope.state()).sides[0].cellCSS > 0`, 5*time.Second)
	s = tb.state()
	m := tb.rect("map-0")
	x := m.Min.X + int(s.Sides[0].CellCSS*38.5)
	y := m.Min.Y + 4
	tb.do(fmt.Sprintf(`document.getElementById("map-0").dispatchEvent(new PointerEvent("pointermove", {clientX: %d, clientY: %d, bubbles: true}))`, x, y))
	tb.waitJS(`!document.getElementById("tooltip").hidden`, 5*time.Second)
	if tip := domText(tb, "tooltip"); !strings.Contains(tip, "token \"") || !strings.Contains(tip, "position 38") {
		t.Errorf("tooltip %q", tip)
	}
	// Zoomed in, the tokens are printed under their columns.
	if n := tb.eval(`String(document.querySelectorAll("#toks-0 span").length)`); n != "0" {
		t.Errorf("%s token labels at %.1f px per token", n, s.Sides[0].CellCSS)
	}
	for i := 0; i < 3 && tb.eval(`String(document.querySelectorAll("#toks-0 span").length)`) == "0"; i++ {
		tb.do(`document.querySelector("[data-zoom=in][data-side='0']").click()`)
		tb.waitJS(fmt.Sprintf(`JSON.parse(window.kvscope.state()).sides[0].cellCSS > %f`, tb.state().Sides[0].CellCSS*1.2), 5*time.Second)
	}
	tb.waitJS(`document.querySelectorAll("#toks-0 span").length > 5`, 5*time.Second)
	labels := tb.eval(`Array.from(document.querySelectorAll("#toks-0 span")).map(e => e.textContent).join("|")`)
	for _, l := range strings.Split(labels, "|") {
		if l != "" && !strings.Contains(s.Text.Compressed, l) && l != "<s>" {
			t.Errorf("token label %q is not in the text %q", l, s.Text.Compressed)
		}
	}
	// A file that is not a model: a clear message, the old model stays.
	tb.do(`(() => { const dt = new DataTransfer();
		dt.items.add(new File([new Uint8Array([71, 71, 85, 70, 3, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 127])], "hostile.gguf"));
		document.dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true})); })()`)
	tb.waitJS(`JSON.parse(window.kvscope.state()).model.error !== ""`, 10*time.Second)
	s = tb.state()
	status := domText(tb, "model-status")
	if !strings.Contains(status, "hostile.gguf") || !strings.Contains(status, "previous model stays") || !s.Model.Loaded || s.Broken {
		t.Errorf("after a hostile file: status %q, model %+v", status, s.Model)
	}
	tb.key("ArrowLeft")
	tb.waitJS(`JSON.parse(window.kvscope.state()).step === 39`, 10*time.Second)
}

// TestScreenshotModel writes a picture of real-model mode when
// KVSCOPE_SCREENSHOT_MODEL names a PNG path.
func TestScreenshotModel(t *testing.T) {
	out := os.Getenv("KVSCOPE_SCREENSHOT_MODEL")
	if out == "" {
		t.Skip("set KVSCOPE_SCREENSHOT_MODEL to a PNG path to picture real-model mode")
	}
	needModel(t)
	tb := open(t, "mode=model&mtokens=160&at=160&play=0&policy=window&sink=0&recent=8&bits=32&layer=2")
	tb.waitModelRun()
	tb.settle()
	if err := os.WriteFile(out, tb.screenshotPNG(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestModelModeSpeed replays 512 positions of the real model with the
// default policy and storage (H2O, INT8 per token) and logs the decoding
// speed the page measured: engine steps per second of stepping time, each
// step running three decoders (uncompressed, compressed, and the
// uncompressed shadow of the compressed text). Headless software
// rendering on a shared machine is not a visitor's browser; the figure is
// for people.
func TestModelModeSpeed(t *testing.T) {
	needModel(t)
	tb := open(t, "mode=model&mtokens=512&at=512&play=0")
	s := tb.waitModelRun()
	if s.Step < 100 || s.StepsPerS <= 0 {
		t.Fatalf("step %d, %v steps/s", s.Step, s.StepsPerS)
	}
	t.Logf("%d positions: %.0f steps/s (%.0f decoder tokens/s) while replaying; mean KL %.4f, agreement %.2f",
		s.Step, s.StepsPerS, 3*s.StepsPerS, s.Text.MeanKL, s.Text.Agreement)
}

// Real-model mode: hovering a column too narrow to label shows the tokens
// around it, readable, under the map; the texts keep the place where they
// part in view, and only the compressed text's tokens are marked.
func TestModelModeReadable(t *testing.T) {
	needModel(t)
	tb := open(t, "mode=model&mtokens=200&at=200&play=0&policy=window&recent=4&sink=0")
	s := tb.waitModelRun()
	if s.Text == nil || s.Text.Diverge < 0 {
		t.Fatalf("a window of 4 tokens did not change the story: %+v", s.Text)
	}
	if n := tb.eval(`String(document.querySelectorAll("#text-full .diff").length)`); n != "0" {
		t.Errorf("%s spans of the uncompressed text marked as changed", n)
	}
	if n := tb.eval(`String(document.querySelectorAll("#text-comp .diff").length)`); n == "0" {
		t.Error("no changed token marked in the compressed text")
	}
	// The first changed token is inside the compressed text's box.
	vis := tb.eval(`(() => { const box = document.getElementById("text-comp"), d = box.querySelector(".diff");
		const b = box.getBoundingClientRect(), r = d.getBoundingClientRect();
		return r.top >= b.top - 1 && r.top < b.bottom ? "yes" : "no: " + [r.top, b.top, b.bottom]; })()`)
	if vis != "yes" {
		t.Errorf("the first changed token is scrolled out of view: %s", vis)
	}
	m := tb.rect("map-0")
	tb.do(fmt.Sprintf(`document.getElementById("map-0").dispatchEvent(new PointerEvent("pointermove", {clientX: %d, clientY: %d, bubbles: true}))`, (m.Min.X+m.Max.X)/2, m.Min.Y+4))
	tb.waitJS(`document.querySelectorAll("#toks-0 .lensrow b").length >= 6`, 5*time.Second)
	here := tb.eval(`document.querySelector("#toks-0 .lensrow b.here").textContent`)
	if here == "" || (here != "<s>" && !strings.Contains(s.Text.Compressed, strings.TrimSpace(here))) {
		t.Errorf("the hovered token %q is not from the text; row %q", here, domText(tb, "toks-0"))
	}
	if px := tb.eval(`getComputedStyle(document.querySelector("#toks-0 .lensrow")).fontSize`); px != "11px" {
		t.Errorf("label font %s", px)
	}
}

// The "what breaks" panel fills its depth × budget heatmap a slice of each
// frame: the page keeps drawing, the cells arrive, and each carries the
// full cache's score beside its own.
func TestWhatBreaksHeatmap(t *testing.T) {
	needModel(t)
	tb := open(t, "mode=model&mtokens=64&at=64&play=0&policy=h2o&bits=32")
	tb.waitModelRun()
	tb.do(`document.getElementById("breaks").open = true; document.getElementById("breaks-task").value = "name"; document.getElementById("breaks-run").click()`)
	tb.waitJS(`(b => b && b.Len > 0)(JSON.parse(window.kvscope.state()).breaks)`, 10*time.Second)
	// While it fills, the page keeps its animation frames coming.
	fps := tb.evalAsync(`new Promise(done => {
		let n = 0; const t0 = performance.now();
		const tick = (t) => { n++; if (t - t0 < 1000) requestAnimationFrame(tick); else done(String(n / ((t - t0) / 1000))); };
		requestAnimationFrame(tick);
	})`)
	if b := tb.state().Breaks; b == nil || b.Done >= b.Len {
		t.Log("the heatmap finished before the frames were counted")
	}
	// The rows are scored in the decoding workers: the page's thread only
	// writes the cells, so frames keep coming (counted, not timed: a
	// loaded machine draws fewer).
	if f, _ := strconv.ParseFloat(fps, 64); f < 2 {
		t.Errorf("the page drew %s frames/s while the heatmap filled", fps)
	} else {
		t.Logf("the page drew %.0f frames/s while the heatmap filled", f)
	}
	tb.waitJS(`(b => b && b.Done === b.Len)(JSON.parse(window.kvscope.state()).breaks)`, 180*time.Second)
	b := tb.state().Breaks
	if b == nil || b.Err != "" || len(b.Cells) != b.Len || b.Len != 25 {
		t.Fatalf("heatmap %+v", b)
	}
	for _, c := range b.Cells {
		if c.Score > 0 || c.Full > 0 || math.IsNaN(c.Score) {
			t.Errorf("cell %+v: a log-probability above 0", c)
		}
	}
	if n := tb.eval(`String(document.querySelectorAll("#breaks-map td[title]").length)`); n != "25" {
		t.Errorf("%s cells drawn", n)
	}
	t.Logf("heatmap: %s", domText(tb, "breaks-status"))
	checkRecallExports(tb)
}

// A dropped stories15M-shaped file (32,000-piece vocabulary, 6 layers,
// synthesized with seeded weights by ggufwrite) loads with a progress bar
// while the page keeps drawing, and decodes; a GGUF file whose tensors use
// a type kvscope does not read is refused with a message naming it.
func TestDropStories15M(t *testing.T) {
	needModel(t)
	raw := ggufwrite.Llama(ggufwrite.Stories15M)
	p := filepath.Join("..", "..", "static", "test-stories15m.gguf")
	if err := os.WriteFile(p, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(p) })
	tb := open(t, "mode=model&play=0&mtokens=40")
	tb.waitModelRun()
	tb.do(`fetch("test-stories15m.gguf").then(r => r.blob()).then(b => {
		const dt = new DataTransfer();
		dt.items.add(new File([b], "stories15m.gguf"));
		document.dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
	})`)
	// While the file is checked and converted, the progress bar moves and
	// the page keeps drawing: count animation frames and progress values
	// until the model is in.
	raw2 := tb.evalAsync(`new Promise(done => {
		let frames = 0, seen = new Set(); const t0 = performance.now();
		const tick = (t) => {
			frames++;
			const bar = document.getElementById("model-progress");
			if (!bar.hidden) seen.add(bar.value.toFixed(2));
			const m = JSON.parse(window.kvscope.state()).model;
			if ((m.loaded && m.name === "stories15m.gguf") || m.error || t - t0 > 120000) done(JSON.stringify({frames, ms: t - t0, seen: [...seen], error: m.error || ""}));
			else requestAnimationFrame(tick);
		};
		requestAnimationFrame(tick);
	})`)
	var conv struct {
		Frames int
		MS     float64
		Seen   []string
		Error  string
	}
	if err := json.Unmarshal([]byte(raw2), &conv); err != nil {
		t.Fatal(err)
	}
	if conv.Error != "" {
		t.Fatalf("the stories15M-shaped file was refused: %s", conv.Error)
	}
	t.Logf("stories15M-shaped file (%s): in after %.1f s, %d frames drawn meanwhile (%.0f/s), progress values seen %v",
		view.Bytes(float64(len(raw))), conv.MS/1000, conv.Frames, float64(conv.Frames)/(conv.MS/1000), conv.Seen)
	if len(conv.Seen) < 2 {
		t.Errorf("the progress bar showed %v while converting", conv.Seen)
	}
	tb.waitJS(`(m => m.loaded && m.name === "stories15m.gguf")(JSON.parse(window.kvscope.state()).model)`, 10*time.Second)
	s := tb.state()
	if s.Model.Layers != 6 || s.Model.Vocab != 32000 {
		t.Errorf("loaded model: %+v", s.Model)
	}
	if tb.eval(`document.getElementById("model-progress").hidden ? "hidden" : ""`) != "hidden" {
		t.Error("the progress bar stays after loading")
	}
	tb.key("ArrowRight")
	tb.waitJS(`JSON.parse(window.kvscope.state()).step > 1`, 30*time.Second)
	// Decoding speed with its three decoders, as the page measures it.
	tb.setControl("speed", "240")
	tb.key(" ")
	time.Sleep(4 * time.Second)
	st := tb.state()
	t.Logf("stories15M-shaped model in the page: %.1f decode steps/s (three decoders per step), heap %.0f MB", st.StepsPerS, st.HeapMB)
}
