//go:build !js

package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/viz/view"
)

// TestChartPicture draws the README's picture of the chart: the page's
// default stream swept over every policy × 8 budgets at INT8 and INT2 per
// token and INT2 KIVI, output error against bytes (attention mass ignores storage
// error; output error counts both), drawn by static/chart.js in
// headless Chromium. It runs only when KVSCOPE_CHART_PNG names the file to
// write (make chart-picture); KVSCOPE_CHROMIUM names the browser.
func TestChartPicture(t *testing.T) {
	out := os.Getenv("KVSCOPE_CHART_PNG")
	if out == "" {
		t.Skip("KVSCOPE_CHART_PNG not set")
	}
	browser := os.Getenv("KVSCOPE_CHROMIUM")
	if browser == "" {
		browser = "chromium"
	}
	g := sim.DefaultGrid()
	g.Storage = []sim.StorageVariant{{Bits: 8, Granularity: "token"}, {Bits: 2, Granularity: "token"}, {Bits: 2, Granularity: "kivi"}}
	var rows []sim.Row
	if err := sim.Sweep(context.Background(), sim.DefaultConfig(), g, nil, func(r sim.Row) error { rows = append(rows, r); return nil }); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(rows)
	if err != nil {
		t.Fatal(err)
	}
	chart, err := os.ReadFile("../../static/chart.js")
	if err != nil {
		t.Fatal(err)
	}
	page := `<!doctype html><html><head><meta charset="utf-8"><title>kvscope chart</title></head>
<body style="margin:8px;background:#fff;font-family:system-ui,sans-serif"><div id="c" style="width:960px"></div>
<script>` + string(chart) + `</script><script>
const c = KVChart.create(document.getElementById('c'), {height: 440, metric: 'output_error', catalog: ` + view.Catalogue().JSON() + `});
c.setRows(` + string(data) + `);
c.setCurrent({policy: 'h2o', sink: 4, recent: 26, heavy: 25, drop: 0, bits: 8, gran: 'token'});
c.draw();
</script></body></html>`
	dir := t.TempDir()
	html := filepath.Join(dir, "chart.html")
	if err := os.WriteFile(html, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--window-size=976,488", "--screenshot="+abs, "file://"+html)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, b)
	}
	if st, err := os.Stat(abs); err != nil || st.Size() < 10000 {
		t.Fatalf("no picture at %s: %v", abs, err)
	}
}
