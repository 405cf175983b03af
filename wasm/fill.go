//go:build js && wasm

package main

import (
	"fmt"
	"html"
	"strconv"
	"strings"
	"syscall/js"

	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/viz/view"
)

// fillSelects fills every menu from its one description (view.Menu):
// the settings' selects, the presets, the recall tasks and the bits'
// segmented control.
func (a *app) fillSelects() {
	for _, key := range []string{"policy", "alloc", "quant", "rotate", "gran", "scale", "mode"} {
		addOptions(byID(key), view.Menu(key))
	}
	addOptions(byID("preset"), view.Menu("preset"))
	addOptions(byID("breaks-task"), view.Menu("task"))
	byID("breaks-task").Set("value", sim.TaskName)
	var bits strings.Builder
	for _, o := range view.Menu("bits") {
		fmt.Fprintf(&bits, `<label title="%s"><input type="radio" name="bits" value="%s" data-key="bits"><span>%s</span></label>`,
			html.EscapeString(o.Title), html.EscapeString(o.Value), html.EscapeString(o.Label))
	}
	byID("bits").Set("innerHTML", bits.String())
}

// addOptions appends one option per entry to the select sel.
func addOptions(sel js.Value, opts []view.Option) {
	for _, o := range opts {
		el := document.Call("createElement", "option")
		el.Set("value", o.Value)
		el.Set("textContent", o.Label)
		if o.Title != "" {
			el.Set("title", o.Title)
		}
		sel.Call("appendChild", el)
	}
}

// fillTechniques writes each policy's definition (its title, help and
// paper, from its description) at the head of the page's list of
// techniques, as dt#learn-<name> and its dd.
func (a *app) fillTechniques() {
	dl := document.Call("querySelector", "dl.techniques")
	if !dl.Truthy() {
		return
	}
	first := dl.Get("firstChild")
	for _, p := range view.Catalogue().Policies {
		dt := document.Call("createElement", "dt")
		dt.Set("id", "learn-"+p.Name)
		dt.Set("textContent", p.Title)
		dd := document.Call("createElement", "dd")
		writeProse(dd, p.Help)
		if p.Paper != "" {
			c := document.Call("createElement", "cite")
			writeProse(c, p.Paper)
			dd.Call("append", " ", c)
		}
		dl.Call("insertBefore", dt, first)
		dl.Call("insertBefore", dd, first)
	}
}

// fillDefinitions hands every figure's definition to the page's glue
// (window.kvscopeDefs, shown on hover and keyboard focus by static/app.js)
// and to assistive technology (aria-description on each marked element),
// and the catalog of policies, quantizers and measures to the page's
// scripts (window.kvscopeCatalog, which the chart reads).
func (a *app) fillDefinitions() {
	defs := js.Global().Get("Object").New()
	for k, d := range view.Definitions() {
		o := js.Global().Get("Object").New()
		o.Set("name", d.Name)
		o.Set("formula", d.Formula)
		o.Set("better", d.Better)
		o.Set("meaning", d.Meaning)
		defs.Set(k, o)
	}
	window.Set("kvscopeDefs", defs)
	window.Set("kvscopeCatalog", js.Global().Get("JSON").Call("parse", view.Catalogue().JSON()))
	a.describeTerms()
}

// describeTerms sets aria-description on every element marked with a
// definition's key (again after the page adds marked elements).
func (a *app) describeTerms() {
	defs := view.Definitions()
	nodes := document.Call("querySelectorAll", "[data-def]")
	for i := 0; i < nodes.Length(); i++ {
		el := nodes.Index(i)
		if d, ok := defs[el.Get("dataset").Get("def").String()]; ok {
			el.Call("setAttribute", "aria-description", d.Formula+". "+d.Better+". "+d.Meaning)
		}
	}
}

