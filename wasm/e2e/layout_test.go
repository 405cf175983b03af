//go:build !js

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// sizes are the windows people use: a laptop, a small window, a phone.
var sizes = []struct {
	name string
	w, h int64
}{
	{"laptop", 1400, 1000},
	{"small", 1024, 700},
	{"phone", 390, 844},
}

// resize sets the tab's viewport and waits for the page to lay out again.
func (tb *tab) resize(w, h int64) {
	tb.t.Helper()
	if err := chromedp.Do(tb.ctx, chromedp.EmulateViewport(w, h)); err != nil {
		tb.t.Fatal(err)
	}
	tb.waitJS(fmt.Sprintf(`window.innerWidth === %d`, w), 5*time.Second)
	f := tb.state().Frames
	tb.waitJS(fmt.Sprintf(`JSON.parse(window.kvscope.state()).frames >= %d`, f+4), 10*time.Second)
}

// cutOff lists the visible elements of the page that stick out of the
// viewport sideways or are clipped by a scrolling ancestor, and reports
// whether the page scrolls sideways.
const cutOffJS = `(() => {
	const out = [];
	const vw = document.documentElement.clientWidth;
	const app = document.getElementById("app");
	if (app.scrollWidth > app.clientWidth + 1) out.push("#app scrolls sideways: " + app.scrollWidth + " > " + app.clientWidth);
	const sel = "button, select, input, label, h1, h2, h3, output, .chip, th, td, p, summary, #stepinfo";
	for (const el of document.querySelectorAll(sel)) {
		if (el.closest("[hidden], #loading, #fatal, .sr-only, #tooltip, details:not([open]) > :not(summary)")) continue;
		const r = el.getBoundingClientRect();
		if (r.width === 0 || r.height === 0) continue;
		const name = el.id ? "#" + el.id : el.tagName.toLowerCase() + (el.textContent ? " “" + el.textContent.trim().slice(0, 30) + "”" : "");
		if (r.left < -1 || r.right > vw + 1) { out.push(name + " sticks out: " + Math.round(r.left) + ".." + Math.round(r.right) + " of " + vw); continue; }
		// Clipped by an ancestor that hides overflow (not scrolls).
		for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
			const cs = getComputedStyle(p);
			if (cs.overflowX !== "visible") { // hidden, clip, or a scroll box: sticking out sideways is cut off
				const pr = p.getBoundingClientRect();
				if (r.right > pr.right + 1 || r.left < pr.left - 1) { out.push(name + " clipped by " + (p.id ? "#" + p.id : p.className || p.tagName)); }
				break;
			}
		}
		if (el.scrollWidth > el.clientWidth + 2 && getComputedStyle(el).textOverflow !== "ellipsis" && ["P","H2","H3","BUTTON","TD","TH","LABEL"].includes(el.tagName) && getComputedStyle(el).overflowX === "hidden") {
			out.push(name + " text cut: " + el.scrollWidth + " > " + el.clientWidth);
		}
	}
	return JSON.stringify(out);
})()`

// TestLayoutSizes opens the page at a laptop, a small window and a phone,
// alone and comparing two settings, and checks that nothing is cut off and
// nothing scrolls sideways. With KVSCOPE_SHOTS set to a folder it writes a
// screenshot of each, to be looked at.
func TestLayoutSizes(t *testing.T) {
	dir := os.Getenv("KVSCOPE_SHOTS")
	for _, hash := range []string{"play=0&at=300", "cmp=1&b.policy=window&play=0&at=300", "mode=model&play=0"} {
		tb := open(t, hash)
		for _, sz := range sizes {
			tb.resize(sz.w, sz.h)
			tb.settle()
			var bad []string
			raw := tb.eval(cutOffJS)
			if raw != "[]" {
				bad = append(bad, raw)
			}
			if len(bad) > 0 {
				t.Errorf("%s at %s (%dx%d): %s", hash, sz.name, sz.w, sz.h, strings.Join(bad, "; "))
			}
			if dir != "" {
				name := strings.NewReplacer("&", "_", "=", "-", ".", "").Replace(hash)
				p := filepath.Join(dir, sz.name+"_"+name+".png")
				if err := os.WriteFile(p, tb.screenshotPNG(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}
