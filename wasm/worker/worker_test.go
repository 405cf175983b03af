//go:build !js

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/session"
	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/viz/view"
)

// reply is one message of the worker, as the page receives it.
type reply struct {
	Type   string   `json:"type"`
	Layers int      `json:"layers"`
	Tokens []string `json:"tokens"`
	Curves []struct {
		Label string    `json:"label"`
		NLL   []float64 `json:"nll"`
	} `json:"curves"`
	ID     int       `json:"id"`
	Total  int       `json:"total"`
	Rows   int       `json:"rows"`
	Row    *sim.Row  `json:"row"`
	Points []sim.Row `json:"points"`
	T0     int       `json:"t0"` // refblock: positions [T0, T1)
	T1     int       `json:"t1"`
	Data   []byte    `json:"data"`   // refblock: sim.Stream.ExportReference's bytes
	Blocks int       `json:"blocks"` // done (reference): blocks posted
	// bench: the kernels' path and the timed runs
	Kernels string     `json:"kernels"`
	Prompt  []benchRun `json:"prompt"`
	Decode  []benchRun `json:"decode"`
}

// benchRun is one timed run of a bench reply.
type benchRun struct {
	Tokens int     `json:"tokens"`
	MS     float64 `json:"ms"`
	IDs    []int   `json:"ids"`
}

// workerDir builds worker.wasm into a temporary directory beside the glue
// a Web Worker runs it with (sweep-worker.js, kernels.js, wasm_exec.js)
// and files (copied by their base names); it returns node's path and the
// directory, and skips the test without node.
func workerDir(t *testing.T, files ...string) (node, dir string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found")
	}
	dir = t.TempDir()
	build := exec.Command("go", "build", "-trimpath", "-o", filepath.Join(dir, "worker.wasm"), ".")
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building worker.wasm: %v\n%s", err, out)
	}
	files = append(files, "../../static/sweep-worker.js", "../../static/kernels.js", filepath.Join(runtime.GOROOT(), "lib", "wasm", "wasm_exec.js"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return node, dir
}

// runWorker builds worker.wasm, runs static/sweep-worker.js with it under
// Node as a Web Worker runs it (testdata/harness.js), posts requests and
// returns the replies.
func runWorker(t *testing.T, requests string, files ...string) []reply {
	t.Helper()
	node, dir := workerDir(t, files...)
	reqs := filepath.Join(dir, "requests.json")
	if err := os.WriteFile(reqs, []byte(requests), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(node, "testdata/harness.js", dir, reqs)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("worker: %v\n%s\n%s", err, out, stderr.String())
	}
	var rs []reply
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r reply
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%v: %s", err, sc.Text())
		}
		rs = append(rs, r)
	}
	return rs
}

// The worker, as the page runs it, sweeps progressively and its rows
// equal the engine's numbers for the same configurations; a cancel stops
// a sweep; two workers sharing a sweep each run their half. The sweep
// that is cancelled records a new 1,024-token stream, so it is still
// running when the cancel arrives.
func TestWorkerSweepsLikeTheEngine(t *testing.T) {
	rs := runWorker(t, `[
		{"type":"sweep","id":1,"config":{"Tokens":96,"Seed":5},"grid":{"policies":["window","h2o","full"],"budgets":[4,24],"storage":[{"bits":8,"gran":"token"},{"bits":4,"gran":"kivi"}]},"await":"done"},
		{"type":"sweep","id":2,"config":{"Tokens":96,"Seed":5},"grid":{"budgets":[4,24]},"shard":1,"shards":2,"await":"done"},
		{"type":"sweep","id":3,"config":{"Tokens":1024,"Seed":6},"grid":{"budgets":[4,24,48,96]}},
		{"type":"cancel","id":3,"await":"cancelled"}
	]`)
	base := sim.DefaultConfig()
	base.Tokens, base.Seed = 96, 5
	g := sim.Grid{Policies: []string{"window", "h2o", "full"}, Budgets: []int{4, 24}, Sink: sim.DefaultSweepSink,
		Storage: []sim.StorageVariant{{Bits: 8, Granularity: "token"}, {Bits: 4, Granularity: "kivi"}}}
	var want []sim.Row
	if err := sim.Sweep(context.Background(), base, g, nil, func(r sim.Row) error { want = append(want, r); return nil }); err != nil {
		t.Fatal(err)
	}
	var got, shard []sim.Row
	var starts, cancelled, dones int
	for _, r := range rs {
		switch {
		case r.Type == "row" && r.ID == 1:
			got = append(got, *r.Row)
		case r.Type == "row" && r.ID == 2:
			shard = append(shard, *r.Row)
		case r.Type == "start":
			starts++
			if r.ID == 1 && (r.Total != len(want) || len(r.Points) != len(want) || r.Points[3].Policy != want[3].Policy) {
				t.Errorf("start: %d points %+v, want %d", r.Total, r.Points, len(want))
			}
		case r.Type == "cancelled" && r.ID == 3:
			cancelled++
		case r.Type == "done":
			dones++
		}
	}
	if len(got) != len(want) {
		t.Fatalf("the worker sent %d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: worker %+v\nengine %+v", i, got[i], want[i])
		}
	}
	if starts != 3 || dones != 2 || cancelled != 1 {
		t.Errorf("%d starts, %d done, %d cancelled; want 3, 2, 1", starts, dones, cancelled)
	}
	ps2, err := sim.Grid{Budgets: []int{4, 24}, Sink: sim.DefaultSweepSink}.Points(base)
	if err != nil {
		t.Fatal(err)
	}
	mine := map[int]bool{}
	for _, i := range sim.Shares(ps2, 2)[1] {
		mine[i] = true
	}
	for _, r := range shard {
		if !mine[r.Index] {
			t.Errorf("shard 1 of 2 ran point %d", r.Index)
		}
	}
	if len(shard) == 0 {
		t.Error("the shard sent no rows")
	}
}

