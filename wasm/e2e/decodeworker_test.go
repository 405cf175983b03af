//go:build !js

package e2e

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kvscope/kvscope/core/model/ggufwrite"
	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/viz/view"
	"github.com/kvscope/kvscope/wasm/internal/site"
)

// playWindow is what a visitor sees of a page playing: over a window of
// play, the frames the page presented (requestAnimationFrame callbacks),
// the steps it showed, and the main thread's tasks over 50 ms
// (PerformanceObserver "longtask").
type playWindow struct {
	Frames   int     `json:"frames"`
	Steps    int     `json:"steps"`
	Ms       float64 `json:"ms"`
	Long     int     `json:"long"`
	LongestM float64 `json:"longest"`
	Ended    bool    `json:"ended"`
}

func (p playWindow) fps() float64   { return float64(p.Frames) / (p.Ms / 1000) }
func (p playWindow) steps() float64 { return float64(p.Steps) / (p.Ms / 1000) }

// watchPlay counts, in the page, frames, steps and long tasks for ms
// milliseconds of play (or until the run ends).
func watchPlay(tb *tab, ms int) playWindow {
	raw := tb.evalAsync(`new Promise(done => {
		const st = () => JSON.parse(window.kvscope.state());
		const s0 = st(), t0 = performance.now();
		let frames = 0, long = 0, longest = 0, last = s0.step, ended = false;
		const obs = new PerformanceObserver(l => { for (const e of l.getEntries()) { long++; longest = Math.max(longest, e.duration); } });
		try { obs.observe({type: "longtask"}); } catch (e) {}
		const tick = (t) => {
			frames++;
			const s = st();
			last = s.step;
			if (s.step >= s.tokens) ended = true;
			if (t - t0 >= ` + strconv.Itoa(ms) + ` || ended) {
				obs.disconnect();
				done(JSON.stringify({frames, steps: last - s0.step, ms: t - t0, long, longest, ended}));
			} else requestAnimationFrame(tick);
		};
		requestAnimationFrame(tick);
	})`)
	var p playWindow
	if err := json.Unmarshal([]byte(raw), &p); err != nil {
		tb.t.Fatalf("%v: %s", err, raw)
	}
	return p
}

// smolShape is SmolLM2-135M's shape (synthesized weights) cut to layers.
func smolShape(layers int) ggufwrite.LlamaSpec {
	s := ggufwrite.SmolLM2_135M
	s.Layers = layers
	return s
}

// playShape opens base's page at the link hash with the model at src in a
// fresh tab (timeout for everything the tab does) and waits until the
// model has decoded a few steps past its prompt.
func playShape(t *testing.T, base, hash, src string, timeout time.Duration) *tab {
	tb := freshTab(t, viewW, viewH, 1, timeout)
	if err := chromedp.Do(tb.ctx, chromedp.Navigate(base+"/#"+hash+"model="+src)); err != nil {
		t.Fatal(err)
	}
	tb.waitJS(`window.kvscope && (s => s.mode === "model" && s.model.loaded && s.step > s.runPrompt + 2)(JSON.parse(window.kvscope.state()))`, 4*time.Minute)
	return tb
}

// serveFile serves path with the cross-origin header a model host sends.
func serveFile(t *testing.T, path string) string {
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		http.ServeFile(w, r, path)
	}))
	t.Cleanup(host.Close)
	return host.URL + "/model.gguf"
}

