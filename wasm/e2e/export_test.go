//go:build !js

package e2e

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"image"
	"image/png"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/viz/view"
)

// downloads makes the browser save downloads into a new directory, for
// the rest of the test, and returns it.
func downloads(tb *tab) string {
	tb.t.Helper()
	dir := tb.t.TempDir()
	set := func(b browser.SetDownloadBehaviorBehavior, dir string) error {
		_, err := chromedp.CallBrowser(tb.ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{Behavior: b, DownloadPath: dir})
		return err
	}
	if err := set(browser.SetDownloadBehaviorBehaviorAllow, dir); err != nil {
		tb.t.Fatal(err)
	}
	tb.t.Cleanup(func() { set(browser.SetDownloadBehaviorBehaviorDefault, "") })
	return dir
}

// download clicks the export button sel and returns the file it saved
// under name in dir.
func (tb *tab) download(dir, sel, name string) []byte {
	tb.t.Helper()
	path := filepath.Join(dir, name)
	os.Remove(path)
	tb.do(fmt.Sprintf(`document.querySelector(%q).click()`, sel))
	deadline := time.Now().Add(20 * time.Second)
	for {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			if _, err := os.Stat(path + ".crdownload"); err != nil {
				if keep := os.Getenv("KVSCOPE_EXPORT_DIR"); keep != "" { // to look at
					os.WriteFile(filepath.Join(keep, name), b, 0o644)
				}
				return b
			}
		}
		if time.Now().After(deadline) {
			tb.t.Fatalf("%s: no %s downloaded; the button says %q (%s)", sel, name,
				tb.eval(fmt.Sprintf(`document.querySelector(%q).textContent`, sel)), tb.eval(fmt.Sprintf(`document.querySelector(%q).title`, sel)))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func decodePNG(t *testing.T, b []byte, what string) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return img
}

// notBlank checks that a picture has many colours and content other than
// its most common colour (the ground) over at least share of its pixels.
func notBlank(t *testing.T, img image.Image, share float64, what string) {
	t.Helper()
	counts := map[[3]uint32]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			counts[[3]uint32{r >> 8, g >> 8, bl >> 8}]++
		}
	}
	n, top := 0, 0
	for _, c := range counts {
		n += c
		top = max(top, c)
	}
	if len(counts) < 16 || float64(n-top)/float64(n) < share {
		t.Errorf("%s looks blank: %d colours, %.1f%% off the ground", what, len(counts), 100*float64(n-top)/float64(n))
	}
}

