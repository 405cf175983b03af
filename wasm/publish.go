//go:build js && wasm

package main

import (
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"strconv"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/viz/view"
)

func (a *app) publish() {
	ps := view.PageState{Ready: a.ready, Step: a.pos(), Tokens: a.runTotal, Playing: a.st.Playing, Compare: a.showB(),
		Frames: a.frames, Version: a.version, Scale: a.scale, Broken: a.broken, ScaleTxt: a.pg.scales[0].last,
		UpdMs: a.updMs, DrawMs: a.drawMs, Replay: a.replaying(),
		Mode: a.st.Mode, Model: a.publicModel(), Text: a.publicText(), StepsPerS: a.decode.PerSecond(), RunPrompt: a.runPrompt,
		Lesson: a.publicLesson(), Breaks: a.publicBreaks()}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	ps.GCs, ps.GCMs, ps.HeapMB = ms.NumGC, float64(ms.PauseTotalNs)/1e6, float64(ms.HeapAlloc)/(1<<20)
	ps.Kernels = model.KernelPath()
	s := a.st
	s.At = a.cur()
	ps.URL = view.Encode(&s)
	for _, n := range a.notices {
		ps.Notices = append(ps.Notices, n.String())
	}
	for i := 0; i < a.active(); i++ {
		sd := &a.sides[i]
		if sd.snap == nil {
			continue
		}
		sn := sd.snap
		p := view.PageSide{Config: *a.engConfig(i), Step: sn.Step, Name: a.pg.names[i].last, Kept: view.KeptPerHead(sn), Full: sn.FullBytes, Evict: sn.EvictBytes,
			Stored: sn.Mem.Total(), Metrics: sn.Metrics, Probes: map[string]view.Probe{}, Roles: map[string]int{}, Storages: map[string]int{}}
		if a.scale > 0 {
			p.CellCSS = sd.grid.CellW / a.scale
		}
		_, p.Columns, _ = sd.grid.Columns()
		for j := range sn.Cells[:sn.Heads*sn.Step] {
			c := &sn.Cells[j]
			p.Roles[c.Role.String()]++
			if c.Role != sim.Evicted && c.Role != sim.Future && int(c.Storage) < len(view.StorageNames) {
				p.Storages[view.StorageNames[c.Storage]]++
			}
		}
		a.probes(sd, p.Probes)
		p.Metrics = sanitize(p.Metrics)
		p.Mean = sanitize(sim.MeanMetrics(sn.History))
		p.Measures = view.MeasuresOf(p.Mean)
		ps.Sides = append(ps.Sides, p)
	}
	sr := sweepRequest{Config: *a.engConfig(0), Model: a.st.ModelMode(), Text: a.st.Text, MaxTokens: a.st.MaxTok, Repos: a.st.Repos, ModelName: a.mdl.sha256}
	if !sr.Model {
		sr.Config = a.st.A
	} else {
		sr.MaxTokens = a.chartTokens()
		g := sim.ModelChartGrid(sr.MaxTokens)
		g.Storage = []sim.StorageVariant{{Bits: sr.Config.Bits, Granularity: sr.Config.Granularity}}
		sr.Grid = &g
	}
	// The request changes only when settings are applied or a model loads:
	// serialize it then, not at every publish.
	same := sr
	same.Grid = nil // a function of the rest
	if same != a.lastSweep {
		a.lastSweep = same
		sk := sr.Config
		sk.Policy, sk.Sink, sk.Recent, sk.Heavy, sk.Bits, sk.Granularity, sk.Shared, sk.DropShare = "", 0, 0, 0, 0, "", false, 0
		if kb, err := json.Marshal(sk); err == nil {
			sr.Key = fmt.Sprintf("%s|%v|%s|%d|%v|%s", kb, sr.Model, sr.Text, sr.MaxTokens, sr.Repos, sr.ModelName)
		}
		if sb, err := json.Marshal(sr); err == nil {
			a.sweepBase.Store(string(sb))
		}
	}
	b, err := json.Marshal(ps)
	if err != nil {
		b = []byte(`{"error":` + strconv.Quote(err.Error()) + `}`)
	}
	a.public.Store(string(b))
}

func sanitize(m sim.Metrics) sim.Metrics {
	f := func(v float64) float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return -1
		}
		return v
	}
	return sim.Metrics{KErr: f(m.KErr), VErr: f(m.VErr), OutErr: f(m.OutErr), Mass: f(m.Mass), KL: f(m.KL), Bias: f(m.Bias)}
}

// probes finds, for each role, a visible cell drawn alone in its column,
// away from the markers and the hovered cell, and records where it is.
func (a *app) probes(sd *side, out map[string]view.Probe) {
	g, s := &sd.grid, sd.snap
	if g.Bin != 1 || g.CellW < 2 || g.CellH < 3 {
		return
	}
	first, n, _ := g.Columns()
	for p := first; p < first+n && p < s.Step; p++ {
		if p == s.Prompt || p == s.Prompt-1 || p >= s.Step-1 || p == first {
			continue
		}
		for h := 0; h < s.Heads; h++ {
			c := s.Cell(h, p)
			name := c.Role.String()
			if _, done := out[name]; done || c.Role == sim.Future {
				continue
			}
			if a.hover.valid && a.hover.pos == p {
				continue
			}
			x, y, ok := g.CellCenter(h, p)
			if !ok {
				continue
			}
			r, gg, b := view.CellColor(c, s.Step).RGB8()
			cx, cy := a.css(x, y)
			out[name] = view.Probe{X: cx, Y: cy, Head: h, Pos: p, RGB: [3]uint8{r, gg, b}}
		}
	}
}

// chartTokens is the real-model chart's text length and what it was
// chosen for.
type chartTokens struct {
	model  string // the model's sha256
	maxTok int    // the page's run length
	n      int    // the length chosen; 0 before the decode rate is known
}

// chartWorkers is how many of the chart's workers (static/panels.js's
// pool: one a core, up to four) can run at once beside the page: one core
// stays the page's, which draws and, in a browser drawing WebGL in
// software, shares it with the GPU process.
func chartWorkers() int {
	n := window.Get("navigator").Get("hardwareConcurrency").Int()
	return max(1, min(4, n-1))
}

// chartTokens returns the real-model chart's text length
// (sim.ModelChartTokens for about a minute's work), chosen once the
// model's decode rate is known and then kept for this model and run
// length, so the chart is not swept again as the rate moves. Before the
// rate is known it is at most 64 tokens.
func (a *app) chartTokens() int {
	maxTok := a.st.MaxTok
	if m := a.mdl.m; m != nil {
		maxTok = min(maxTok, m.Config.ContextLength)
	}
	c := &a.chartTok
	if c.model != a.mdl.sha256 || c.maxTok != maxTok {
		*c = chartTokens{model: a.mdl.sha256, maxTok: maxTok}
	}
	if c.n == 0 {
		if r := a.decode.PerSecond(); r > 0 {
			c.n = sim.ModelChartTokens(maxTok, r, chartWorkers(), 60)
		} else {
			return min(maxTok, 64)
		}
	}
	return c.n
}