// A real model decodes in a worker while the page draws: playing a
// SmolLM2-shaped file whose step takes several of the page's frames, the
// page presents frames between the steps it shows — more than two a step
// — and the model keeps decoding meanwhile. Before the decoders moved to
// a worker, each step ran inside a frame, and the page presented about
// one frame a step.
func TestModelDecodesBesideTheFrames(t *testing.T) {
	if skipReason != "" {
		t.Skip(skipReason)
	}
	src := serveFile(t, shapeFile(t, smolShape(30)))
	tb := playShape(t, serverURL, "play=1&speed=240&mtokens=256&", src, 5*time.Minute)
	defer tb.close()
	p := watchPlay(tb, 8000)
	t.Logf("SmolLM2-135M shape: %d frames and %d steps in %.1f s (%.1f frames/s, %.1f steps/s); %d main-thread tasks over 50 ms, the longest %.0f ms",
		p.Frames, p.Steps, p.Ms/1000, p.fps(), p.steps(), p.Long, p.LongestM)
	if p.Steps < 3 {
		t.Fatalf("the model decoded %d steps in %.1f s of play", p.Steps, p.Ms/1000)
	}
	if p.Frames <= 2*p.Steps {
		t.Errorf("%d frames presented for %d steps shown: the page still waits on the decoder", p.Frames, p.Steps)
	}
}

// measureSmol skips a test unless it is a measurement run (make measure:
// KVSCOPE_MEASURE=1, Chromium present); it returns the address of
// SmolLM2-135M's full shape and the builds to measure.
func measureSmol(t *testing.T) (string, []build) {
	if os.Getenv("KVSCOPE_MEASURE") == "" {
		t.Skip("a measurement: make measure (KVSCOPE_MEASURE=1)")
	}
	if skipReason != "" {
		t.Skip(skipReason)
	}
	return serveFile(t, shapeFile(t, smolShape(30))), measuredBuilds(t)
}

// build is a build of the page a measurement opens, by its server's URL.
type build struct{ name, url string }

// measuredBuilds returns this build and, with KVSCOPE_OLD_STATIC (a
// static/ folder built from another commit), that one, served beside it.
func measuredBuilds(t *testing.T) []build {
	builds := []build{{"this build", serverURL}}
	if old := os.Getenv("KVSCOPE_OLD_STATIC"); old != "" {
		srv := httptest.NewServer(site.Handler(old))
		t.Cleanup(srv.Close)
		builds = append(builds, build{"old build", srv.URL})
	}
	return builds
}

// TestPlayFrames (make measure) is the harness of the README's frames
// figures: in one browser, alternately, the synthetic stream and the
// full SmolLM2-135M shape playing at the top speed, 15 s each, three
// rounds; with KVSCOPE_OLD_STATIC (a static/ folder built from another
// commit) the same model on that build too, served beside this one.
func TestPlayFrames(t *testing.T) {
	src, builds := measureSmol(t)
	for round := range 3 {
		tb := freshTab(t, viewW, viewH, 1, 5*time.Minute)
		if err := chromedp.Do(tb.ctx, chromedp.Navigate(serverURL+"/#play=1&speed=240&tokens=4096")); err != nil {
			t.Fatal(err)
		}
		tb.waitJS(`window.kvscope && JSON.parse(window.kvscope.state()).ready`, time.Minute)
		p := watchPlay(tb, 15000)
		t.Logf("round %d, synthetic stream: %.1f frames/s, %.1f steps/s, %d tasks over 50 ms (longest %.0f ms)", round, p.fps(), p.steps(), p.Long, p.LongestM)
		tb.close()
		for _, b := range builds {
			tb := playShape(t, b.url, "play=1&speed=240&mtokens=512&", src, 5*time.Minute)
			p := watchPlay(tb, 15000)
			t.Logf("round %d, SmolLM2-135M shape, %s: %.1f frames/s, %.2f steps/s, %d tasks over 50 ms (longest %.0f ms)", round, b.name, p.fps(), p.steps(), p.Long, p.LongestM)
			tb.close()
		}
	}
}