// cssRect is an element's exact viewport rectangle.
func (tb *tab) cssRect(sel string) (x0, y0, x1, y1 float64) {
	tb.t.Helper()
	s := tb.eval(fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect(); return JSON.stringify([r.left, r.top, r.right, r.bottom]); })()`, sel))
	var v [4]float64
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		tb.t.Fatal(err)
	}
	return v[0], v[1], v[2], v[3]
}

// The chart exports as kvscope -sweep's CSV (every row the chart holds,
// the same values), as SVG with its legend, axes and a caption naming the
// settings, and as PNG at two pixels per CSS pixel; the map and the memory
// bars as PNG at two pixels per CSS pixel, the map's cells where the page
// draws them. Each is a download. The embed code is a ready <iframe> of
// the page's state.
func TestExports(t *testing.T) {
	tb := open(t, "tokens=128&prompt=16&policy=streaming&play=0&at=128")
	dir := downloads(tb)
	s := tb.settle()

	// The map: the side, labels and pictures, at 2×.
	img := decodePNG(t, tb.download(dir, `[data-export="map"][data-side="0"]`, "kvscope-map-A.png"), "map")
	x0, y0, x1, y1 := tb.cssRect("#side-0")
	ox, oy := math.Floor(x0-8), math.Floor(y0-8)
	if w, h := img.Bounds().Dx(), img.Bounds().Dy(); w != 2*int(math.Ceil(x1+8)-ox) || h < 2*int(math.Ceil(y1+8)-oy) {
		t.Errorf("map PNG %d×%d for a side of %.0f×%.0f CSS px", w, h, x1-x0, y1-y0)
	}
	for role, p := range s.Sides[0].Probes {
		if ok, got := near(img, int(2*(p.X-ox)), int(2*(p.Y-oy)), p.RGB, 8); !ok {
			t.Errorf("map PNG: the %s cell at (%.0f, %.0f) is %v, want %v", role, p.X, p.Y, got, p.RGB)
		}
	}
	if len(s.Sides[0].Probes) < 3 {
		t.Errorf("%d roles probed", len(s.Sides[0].Probes))
	}
	notBlank(t, img, 0.1, "map PNG")

	// The memory bars, with their payload segment's colour.
	img = decodePNG(t, tb.download(dir, `[data-export="memory"]`, "kvscope-memory.png"), "memory")
	x0, _, x1, _ = tb.cssRect("#memblock-0")
	if w := img.Bounds().Dx(); w < 2*int(x1-x0) {
		t.Errorf("memory PNG %d px wide for bars of %.0f CSS px", w, x1-x0)
	}
	pay := 0
	r, g, b := view.SegColors[view.SegPayload].RGB8()
	for y := 0; y < img.Bounds().Dy(); y++ {
		for x := 0; x < img.Bounds().Dx(); x++ {
			if ok, _ := near(img, x, y, [3]uint8{r, g, b}, 2); ok {
				pay++
			}
		}
	}
	if pay < 100 {
		t.Errorf("memory PNG: %d pixels of the payload's colour", pay)
	}
	notBlank(t, img, 0.05, "memory PNG")

	// The chart.
	sweepChart(tb, "for the exports")
	var rows []sim.Row
	if err := json.Unmarshal([]byte(tb.eval(`JSON.stringify(window.kvscopeChart.rows())`)), &rows); err != nil || len(rows) < 50 {
		t.Fatalf("%d chart rows: %v", len(rows), err)
	}
	recs, err := csv.NewReader(bytes.NewReader(tb.download(dir, `[data-export="chart-csv"]`, "kvscope-chart.csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(recs[0], sim.CSVHeader(false)) {
		t.Errorf("CSV header %v, want kvscope -sweep's %v", recs[0], sim.CSVHeader(false))
	}
	if len(recs)-1 != len(rows) {
		t.Fatalf("CSV has %d rows, the chart %d", len(recs)-1, len(rows))
	}
	// One storage here: the sweep's order.
	slices.SortFunc(rows, func(a, b sim.Row) int { return a.Index - b.Index })
	for i, rec := range recs[1:] {
		r := rows[i]
		num := func(col int) float64 { v, _ := strconv.ParseFloat(rec[col], 64); return v }
		if rec[0] != r.Policy || num(1) != float64(r.Budget) || num(2) != float64(r.Sink) || num(3) != float64(r.Recent) || num(4) != float64(r.Heavy) ||
			num(5) != r.DropShare || num(6) != float64(r.Bits) || rec[7] != r.Granularity || num(8) != float64(r.Bytes) || num(9) != float64(r.FullBytes) ||
			num(10) != r.Ratio || num(11) != r.Mass || num(12) != r.OutErr || num(13) != r.KL || num(14) != r.KErr || num(15) != r.VErr {
			t.Errorf("CSV row %d %v differs from the chart's %+v", i, rec, r)
		}
	}

	svgText := tb.download(dir, `[data-export="chart-svg"]`, "kvscope-chart-mass.svg")
	W, H, classes, caption := parseSVG(t, svgText)
	for _, c := range []string{"kvchart-legend", "kvchart-axes", "kvchart-curves", "kvchart-points", "kvchart-caption", "kvchart-you"} {
		if classes[c] == 0 {
			t.Errorf("the SVG has no %s", c)
		}
	}
	if classes["kvchart-point"] != len(rows) {
		t.Errorf("the SVG has %d points for the chart's %d rows", classes["kvchart-point"], len(rows))
	}
	if classes["kvchart-curve"] < 10 || classes["kvchart-key"] < 10 {
		t.Errorf("the SVG has %d curves and %d legend keys", classes["kvchart-curve"], classes["kvchart-key"])
	}
	for _, want := range []string{"kvscope · synthetic stream seed 1, 128 tokens (prompt 16)", "StreamingLLM", "y: attention mass kept"} {
		if !strings.Contains(caption, want) {
			t.Errorf("caption %q lacks %q", caption, want)
		}
	}
	if cx0, cy0, cx1, cy1 := tb.cssRect("#chart svg.kvchart"); W != math.Round(cx1-cx0) || H <= cy1-cy0 {
		t.Errorf("SVG %g×%g for a chart of %.0f×%.0f CSS px (and a caption under it)", W, H, cx1-cx0, cy1-cy0)
	}
	img = decodePNG(t, tb.download(dir, `[data-export="chart-png"]`, "kvscope-chart-mass.png"), "chart")
	if img.Bounds().Dx() != int(math.Round(2*W)) || img.Bounds().Dy() != int(math.Round(2*H)) {
		t.Errorf("chart PNG %v, want 2 × the SVG's %g×%g", img.Bounds(), W, H)
	}
	notBlank(t, img, 0.03, "chart PNG")
	if tb.eval(`document.querySelector('[data-export="chart-png"]').dataset.done`) != "ok" {
		t.Error("the button does not say the download went")
	}

	// The embed code.
	tb.do(`navigator.clipboard.writeText = (s) => { window.copied = s; return Promise.resolve(); }`)
	tb.do(`document.getElementById("embed-copy").click()`)
	tb.waitJS(`window.copied && document.getElementById("embed-copy").textContent.includes("copied")`, 5*time.Second)
	code := tb.eval(`window.copied`)
	if code != tb.eval(`window.kvscope.embedCode()`) {
		t.Errorf("copied %q, embedCode %q", code, tb.eval(`window.kvscope.embedCode()`))
	}
	for _, want := range []string{`<iframe src="` + serverURL + `/#`, `width="640" height="360"`, `title="kvscope: StreamingLLM`, `loading="lazy"`, `embed=1&amp;controls=play,sink,recent`, `origin=https%3A%2F%2Fcourse.example`} {
		if !strings.Contains(code, want) {
			t.Errorf("embed code %s lacks %s", code, want)
		}
	}
}

// parseSVG reads an exported SVG: its size, how many elements carry each
// class, and its caption's text.
func parseSVG(t *testing.T, b []byte) (w, h float64, classes map[string]int, caption string) {
	t.Helper()
	classes = map[string]int{}
	d := xml.NewDecoder(bytes.NewReader(b))
	depth, capDepth := 0, -1
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		switch e := tok.(type) {
		case xml.StartElement:
			depth++
			for _, a := range e.Attr {
				switch {
				case depth == 1 && a.Name.Local == "width":
					w, _ = strconv.ParseFloat(a.Value, 64)
				case depth == 1 && a.Name.Local == "height":
					h, _ = strconv.ParseFloat(a.Value, 64)
				case a.Name.Local == "class":
					for _, c := range strings.Fields(a.Value) {
						classes[c]++
						if c == "kvchart-caption" {
							capDepth = depth
						}
					}
				}
			}
			if depth == 1 && (e.Name.Local != "svg" || e.Name.Space != "http://www.w3.org/2000/svg") {
				t.Fatalf("the SVG's root is %v", e.Name)
			}
		case xml.EndElement:
			if depth == capDepth {
				capDepth = -1
			}
			depth--
		case xml.CharData:
			if capDepth > 0 {
				caption += string(e) + " "
			}
		}
	}
	if !(w > 0 && h > 0) {
		t.Fatalf("the SVG has no size: %.200s", b)
	}
	return w, h, classes, strings.Join(strings.Fields(caption), " ")
}

// checkRecallExports downloads the finished recall heatmap as CSV (kvscope
// -task's columns, a row per cell, the page's scores) and as PNG.
func checkRecallExports(tb *tab) {
	t := tb.t
	t.Helper()
	dir := downloads(tb)
	bk := tb.state().Breaks
	recs, err := csv.NewReader(bytes.NewReader(tb.download(dir, `[data-export="recall-csv"]`, "kvscope-recall.csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(recs[0], sim.TaskCSVHeader()) || len(recs)-1 != len(bk.Cells) {
		t.Fatalf("recall CSV: header %v, %d rows for %d cells", recs[0], len(recs)-1, len(bk.Cells))
	}
	for i, rec := range recs[1:] {
		c := bk.Cells[i]
		depth, _ := strconv.ParseFloat(rec[4], 64)
		score, _ := strconv.ParseFloat(rec[5], 64)
		full, _ := strconv.ParseFloat(rec[6], 64)
		if rec[0] != bk.Task || rec[1] != bk.Policy || rec[2] != strconv.Itoa(c.Budget) || depth != c.Depth ||
			math.Abs(score-c.Score) > 1e-6 || math.Abs(full-c.Full) > 1e-6 {
			t.Errorf("recall CSV row %v, the page's cell %+v", rec, c)
		}
	}
	img := decodePNG(t, tb.download(dir, `[data-export="recall-png"]`, "kvscope-recall.png"), "recall")
	x0, _, x1, _ := tb.cssRect("#breaks-map table")
	if w := img.Bounds().Dx(); w != 2*int(math.Ceil(x1+8)-math.Floor(x0-8)) {
		t.Errorf("recall PNG %d px wide for a table of %.0f CSS px", w, x1-x0)
	}
	notBlank(t, img, 0.1, "recall PNG")
}

// TestExportPictures writes the README's pictures of an exported chart
// into KVSCOPE_EXPORT_PICTURES (a directory; make chart-export-pictures):
// the default stream's chart as the page exports it in PNG
// (chart-export.png) and in SVG (chart-export.svg), and that SVG as
// headless Chromium renders it (chart-export-svg.png).
func TestExportPictures(t *testing.T) {
	out := os.Getenv("KVSCOPE_EXPORT_PICTURES")
	if out == "" {
		t.Skip("set KVSCOPE_EXPORT_PICTURES to a directory to write the exported chart's pictures")
	}
	tb := open(t, "play=0&at=512")
	dir := downloads(tb)
	sweepChart(tb, "for the pictures")
	pngb := tb.download(dir, `[data-export="chart-png"]`, "kvscope-chart-mass.png")
	svgb := tb.download(dir, `[data-export="chart-svg"]`, "kvscope-chart-mass.svg")
	w, h, _, _ := parseSVG(t, svgb)
	for name, b := range map[string][]byte{"chart-export.png": pngb, "chart-export.svg": svgb} {
		if err := os.WriteFile(filepath.Join(out, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) {
		rw.Header().Set("Content-Type", "image/svg+xml")
		rw.Write(svgb)
	}))
	defer srv.Close()
	r := freshTab(t, int64(math.Ceil(w)), int64(math.Ceil(h)), 1, 30*time.Second)
	if err := chromedp.Do(r.ctx, chromedp.Navigate(srv.URL+"/chart.svg")); err != nil {
		t.Fatal(err)
	}
	rendered := r.screenshotPNG()
	notBlank(t, decodePNG(t, rendered, "the rendered SVG"), 0.03, "the rendered SVG")
	if err := os.WriteFile(filepath.Join(out, "chart-export-svg.png"), rendered, 0o644); err != nil {
		t.Fatal(err)
	}
}
