//go:build !js

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kvscope/kvscope/core/model/bench"
	"github.com/kvscope/kvscope/wasm/internal/site"
)

// wllamaDir is wllama's ESM build, installed by make bench-wllama from
// testdata/wllama/package-lock.json.
const wllamaDir = "testdata/wllama/node_modules/@wllama/wllama/esm"

// benchRuns is a system's reply from testdata/bench.js.
type benchRuns struct {
	LoadMS      float64 `json:"loadMs"`
	Kernels     string  `json:"kernels"`
	Threads     int     `json:"threads"`
	Multithread bool    `json:"multithread"`
	WebGPU      bool    `json:"webgpu"`
	Version     string  `json:"version"`
	Prompt      []struct {
		Tokens int     `json:"tokens"`
		MS     float64 `json:"ms"`
	} `json:"prompt"`
	Decode []struct {
		Tokens int     `json:"tokens"`
		MS     float64 `json:"ms"`
	} `json:"decode"`
	WallDecodeMS []float64 `json:"wallDecodeMs"`
	StartTokens  int       `json:"startTokens"` // the decode run's prompt
}

// rates returns the runs' prompt and decode tokens per second.
func (r benchRuns) rates() (p, d []float64) {
	for _, x := range r.Prompt {
		p = append(p, float64(x.Tokens)/x.MS*1000)
	}
	for _, x := range r.Decode {
		d = append(d, float64(x.Tokens)/x.MS*1000)
	}
	return p, d
}

// TestBenchWllama (make bench-wllama) measures wllama 3.13 on one thread
// and one kvscope decoder (the sweep worker on the SIMD kernels) side by
// side in one tab of the same headless Chromium, on each of core/model/
// bench's files, and logs the table of decode and prompt tokens per
// second with the ratios kvscope ÷ wllama. The page is served with the
// headers wllama needs (cross-origin isolation, application/wasm and
// text/javascript). Figures, not assertions: it fails only if a system
// cannot run a file.
func TestBenchWllama(t *testing.T) {
	if os.Getenv("KVSCOPE_BENCH") == "" {
		t.Skip("a measurement: make bench-wllama (KVSCOPE_BENCH=1)")
	}
	if skipReason != "" {
		t.Skip(skipReason)
	}
	if _, err := os.Stat(filepath.Join(wllamaDir, "index.js")); err != nil {
		t.Fatalf("wllama is not installed (make bench-wllama installs it): %v", err)
	}
	files := bench.Files()
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = shapeFile(t, f.Spec)
	}
	static, _ := filepath.Abs("../../static")
	mux := http.NewServeMux()
	mux.Handle("/static/", http.StripPrefix("/static", site.Handler(static)))
	mux.Handle("/wllama/", http.StripPrefix("/wllama", http.FileServer(http.Dir(wllamaDir))))
	mux.Handle("/", http.FileServer(http.Dir("testdata")))
	for i, p := range paths {
		mux.HandleFunc(fmt.Sprintf("/models/%d.gguf", i), func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, p) })
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// wllama asks for cross-origin isolation even on one thread.
		h := w.Header()
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Embedder-Policy", "require-corp")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Cache-Control", "no-store")
		switch filepath.Ext(r.URL.Path) {
		case ".wasm":
			h.Set("Content-Type", "application/wasm")
		case ".js", ".mjs":
			h.Set("Content-Type", "text/javascript")
		}
		mux.ServeHTTP(w, r)
	}))
	defer srv.Close()

	tb := freshTab(t, 800, 600, 1, 2*time.Hour)
	t.Cleanup(func() {
		if t.Failed() {
			tb.mu.Lock()
			defer tb.mu.Unlock()
			for _, l := range tb.logs {
				t.Log("console " + l)
			}
		}
	})
	if err := chromedp.Do(tb.ctx, chromedp.Navigate(srv.URL+"/bench.html")); err != nil {
		t.Fatal(err)
	}
	tb.waitJS(`window.kvbench`, 30*time.Second)
	if tb.eval(`String(window.kvbench.isolated)`) != "true" {
		t.Fatal("the bench page is not cross-origin isolated")
	}
	var rows []bench.Row
	for i, f := range files {
		t.Run(f.Name, func(t *testing.T) {
			spec, _ := json.Marshal(map[string]any{"prompt": bench.PromptText(), "start": bench.StartText,
				"decode": bench.DecodeTokens, "warm": bench.Warm, "reps": bench.Reps})
			url := fmt.Sprintf("/models/%d.gguf", i)
			var wl, kv benchRuns
			tb := &tab{t: t, ctx: tb.ctx}
			for _, sys := range []struct {
				name string
				out  *benchRuns
			}{{"wllama", &wl}, {"kvscope", &kv}} {
				raw := tb.evalAsync(fmt.Sprintf(`kvbench.%s(%q, %s)`, sys.name, url, spec))
				if err := json.Unmarshal([]byte(raw), sys.out); err != nil {
					t.Fatalf("%s on %s: %v: %s", sys.name, f.Name, err, raw)
				}
			}
			wp, wd := wl.rates()
			kp, kd := kv.rates()
			t.Logf("%s: wllama %s (threads %d, multithread %v, WebGPU %v; loaded in %.1f s) decode %.0f tok/s (wall clock of the call %.0f ms), prompt %.0f; kvscope (kernels %s; loaded in %.1f s) decode %.0f, prompt %.0f",
				f.Name, wl.Version, wl.Threads, wl.Multithread, wl.WebGPU, wl.LoadMS/1000, wd, wl.WallDecodeMS, wp, kv.Kernels, kv.LoadMS/1000, kd, kp)
			if wl.Prompt[0].Tokens != kv.Prompt[0].Tokens || wl.StartTokens != kv.StartTokens {
				t.Errorf("%s: wllama's runs start from %d and %d tokens, kvscope's from %d and %d", f.Name,
					wl.Prompt[0].Tokens, wl.StartTokens, kv.Prompt[0].Tokens, kv.StartTokens)
			}
			if kv.Kernels != "wasm simd128" {
				t.Errorf("%s: kvscope ran on the %q path, not the SIMD kernels", f.Name, kv.Kernels)
			}
			rows = append(rows, bench.Row{File: f.Name,
				KVScope: bench.Figures{Decode: bench.Best(kd), Prompt: bench.Best(kp)},
				Peer:    bench.Figures{Decode: bench.Best(wd), Prompt: bench.Best(wp)}})
		})
	}
	t.Logf("headless Chromium, one thread each (wllama: F32 KV cache, CPU; kvscope: one decoder, model.FullCache, Q8_0 kept quantized), the fastest of %d sittings after %d warm-up:\n%s",
		bench.Reps, bench.Warm, bench.Table("wllama", rows))
}
