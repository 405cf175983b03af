//go:build !js

// Package e2e drives kvscope's page in headless Chromium: it serves
// static/ (built by `make build`) and checks what a visitor sees.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/viz/view"
	"github.com/kvscope/kvscope/wasm/internal/site"
)

const (
	viewW, viewH = 1280, 800
	defaultPath  = "/usr/bin/chromium"
)

var (
	browserCtx context.Context // shared browser; each test opens its own tab
	serverURL  string
	skipReason string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	exe := os.Getenv("KVSCOPE_CHROMIUM")
	if exe == "" {
		if _, err := os.Stat(defaultPath); err == nil {
			exe = defaultPath
		}
	}
	static, _ := filepath.Abs("../../static")
	switch {
	case exe == "":
		skipReason = "no Chromium: set KVSCOPE_CHROMIUM or install " + defaultPath
	default:
		if _, err := os.Stat(filepath.Join(static, "main.wasm")); err != nil {
			skipReason = "static/main.wasm is missing: run make build"
		}
	}
	if skipReason != "" {
		if os.Getenv("CI") == "true" {
			fmt.Fprintln(os.Stderr, "e2e: "+skipReason+" (CI=true: failing)")
			return 1
		}
		return m.Run() // each test skips with the reason
	}
	srv := httptest.NewServer(site.Handler(static))
	defer srv.Close()
	serverURL = srv.URL

	dir, err := os.MkdirTemp("", "kvscope-chromium-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(dir),
		chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("use-angle", "swiftshader"),
		chromedp.Flag("enable-unsafe-swiftshader", true),
		chromedp.WindowSize(viewW, viewH),
	)
	if f := os.Getenv("KVSCOPE_JSFLAGS"); f != "" {
		// V8 flags, for measuring what the engine's defaults cost (e.g.
		// --no-wasm-lazy-compilation); a visitor's browser has none.
		opts = append(opts, chromedp.Flag("js-flags", f))
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	bctx, cancelB := chromedp.NewContext(actx)
	defer cancelB()
	if err := chromedp.Do(bctx); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: starting Chromium:", err)
		return 1
	}
	browserCtx = bctx
	return m.Run()
}

// tab is one page under test.
type tab struct {
	t   *testing.T
	ctx context.Context
	// close closes the tab (its workers stop too) before the test ends,
	// for a measurement that must not share the machine with it.
	close func()

	mu   sync.Mutex
	logs []string
}

// open loads the page with the given hash (without '#') in a new tab of
// the shared browser and waits until the page reports it is ready.
func open(t *testing.T, hash string) *tab {
	t.Helper()
	return openScaled(t, hash, 1)
}

// openScaled is open with a device scale factor (device px per CSS px).
func openScaled(t *testing.T, hash string, scale float64) *tab {
	t.Helper()
	return openView(t, viewW, viewH, scale, hash)
}

// openSized is open in a w×h CSS px viewport.
func openSized(t *testing.T, w, h int64, hash string) *tab {
	t.Helper()
	return openView(t, w, h, 1, hash)
}

// openView loads the page with hash in a new tab of the shared browser,
// w×h CSS px at scale device px per CSS px, and waits until it is ready
// and caught up.
func openView(t *testing.T, w, h int64, scale float64, hash string) *tab {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
	ctx, cancel := chromedp.NewContext(browserCtx)
	t.Cleanup(cancel)
	ctx, cancelT := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(cancelT)
	tb := &tab{t: t, ctx: ctx, close: cancel}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(w, h, chromedp.EmulateScale(scale))); err != nil {
		t.Fatal(err)
	}
	tb.listen()
	t.Cleanup(func() {
		if t.Failed() {
			tb.mu.Lock()
			for _, l := range tb.logs {
				t.Log("console " + l)
			}
			tb.mu.Unlock()
		}
	})
	url := serverURL + "/"
	if hash != "" {
		url += "#" + hash
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	tb.waitJS(`document.body.dataset.ready === "1" || document.body.dataset.fatal === "1"`, 45*time.Second)
	if fatal := tb.eval(`document.body.dataset.fatal || ""`); fatal != "" {
		t.Fatalf("page reported a fatal error: %s", tb.eval(`document.getElementById("fatal-text").textContent`))
	}
	tb.waitReplay()
	return tb
}

// freshTab opens a blank tab in a browser context of its own (empty
// storage and caches: a first visit), w×h CSS px at scale device px per
// CSS px, that keeps its console messages and closes with the test.
func freshTab(t *testing.T, w, h int64, scale float64, timeout time.Duration) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browserCtx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	ctx, cancelT := context.WithTimeout(ctx, timeout)
	t.Cleanup(cancelT)
	tb := &tab{t: t, ctx: ctx, close: func() { cancelT(); cancel() }}
	tb.listen()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(w, h, chromedp.EmulateScale(scale))); err != nil {
		t.Fatal(err)
	}
	return tb
}

// listen keeps the tab's console messages in tb.logs, each as "type: text".
func (tb *tab) listen() {
	msgs := chromedp.Console(tb.ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			tb.mu.Lock()
			tb.logs = append(tb.logs, string(m.Type)+": "+m.Text)
			tb.mu.Unlock()
		}
	}()
}

// eval evaluates a JavaScript expression that yields a string.
func (tb *tab) eval(expr string) string {
	tb.t.Helper()
	v, err := chromedp.Run(tb.ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		tb.t.Fatalf("eval %s: %v", expr, err)
	}
	return v
}

