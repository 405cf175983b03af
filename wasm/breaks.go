//go:build js && wasm

package main

import (
	"fmt"
	"html"
	"strings"
	"syscall/js"
	"time"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/viz/view"
)

// What compression breaks (real-model mode): a recall task scored by
// teacher-forced log-probability, over needle depths × cache budgets for
// the chosen policy and the page's storage — the needle-in-a-haystack
// figure. The rows are dealt out to the decoding workers
// (wasm/worker/decode.go), which score them beside the run they decode and
// send each cell as it completes, so the heatmap fills in while the page
// keeps drawing.

// breaksDepths and breaksBudgets are the heatmap's rows and columns.
var (
	breaksDepths  = []float64{0, 0.25, 0.5, 0.75, 1}
	breaksBudgets = []int{8, 16, 32, 64, 128}
)

// breaksLengths are the task lengths the heatmap chooses from (tokens,
// longest first): the longest whose estimated time fits breaksTarget.
var breaksLengths = []int{256, 192, 128, 96, 64}

// breaksTarget is the time the heatmap aims to finish in.
const breaksTarget = 40 * time.Second

// breaksState is the running or finished task heatmap.
type breaksState struct {
	task    string
	policy  string
	length  int            // the task instance's tokens
	workers int            // workers scoring rows
	cells   []sim.TaskCell // row-major: depth × budget; Done when measured
	done    int
	ids     [2]int // each worker's request id (0: none)
	written int    // cells written to the DOM
	err     string
	started time.Time
	ms      float64 // time to fill the heatmap, once done
}

// breaksLength chooses the task length: the longest of breaksLengths
// whose forward passes (a row is the full cache's pass and one a budget)
// fit breaksTarget at rate decoder steps a second (3 forward passes
// each) over workers, and that the task fits in; 0 when none does.
func breaksLength(m *model.Model, task string, rate float64, workers int) int {
	rows := (len(breaksDepths) + workers - 1) / workers
	best := 0
	for _, n := range breaksLengths {
		if n > m.Config.ContextLength {
			continue
		}
		if _, err := sim.BuildTask(m.Tokenizer, m.Config.ContextLength, sim.TaskSpec{Kind: task, Seed: 1, Length: n}); err != nil {
			continue
		}
		best = n // the shortest that builds, if none fits the time
		passes := float64(rows * (len(breaksBudgets) + 1) * n)
		if rate <= 0 || passes/(3*rate) <= breaksTarget.Seconds() {
			return n
		}
	}
	return best
}

// startBreaks starts the heatmap of task for policy, at the storage of the
// model run shown; it needs a loaded model.
func (a *app) startBreaks(task, policy string) {
	b := &a.breaks
	for i, id := range b.ids {
		if id != 0 {
			a.decodeWorker(i).send("tasks", map[string]any{"id": id}) // stop the rows still running
		}
	}
	*b = breaksState{task: task, policy: policy}
	m := a.mdl.m
	if m == nil {
		b.err = "load a model first"
		a.writeBreaks()
		return
	}
	cfg := *a.engConfig(0)
	cfg.Policy = policy
	b.workers = max(1, min(2, js.Global().Get("navigator").Get("hardwareConcurrency").Int()))
	b.length = breaksLength(m, task, a.decode.PerSecond(), b.workers)
	if b.length == 0 {
		b.err = fmt.Sprintf("the %s task does not fit this model's context", task)
		a.writeBreaks()
		return
	}
	b.cells = make([]sim.TaskCell, len(breaksDepths)*len(breaksBudgets))
	for i := range b.cells {
		b.cells[i].Depth, b.cells[i].Budget = breaksDepths[i/len(breaksBudgets)], breaksBudgets[i%len(breaksBudgets)]
	}
	for i := range b.workers {
		var rows []float64
		for r := i; r < len(breaksDepths); r += b.workers {
			rows = append(rows, breaksDepths[r])
		}
		d := a.decodeWorker(i)
		d.sendModel(m, a.mdl.raw)
		d.nextID += 2
		b.ids[i] = d.nextID
		d.send("tasks", map[string]any{"id": d.nextID, "tasks": map[string]any{
			"config": cfg, "task": task, "length": b.length, "depths": rows, "budgets": breaksBudgets}})
	}
	b.started = time.Now()
	a.writeBreaks()
}

