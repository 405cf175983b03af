//go:build !js

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// measureDocument is a document of about tokens tokens in the SmolLM2
// shape's vocabulary (about 2.2 characters a token): a meeting record whose
// numbered items differ, so the text does not repeat.
func measureDocument(tokens int) string {
	var b strings.Builder
	for i := 0; b.Len() < tokens*22/10; i++ {
		fmt.Fprintf(&b, "Item %d. The committee reviewed the budget for project %d and asked the team in room %d to report on the delays by week %d.\n", i, 100+i*7, 3+i%40, 2+i%50)
	}
	return b.String()
}

// TestDocumentFirstStep (make measure) pastes documents of about 2,048,
// 4,096 and 8,192 tokens into the prompt of a page running SmolLM2-135M's
// full shape and reports, as the page shows it, the time from the paste
// to the first decoded step after the document, and the frames the page
// presented meanwhile. KVSCOPE_DOC_TOKENS (comma-separated) picks the
// lengths. Figures, not assertions: it fails only if a document does not
// run.
func TestDocumentFirstStep(t *testing.T) {
	src, _ := measureSmol(t)
	lengths := []int{2048, 4096, 8192}
	if v := os.Getenv("KVSCOPE_DOC_TOKENS"); v != "" {
		lengths = lengths[:0]
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(f)
			if err != nil {
				t.Fatal(err)
			}
			lengths = append(lengths, n)
		}
	}
	for _, n := range lengths {
		tb := playShape(t, serverURL, "play=1&speed=240&mtokens=64&", src, 30*time.Minute)
		doc := measureDocument(n)
		if err := chromedp.Do(tb.ctx, chromedp.Focus(chromedp.ID("text"))); err != nil {
			t.Fatal(err)
		}
		tb.do(`document.getElementById("text").select()`)
		if _, err := chromedp.Call(tb.ctx, input.InsertText, input.InsertTextParams{Text: doc}); err != nil {
			t.Fatal(err)
		}
		tb.do(`window.kvscopeDoc = {t0: performance.now(), frames: 0, long: 0, longest: 0};
			(() => { const d = window.kvscopeDoc;
				const obs = new PerformanceObserver(l => { for (const e of l.getEntries()) { d.long++; d.longest = Math.max(d.longest, e.duration); } });
				obs.observe({type: "longtask"});
				const tick = () => { d.frames++; const s = JSON.parse(window.kvscope.state());
					if (s.runPrompt > 64 && s.step > s.runPrompt) { d.ms = performance.now() - d.t0; d.prompt = s.runPrompt; obs.disconnect(); } else requestAnimationFrame(tick); };
				requestAnimationFrame(tick); })()`)
		if err := chromedp.Do(tb.ctx, chromedp.KeyEvent(kb.Tab)); err != nil {
			t.Fatal(err)
		}
		tb.waitJS(`window.kvscopeDoc.ms > 0 || (JSON.parse(window.kvscope.state()).notices || []).some(n => n.includes("context holds"))`, 25*time.Minute)
		var r struct {
			Ms, Longest     float64
			Frames, Long, P int
		}
		raw := tb.eval(`JSON.stringify({Ms: window.kvscopeDoc.ms || 0, Longest: window.kvscopeDoc.longest, Frames: window.kvscopeDoc.frames, Long: window.kvscopeDoc.long, P: window.kvscopeDoc.prompt || 0})`)
		if err := json.Unmarshal([]byte(raw), &r); err != nil {
			t.Fatal(err)
		}
		if r.Ms == 0 {
			t.Fatalf("a document of about %d tokens did not run: %q", n, tb.state().Notices)
		}
		t.Logf("SmolLM2-135M shape, a %d-token document (%d characters): first decoded step %.1f s after the paste; %d frames presented meanwhile (%.1f per second), %d main-thread tasks over 50 ms (longest %.0f ms)",
			r.P, len(doc), r.Ms/1000, r.Frames, float64(r.Frames)/(r.Ms/1000), r.Long, r.Longest)
		tb.close()
	}
}
