//go:build !js

package e2e

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kvscope/kvscope/wasm/internal/site"
)

// sitePrefix is where TestSiteUnderSubPath serves the site, as GitHub
// Pages serves a project.
const sitePrefix = "/course/kvscope/"

// TestSiteUnderSubPath serves the folder make site wrote (KVSCOPE_SITE;
// make test-browser builds it) under a sub-path, and runs the default
// page, a lesson, the chart and real-model mode there. The server answers
// 404 outside the prefix, and the test fails on any such request: every
// URL inside the page must be relative.
func TestSiteUnderSubPath(t *testing.T) {
	if skipReason != "" {
		t.Skip(skipReason)
	}
	dir := os.Getenv("KVSCOPE_SITE")
	if dir == "" {
		dir, _ = filepath.Abs("../../.site")
	}
	if _, err := os.Stat(filepath.Join(dir, "index.html")); err != nil {
		if os.Getenv("CI") == "true" || os.Getenv("KVSCOPE_SITE") != "" {
			t.Fatalf("no site at %s (run make test-site): %v", dir, err)
		}
		t.Skipf("no site at %s: run make test-site", dir)
	}
	var mu sync.Mutex
	var outside []string
	h := site.Under(sitePrefix, site.Handler(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, sitePrefix) {
			mu.Lock()
			outside = append(outside, r.URL.Path)
			mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	withModel := false
	if _, err := os.Stat(filepath.Join(dir, "stories260K.gguf")); err == nil {
		withModel = true
	}

	tb := freshTab(t, viewW, viewH, 1, 120*time.Second)
	visit := func(hash string) {
		t.Helper()
		// about:blank between visits: a link that differs only in its hash
		// would not load the page anew.
		if err := chromedp.Do(tb.ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(srv.URL+sitePrefix+"#"+hash)); err != nil {
			t.Fatal(err)
		}
		tb.waitJS(`document.body.dataset.ready === "1" || document.body.dataset.fatal === "1"`, 60*time.Second)
		if f := tb.eval(`document.body.dataset.fatal || ""`); f != "" {
			t.Fatalf("#%s under %s: fatal error: %s", hash, sitePrefix, tb.eval(`document.getElementById("fatal-text").textContent`))
		}
		tb.waitReplay()
	}

	visit("play=0&at=64")
	if s := tb.state(); s.Step != 64 || s.Frames == 0 {
		t.Errorf("default page under %s: step %d, %d frames", sitePrefix, s.Step, s.Frames)
	}
	visit("lesson=1")
	if s := tb.state(); s.Lesson == nil || s.Lesson.N != 1 {
		t.Errorf("lesson under %s: state lesson %+v", sitePrefix, s.Lesson)
	}
	visit("play=0&at=256")
	sweepChart(tb, "under a sub-path")
	if n := tb.eval(`String(document.querySelectorAll("#chart .kvchart-curve").length)`); n == "0" {
		t.Error("the chart drew no curves under a sub-path (its worker did not load?)")
	}
	if withModel {
		visit("play=0&at=20&mtokens=20")
		tb.setControl("mode", "model")
		if s := tb.waitModelRun(); !s.Model.Known {
			t.Errorf("real-model mode under %s: model %+v", sitePrefix, s.Model)
		}
	} else {
		t.Log("the site was built without the model: real-model mode not checked")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(outside) > 0 {
		t.Errorf("the page asked for URLs outside %s: %v", sitePrefix, outside)
	}
}
