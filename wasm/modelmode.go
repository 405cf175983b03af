//go:build js && wasm

package main

import (
	"fmt"
	"html"
	"strings"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/session"
	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/viz/view"
)

// modelKey is what a real-model engine is built from; an engine is reused
// while the key stays the same.
type modelKey struct {
	cfg    sim.Config
	text   string
	q      string
	after  bool
	maxTok int
	repos  bool
	m      *model.Model
}

// applyModel is apply for real-model mode: it (re)builds the model run
// when its settings changed and replays it to target. A model address
// other than the loaded model's starts loading that model (the loaded one
// runs meanwhile); without a model it waits. The run decodes in the
// worker (decoder.go); a configuration the model refuses comes back from
// it, is reported and the last state that ran restored (onDecodeError).
func (a *app) applyModel(next view.State, target int) {
	a.rec.cur = nil // the synthetic stream's recording is not needed here
	if a.st.Mode != next.Mode {
		a.decode = view.Rate{}
	}
	if a.mdl.wants(next.Source) {
		a.openSource(next.Source) // the model loaded so far runs until the new one is in
	}
	m := a.mdl.m
	if m == nil {
		for i := range a.sides {
			a.sides[i].eng, a.sides[i].snap, a.sides[i].mkey = nil, nil, modelKey{}
		}
		a.st, a.good = next, next
		a.mdl.pendingAt = target
		a.runTotal, a.runPrompt = next.MaxTok, 0
		a.replay(target)
		return
	}
	mc := m.Config
	if next.Layer >= mc.Layers {
		a.addNotices(view.Notice{Key: "layer", Value: fmt.Sprint(next.Layer), Msg: fmt.Sprintf("this model has %d layers; showing layer %d", mc.Layers, mc.Layers-1)})
		next.Layer = mc.Layers - 1
	}
	if strings.TrimSpace(next.Text) == "" && next.Text != a.good.Text {
		a.addNotices(view.Notice{Msg: "The document is empty; the previous one is kept."})
		next.Text = a.good.Text
	}
	doc := m.Tokenizer.Document(next.Text, next.Question)
	prompt := len(doc.IDs)
	if next.Question != "" && (next.Question != a.good.Question || a.mdl.noticed != m) {
		a.addNotices(view.Notice{Msg: view.ChatNotice(doc.Format.String(), m.Tokenizer.HasTemplate)})
	}
	maxTok, notice, ok := view.FitPrompt(prompt, next.MaxTok, mc.ContextLength)
	if !ok && (next.Text != a.good.Text || next.Question != a.good.Question || next.MaxTok != a.good.MaxTok) && a.good.ModelMode() {
		// A prompt the model cannot take: say so and keep what ran.
		a.addNotices(view.Notice{Msg: notice})
		keep := next
		keep.Text, keep.Question, keep.MaxTok = a.good.Text, a.good.Question, a.good.MaxTok
		a.applyModel(keep, target)
		a.reflect()
		return
	}
	if !ok {
		// Nothing ran before (a link with too long a prompt): the default prompt.
		a.addNotices(view.Notice{Msg: notice + " Using the default prompt instead."})
		next.Text, next.Question = view.DefaultPrompt, ""
		prompt = len(m.Tokenizer.Prompt(next.Text))
		maxTok, _, _ = view.FitPrompt(prompt, next.MaxTok, mc.ContextLength)
	} else if notice != "" && (next.Text != a.good.Text || next.Question != a.good.Question || next.MaxTok != a.good.MaxTok || a.mdl.noticed != m) {
		a.addNotices(view.Notice{Msg: notice})
	}
	a.mdl.noticed = m
	a.runPrompt = prompt
	for i := range a.sides {
		s := &a.sides[i]
		if i == 1 && !next.Compare {
			s.eng, s.snap, s.mkey = nil, nil, modelKey{}
			continue
		}
		cfg, ns := view.ModelConfig(*next.Side(i), mc.HeadDim, maxTok)
		key := modelKey{cfg: cfg, text: next.Text, q: next.Question, after: next.QAfter, maxTok: maxTok, repos: next.Repos, m: m}
		if s.eng != nil && s.mkey == key && s.eng.Pos() <= target {
			continue
		}
		if s.mkey.cfg != cfg {
			a.addNotices(ns...)
		}
		// The run builds and decodes in side i's worker (decoder.go);
		// settings it refuses come back as an error and the page returns
		// to the last ones that ran (onDecodeError).
		run := cfg
		run.Layers, run.Heads, run.KVHeads, run.HeadDim = mc.Layers, mc.Heads, mc.KVHeads, mc.HeadDim
		run.Tokens, run.Prompt = maxTok, min(a.runPrompt, maxTok)
		set := session.Settings{Config: cfg, Text: next.Text, Question: next.Question, After: next.QAfter, MaxTokens: maxTok, Repos: next.Repos}
		goal := min(max(target, a.runPrompt), maxTok)
		s.eng, s.snap, s.mkey = a.openRemote(i, m, a.mdl.raw, run, set, goal, next.Layer), nil, key
		a.goal = goal
	}
	a.keepDoc(next.Text)
	a.st, a.good = next, next
	a.runTotal = maxTok
	a.replay(target)
}

