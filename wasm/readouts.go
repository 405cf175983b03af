//go:build js && wasm

package main

import (
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"syscall/js"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/viz/view"
)

// configName is a one-line description of a configuration's eviction and
// storage that says what each head really keeps.
func configName(c *sim.Config) string {
	return view.PolicyName(c.Policy) + " · " + view.BudgetText(c) + " · " + storageName(c)
}

func storageName(c *sim.Config) string {
	var s string
	switch {
	case c.Bits >= 32:
		s = "float32"
	case c.Bits == 16:
		s = "FP16"
	default:
		s = "INT" + strconv.Itoa(c.Bits) + " per " + c.Granularity
		if c.Granularity == "kivi" {
			s = "INT" + strconv.Itoa(c.Bits) + " KIVI"
		}
		if c.Residual > 0 {
			s += ", FP16 residual " + strconv.Itoa(c.Residual)
		}
	}
	if c.Rank > 0 {
		s += ", rank " + strconv.Itoa(c.Rank)
	}
	return s
}

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
		pg.names[i].set(configName(c))
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
		if c.Policy == "quest" && s.Attended > 0 {
			mr += fmt.Sprintf(" · each query reads %s of them: Quest selects pages, it saves attention work, not memory", view.Sig(s.Attended, 3))
		}
		pg.memRatio[i].set(mr)
		sc := view.ScaleTo(s, c, m, a.st.Context)
		pg.scales[i].set(fmt.Sprintf("%s%s at %s tokens: %s → %s after eviction → %s stored (%s)",
			sideTag(i, a.showB()), m.Name, ctxName(a.st.Context), view.Bytes(sc.Full), view.Bytes(sc.Evicted), view.Bytes(sc.Stored),
			view.Ratio(sc.Full, sc.Stored)))
		mt := &s.Metrics
		vals := [view.NumMetrics]string{
			view.Percent(mt.KErr), view.Percent(mt.VErr), view.Percent(mt.OutErr), view.Percent(mt.Mass), view.Nats(mt.KL),
		}
		if !a.st.Measured() {
			vals = [view.NumMetrics]string{"–", "–", "–", "–", "–"}
		}
		for k := range vals {
			pg.metricVals[i][k].set(vals[k])
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

func ctxName(n int) string {
	if n%1024 == 0 {
		if n >= 1<<20 && n%(1<<20) == 0 {
			return strconv.Itoa(n>>20) + "M"
		}
		return strconv.Itoa(n>>10) + "K"
	}
	return strconv.Itoa(n)
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
			sideTag(i, a.showB()), configName(a.engConfig(i)), view.Sig(view.KeptPerHead(s), 3), s.Step,
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

var storageNames = [...]string{sim.NotStored: "not stored", sim.Full: "FP16 (exact)", sim.Quantized: "quantized", sim.LowRank: "low rank"}

// tooltip shows the hovered cell's details beside the pointer.
func (a *app) tooltip() {
	h := &a.hover
	tip := a.pg.tooltip
	if !h.valid || h.side >= a.active() || a.sides[h.side].snap == nil {
		if a.pg.tipLast != "" {
			tip.Set("hidden", true)
			a.pg.tipLast = ""
		}
		return
	}
	s := a.sides[h.side].snap
	if h.head >= s.Heads || h.pos >= s.Step {
		return
	}
	var b strings.Builder
	if h.head < 0 {
		a.attnTip(&b, s, h.pos)
		a.showTip(b.String())
		return
	}
	c := s.Cell(h.head, h.pos)
	fmt.Fprintf(&b, "head %d · position %d", h.head, h.pos)
	if h.pos < s.Prompt {
		b.WriteString(" (prompt)")
	}
	if h.pos < len(s.Tokens) {
		if t := view.TokenText(s.Tokens[h.pos], false); t != "" {
			fmt.Fprintf(&b, " · token %q", t)
		} else {
			fmt.Fprintf(&b, " · %s", s.Tokens[h.pos])
		}
	}
	fmt.Fprintf(&b, "\nrole: %s", c.Role)
	if c.Role == sim.Evicted && c.EvictedAt >= 0 {
		fmt.Fprintf(&b, " at step %d (%d steps ago)", c.EvictedAt, s.Step-int(c.EvictedAt))
	}
	if c.Role != sim.Evicted && c.Role != sim.Future && int(c.Storage) < len(storageNames) {
		fmt.Fprintf(&b, "\nstored: %s", storageNames[c.Storage])
	}
	fmt.Fprintf(&b, "\naccumulated score: %s", view.Sig(float64(c.Score), 3))
	if a.st.ModelMode() && a.st.Repos {
		// Re-positioned keys see other positions than the full history's:
		// the two attentions are not compared.
		fmt.Fprintf(&b, "\nattention now: %s through the cache", view.Percent(float64(c.Attn)))
	} else {
		fmt.Fprintf(&b, "\nattention now: %s through the cache, %s over the full history", view.Percent(float64(c.Attn)), view.Percent(float64(c.AttnFull)))
	}
	fmt.Fprintf(&b, "\nkey quantization error: %s", view.Percent(float64(c.KErr)))
	a.showTip(b.String())
}

// attnTip describes the attention rows' column at position pos: the
// newest query's weight on it, averaged over heads, over the full history
// and through the compressed cache.
func (a *app) attnTip(b *strings.Builder, s *sim.Snapshot, pos int) {
	fmt.Fprintf(b, "position %d", pos)
	if pos < s.Prompt {
		b.WriteString(" (prompt)")
	}
	if pos < len(s.Tokens) {
		if t := view.TokenText(s.Tokens[pos], false); t != "" {
			fmt.Fprintf(b, " · token %q", t)
		}
	}
	var full, comp float64
	kept := 0
	for hd := 0; hd < s.Heads; hd++ {
		c := s.Cell(hd, pos)
		full += float64(c.AttnFull)
		comp += float64(c.Attn)
		if c.Role != sim.Evicted && c.Role != sim.Future {
			kept++
		}
	}
	n := float64(max(s.Heads, 1))
	fmt.Fprintf(b, "\nattention of the newest query, mean over %d heads:", s.Heads)
	if a.st.ModelMode() && a.st.Repos {
		fmt.Fprintf(b, "\n  through the cache %s", view.Percent(comp/n))
	} else {
		fmt.Fprintf(b, "\n  over the full history %s\n  through the cache %s", view.Percent(full/n), view.Percent(comp/n))
	}
	fmt.Fprintf(b, "\ncached by %d of %d heads", kept, s.Heads)
}

// showTip writes the tooltip's text and places it beside the pointer.
func (a *app) showTip(str string) {
	h := &a.hover
	tip := a.pg.tooltip
	if str != a.pg.tipLast {
		tip.Set("textContent", str)
		tip.Set("hidden", false)
		a.pg.tipLast = str
	}
	vw := window.Get("innerWidth").Float()
	x, y := h.x+14, h.y+14
	if x+300 > vw {
		x = h.x - 314
	}
	st := tip.Get("style")
	st.Set("left", strconv.Itoa(int(x))+"px")
	st.Set("top", strconv.Itoa(int(y))+"px")
}

func (a *app) publish() {
	ps := view.PageState{Ready: a.ready, Step: a.pos(), Tokens: a.runTotal, Playing: a.st.Playing, Compare: a.showB(),
		Frames: a.frames, Version: a.version, Scale: a.scale, Broken: a.broken, ScaleTxt: a.pg.scales[0].last,
		UpdMs: a.updMs, DrawMs: a.drawMs, Replay: a.replaying(),
		Mode: a.st.Mode, Model: a.publicModel(), Text: a.publicText(), StepsPerS: a.decode.perSecond(), RunPrompt: a.runPrompt,
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
			if c.Role != sim.Evicted && c.Role != sim.Future && int(c.Storage) < len(storageNames) {
				p.Storages[storageNames[c.Storage]]++
			}
		}
		a.probes(sd, p.Probes)
		p.Metrics = sanitize(p.Metrics)
		p.Mean = sanitize(sim.MeanMetrics(sn.History))
		ps.Sides = append(ps.Sides, p)
	}
	sr := sweepRequest{Config: *a.engConfig(0), Model: a.st.ModelMode(), Text: a.st.Text, MaxTokens: a.st.MaxTok, Repos: a.st.Repos, ModelName: a.mdl.sha256}
	if !sr.Model {
		sr.Config = a.st.A
	}
	// The request changes only when settings are applied or a model loads:
	// serialize it then, not at every publish.
	if sr != a.lastSweep {
		a.lastSweep = sr
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

// installTestAPI exposes window.kvscope: state() returns the numbers as
// JSON (see view.PageState).
func (a *app) installTestAPI() {
	kv := js.Global().Get("Object").New()
	// lesson(n) opens guided lesson n (0 closes the card).
	kv.Set("lesson", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) > 0 {
			n := args[0].Int()
			a.post(func() { a.openLesson(n) })
		}
		return nil
	}))
	// applySettings(json) applies {key: value, …} as controls would (the
	// chart's points do this); config() returns what the chart sweeps.
	kv.Set("applySettings", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) == 0 {
			return nil
		}
		var kvs map[string]any
		if err := json.Unmarshal([]byte(args[0].String()), &kvs); err != nil {
			return err.Error()
		}
		a.post(func() { a.applySettings(kvs) })
		return nil
	}))
	// modelBytes() returns a copy of the loaded model file (a Uint8Array),
	// or null: the chart's worker loads the same model.
	kv.Set("modelBytes", js.FuncOf(func(js.Value, []js.Value) any {
		raw := a.mdl.raw
		if raw == nil {
			return nil
		}
		u := js.Global().Get("Uint8Array").New(len(raw))
		js.CopyBytesToJS(u, raw)
		return u
	}))
	kv.Set("config", js.FuncOf(func(js.Value, []js.Value) any {
		if v, ok := a.sweepBase.Load().(string); ok {
			return v
		}
		return ""
	}))
	kv.Set("state", js.FuncOf(func(js.Value, []js.Value) any {
		if v, ok := a.public.Load().(string); ok {
			return v
		}
		return `{"ready":false}`
	}))
	js.Global().Set("kvscope", kv)
}