// evalAsync evaluates an expression that yields a promise of a string.
func (tb *tab) evalAsync(expr string) string {
	tb.t.Helper()
	v, err := chromedp.Run(tb.ctx, chromedp.Evaluate[string](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		tb.t.Fatalf("eval %s: %v", expr, err)
	}
	return v
}

// do evaluates a JavaScript statement for its effect.
func (tb *tab) do(expr string) {
	tb.t.Helper()
	if err := chromedp.Do(tb.ctx, chromedp.Evaluate[chromedp.Void](expr)); err != nil {
		tb.t.Fatalf("eval %s: %v", expr, err)
	}
}

// waitJS polls until the expression is truthy.
func (tb *tab) waitJS(expr string, timeout time.Duration) {
	tb.t.Helper()
	if _, err := chromedp.Run(tb.ctx, chromedp.Poll[bool]("!!("+expr+")", chromedp.WithPollingTimeout(timeout))); err != nil {
		tb.t.Fatalf("waiting for %s: %v", expr, err)
	}
}

// configField returns a configuration's field by its Go name, as JSON
// decodes it (numbers are float64), or nil when there is no such field.
func configField(c sim.Config, name string) any {
	b, _ := json.Marshal(c)
	var m map[string]any
	json.Unmarshal(b, &m)
	return m[name]
}

// state returns window.kvscope.state().
func (tb *tab) state() view.PageState {
	tb.t.Helper()
	var s view.PageState
	raw := tb.eval(`window.kvscope.state()`)
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		tb.t.Fatalf("state %q: %v", raw, err)
	}
	return s
}

// waitReplay waits until the engines have caught up with the step shown.
func (tb *tab) waitReplay() {
	tb.t.Helper()
	tb.waitJS(`!JSON.parse(window.kvscope.state()).replaying`, 60*time.Second)
}

// settle waits until the engines have caught up and the page has drawn a
// few frames since, so a screenshot shows the current state.
func (tb *tab) settle() view.PageState {
	tb.t.Helper()
	tb.waitReplay()
	f := tb.state().Frames
	tb.waitJS(fmt.Sprintf(`JSON.parse(window.kvscope.state()).frames >= %d`, f+3), 10*time.Second)
	return tb.state()
}

// setControl changes a control as a visitor would and waits for the
// page to apply it.
func (tb *tab) setControl(key, value string) {
	tb.t.Helper()
	v0 := tb.state().Version
	tb.do(fmt.Sprintf(`(() => {
		const key = %s, value = %s;
		let el = document.querySelector('[data-key="' + key + '"]');
		if (el.type === "radio") { el = document.querySelector('[data-key="' + key + '"][value="' + value + '"]'); el.checked = true; }
		else if (el.type === "checkbox") el.checked = value === "1"; else el.value = value;
		el.dispatchEvent(new Event(el.type === "range" ? "input" : "change", {bubbles: true}));
	})()`, strconv.Quote(key), strconv.Quote(value)))
	tb.waitJS(fmt.Sprintf(`JSON.parse(window.kvscope.state()).version > %d`, v0), 10*time.Second)
}

func (tb *tab) key(k string) {
	tb.t.Helper()
	tb.do(fmt.Sprintf(`document.body.dispatchEvent(new KeyboardEvent("keydown", {key: %s, bubbles: true}))`, strconv.Quote(k)))
}

func (tb *tab) screenshot() image.Image {
	tb.t.Helper()
	b, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		tb.t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		tb.t.Fatal(err)
	}
	return img
}

func (tb *tab) screenshotPNG() []byte {
	tb.t.Helper()
	b, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		tb.t.Fatal(err)
	}
	return b
}

// rect returns an element's viewport rectangle in CSS px.
func (tb *tab) rect(id string) image.Rectangle {
	tb.t.Helper()
	s := tb.eval(fmt.Sprintf(`(() => { const r = document.getElementById(%q).getBoundingClientRect();
		return [r.x, r.y, r.x + r.width, r.y + r.height].map(Math.round).join(","); })()`, id))
	var x0, y0, x1, y1 int
	if _, err := fmt.Sscanf(s, "%d,%d,%d,%d", &x0, &y0, &x1, &y1); err != nil {
		tb.t.Fatalf("rect %s = %q", id, s)
	}
	return image.Rect(x0, y0, x1, y1)
}

// differs reports the share of pixels of r that differ between a and b.
func differs(a, b image.Image, r image.Rectangle) float64 {
	n, d := 0, 0
	for y := r.Min.Y; y < r.Max.Y; y += 2 {
		for x := r.Min.X; x < r.Max.X; x += 2 {
			n++
			r1, g1, b1, _ := a.At(x, y).RGBA()
			r2, g2, b2, _ := b.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 {
				d++
			}
		}
	}
	if n == 0 {
		return 0
	}
	return float64(d) / float64(n)
}

// near reports whether the pixel at (x, y) is within tol of want in every channel.
func near(img image.Image, x, y int, want [3]uint8, tol int) (bool, [3]uint8) {
	r, g, b, _ := img.At(x, y).RGBA()
	got := [3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8)}
	for i := range got {
		if d := int(got[i]) - int(want[i]); d > tol || d < -tol {
			return false, got
		}
	}
	return true, got
}

func joinLogs(tb *tab) string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return strings.Join(tb.logs, "\n")
}