// engConfig returns the configuration side i's engine runs (for a real
// model: its shape, policy and storage), or the state's when there is none.
func (a *app) engConfig(i int) *sim.Config {
	if e := a.sides[i].eng; e != nil {
		c := e.Config()
		return &c
	}
	c := *a.st.Side(i)
	return &c
}

// layers and kvHeads are the shape of the run shown.
func (a *app) layers() int {
	if a.st.ModelMode() && a.mdl.m != nil {
		return a.mdl.m.Config.Layers
	}
	return a.st.A.Layers
}

func (a *app) kvHeads() int {
	if a.st.ModelMode() {
		if a.mdl.m != nil {
			return a.mdl.m.Config.KVHeads
		}
		return 4
	}
	return a.st.A.KVHeads
}

// reflectMode shows the controls and panels of the current mode.
func (a *app) reflectMode() {
	on := a.st.ModelMode()
	if on == a.pg.modelShown && a.pg.modeInit {
		return
	}
	a.pg.modeInit, a.pg.modelShown = true, on
	document.Get("body").Get("classList").Call("toggle", "mode-model", on)
	a.pg.textsKey = ""
	a.layoutDirty = true
}

// textPanel is the DOM of the texts and their measures.
type textPanel struct {
	diverge, nextKL, meanKL, agree *text
	divergeB                       *text // compare mode: side B's divergence
	spans, spansB                  []view.TextSpan
	lastFull, lastCp, lastCpB      string
	lastErr                        string
}

// compressedHTML writes the compressed text of snapshot s token by token,
// from the divergence on marked, into spans (reused) and returns its HTML.
func compressedHTML(spans *[]view.TextSpan, s *sim.Snapshot) string {
	*spans = view.CompressedSpans(*spans, s.Tokens, s.Prompt, s.Text.Diverge)
	var b strings.Builder
	for _, sp := range *spans {
		cls := "tok"
		if sp.Count > 1 || sp.First < s.Prompt {
			cls = "prompt"
			sp.Text = view.TailText(sp.Text, view.PromptTail)
		}
		if sp.Diff {
			cls += " diff"
		}
		fmt.Fprintf(&b, `<span class="%s" title="position %d">%s</span>`, cls, sp.First, html.EscapeString(sp.Text))
	}
	return b.String()
}

// divergeText says where a compressed text parts from the uncompressed one.
func divergeText(t *sim.TextCompare) string {
	if t.Diverge < 0 {
		return "identical so far"
	}
	return fmt.Sprintf("differs from position %d (marked)", t.Diverge)
}

// writeTexts shows the real model's texts: side A's compressed one token
// by token, from the divergence on marked, the uncompressed one with its
// continuation after the divergence marked, and in compare mode side B's
// compressed text beside them.
func (a *app) writeTexts() {
	if !a.st.ModelMode() || a.sides[0].snap == nil || a.sides[0].snap.Text == nil {
		return
	}
	s := a.sides[0].snap
	t := s.Text
	tp := &a.pg.texts
	for i := 0; i < a.active(); i++ {
		if r, ok := a.sides[i].eng.(interface{ Err() error }); ok && r.Err() != nil && r.Err().Error() != tp.lastErr {
			tp.lastErr = r.Err().Error()
			a.addNotices(view.Notice{Msg: "The model stopped: " + tp.lastErr})
		}
	}
	if t.Full != tp.lastFull || t.Compressed != tp.lastCp || a.pg.textsKey == "" {
		tp.lastFull, tp.lastCp, a.pg.textsKey = t.Full, t.Compressed, "x"
		tp.lastCpB = "" // the uncompressed text moved: write B's again too
		comp := byID("text-comp")
		comp.Set("innerHTML", compressedHTML(&tp.spans, s))
		agree, rest := view.SplitFull(t.Full, tp.spans)
		if sp := tp.spans; len(sp) > 0 && sp[0].Count > 1 && strings.HasPrefix(agree, sp[0].Text) {
			// A long prompt shows its end: the text view holds it whole.
			agree = view.TailText(sp[0].Text, view.PromptTail) + agree[len(sp[0].Text):]
		}
		var b strings.Builder
		b.WriteString(html.EscapeString(agree))
		if rest != "" {
			// Only the compressed text's changed tokens are marked; the
			// uncompressed text shows where the two part with a thin mark.
			b.WriteString(`<span class="part" title="the compressed cache's text parts from here">` + html.EscapeString(rest) + `</span>`)
		}
		full := byID("text-full")
		full.Set("innerHTML", b.String())
	}
	if sb := a.sides[1].snap; a.showB() && sb != nil && sb.Text != nil {
		if sb.Text.Compressed != tp.lastCpB {
			tp.lastCpB = sb.Text.Compressed
			el := byID("text-comp-1")
			el.Set("innerHTML", compressedHTML(&tp.spansB, sb))
		}
		tp.divergeB.set(divergeText(sb.Text))
	}
	tp.diverge.set(divergeText(t))
	tp.nextKL.set(view.Nats(t.NextKL))
	tp.meanKL.set(view.Nats(t.MeanKL))
	tp.agree.set(view.Percent(t.Agreement))
}