// In real-model mode the worker loads the model the page names, sweeps
// with it, and draws the attention-sinks figure, with the engine's
// numbers.
func TestWorkerModelMode(t *testing.T) {
	const path = "../../../shared/models/stories260K.gguf"
	b, err := os.ReadFile(path)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip("no model:", err)
	}
	rs := runWorker(t, `[
		{"type":"model","id":4,"url":"stories260K.gguf","await":"model"},
		{"type":"sweep","id":5,"model":true,"text":"Once upon a time","maxTokens":40,"grid":{"policies":["window","h2o"],"budgets":[8]},"await":"done"},
		{"type":"sinks","id":6,"text":"Once upon a time","maxTokens":64,"budget":16,"sink":4,"await":"sinks"}
	]`, path)
	m, err := model.Load(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var want []sim.Row
	g := sim.Grid{Policies: []string{"window", "h2o"}, Budgets: []int{8}, Sink: sim.DefaultSweepSink}
	if err := sim.ModelSweep(context.Background(), m, sim.DefaultConfig(), "Once upon a time", 40, false, g, func(r sim.Row) error { want = append(want, r); return nil }); err != nil {
		t.Fatal(err)
	}
	_, curves, err := sim.SinkFigure(m, sim.DefaultConfig(), "Once upon a time", 64, 16, 4, false)
	if err != nil {
		t.Fatal(err)
	}
	var got []sim.Row
	sinks := false
	for _, r := range rs {
		switch r.Type {
		case "model":
			if r.Layers != m.Config.Layers {
				t.Errorf("model reply %+v", r)
			}
		case "row":
			got = append(got, *r.Row)
		case "sinks":
			sinks = true
			if len(r.Curves) != 3 || len(r.Tokens) != 64 {
				t.Fatalf("sinks reply: %d curves, %d tokens", len(r.Curves), len(r.Tokens))
			}
			for i, c := range r.Curves {
				if c.Label != curves[i].Label || len(c.NLL) != len(curves[i].NLL) {
					t.Fatalf("curve %d: %s, %d points", i, c.Label, len(c.NLL))
				}
				// The figure's log-sum-exp calls math.Exp and math.Log,
				// whose amd64 assembly and portable Go (WebAssembly)
				// differ in the last bits: equal to 1e-12 across them.
				for j := range c.NLL {
					if d := c.NLL[j] - curves[i].NLL[j]; d > 1e-12*max(1, c.NLL[j]) || -d > 1e-12*max(1, c.NLL[j]) {
						t.Fatalf("curve %s at %d: worker %v, engine %v", c.Label, j, c.NLL[j], curves[i].NLL[j])
					}
				}
			}
		}
	}
	if !sinks || len(got) != len(want) {
		t.Fatalf("%d rows (want %d), sinks figure %v", len(got), len(want), sinks)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: worker %+v\nengine %+v", i, got[i], want[i])
		}
	}
}

