//go:build !js

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kvscope/kvscope/core/model/gguf"
	"github.com/kvscope/kvscope/core/model/ggufwrite"
	"github.com/kvscope/kvscope/viz/view"
)

// remoteSpec is the model the second server offers: a small llama with
// grouped-query attention, its matrices in Q8_0.
var remoteSpec = ggufwrite.LlamaSpec{Dim: 128, Layers: 4, Heads: 4, KVHeads: 2, Hidden: 256, Vocab: 2000, Context: 256,
	NormEps: 1e-5, RopeBase: 10000, Version: 3, Type: gguf.TypeQ8_0, Seed: 7}

// modelHost is a second local HTTP server, on another port than the
// page's (so another origin), that serves model files as a model host
// would, with and without the headers that allow cross-origin downloads,
// and in the ways downloads go wrong. It counts the requests per path.
type modelHost struct {
	srv   *httptest.Server
	model []byte
	mamba []byte

	mu   sync.Mutex
	hits map[string]int
}

func newModelHost(t *testing.T) *modelHost {
	t.Helper()
	h := &modelHost{model: ggufwrite.Llama(remoteSpec), hits: map[string]int{}}
	kvs := ggufwrite.LlamaKVs(remoteSpec)
	for i := range kvs {
		if kvs[i].Key == "general.architecture" {
			kvs[i].Value = gguf.Value{Type: gguf.TypeString, Data: "mamba"}
		}
	}
	h.mamba = ggufwrite.Encode(3, kvs, ggufwrite.LlamaWeights(remoteSpec))
	h.srv = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *modelHost) url(path string) string { return h.srv.URL + path }

func (h *modelHost) count(path string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.hits[path]
}

