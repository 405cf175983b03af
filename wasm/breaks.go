//go:build js && wasm

package main

import (
	"fmt"
	"html"
	"strings"
	"time"

	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/viz/view"
)

// What compression breaks (real-model mode): a recall task scored by
// teacher-forced log-probability, over needle depths × cache budgets for
// the chosen policy and the page's storage — the needle-in-a-haystack
// figure. The sweep runs a slice of each frame (sim.TaskSweep.Next with a
// chunk of tokens), so the heatmap fills in while the page keeps drawing.

// breaksDepths and breaksBudgets are the heatmap's rows and columns.
var (
	breaksDepths  = []float64{0, 0.25, 0.5, 0.75, 1}
	breaksBudgets = []int{8, 16, 32, 64, 128}
)

// breaksState is the running or finished task heatmap.
type breaksState struct {
	sw      *sim.TaskSweep
	task    string
	policy  string
	written int // cells written to the DOM
	err     string
	started time.Time
	ms      float64 // time to fill the heatmap, once done
}

// startBreaks starts the heatmap of task for policy, at the storage of the
// model run shown; it needs a loaded model.
func (a *app) startBreaks(task, policy string) {
	b := &a.breaks
	*b = breaksState{task: task, policy: policy}
	m := a.mdl.m
	if m == nil {
		b.err = "load a model first"
		a.writeBreaks()
		return
	}
	cfg := *a.engConfig(0)
	cfg.Policy = policy
	sw, err := sim.NewTaskHeatmap(m, cfg, sim.TaskSpec{Kind: task, Seed: 1, Length: min(256, m.Config.ContextLength)}, breaksDepths, breaksBudgets, false)
	if err != nil {
		b.err = err.Error()
		a.writeBreaks()
		return
	}
	sw.SetChunk(16)
	b.sw, b.started = sw, time.Now()
	a.writeBreaks()
}

// breaksTick does up to budget of the heatmap's work and writes what is new.
func (a *app) breaksTick(budget time.Duration) {
	b := &a.breaks
	if b.sw == nil || b.sw.Done() >= b.sw.Len() || b.err != "" {
		return
	}
	t0 := time.Now()
	for time.Since(t0) < budget && b.sw.Next() {
	}
	if err := b.sw.Err(); err != nil {
		b.err = err.Error()
	}
	if b.sw.Done() >= b.sw.Len() && b.ms == 0 {
		b.ms = float64(time.Since(b.started).Milliseconds())
	}
	if b.sw.Done() != b.written || b.err != "" {
		a.writeBreaks()
	}
}

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
	case b.sw.Done() < b.sw.Len():
		status = fmt.Sprintf("%d of %d cells…", b.sw.Done(), b.sw.Len())
	default:
		status = fmt.Sprintf("%d cells in %.1f s, a slice of each frame", b.sw.Len(), b.ms/1000)
	}
	byID("breaks-status").Set("textContent", status)
	if b.sw == nil {
		el.Set("innerHTML", "")
		return
	}
	cells := b.sw.Cells()
	b.written = b.sw.Done()
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
	if b.sw == nil && b.err == "" {
		return nil
	}
	p := &view.PageBreaks{Task: b.task, Policy: b.policy, Err: b.err}
	if b.sw != nil {
		p.Done, p.Len = b.sw.Done(), b.sw.Len()
		for _, c := range b.sw.Cells() {
			if c.Done {
				p.Cells = append(p.Cells, view.BreaksCell{Depth: c.Depth, Budget: c.Budget, Score: c.Score.LogProb, Full: c.Full.LogProb})
			}
		}
	}
	return p
}