// Compare mode runs with a real model: side A and side B decode the same
// text in two workers, side by side, and the page shows B's compressed
// text beside A's. A side's figures are the same whichever worker decodes
// it: B's run here equals the same settings opened alone, in one worker.
func TestModelCompare(t *testing.T) {
	if skipReason != "" {
		t.Skip(skipReason)
	}
	const common = "mode=model&mtokens=72&speed=240&play=1"
	cmp := open(t, common+"&cmp=1&policy=h2o&recent=8&heavy=8&b.policy=window&b.recent=16&b.bits=8")
	cmp.waitJS(`(s => s.step >= s.tokens && !s.replaying && s.sides.length === 2)(JSON.parse(window.kvscope.state()))`, 3*time.Minute)
	c := cmp.state()
	if !c.Compare || len(c.Sides) != 2 || c.Sides[0].Config.Policy != "h2o" || c.Sides[1].Config.Policy != "window" {
		t.Fatalf("compare: %v, sides %+v", c.Compare, c.Sides)
	}
	if c.Text == nil || c.Text.CompressedB == "" || c.Text.Compressed == "" {
		t.Fatalf("texts %+v", c.Text)
	}
	if shown := cmp.eval(`document.getElementById("text-comp-1").textContent`); shown != c.Text.CompressedB {
		t.Errorf("B's text on the page %q, in the state %q", shown, c.Text.CompressedB)
	}
	// Side B's settings alone, as side A of a link without compare.
	st, _ := view.Decode(c.URL)
	st.A, st.Compare = st.B, false
	alone := open(t, view.Encode(&st))
	alone.waitJS(`(s => s.step >= s.tokens && !s.replaying && s.sides.length === 1)(JSON.parse(window.kvscope.state()))`, 3*time.Minute)
	w := alone.state()
	if w.Text.Compressed != c.Text.CompressedB || w.Sides[0].Mean != c.Sides[1].Mean || w.Sides[0].Stored != c.Sides[1].Stored {
		t.Errorf("window alone: %q, mean %+v, %d B\nas side B: %q, mean %+v, %d B",
			w.Text.Compressed, w.Sides[0].Mean, w.Sides[0].Stored, c.Text.CompressedB, c.Sides[1].Mean, c.Sides[1].Stored)
	}
}

// TestRealModelFigures (make measure) times the memory-versus-fidelity
// chart and the recall heatmap as a visitor meets them on
// SmolLM2-135M-shaped files (4 layers, and the full 30): the model plays
// for ten seconds (the page learns its decode rate, from which both
// choose their text's length), is paused, the heatmap runs from the click
// to its last cell, then the chart is opened and filled.
func TestRealModelFigures(t *testing.T) {
	if os.Getenv("KVSCOPE_MEASURE") == "" {
		t.Skip("a measurement: make measure (KVSCOPE_MEASURE=1)")
	}
	if skipReason != "" {
		t.Skip(skipReason)
	}
	for _, layers := range []int{4, 30} {
		src := serveFile(t, shapeFile(t, smolShape(layers)))
		tb := playShape(t, serverURL, "play=1&speed=240&mtokens=256&policy=h2o&", src, 10*time.Minute)
		time.Sleep(10 * time.Second)
		tb.do(`document.getElementById("play").click()`)
		t0 := time.Now()
		tb.do(`document.getElementById("breaks").open = true; document.getElementById("breaks-task").value = "name"; document.getElementById("breaks-run").click()`)
		tb.waitJS(`(b => b && (b.Done === b.Len && b.Len > 0 || b.Err))(JSON.parse(window.kvscope.state()).breaks)`, 9*time.Minute)
		t.Logf("SmolLM2-135M shape, %d layers: heatmap in %.1f s from the click; %s", layers, time.Since(t0).Seconds(), domText(tb, "breaks-status"))
		t0 = time.Now()
		tb.do(`document.getElementById("chartbox").open = true`)
		tb.waitJS(`window.kvscopeSweepMs !== undefined`, 9*time.Minute)
		t.Logf("SmolLM2-135M shape, %d layers: chart in %.1f s from opening it; %s", layers, time.Since(t0).Seconds(), domText(tb, "chart-status"))
		tb.close()
	}
}