func (h *modelHost) serve(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.hits[r.URL.Path]++
	h.mu.Unlock()
	if r.URL.Path != "/nocors/x.gguf" {
		w.Header().Set("Access-Control-Allow-Origin", "*")
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	body := h.model
	switch r.URL.Path {
	case "/x.gguf", "/nocors/x.gguf":
	case "/missing.gguf":
		http.NotFound(w, r)
		return
	case "/notgguf.gguf":
		body = []byte("PK\x03\x04 this is a zip archive, not a model")
	case "/mamba.gguf":
		body = h.mamba
	case "/cut.gguf": // the file itself is cut short: its tensors lie past its end
		body = h.model[:len(h.model)/2]
	case "/interrupted.gguf": // Content-Length announces more than is sent
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		w.Write(body[:len(body)/3])
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		return // the server closes the connection: the body is short
	case "/huge.gguf": // 5 GB announced
		w.Header().Set("Content-Length", "5000000000")
		w.WriteHeader(http.StatusOK)
		w.Write(make([]byte, 1<<16))
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
		return
	default:
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	// In chunks, a little apart, so that the page's progress bar moves.
	for off := 0; off < len(body); off += 64 << 10 {
		if _, err := w.Write(body[off:min(off+64<<10, len(body))]); err != nil {
			return
		}
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		time.Sleep(15 * time.Millisecond)
	}
}

// openFresh opens the page with hash in a browser context of its own
// (empty caches: a first visit) and waits until it is ready.
func openFresh(t *testing.T, hash string) *tab {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
	tb := freshTab(t, viewW, viewH, 1, 150*time.Second)
	tb.navigate(hash)
	return tb
}

// navigate loads the page with hash and waits until it is ready.
func (tb *tab) navigate(hash string) {
	tb.t.Helper()
	if err := chromedp.Do(tb.ctx, chromedp.Navigate(serverURL+"/#"+hash)); err != nil {
		tb.t.Fatal(err)
	}
	tb.waitJS(`document.body.dataset.ready === "1" || document.body.dataset.fatal === "1"`, 45*time.Second)
	if fatal := tb.eval(`document.body.dataset.fatal || ""`); fatal != "" {
		tb.t.Fatalf("page reported a fatal error: %s", tb.eval(`document.getElementById("fatal-text").textContent`))
	}
}

// waitModel waits until the model from src is loaded and its run has
// caught up.
func (tb *tab) waitModel(src string) view.PageState {
	tb.t.Helper()
	tb.waitJS(fmt.Sprintf(`(s => s.mode === "model" && s.model.loaded && s.model.source === %q && s.text && !s.replaying)(JSON.parse(window.kvscope.state()))`, src), 60*time.Second)
	return tb.state()
}

// stillDecodes checks that the loaded model from src runs: one step on.
func (tb *tab) stillDecodes(src string) {
	tb.t.Helper()
	s := tb.waitModel(src)
	tb.key("ArrowRight")
	tb.waitJS(fmt.Sprintf(`(s => s.step > %d && !s.broken)(JSON.parse(window.kvscope.state()))`, s.Step), 20*time.Second)
	if fatal := tb.eval(`document.body.dataset.fatal || ""`); fatal != "" {
		tb.t.Fatalf("the page stopped: %s", tb.eval(`document.getElementById("fatal-text").textContent`))
	}
}

// A link names a model on another host: the page downloads it with a
// progress bar, loads it, shows its facts and decodes; a second visit
// opens it from the browser's cache without asking the host; forgetting
// it empties the cache. Then every way a model can fail to arrive or load
// gives its notice while the model loaded before keeps decoding.
func TestModelFromLink(t *testing.T) {
	host := newModelHost(t)
	src := host.url("/x.gguf")
	tb := openFresh(t, "model="+url.QueryEscape(src)+"&play=0&mtokens=48")
	// The progress as the page shows it, sampled every animation frame
	// until the model is in.
	raw := tb.evalAsync(fmt.Sprintf(`new Promise(done => {
		const seen = [], t0 = performance.now(); let bar = 0;
		const tick = (t) => {
			const m = JSON.parse(window.kvscope.state()).model;
			if (m.download && m.download.got > 0) seen.push([m.download.got, m.download.total]);
			if (!document.getElementById("model-progress").hidden) bar++;
			if ((m.loaded && m.source === %q) || m.error || t - t0 > 60000) done(JSON.stringify({seen, bar, error: m.error}));
			else requestAnimationFrame(tick);
		};
		requestAnimationFrame(tick);
	})`, src))
	var dl struct {
		Seen  [][2]int64
		Bar   int
		Error string
	}
	if err := json.Unmarshal([]byte(raw), &dl); err != nil {
		t.Fatal(err)
	}
	if dl.Error != "" {
		t.Fatalf("the model was refused: %s", dl.Error)
	}
	n := int64(len(host.model))
	if len(dl.Seen) < 2 || dl.Bar == 0 {
		t.Errorf("progress seen: %v, bar shown in %d frames", dl.Seen, dl.Bar)
	}
	for _, p := range dl.Seen {
		if p[1] != n || p[0] > n {
			t.Errorf("progress %d of %d; the file has %d bytes", p[0], p[1], n)
		}
	}
	s := tb.waitModel(src)
	f := s.Model.Facts
	if f == nil || f.Arch != "llama" || f.Layers != 4 || f.Heads != 4 || f.KVHeads != 2 || f.HeadDim != 32 || f.Vocab != 2000 || f.File != n {
		t.Fatalf("facts %+v", f)
	}
	if !strings.Contains(s.URL, "model="+url.QueryEscape(src)) || host.count("/x.gguf") != 1 {
		t.Errorf("link %q, %d requests", s.URL, host.count("/x.gguf"))
	}
	facts := domText(tb, "model-facts")
	for _, part := range []string{"Architecturellama", "Layers4", "Heads4 query, 2 KV (2 per KV)", "Head dim32", "Vocabulary2,000, SentencePiece", "Context256 tokens", "Q8_0 ×28", "in memory"} {
		if !strings.Contains(facts, part) {
			t.Errorf("facts panel lacks %q: %q", part, facts)
		}
	}
	tb.waitJS(`JSON.parse(window.kvscope.state()).model.sinks !== ""`, 30*time.Second)
	if sinks := domText(tb, "model-facts"); !strings.Contains(sinks, "Sink heads") || !strings.Contains(sinks, "of 16 (4 layers × 4 heads)") {
		t.Errorf("sink heads not shown: %q", sinks)
	}
	tb.stillDecodes(src)
	tb.waitJS(fmt.Sprintf(`(m => m.cached && m.cached.length === 1 && m.cached[0].source === %q && m.cached[0].bytes === %d)(JSON.parse(window.kvscope.state()).model)`, src, n), 10*time.Second)
	if line := domText(tb, "model-cache"); !strings.Contains(line, "x.gguf") || !strings.Contains(line, "Forget") {
		t.Errorf("cache panel: %q", line)
	}

	// A second visit: from the cache, the host not asked again.
	if err := chromedp.Do(tb.ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	tb.waitJS(`document.body.dataset.ready === "1" || document.body.dataset.fatal === "1"`, 45*time.Second)
	s = tb.waitModel(src)
	if !strings.Contains(s.Model.Status, "from the browser's cache") || host.count("/x.gguf") != 1 {
		t.Errorf("second visit: %d requests to the host, status %q", host.count("/x.gguf"), s.Model.Status)
	}
	tb.stillDecodes(src)

	// Every bad address: its notice, and the model from before decodes on.
	for _, bad := range []struct {
		path, want string
	}{
		{"/nocors/x.gguf", "does not allow cross-origin downloads"},
		{"/missing.gguf", "HTTP 404"},
		{"/interrupted.gguf", "truncated at"},
		{"/cut.gguf", "the file is truncated"},
		{"/notgguf.gguf", "not a GGUF file"},
		{"/mamba.gguf", `"mamba"`},
		{"/huge.gguf", "at most 2 GiB"},
	} {
		t.Run(strings.TrimSuffix(strings.TrimPrefix(bad.path, "/"), ".gguf"), func(t *testing.T) {
			tb.t = t
			tb.do(fmt.Sprintf(`location.hash = "model=" + encodeURIComponent(%q) + "&play=0&mtokens=48"`, host.url(bad.path)))
			tb.waitJS(fmt.Sprintf(`(JSON.parse(window.kvscope.state()).notices || []).some(n => n.includes(%q))`, bad.want), 30*time.Second)
			s := tb.state()
			if !s.Model.Loaded || s.Model.Source != src || strings.Contains(s.URL, url.QueryEscape(host.url(bad.path))) {
				t.Errorf("after %s: model %q loaded %v, link %q", bad.path, s.Model.Source, s.Model.Loaded, s.URL)
			}
			status := domText(tb, "model-status")
			if !strings.Contains(status, bad.want) || !strings.Contains(status, "previous model stays") {
				t.Errorf("status %q", status)
			}
			t.Logf("%s: %s", bad.path, status)
			tb.stillDecodes(src)
		})
	}
	tb.t = t
	if got := host.count("/x.gguf"); got != 1 {
		t.Errorf("%d requests for the cached model", got)
	}
	// The file that failed to load is not kept.
	tb.waitJS(`(m => m.cached && m.cached.length === 1)(JSON.parse(window.kvscope.state()).model)`, 10*time.Second)

	// Forget it: the cache is empty.
	tb.do(`document.querySelector("#model-cache-list button[data-forget]").click()`)
	tb.waitJS(`(m => m.cacheOK && !m.cached)(JSON.parse(window.kvscope.state()).model)`, 10*time.Second)
	if n := tb.evalAsync(`caches.open("kvscope-models").then(c => c.keys()).then(k => String(k.length))`); n != "0" {
		t.Errorf("%s entries left in the cache", n)
	}
	if line := domText(tb, "model-cache-line"); !strings.Contains(line, "No downloaded model") {
		t.Errorf("cache line %q", line)
	}
}

// The suggested models are listed from view.Suggested, with their sizes
// and licences; one click on the built-in model opens it.
func TestSuggestedModels(t *testing.T) {
	needModel(t)
	tb := open(t, "mode=model&play=0&mtokens=40")
	tb.waitModelRun()
	rows := tb.eval(`Array.from(document.querySelectorAll("#model-list li")).map(li => li.textContent).join("\n")`)
	lines := strings.Split(rows, "\n")
	if len(lines) != len(view.Suggested) {
		t.Fatalf("%d models listed, want %d:\n%s", len(lines), len(view.Suggested), rows)
	}
	for i, m := range view.Suggested {
		for _, part := range []string{m.Name, m.Quant, m.Size(), m.Licence} {
			if !strings.Contains(lines[i], part) {
				t.Errorf("row %d %q lacks %q", i, lines[i], part)
			}
		}
	}
	if on := tb.eval(`document.querySelector("#model-list .mpick.on").dataset.src`); on != "" {
		t.Errorf("the loaded built-in model is not marked: %q", on)
	}
	// The lesson on sinks says what the loaded model measured.
	tb.waitJS(`JSON.parse(window.kvscope.state()).model.sinks !== ""`, 30*time.Second)
	sinks := tb.state().Model.Sinks
	tb.do(`window.kvscope.lesson(3)`)
	tb.waitJS(`!document.getElementById("lesson").hidden`, 10*time.Second)
	if note := domText(tb, "lesson-notice"); !strings.Contains(note, "Your model, stories260K F32: "+sinks) {
		t.Errorf("lesson 3 says %q; the model measured %q", note, sinks)
	}
}

// TestScreenshotModelPanel writes pictures of real-model mode's model
// panel at three window sizes when KVSCOPE_SCREENSHOT_PANEL names a
// directory.
func TestScreenshotModelPanel(t *testing.T) {
	dir := os.Getenv("KVSCOPE_SCREENSHOT_PANEL")
	if dir == "" {
		t.Skip("set KVSCOPE_SCREENSHOT_PANEL to a directory to picture the model panel")
	}
	needModel(t)
	for _, sz := range [][2]int64{{1400, 1000}, {1024, 700}, {390, 844}} {
		tb := freshTab(t, sz[0], sz[1], 1, 90*time.Second)
		tb.navigate("mode=model&play=0&mtokens=64&at=64")
		tb.waitModel("")
		tb.waitJS(`JSON.parse(window.kvscope.state()).model.sinks !== ""`, 30*time.Second)
		tb.do(`document.getElementById("modelbox").scrollIntoView({block: "start"})`)
		tb.settle()
		p := filepath.Join(dir, fmt.Sprintf("model-panel-%dx%d.png", sz[0], sz[1]))
		if err := os.WriteFile(p, tb.screenshotPNG(), 0o644); err != nil {
			t.Fatal(err)
		}
		tb.close()
	}
	// A downloaded model, kept in the cache.
	host := newModelHost(t)
	tb := freshTab(t, 1400, 1000, 1, 90*time.Second)
	tb.navigate("model=" + url.QueryEscape(host.url("/x.gguf")) + "&play=0&mtokens=64&at=64")
	tb.waitModel(host.url("/x.gguf"))
	tb.waitJS(`(m => m.sinks !== "" && m.cached && m.cached.length === 1)(JSON.parse(window.kvscope.state()).model)`, 30*time.Second)
	tb.do(`document.getElementById("model-pick").open = false; document.getElementById("modelbox").scrollIntoView({block: "start"})`)
	tb.settle()
	if err := os.WriteFile(filepath.Join(dir, "model-panel-downloaded-1400x1000.png"), tb.screenshotPNG(), 0o644); err != nil {
		t.Fatal(err)
	}
}
