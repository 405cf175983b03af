//go:build !js

package e2e

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/tracing"
	"github.com/chromedp/chromedp"
)

// TestLongLinkMainThread traces a first visit of a link at step 4,096
// with the reference at every step (Chromium's Tracing domain) and logs
// how long the page's thread was busy against the visit's wall time, and
// the largest kinds of work on it (V8's lazy WebAssembly compilation,
// animation frames, worker messages, layout). The figures are for the
// README's Measured table (make measure; why the page's thread is the
// limit: go doc ./wasm/worker); the test asserts only that the trace saw
// the page's thread.
func TestLongLinkMainThread(t *testing.T) {
	measureOnly(t)
	if skipReason != "" {
		t.Skip(skipReason)
	}
	tb := freshTab(t, viewW, viewH, 1, 90*time.Second)
	if err := chromedp.Do(tb.ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	type event struct {
		Name string  `json:"name"`
		Ph   string  `json:"ph"`
		Dur  float64 `json:"dur"` // µs
		Pid  int     `json:"pid"`
		Tid  int     `json:"tid"`
		Args struct {
			Name string `json:"name"`
		} `json:"args"`
	}
	var (
		evs  []event
		done = make(chan struct{})
	)
	if err := chromedp.Listen(tb.ctx, func(ev any) {
		switch e := ev.(type) {
		case *tracing.EventDataCollected:
			for _, v := range e.Value {
				var x event
				if b, err := json.Marshal(v); err == nil && json.Unmarshal(b, &x) == nil {
					evs = append(evs, x)
				}
			}
		case *tracing.EventTracingComplete:
			close(done)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(tb.ctx, tracing.Start, tracing.StartParams{TraceConfig: &tracing.TraceConfig{
		IncludedCategories: []string{"devtools.timeline", "v8", "v8.wasm", "blink", "toplevel"}}}); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	if err := chromedp.Do(tb.ctx, chromedp.Navigate(serverURL+"/#tokens=4096&at=4096&play=0&ref=1")); err != nil {
		t.Fatal(err)
	}
	tb.waitJS(`document.body.dataset.ready === "1" && !JSON.parse(window.kvscope.state()).replaying`, 60*time.Second)
	wall := time.Since(t0)
	if _, err := chromedp.Call(tb.ctx, tracing.End, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the trace did not complete")
	}
	main := map[[2]int]bool{}
	for _, e := range evs {
		if e.Ph == "M" && e.Name == "thread_name" && e.Args.Name == "CrRendererMain" {
			main[[2]int{e.Pid, e.Tid}] = true
		}
	}
	busy := 0.0
	kinds := map[string]float64{}
	for _, e := range evs {
		if e.Ph != "X" || !main[[2]int{e.Pid, e.Tid}] {
			continue
		}
		switch e.Name {
		case "ThreadControllerImpl::RunTask":
			busy += e.Dur / 1e3
		case "wasm.CompileLazy", "FireAnimationFrame", "HandlePostMessage", "Layout", "UpdateLayoutTree", "Paint", "Commit",
			"v8.wasm.compileConsume", "ParseHTML", "EvaluateScript", "TimerFire", "MinorGC", "MajorGC":
			kinds[e.Name] += e.Dur / 1e3
		}
	}
	if busy == 0 {
		t.Fatalf("the trace has no task on the page's thread (%d events)", len(evs))
	}
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool { return kinds[names[i]] > kinds[names[j]] })
	var b strings.Builder
	for _, k := range names {
		fmt.Fprintf(&b, "%s %.0f ms, ", k, kinds[k])
	}
	t.Logf("a link at step 4,096 with the reference at every step: ready after %.1f s (traced), the page's thread busy for %.1f s of it; %s",
		wall.Seconds(), busy/1e3, strings.TrimSuffix(b.String(), ", "))
}
