//go:build !js

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestPresentedFirstFrame measures when a visitor first sees the map. Each
// run opens the page in a fresh browser context (empty HTTP and code
// caches: a first visit), then once more in the same context (a return
// visit: the browser reuses the download and, once it has cached it, the
// compiled module). It reads when the animation frame after the one that
// drew the map began: Chromium starts it only once the drawn frame's
// main-thread work is done, its WebGL commands executed and the canvas
// composited (with software GL the compositor reads the canvas back, which
// waits for every command), so it is when the map reached the screen, to
// within a frame. Before that, a worker draws the same first picture onto
// an OffscreenCanvas (static/app.js, firstPicture; TestFirstPictureIsTheMap
// checks that it is the same) and reports the animation frame after it
// the same way, from the worker: the figure is the earlier of the two. The
// page's milestones are logged with it, and a screenshot checks that the
// map is indeed on screen. The figures are for the README (make measure);
// the test asserts only that the map appears.
func TestPresentedFirstFrame(t *testing.T) {
	measureOnly(t)
	if skipReason != "" {
		t.Skip(skipReason)
	}
	var first, again []float64
	for run := 0; run < 5; run++ {
		ctx, cancel := chromedp.NewContext(browserCtx, chromedp.WithNewBrowserContext())
		at, marks := presentedFirstFrame(t, ctx)
		t.Logf("run %d, first visit: map presented at %.0f ms after navigation start (page marks: %s)", run, at, marks)
		first = append(first, at)
		time.Sleep(10 * time.Second) // the browser caches the compiled module once it has warmed up
		at, marks = presentedFirstFrame(t, ctx)
		t.Logf("run %d, return visit: map presented at %.0f ms (page marks: %s)", run, at, marks)
		again = append(again, at)
		cancel()
	}
	sort.Float64s(first)
	sort.Float64s(again)
	t.Logf("presented first frame: first visit median %.0f ms, range %.0f–%.0f ms; return visit median %.0f ms, range %.0f–%.0f ms",
		first[len(first)/2], first[0], first[len(first)-1], again[len(again)/2], again[0], again[len(again)-1])
}

// presentedFirstFrame opens the page in a new tab of parent's browser
// context and returns when, in ms after navigation start, the frame after
// the first drawn map began, with the page's milestones. It fails the test
// if a screenshot then does not show the map.
func presentedFirstFrame(t *testing.T, parent context.Context) (float64, string) {
	ctx, cancel := chromedp.NewContext(parent)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 60*time.Second)
	defer cancelT()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1400, 1000)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(serverURL+"/")); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`!!(window.kvscope && window.kvscope.firstFrameMs)`)); err != nil {
		t.Fatal(err)
	}
	info, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
		const r = document.getElementById("map-0").getBoundingClientRect();
		const t = window.kvscopeTiming;
		const m = Object.entries(t).map(([k, v]) => k + " " + Math.round(v)).join(", ") + ", program's first frame " + Math.round(window.kvscope.firstFrameMs);
		const at = t.overlay > 0 ? Math.min(t.overlay, window.kvscope.firstFrameMs) : window.kvscope.firstFrameMs;
		return [r.x, r.y, r.width, r.height, at].map(String).join(",") + ";" + m;
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	var x, y, w, h, at float64
	rect, marks, _ := strings.Cut(info, ";")
	if n, _ := fmt.Sscanf(rect, "%g,%g,%g,%g,%g", &x, &y, &w, &h, &at); n != 5 || w <= 0 {
		t.Fatalf("map rectangle %q", info)
	}
	img, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	pic, err := png.Decode(bytes.NewReader(img))
	if err != nil {
		t.Fatal(err)
	}
	colored, samples := 0, 0
	for yy := int(y); yy < int(y+h); yy += 4 {
		for xx := int(x); xx < int(x+w); xx += 4 {
			r, g, b, _ := pic.At(xx, yy).RGBA()
			samples++
			if max(r, g, b)-min(r, g, b) > 60<<8 {
				colored++ // a role colour, not the grey page
			}
		}
	}
	if colored < samples/50 {
		t.Fatalf("the map is not on screen after the first frame: %d of %d samples coloured", colored, samples)
	}
	return at, marks
}