// writeProse writes text into el with its terms (view.Terms) marked as
// the page's defined figures are: hovered or focused, each shows its
// definition.
func writeProse(el js.Value, text string) {
	el.Set("textContent", "")
	for _, sp := range view.MarkTerms(text) {
		if sp.Def == "" {
			el.Call("append", sp.Text)
			continue
		}
		t := document.Call("createElement", "span")
		t.Set("className", "term")
		t.Call("setAttribute", "tabindex", "0")
		t.Get("dataset").Set("def", sp.Def)
		if d, ok := view.Definitions()[sp.Def]; ok {
			t.Call("setAttribute", "aria-description", d.Formula+". "+d.Better+". "+d.Meaning)
		}
		t.Set("textContent", sp.Text)
		el.Call("append", t)
	}
}

// fillMetricRows writes the fidelity table: one row per measure it shows
// (view.Metrics), named and defined by the measure's description, with
// each side's figure this step, over the run (what the lessons quote) and
// its history, under heads naming those kinds as sim does.
func (a *app) fillMetricRows() {
	var h strings.Builder
	h.WriteString(`<tr><th scope="col" rowspan="2">metric</th><th scope="colgroup" colspan="3">A</th><th scope="colgroup" colspan="3" class="colB" hidden>B</th></tr><tr class="kinds">`)
	for _, cls := range []string{"", ` class="colB" hidden`} {
		hist := strings.Replace(cls, `class="`, `class="hist `, 1)
		if hist == "" {
			hist = ` class="hist"`
		}
		fmt.Fprintf(&h, `<th scope="col"%s>%s</th><th scope="col"%s>%s</th><th scope="col"%s>history</th>`,
			cls, sim.ThisStep, cls, sim.OverTheRun, hist)
	}
	h.WriteString(`</tr>`)
	byID("metric-head").Set("innerHTML", h.String())
	var b strings.Builder
	for k, m := range view.Metrics {
		fmt.Fprintf(&b, `<tr><th scope="row"><span class="term" tabindex="0" data-def="%s">%s</span></th>`, m.Key, html.EscapeString(m.Label))
		for i, cls := range []string{"", " colB"} {
			hide := ""
			if i == 1 {
				hide = " hidden"
			}
			fmt.Fprintf(&b, `<td class="val%s" id="mv-%d-%d"%s></td><td class="val run%s" id="mr-%d-%d"%s></td><td class="hist%s"%s><div class="hole spark" id="spark-%d-%d"></div></td>`,
				cls, i, k, hide, cls, i, k, hide, cls, hide, i, k)
		}
		b.WriteString(`</tr>`)
	}
	byID("metric-rows").Set("innerHTML", b.String())
	for i := 0; i < 2; i++ {
		a.pg.metricVals[i] = make([]*text, len(view.Metrics))
		a.pg.metricRuns[i] = make([]*text, len(view.Metrics))
		for k := range view.Metrics {
			a.pg.metricVals[i][k] = newText(fmt.Sprintf("mv-%d-%d", i, k))
			a.pg.metricRuns[i][k] = newText(fmt.Sprintf("mr-%d-%d", i, k))
		}
	}
}

func (a *app) fillLegend() {
	// Every element with a data-role (the legend's swatches, the text
	// view's tokens) takes its role's colour from one style sheet.
	css := document.Call("createElement", "style")
	css.Set("textContent", roleCSS())
	document.Get("head").Call("appendChild", css)
	// The strip swatches: a recent token's cell with its key error.
	sw := document.Call("querySelectorAll", "[data-kerr]")
	for i := 0; i < sw.Length(); i++ {
		el := sw.Index(i)
		kerr, _ := strconv.ParseFloat(el.Get("dataset").Get("kerr").String(), 32)
		cell := &sim.Cell{Role: sim.Recent, Storage: sim.Quantized, KErr: float32(kerr)}
		el.Get("style").Set("background", fmt.Sprintf("linear-gradient(%s 0 60%%, %s 60%% 100%%)", view.CellColor(cell, 0).Hex(), view.StripColor(cell, 0).Hex()))
	}
	var b strings.Builder
	for k := view.SegPayload; k < view.NumSegs; k++ {
		fmt.Fprintf(&b, `<span class="chip term" tabindex="0" data-def="%s"><i class="sw" style="background:%s"></i>%s</span>`, view.SegKeys[k], view.SegColors[k].Hex(), view.SegNames[k])
	}
	byID("seglegend").Set("innerHTML", b.String())
}