// A real model's chart runs sim.ModelChartGrid: every policy of
// sim.ModelChartPolicies at three budgets, on the text length the page
// chose from the model's speed, which its status line names.
func TestModelChart(t *testing.T) {
	needModel(t)
	tb := open(t, "mode=model&mtokens=96&play=1&speed=240")
	tb.waitJS(`(s => s.step >= s.tokens)(JSON.parse(window.kvscope.state()))`, 2*time.Minute)
	tb.do(`document.getElementById("chartbox").open = true`)
	tb.waitJS(`window.kvscopeSweepMs !== undefined`, 3*time.Minute)
	var rows []map[string]any
	if err := json.Unmarshal([]byte(tb.eval(`JSON.stringify(window.kvscopeChart.rows())`)), &rows); err != nil {
		t.Fatal(err)
	}
	var req struct {
		MaxTokens int      `json:"maxTokens"`
		Grid      sim.Grid `json:"grid"`
	}
	if err := json.Unmarshal([]byte(tb.eval(`window.kvscope.config()`)), &req); err != nil {
		t.Fatal(err)
	}
	want := sim.ModelChartGrid(req.MaxTokens)
	if !slices.Equal(req.Grid.Policies, want.Policies) || !slices.Equal(req.Grid.Budgets, want.Budgets) {
		t.Fatalf("the chart asks for %+v; want %+v", req.Grid, want)
	}
	seen := map[string]int{}
	for _, r := range rows {
		seen[r["policy"].(string)]++
		if r["ppl"].(float64) <= 0 {
			t.Errorf("row %v without a perplexity", r)
		}
	}
	for _, p := range want.Policies {
		if seen[p] != len(want.Budgets) {
			t.Errorf("%s: %d points, want %d (rows %v)", p, seen[p], len(want.Budgets), seen)
		}
	}
	status := tb.eval(`document.getElementById("chart-status").textContent`)
	if !strings.Contains(status, strconv.Itoa(req.MaxTokens)+"-token text") {
		t.Errorf("the status line %q does not name the %d-token text", status, req.MaxTokens)
	}
	t.Logf("chart: %d rows on a %d-token text; %s", len(rows), req.MaxTokens, status)
}

// rendererPeakMB returns the largest peak resident size (VmHWM) among
// Chromium's renderer processes, MiB: the page's tab with its workers
// (threads of the tab's process), when no other tab is open.
func rendererPeakMB(t *testing.T) float64 {
	ds, _ := os.ReadDir("/proc")
	best := 0.0
	for _, d := range ds {
		cmd, err := os.ReadFile("/proc/" + d.Name() + "/cmdline")
		if err != nil || !strings.Contains(string(cmd), "--type=renderer") {
			continue
		}
		st, err := os.ReadFile("/proc/" + d.Name() + "/status")
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(st), "\n") {
			if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
				kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
				best = max(best, kb/1024)
			}
		}
	}
	return best
}

// TestRealShapeMemory (make measure) reports the peak memory of the page
// and all its workers (the tab's renderer process, Linux only) with
// SmolLM2-135M's full shape: opened by link, 15 s of play, then the recall
// heatmap (which starts the second decoding worker); with
// KVSCOPE_OLD_STATIC, the same on that build, in a fresh browser process
// each so the peaks are the tab's own.
func TestRealShapeMemory(t *testing.T) {
	src, builds := measureSmol(t)
	for _, b := range builds {
		tb := playShape(t, b.url, "play=1&speed=240&mtokens=256&", src, 10*time.Minute)
		time.Sleep(15 * time.Second)
		playing := rendererPeakMB(t)
		tb.do(`document.getElementById("breaks").open = true; document.getElementById("breaks-task").value = "name"; document.getElementById("breaks-run").click()`)
		time.Sleep(20 * time.Second)
		t.Logf("SmolLM2-135M shape, %s: peak of the tab's process %.0f MiB after 15 s of play, %.0f MiB with the heatmap running", b.name, playing, rendererPeakMB(t))
		tb.close()
		time.Sleep(2 * time.Second)
	}
}