// TestSliderLatency measures, for a visitor moving the recent-window
// slider, the time from the input event to the next animation frame after
// the page has drawn the map for the new value (the frame that presents
// it), at the default page (512 tokens, at step 512) and at 4,096 tokens.
// It logs the median and range; it asserts only that every move arrived.
func TestSliderLatency(t *testing.T) {
	measureOnly(t)
	for _, tokens := range []int{512, 4096} {
		tb := open(t, fmt.Sprintf("tokens=%d&at=%d&play=0", tokens, tokens))
		tb.settle()
		var ms []float64
		for i := 0; i < 12; i++ {
			v := 30 + 3*(i%6)
			if i%2 == 1 {
				v += 40
			}
			raw := tb.evalAsync(fmt.Sprintf(`new Promise(done => {
				const el = document.getElementById("recent-r");
				const v0 = JSON.parse(window.kvscope.state()).version;
				const t0 = performance.now();
				el.value = "%d";
				el.dispatchEvent(new Event("input", {bubbles: true}));
				const tick = () => {
					const s = JSON.parse(window.kvscope.state());
					if (s.version > v0 && !s.replaying && s.sides[0].config.Recent === %d) {
						requestAnimationFrame(t2 => done(String(t2 - t0)));
					} else requestAnimationFrame(tick);
				};
				requestAnimationFrame(tick);
			})`, v, v))
			d, err := strconv.ParseFloat(raw, 64)
			if err != nil {
				t.Fatalf("latency %q", raw)
			}
			ms = append(ms, d)
		}
		sort.Float64s(ms)
		t.Logf("%d tokens at step %d: slider input to the presented map: median %.0f ms, range %.0f–%.0f ms over %d moves",
			tokens, tokens, ms[len(ms)/2], ms[0], ms[len(ms)-1], len(ms))
		tb.close() // its workers would share the machine with the next size's moves
	}
}

// measureOnly skips a measurement unless KVSCOPE_MEASURE is set (make
// measure): its figures are for the README and need a quiet machine; make
// test need not spend its minutes on them.
func measureOnly(t *testing.T) {
	if os.Getenv("KVSCOPE_MEASURE") == "" {
		t.Skip("a measurement: run it with make measure (KVSCOPE_MEASURE=1)")
	}
}

// TestGoInit logs how long the Go program's package initialisation takes
// in the page on a first visit (a fresh browser context), per package
// (GODEBUG=inittrace=1, set through the page's kvscope.godebug storage
// key), the largest first: the time between the instantiated module and
// Go's main, which the first frame waits for. In the browser it includes
// compiling each function on its first call (V8 compiles WebAssembly
// lazily).
func TestGoInit(t *testing.T) {
	measureOnly(t)
	if skipReason != "" {
		t.Skip(skipReason)
	}
	ctx, cancel := chromedp.NewContext(browserCtx, chromedp.WithNewBrowserContext())
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 60*time.Second)
	defer cancelT()
	tb := &tab{t: t, ctx: ctx}
	tb.listen()
	// A page of the site that is not kvscope's, to set the key before
	// the first visit.
	if err := chromedp.Do(ctx, chromedp.Navigate(serverURL+"/wasm_exec.js")); err != nil {
		t.Fatal(err)
	}
	tb.do(`localStorage.setItem("kvscope.godebug", "inittrace=1")`)
	if err := chromedp.Do(ctx, chromedp.Navigate(serverURL+"/#play=0")); err != nil {
		t.Fatal(err)
	}
	tb.waitJS(`document.body.dataset.ready === "1"`, 45*time.Second)
	time.Sleep(200 * time.Millisecond)
	tb.mu.Lock()
	got := append([]string(nil), tb.logs...)
	tb.mu.Unlock()
	type pkgInit struct {
		ms  float64
		pkg string
	}
	var inits []pkgInit
	total := 0.0
	for _, l := range got {
		// log: init PKG @T ms, MS ms clock, B bytes, N allocs
		_, text, _ := strings.Cut(l, ": ")
		f := strings.Fields(text)
		if len(f) < 7 || f[0] != "init" || f[6] != "clock," {
			continue
		}
		ms, err := strconv.ParseFloat(f[4], 64)
		if err != nil {
			continue
		}
		inits = append(inits, pkgInit{ms, f[1]})
		total += ms
	}
	if len(inits) == 0 {
		t.Fatalf("no init trace in the console: %q", got)
	}
	sort.Slice(inits, func(i, j int) bool { return inits[i].ms > inits[j].ms })
	var top []string
	for _, x := range inits[:min(5, len(inits))] {
		top = append(top, fmt.Sprintf("%s %.0f ms", x.pkg, x.ms))
	}
	t.Logf("Go package initialisation on a first visit: %.0f ms over %d packages; the largest: %s", total, len(inits), strings.Join(top, ", "))
}