// The chart draws a sweep as the page will (static/chart.js under Node
// with a minimal DOM): a curve per policy, a point per row labelled with
// the engine's numbers, the current setting highlighted, clicks picking a
// setting (testdata/chart_test.js).
func TestChart(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found")
	}
	base := sim.DefaultConfig()
	base.Tokens = 64
	g := sim.Grid{Budgets: []int{4, 16, 64}, Sink: 4, Storage: []sim.StorageVariant{{Bits: 8, Granularity: "token"}, {Bits: 2, Granularity: "kivi"}}}
	var rows []sim.Row
	if err := sim.Sweep(context.Background(), base, g, nil, func(r sim.Row) error { rows = append(rows, r); return nil }); err != nil {
		t.Fatal(err)
	}
	model := []sim.Row{
		{Index: 0, Policy: "window", Recent: 8, Bits: 32, Granularity: "token", Bytes: 10880, FullBytes: 64000, Ratio: 5.9, Mass: 0.5, Top1: 0.86, NextKL: 0.14, PPL: 1.85, PPLFull: 1.58},
		{Index: 1, Policy: "window", Recent: 64, Bits: 32, Granularity: "token", Bytes: 40000, FullBytes: 64000, Ratio: 1.6, Mass: 0.9, Top1: 0.98, NextKL: 0.01, PPL: 1.6, PPLFull: 1.58},
	}
	dir := t.TempDir()
	// The catalog the page hands the chart (view.Catalogue, as
	// window.kvscope.catalog() returns it).
	var catalog any
	if err := json.Unmarshal([]byte(view.Catalogue().JSON()), &catalog); err != nil {
		t.Fatal(err)
	}
	files := map[string]any{"rows.json": rows, "model.json": model, "catalog.json": catalog}
	for name, v := range files {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	chart, err := filepath.Abs("../../static/chart.js")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(node, "testdata/chart_test.js", chart, filepath.Join(dir, "rows.json"), filepath.Join(dir, "model.json"), filepath.Join(dir, "catalog.json")).CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("ok")) {
		t.Fatalf("chart: %v\n%s", err, out)
	}
}

// The page's real model decodes in the worker: frames sent as it steps
// towards the goals the page sets, at the layer the page shows, rebuild
// every step's snapshot exactly as the run gives it on this side, bit for
// bit (the same numbers whichever thread decodes).
func TestWorkerDecodesForThePage(t *testing.T) {
	const path = "../../../shared/models/stories260K.gguf"
	b, err := os.ReadFile(path)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip("no model:", err)
	}
	set := session.Settings{Config: sim.DefaultConfig(), Text: "Once upon a time", MaxTokens: 64}
	set.Config.Policy, set.Config.Recent, set.Config.Sink, set.Config.Bits = "h2o", 12, 2, 8
	open, _ := json.Marshal(map[string]any{"type": "open", "id": 9, "settings": set, "goal": 20, "layer": 0, "await": "frame"})
	rs := runWorker(t, `[
		{"type":"model","id":4,"url":"stories260K.gguf","await":"model"},
		`+string(open)+`,
		{"type":"layer","id":9,"layer":2},
		{"type":"goal","id":8,"goal":64},
		{"type":"goal","id":9,"goal":40,"await":"frame","awaitStep":40}
	]`, path)
	m, err := model.Load(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	direct, err := sim.NewModelRun(m, set.Config, set.Text, set.MaxTokens, set.Repos)
	if err != nil {
		t.Fatal(err)
	}
	var rc session.Receiver
	frames, layers := 0, map[int]bool{}
	for _, r := range rs {
		if r.Type != "frame" {
			continue
		}
		f, err := rc.Receive(r.Data)
		if err != nil {
			t.Fatalf("frame %d: %v", frames, err)
		}
		frames++
		for direct.Pos() < f.Snap.Step {
			direct.Step()
		}
		want := direct.Snapshot(f.Snap.Layer)
		layers[f.Snap.Layer] = true
		if f.ID != 9 || f.Snap.Step != want.Step || !slices.Equal(f.Snap.Cells, want.Cells[:want.Heads*want.Step]) ||
			f.Snap.Metrics != want.Metrics || f.Snap.Text.Compressed != want.Text.Compressed || !slices.Equal(f.Snap.History, want.History) {
			t.Fatalf("frame %d (run %d, step %d, layer %d) differs from the run's own snapshot", frames, f.ID, f.Snap.Step, f.Snap.Layer)
		}
	}
	// The stale run's goal (id 8) moved nothing: the last frame stops at 40.
	if frames == 0 || direct.Pos() != 40 || !layers[2] {
		t.Fatalf("%d frames, the last at step %d, layers %v; want the goal 40 reached at layer 2", frames, direct.Pos(), layers)
	}
}