// minLabelCSS is the narrowest column, CSS px, that gets its token's text
// printed under the map.
const minLabelCSS = 18

// labelsKey is what the token labels under the map depend on.
type labelsKey struct {
	first, n, step, v int
	cellW, left, x    float64
}

// tokenLabels prints each visible position's token under the map when the
// columns are wide enough to read them.
func (a *app) tokenLabels() {
	sd := &a.sides[0]
	g, s := &sd.grid, sd.snap
	first, n, _ := g.Columns()
	wide := s != nil && g.Bin == 1 && a.scale > 0 && g.CellW/a.scale >= minLabelCSS
	key := labelsKey{}
	if wide {
		key = labelsKey{first: first, n: n, step: s.Step, cellW: g.CellW, left: g.Left, x: g.Area.X, v: a.version}
	}
	var b strings.Builder
	if !wide && s != nil && a.hover.valid && a.hover.side == 0 && a.hover.pos < len(s.Tokens) {
		// Columns too narrow to label: the tokens around the hovered
		// position, readable, centred under its column.
		key = labelsKey{first: a.hover.pos, n: -1, step: s.Step, cellW: g.CellW, left: g.Left, x: g.Area.X, v: a.version}
		if key == a.pg.toksKey {
			return
		}
		a.pg.toksKey = key
		x, w := g.ColumnX(a.hover.pos)
		b.WriteString(`<div class="lensrow" style="left:` + fmt.Sprintf("%.1f", (x+w/2-g.Area.X)/a.scale) + `px">`)
		for p := max(0, a.hover.pos-5); p <= min(a.hover.pos+5, s.Step-1, len(s.Tokens)-1); p++ {
			t := view.TokenText(s.Tokens[p], false)
			if t == "" {
				t = s.Tokens[p]
			}
			cls := ""
			if p == a.hover.pos {
				cls = ` class="here"`
			}
			fmt.Fprintf(&b, `<b%s>%s</b>`, cls, html.EscapeString(t))
		}
		b.WriteString(`</div>`)
		byID("toks-0").Set("innerHTML", b.String())
		return
	}
	if key == a.pg.toksKey {
		return
	}
	a.pg.toksKey = key
	if wide {
		for p := first; p < first+n && p < s.Step && p < len(s.Tokens); p++ {
			x, w := g.ColumnX(p)
			if w <= 0 {
				continue
			}
			t := view.TokenText(s.Tokens[p], false)
			if t == "" {
				t = s.Tokens[p]
			}
			fmt.Fprintf(&b, `<span style="left:%.1fpx;width:%.1fpx">%s</span>`, (x-g.Area.X)/a.scale, w/a.scale, html.EscapeString(t))
		}
	}
	byID("toks-0").Set("innerHTML", b.String())
}

// publicText is the real model's texts and measures in window.kvscope.state().
func (a *app) publicText() *view.PageText {
	if !a.st.ModelMode() || a.sides[0].snap == nil || a.sides[0].snap.Text == nil {
		return nil
	}
	t := a.sides[0].snap.Text
	f := func(v float64) float64 { return sanitize(sim.Metrics{KL: v}).KL }
	p := &view.PageText{Full: t.Full, Compressed: t.Compressed, Diverge: t.Diverge, NextKL: f(t.NextKL), MeanKL: f(t.MeanKL), Agreement: f(t.Agreement)}
	if sb := a.sides[1].snap; a.showB() && sb != nil && sb.Text != nil {
		p.CompressedB, p.DivergeB = sb.Text.Compressed, sb.Text.Diverge
	}
	return p
}
