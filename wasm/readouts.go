//go:build js && wasm

package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/viz/view"
)

// writeDOM writes every number the page shows as text.
func (a *app) writeDOM() {
	pg := &a.pg
	pos := a.pos()
	switch {
	case a.replaying() && a.replayTo > a.runPrompt:
		pg.stepInfo.set(fmt.Sprintf("catching up: step %d of %d", pos, a.replayTo))
	case a.active() == 0 && a.st.ModelMode():
		pg.stepInfo.set("waiting for the model")
	default:
		pg.stepInfo.set(fmt.Sprintf("step %d / %d", pos, a.runTotal))
	}
	m := view.FindModel(a.st.Model)
	for i := 0; i < a.active(); i++ {
		sd := &a.sides[i]
		s := sd.snap
		if s == nil {
			continue
		}
		c := a.engConfig(i)
		pg.names[i].set(view.ConfigName(c))
		if sd.grid.CellW > 0 { // placed by a drawn frame
			first, n, bin := sd.grid.Columns()
			last := min(first+n*bin, s.Step) - 1
			follow := "following the newest token"
			if sd.vp.Free {
				follow = "scrolled back — Follow resumes"
			}
			pg.axes[i].set(fmt.Sprintf("positions %d–%d of %d · %s px per token · %s · layer %d of %d · rows: KV heads",
				first, max(last, first), s.Step, view.Sig(sd.grid.CellW/a.scale, 2), follow, s.Layer, s.Layers))
		}
		pg.memLabels[i][0].set("FP16 history " + view.Bytes(float64(s.FullBytes)))
		pg.memLabels[i][1].set("after eviction " + view.Bytes(float64(s.EvictBytes)))
		pg.memLabels[i][2].set("stored " + view.Bytes(float64(s.Mem.Total())))
		mr := fmt.Sprintf("%s · keeps %s of %d tokens per head",
			view.Saving(float64(s.FullBytes), float64(s.Mem.Total())), view.Sig(view.KeptPerHead(s), 3), s.Step)
		if s.Attended > 0 && s.Attended < view.KeptPerHead(s) { // a policy that selects what each query reads (Quest)
			mr += fmt.Sprintf(" · each query reads %s of them: %s selects, it saves attention work, not memory", view.Sig(s.Attended, 3), view.PolicyName(c.Policy))
		}
		if t := s.Text; t != nil && t.ZipFed > 0 {
			mr += fmt.Sprintf(" · KVzip scored the prompt by having the model repeat it: %d more positions read, %s", t.ZipFed, view.Seconds(t.ZipTime.Seconds()))
		}
		pg.memRatio[i].set(mr)
		pg.scales[i].set(view.ScaleText(c.ProjectSnapshot(s, m, a.st.Context), sideTag(i, a.showB())))
		mean := sim.MeanMetrics(s.History)
		for k := range pg.metricVals[i] {
			now, run := "–", "–"
			if a.st.Measured() {
				now = view.Metric(k).Format(view.Metric(k).Value(&s.Metrics))
				run = view.Metric(k).Format(view.Metric(k).Value(&mean))
			}
			pg.metricVals[i][k].set(now)
			pg.metricRuns[i][k].set(run)
		}
		a.rowLabels(i)
	}
	a.writePictures()
	a.writeHeads()
	a.writeTexts()
	a.writeModelStatus()
	a.tooltip()
	if a.summaryAt < 0 || (a.st.Playing && pos-a.summaryAt >= 128) || (!a.st.Playing && pos != a.summaryAt) {
		a.summaryAt = pos
		pg.summary.set(a.summaryText())
	}
	// markReady publishes the first state itself.
	if a.ready && (!a.st.Playing || a.frames%10 == 0) {
		a.publish()
	}
}

func sideTag(i int, compare bool) string {
	if !compare {
		return ""
	}
	return [2]string{"A: ", "B: "}[i]
}

func (a *app) summaryText() string {
	var b strings.Builder
	state := "paused"
	if a.st.Playing {
		state = "playing"
	}
	fmt.Fprintf(&b, "Step %d of %d, %s. ", a.pos(), a.runTotal, state)
	for i := 0; i < a.active(); i++ {
		s := a.sides[i].snap
		if s == nil {
			continue
		}
		fmt.Fprintf(&b, "%s%s: keeps %s of %d tokens per head; memory %s of %s FP16 (%s)",
			sideTag(i, a.showB()), view.ConfigName(a.engConfig(i)), view.Sig(view.KeptPerHead(s), 3), s.Step,
			view.Bytes(float64(s.Mem.Total())), view.Bytes(float64(s.FullBytes)), view.Saving(float64(s.FullBytes), float64(s.Mem.Total())))
		if a.st.Measured() {
			fmt.Fprintf(&b, "; attention mass kept %s; output error %s", view.Percent(s.Metrics.Mass), view.Percent(s.Metrics.OutErr))
		}
		b.WriteString(". ")
		if t := s.Text; t != nil {
			if t.Diverge < 0 {
				b.WriteString("The two texts are identical so far. ")
			} else {
				fmt.Fprintf(&b, "The compressed cache's text differs from position %d; top-1 agreement %s. ", t.Diverge, view.Percent(t.Agreement))
			}
		}
	}
	return b.String()
}

// rowLabels writes the head labels beside side i's map when its geometry changes.
func (a *app) rowLabels(i int) {
	g := &a.sides[i].grid
	key := fmt.Sprintf("%d/%.2f/%.1f", g.Heads, g.CellH, g.Area.Y)
	if key == a.pg.rowsKey[i] || a.scale <= 0 || g.CellH <= 0 || g.Heads <= 0 {
		return
	}
	a.pg.rowsKey[i] = key
	rowCSS := g.CellH / a.scale
	every := 1
	for rowCSS*float64(every) < 12 {
		every *= 2
	}
	var b strings.Builder
	for h := 0; h < g.Heads; h += every {
		fmt.Fprintf(&b, `<span style="top:%.1fpx">h%d</span>`, (float64(h)+0.5)*rowCSS, h)
	}
	byID("rows-"+strconv.Itoa(i)).Set("innerHTML", b.String())
}
