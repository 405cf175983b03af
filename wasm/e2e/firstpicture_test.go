//go:build !js

package e2e

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"
)

// The first picture a visitor sees is drawn by a worker while the page's
// own program is still loading (static/app.js, wasm/worker/firstframe.go).
// It must be the picture the program then draws: the test holds back
// main.wasm, photographs the worker's picture, lets the program start and
// photographs its first frame, at three window sizes and two pixel
// densities; the holes' pixels must agree.
func TestFirstPictureIsTheMap(t *testing.T) {
	if skipReason != "" {
		t.Skip(skipReason)
	}
	for _, sz := range []struct {
		w, h  int64
		scale float64
	}{{1400, 1000, 1}, {1024, 700, 2}, {390, 844, 1}} {
		t.Run(fmt.Sprintf("%dx%d@%g", sz.w, sz.h, sz.scale), func(t *testing.T) {
			// A worker that falls behind (a loaded machine: make test runs
			// the suites side by side) is dropped and the program starts:
			// try again in a new tab, five times at most.
			var (
				ctx context.Context
				tb  *tab
				id  fetch.RequestID
			)
			for attempt := 1; ; attempt++ {
				var ok bool
				ctx, tb, id, ok = heldFirstPicture(t, sz.w, sz.h, sz.scale)
				if ok {
					break
				}
				if attempt == 5 {
					t.Fatal("the worker fell behind and was dropped five times")
				}
				t.Logf("attempt %d: the worker fell behind and was dropped; again", attempt)
			}
			before := tb.screenshot()
			holes := `["map-0", "ov-0", "attn-0", "axis-0"].map(id => { const r = document.getElementById(id).getBoundingClientRect(); return id + " " + [r.x, r.y, r.width, r.height].join(","); }).join("; ")`
			rects0 := tb.eval(holes)
			if _, err := chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: id}); err != nil {
				t.Fatal(err)
			}
			if _, err := chromedp.Call(ctx, fetch.Disable, cdp.Empty{}); err != nil {
				t.Fatal(err)
			}
			tb.waitJS(`document.body.dataset.ready === "1"`, 60*time.Second)
			if tb.eval(`document.getElementById("firstmap") ? "still there" : ""`) != "" {
				t.Error("the worker's picture outlived the program's first frame")
			}
			after := tb.screenshot()
			if rects1 := tb.eval(holes); rects1 != rects0 {
				t.Errorf("the pictures' holes moved when the program started:\nbefore %s\nafter  %s", rects0, rects1)
			}
			if d := os.Getenv("KVSCOPE_SHOTS"); d != "" {
				for name, img := range map[string]image.Image{"worker": before, "program": after} {
					f, err := os.Create(filepath.Join(d, fmt.Sprintf("first-%dx%d-%s.png", sz.w, sz.h, name)))
					if err == nil {
						png.Encode(f, img)
						f.Close()
					}
				}
			}
			px := sz.scale
			coloured, differ, n := 0, 0, 0
			for _, id := range []string{"map-0", "ov-0", "attn-0"} {
				r := tb.rect(id)
				for y := int(float64(r.Min.Y) * px); y < int(float64(r.Max.Y)*px); y++ {
					for x := int(float64(r.Min.X) * px); x < int(float64(r.Max.X)*px); x++ {
						n++
						r0, g0, b0, _ := before.At(x, y).RGBA()
						r1, g1, b1, _ := after.At(x, y).RGBA()
						if max(r1, g1, b1)-min(r1, g1, b1) > 60<<8 {
							coloured++
						}
						if diff(r0, r1) > 3<<8 || diff(g0, g1) > 3<<8 || diff(b0, b1) > 3<<8 {
							differ++
						}
					}
				}
			}
			t.Logf("page marks %s", tb.eval(`JSON.stringify(window.kvscopeTiming, (k, v) => typeof v === "number" ? Math.round(v) : v)`))
			t.Logf("worker's picture presented at %s ms (step %s); %d of %d pixels of the holes differ from the program's first frame; %d coloured",
				tb.eval(`String(Math.round(window.kvscopeTiming.overlay))`), tb.eval(`String(JSON.parse(window.kvscope.state()).step)`), differ, n, coloured)
			if coloured < n/50 {
				t.Fatalf("the program's first frame shows no map: %d of %d pixels coloured", coloured, n)
			}
			if differ > n/200 {
				t.Errorf("the worker's picture is not the program's: %d of %d pixels differ", differ, n)
			}
		})
	}
}

func diff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

// heldFirstPicture opens the page in a new tab of a fresh browser context
// with main.wasm held back, and waits until the worker's first picture is
// presented (ok) or the worker was dropped (not ok). It returns the tab
// and the held request, to be continued.
func heldFirstPicture(t *testing.T, w, h int64, scale float64) (context.Context, *tab, fetch.RequestID, bool) {
	t.Helper()
	tb := freshTab(t, w, h, scale, 90*time.Second)
	ctx := tb.ctx
	held := make(chan fetch.RequestID, 4)
	if err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*fetch.EventRequestPaused); ok {
			select {
			case held <- e.RequestID:
			default:
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/main.wasm"}}}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(serverURL+"/#play=0")); err != nil {
		t.Fatal(err)
	}
	var id fetch.RequestID
	select {
	case id = <-held:
	case <-time.After(30 * time.Second):
		t.Fatal("the page never asked for main.wasm")
	}
	tb.waitJS(`window.kvscopeTiming && (window.kvscopeTiming.overlay > 0 || window.kvscopeTiming.overlayDropped > 0)`, 30*time.Second)
	if tb.eval(`window.kvscopeTiming.overlay > 0 ? "shown" : ""`) == "" {
		tb.close()
		return nil, nil, id, false
	}
	return ctx, tb, id, true
}