// onTaskCell takes in a heatmap cell a worker measured for request id.
func (a *app) onTaskCell(id int, c sim.TaskCell) {
	b := &a.breaks
	if !b.mine(id) {
		return
	}
	for i := range b.cells {
		if b.cells[i].Depth == c.Depth && b.cells[i].Budget == c.Budget && !b.cells[i].Done {
			b.cells[i] = c
			b.cells[i].Done = true
			b.done++
			break
		}
	}
	if b.done == len(b.cells) && b.ms == 0 {
		b.ms = float64(time.Since(b.started).Milliseconds())
	}
	a.writeBreaks()
}

// onTasksError reports a heatmap request a worker could not run.
func (a *app) onTasksError(id int, msg string) bool {
	if !a.breaks.mine(id) {
		return false
	}
	a.breaks.err = msg
	a.writeBreaks()
	return true
}

// mine reports whether id is one of the heatmap's requests.
func (b *breaksState) mine(id int) bool { return id != 0 && (id == b.ids[0] || id == b.ids[1]) }

// writeBreaks draws the heatmap: a row per depth, a column per budget,
// each cell coloured by how much of the full cache's score it keeps (its
// log-probability against the full cache's, per token).
func (a *app) writeBreaks() {
	b := &a.breaks
	el := byID("breaks-map")
	if !el.Truthy() {
		return
	}
	var s strings.Builder
	status := ""
	switch {
	case b.err != "":
		status = "could not run: " + b.err
	case b.cells == nil:
	case b.done < len(b.cells):
		status = fmt.Sprintf("%d of %d cells (a %d-token story, %d workers, %.0f s so far)…", b.done, len(b.cells), b.length, b.workers, time.Since(b.started).Seconds())
	default:
		status = fmt.Sprintf("%d cells of a %d-token story in %.1f s, in %d workers beside the decoding", len(b.cells), b.length, b.ms/1000, b.workers)
	}
	byID("breaks-status").Set("textContent", status)
	if b.cells == nil {
		el.Set("innerHTML", "")
		return
	}
	cells := b.cells
	b.written = b.done
	s.WriteString(`<table class="hm"><thead><tr><th scope="col">needle depth ↓ · budget →</th>`)
	for _, bud := range breaksBudgets {
		fmt.Fprintf(&s, `<th scope="col">%d</th>`, bud)
	}
	s.WriteString(`<th scope="col">full cache</th></tr></thead><tbody>`)
	for di, d := range breaksDepths {
		fmt.Fprintf(&s, `<tr><th scope="row">%s</th>`, view.Percent(d))
		var full *sim.TaskScore
		for bi := range breaksBudgets {
			c := cells[di*len(breaksBudgets)+bi]
			if !c.Done {
				s.WriteString(`<td class="wait">…</td>`)
				continue
			}
			full = &c.Full
			// Keeps: the cell's score against the full cache's, in nats per
			// token: 0 is as good as the full cache; −1 nat or worse is red.
			lost := c.Full.LogProb - c.Score.LogProb
			t := min(1, max(0, lost))
			kept, gone := view.RoleColor(sim.Recent), view.RoleColor(sim.Evicted)
			col := view.RGBA{R: kept.R + (gone.R-kept.R)*float32(t), G: kept.G + (gone.G-kept.G)*float32(t), B: kept.B + (gone.B-kept.B)*float32(t), A: 1}.Hex()
			fmt.Fprintf(&s, `<td style="background:%s" title="%s at depth %s, %d tokens per head: %s nats per token (full cache %s), top-1 %s">%s</td>`,
				col, html.EscapeString(b.policy), view.Percent(d), c.Budget, view.Sig(c.Score.LogProb, 3), view.Sig(c.Full.LogProb, 3), view.Percent(c.Score.Top1), view.Sig(c.Score.LogProb, 3))
		}
		if full != nil {
			fmt.Fprintf(&s, `<td class="ref">%s</td>`, view.Sig(full.LogProb, 3))
		} else {
			s.WriteString(`<td class="wait">…</td>`)
		}
		s.WriteString(`</tr>`)
	}
	s.WriteString(`</tbody></table>`)
	el.Set("innerHTML", s.String())
}

// publicBreaks is the heatmap's progress for window.kvscope.state().
func (a *app) publicBreaks() *view.PageBreaks {
	b := &a.breaks
	if b.cells == nil && b.err == "" {
		return nil
	}
	p := &view.PageBreaks{Task: b.task, Policy: b.policy, Err: b.err}
	if b.cells != nil {
		p.Done, p.Len = b.done, len(b.cells)
		for _, c := range b.cells {
			if c.Done {
				p.Cells = append(p.Cells, view.BreaksCell{Depth: c.Depth, Budget: c.Budget, Score: c.Score.LogProb, Full: c.Full.LogProb})
			}
		}
	}
	return p
}
