//go:build js && wasm

package main

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"syscall/js"

	"github.com/kvscope/kvscope/core/lesson"
	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/viz/view"
)

var (
	window   = js.Global()
	document = window.Get("document")
)

func byID(id string) js.Value { return document.Call("getElementById", id) }

// text is a DOM element whose text is written only when it changes.
type text struct {
	el   js.Value
	last string
	tip  bool // also the element's tooltip (a text its box may cut)
}

func newText(id string) *text { return &text{el: byID(id)} }

func (t *text) set(s string) {
	if s != t.last && t.el.Truthy() {
		t.el.Set("textContent", s)
		if t.tip {
			t.el.Set("title", s)
		}
		t.last = s
	}
}

// control is a DOM input bound to a settings key.
type control struct {
	el   js.Value
	key  string
	kind string // "checkbox", "select", "number", "range"
	out  js.Value
}

// page holds the DOM elements the game loop writes to.
type page struct {
	controls []control
	funcs    []js.Func // kept alive for the page's lifetime

	stepInfo, summary             *text
	names, axes, memRatio, scales [2]*text
	memLabels                     [2][3]*text
	metricVals                    [2][view.NumMetrics]*text
	playBtn                       js.Value
	tooltip                       js.Value
	tipLast                       string
	rowsKey                       [2]string
	noticesV                      int
	policyHelp                    *text
	lastPolicy                    string
	lastCompare                   int
	shownEdit                     int

	modeInit, modelShown bool // real-model panels shown
	textsKey             string
	texts                textPanel
	pics                 pictures
	heads                headsKey  // the head grids written
	modelV               int       // model status version written
	toksKey              labelsKey // geometry of the token labels written
}

// safe wraps a DOM callback: a panic inside it is reported as a notice
// instead of stopping the Go program.
func (a *app) safe(f func(this js.Value, args []js.Value)) js.Func {
	fn := js.FuncOf(func(this js.Value, args []js.Value) (ret any) {
		defer func() {
			if r := recover(); r != nil {
				a.post(func() { a.addNotices(view.Notice{Msg: fmt.Sprintf("internal error in a control: %v", r)}) })
			}
		}()
		f(this, args)
		return nil
	})
	a.pg.funcs = append(a.pg.funcs, fn)
	return fn
}

func (a *app) on(el js.Value, event string, f func(this js.Value, args []js.Value)) {
	if el.Truthy() {
		el.Call("addEventListener", event, a.safe(f))
	}
}

func (a *app) onPassive(el js.Value, event string, f func(this js.Value, args []js.Value)) {
	opts := js.Global().Get("Object").New()
	opts.Set("passive", false)
	if el.Truthy() {
		el.Call("addEventListener", event, a.safe(f), opts)
	}
}

// initDOM binds every control, fills the generated parts of the page and
// installs the keyboard, pointer and test hooks.
func (a *app) initDOM() {
	pg := &a.pg
	pg.stepInfo, pg.summary, pg.policyHelp = newText("stepinfo"), newText("summary"), newText("policy-help")
	pg.playBtn, pg.tooltip = byID("play"), byID("tooltip")
	pg.lastCompare = -1
	for i := 0; i < 2; i++ {
		si := strconv.Itoa(i)
		pg.names[i], pg.axes[i] = newText("name-"+si), newText("axis-"+si)
		pg.names[i].tip, pg.axes[i].tip = true, true // cut to their boxes (style.css)
		pg.memRatio[i], pg.scales[i] = newText("memratio-"+si), newText("scale-"+si)
		for j := 0; j < 3; j++ {
			pg.memLabels[i][j] = newText(fmt.Sprintf("mem-%d-%d", i, j))
		}
	}
	tp := &pg.texts
	tp.diverge, tp.nextKL, tp.meanKL, tp.agree = newText("text-diverge"), newText("kl-now"), newText("kl-mean"), newText("agree")
	a.fillSelects()
	a.fillDefinitions()
	a.fillMetricRows()
	a.fillLegend()
	a.initPictures()

	nodes := document.Call("querySelectorAll", "[data-key]")
	for i := 0; i < nodes.Length(); i++ {
		el := nodes.Index(i)
		key := el.Get("dataset").Get("key").String()
		f, _, ok := view.Lookup(key)
		if !ok {
			continue
		}
		kind := strings.ToLower(el.Get("tagName").String())
		if kind == "input" {
			kind = el.Get("type").String()
		}
		if kind == "number" || kind == "range" {
			if f.Kind == view.Int || f.Kind == view.Float {
				el.Set("min", f.Min)
				el.Set("max", f.Max)
				el.Set("step", f.Step)
			} else {
				el.Set("min", 0)
			}
		}
		c := control{el: el, key: key, kind: kind, out: byID(el.Get("id").String() + "-out")}
		pg.controls = append(pg.controls, c)
		event := "change"
		if kind == "range" {
			event = "input"
		}
		a.on(el, event, func(this js.Value, args []js.Value) {
			v := el.Get("value").String()
			if kind == "checkbox" {
				v = "0"
				if el.Get("checked").Bool() {
					v = "1"
				}
			}
			if kind == "range" {
				// A dragged slider fires many input events per frame: the
				// latest value wins, applied once per frame (the map and
				// numbers follow the drag, throttled to the frame rate).
				a.qmu.Lock()
				_, queued := a.sliding[key]
				a.sliding[key] = v
				a.qmu.Unlock()
				if queued {
					return
				}
				a.post(func() {
					a.qmu.Lock()
					v := a.sliding[key]
					delete(a.sliding, key)
					a.qmu.Unlock()
					a.setField(key, v)
				})
				return
			}
			a.post(func() { a.setField(key, v) })
		})
		if f.Label != "" && !el.Call("hasAttribute", "aria-label").Bool() && el.Get("labels").Length() == 0 {
			el.Call("setAttribute", "aria-label", f.Label)
		}
	}

	a.on(byID("play"), "click", func(js.Value, []js.Value) { a.post(a.togglePlay) })
	a.on(byID("fwd"), "click", func(js.Value, []js.Value) { a.post(a.stepForward) })
	a.on(byID("back"), "click", func(js.Value, []js.Value) { a.post(a.stepBack) })
	a.on(byID("reset"), "click", func(js.Value, []js.Value) { a.post(a.reset) })
	a.on(byID("reseed"), "click", func(js.Value, []js.Value) {
		v := strconv.FormatUint(uint64(rand.Uint32()), 10)
		a.post(func() { a.setField("seed", v) })
	})
	a.on(byID("share"), "click", func(js.Value, []js.Value) { a.post(a.share) })
	// The guided lessons: the header's button, the card's buttons, and an
	// offer on a first visit to a plain page (remembered in localStorage).
	lessonBtn := func(id string, step func() int) {
		a.on(byID(id), "click", func(js.Value, []js.Value) { a.post(func() { a.openLesson(step()) }) })
	}
	lessonBtn("lessons", func() int {
		if a.les.l != nil {
			return a.les.l.N
		}
		return 1
	})
	lessonBtn("lesson-prev", func() int { return max(1, a.les.l.N-1) })
	lessonBtn("lesson-next", func() int { return min(len(lesson.All()), a.les.l.N+1) })
	lessonBtn("lesson-close", func() int { return 0 })
	lessonBtn("offer-start", func() int { byID("offer").Set("hidden", true); return 1 })
	for _, t := range sim.TaskKinds {
		o := document.Call("createElement", "option")
		o.Set("value", t)
		o.Set("textContent", map[string]string{"copy": "copy random tokens", "name": "recall a name", "magic": "the magic word"}[t])
		byID("breaks-task").Call("appendChild", o)
	}
	byID("breaks-task").Set("value", "name")
	a.on(byID("breaks-run"), "click", func(js.Value, []js.Value) {
		task := byID("breaks-task").Get("value").String()
		a.post(func() { a.startBreaks(task, a.st.A.Policy) })
	})
	a.on(byID("offer-no"), "click", func(js.Value, []js.Value) {
		window.Get("localStorage").Call("setItem", "kvscope.lessons", "declined")
		byID("offer").Set("hidden", true)
		a.post(func() { a.layoutDirty = true })
	})
	preset := byID("preset")
	a.on(preset, "change", func(js.Value, []js.Value) {
		name := preset.Get("value").String()
		preset.Set("value", "")
		if name != "" {
			a.post(func() { a.applyPreset(name) })
		}
	})
	radios := document.Call("querySelectorAll", "input[name=edit]")
	for i := 0; i < radios.Length(); i++ {
		r := radios.Index(i)
		a.on(r, "change", func(js.Value, []js.Value) {
			v := 0
			if r.Get("value").String() == "1" {
				v = 1
			}
			a.post(func() { a.edit = v; a.reflect() })
		})
	}
	zooms := document.Call("querySelectorAll", "[data-zoom]")
	for i := 0; i < zooms.Length(); i++ {
		b := zooms.Index(i)
		what := b.Get("dataset").Get("zoom").String()
		si, _ := strconv.Atoi(b.Get("dataset").Get("side").String())
		a.on(b, "click", func(js.Value, []js.Value) { a.post(func() { a.zoomButton(si, what) }) })
	}
	a.on(document, "keydown", a.onKey)
	a.on(window, "resize", func(js.Value, []js.Value) { a.post(func() { a.reflect() }) })
	// A link opened in this tab: the page's own address updates use
	// history.replaceState, which fires no hashchange.
	a.on(window, "hashchange", func(js.Value, []js.Value) {
		link := initialLink()
		a.post(func() { a.start(link) })
	})
	a.on(byID("app"), "scroll", func(js.Value, []js.Value) { a.post(func() { a.layoutDirty = true }) })
	a.on(byID("learn"), "scroll", func(js.Value, []js.Value) { a.post(func() { a.layoutDirty = true }) })
	a.on(byID("viz"), "scroll", func(js.Value, []js.Value) { a.post(func() { a.layoutDirty = true }) })
	// Opening or closing a panel (the chart, the task heatmap) moves what is under it.
	for _, id := range []string{"chartbox", "breaks"} {
		a.on(byID(id), "toggle", func(js.Value, []js.Value) { a.post(func() { a.layoutDirty = true }) })
	}
	for i := 0; i < 2; i++ {
		a.bindMap(i)
		a.bindOverview(i)
		a.bindAttention(i)
	}
	a.bindModelInputs()
	a.installTestAPI()
}

func (a *app) fillSelects() {
	add := func(sel js.Value, value, label string) {
		o := document.Call("createElement", "option")
		o.Set("value", value)
		o.Set("textContent", label)
		sel.Call("appendChild", o)
	}
	for _, p := range view.Policies {
		add(byID("policy"), p, view.PolicyName(p))
	}
	// Bits: a segmented control of radio buttons, one per offered width.
	var bits strings.Builder
	for _, b := range view.BitWidths {
		label, title := strconv.Itoa(b), "INT"+strconv.Itoa(b)+": integer codes with a scale and zero point"
		switch b {
		case 32:
			label, title = "32", "float32: stored exactly"
		case 16:
			label, title = "16", "FP16: half precision, the usual cache format"
		}
		fmt.Fprintf(&bits, `<label title="%s"><input type="radio" name="bits" value="%d" data-key="bits"><span>%s</span></label>`, title, b, label)
	}
	byID("bits").Set("innerHTML", bits.String())
	for _, v := range view.Allocators {
		add(byID("alloc"), v, map[string]string{"uniform": "uniform", "adakv": "AdaKV (per head)", "pyramid": "PyramidKV (per layer)"}[v])
	}
	for _, v := range view.Quantizers {
		add(byID("quant"), v, map[string]string{"uniform": "uniform (scale + zero point)", "turbo": "TurboQuant", "turbo-prod": "TurboQuant-prod", "qjl": "QJL sketch (keys)"}[v])
	}
	for _, v := range view.Rotations {
		add(byID("rotate"), v, map[string]string{"none": "none", "hadamard": "Hadamard"}[v])
	}
	granNames := map[string]string{"tensor": "per tensor", "channel": "per channel", "token": "per token", "group": "groups of channels", "kivi": "KIVI (K channel, V token)"}
	for _, g := range view.Granularities {
		add(byID("gran"), g, granNames[g])
	}
	for _, m := range view.Models {
		add(byID("scale"), m.Key, m.Name)
	}
	for _, p := range sim.Presets {
		add(byID("preset"), p.Name, p.Title)
	}
	modeNames := map[string]string{view.ModeSynthetic: "synthetic stream", view.ModeModel: "real model"}
	for _, m := range view.Modes {
		add(byID("mode"), m, modeNames[m])
	}
}

// fillDefinitions hands every figure's definition to the page's glue
// (window.kvscopeDefs, shown on hover and keyboard focus by static/app.js)
// and to assistive technology (aria-description on each marked element).
func (a *app) fillDefinitions() {
	defs := js.Global().Get("Object").New()
	for k, d := range view.Definitions {
		o := js.Global().Get("Object").New()
		o.Set("name", d.Name)
		o.Set("formula", d.Formula)
		o.Set("better", d.Better)
		o.Set("meaning", d.Meaning)
		defs.Set(k, o)
	}
	window.Set("kvscopeDefs", defs)
	a.describeTerms()
}

// describeTerms sets aria-description on every element marked with a
// definition's key (again after the page adds marked elements).
func (a *app) describeTerms() {
	nodes := document.Call("querySelectorAll", "[data-def]")
	for i := 0; i < nodes.Length(); i++ {
		el := nodes.Index(i)
		if d, ok := view.Definitions[el.Get("dataset").Get("def").String()]; ok {
			el.Call("setAttribute", "aria-description", d.Formula+". "+d.Better+". "+d.Meaning)
		}
	}
}

func (a *app) fillMetricRows() {
	var b strings.Builder
	for k := view.Metric(0); k < view.NumMetrics; k++ {
		fmt.Fprintf(&b, `<tr><th scope="row"><span class="term" tabindex="0" data-def="%s">%s</span></th><td class="val" id="mv-0-%d"></td><td><div class="hole spark" id="spark-0-%d"></div></td>`+
			`<td class="val colB" id="mv-1-%d" hidden></td><td class="colB" hidden><div class="hole spark" id="spark-1-%d"></div></td></tr>`,
			view.MetricKeys[k], view.MetricNames[k], k, k, k, k)
	}
	byID("metric-rows").Set("innerHTML", b.String())
	for i := 0; i < 2; i++ {
		for k := 0; k < int(view.NumMetrics); k++ {
			a.pg.metricVals[i][k] = newText(fmt.Sprintf("mv-%d-%d", i, k))
		}
	}
}

func (a *app) fillLegend() {
	roles := map[string]sim.Role{"sink": sim.Sink, "heavy": sim.Heavy, "recent": sim.Recent, "kept": sim.Kept, "evicted": sim.Evicted, "windowed": sim.Windowed}
	sw := document.Call("querySelectorAll", "[data-role]")
	for i := 0; i < sw.Length(); i++ {
		el := sw.Index(i)
		r := roles[el.Get("dataset").Get("role").String()]
		el.Get("style").Set("background", view.RoleColor(r).Hex())
	}
	// The strip swatches: a recent token's cell with its key error.
	sw = document.Call("querySelectorAll", "[data-kerr]")
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

// onKey: Space plays or pauses, ←/→ step, R resets, wherever the focus
// is except where the key types or moves a value: text and number fields,
// menus, and a slider's arrows. A button that keeps the focus after a click
// does not swallow Space (it would press the button again).
func (a *app) onKey(_ js.Value, args []js.Value) {
	ev := args[0]
	if ev.Get("ctrlKey").Bool() || ev.Get("metaKey").Bool() || ev.Get("altKey").Bool() || ev.Get("defaultPrevented").Bool() {
		return
	}
	t := ev.Get("target")
	tag := strings.ToLower(t.Get("tagName").String())
	typ := ""
	if tag == "input" {
		typ = t.Get("type").String()
	}
	key := ev.Get("key").String()
	if !view.ShortcutApplies(tag, typ, key, t.Get("isContentEditable").Truthy() && t.Get("isContentEditable").Bool()) {
		return
	}
	switch key {
	case " ", "Spacebar":
		a.post(a.togglePlay)
	case "ArrowRight":
		a.post(a.stepForward)
	case "ArrowLeft":
		a.post(a.stepBack)
	case "r", "R":
		a.post(a.reset)
	default:
		return
	}
	ev.Call("preventDefault")
}

// bindMap routes pointer input over side i's map: hover, wheel zoom, drag scroll.
func (a *app) bindMap(i int) {
	el := byID("map-" + strconv.Itoa(i))
	a.on(el, "pointermove", func(_ js.Value, args []js.Value) {
		ev := args[0]
		x, y := ev.Get("clientX").Float(), ev.Get("clientY").Float()
		drag := ev.Get("buttons").Int()&1 != 0
		a.post(func() {
			h := &a.hover
			if drag && h.dragging && h.side == i {
				h.pendingDX += h.lastDragX - x
				h.lastDragX = x
			}
			h.on, h.side, h.x, h.y, h.overAttn = true, i, x, y, false
		})
	})
	a.on(el, "pointerdown", func(_ js.Value, args []js.Value) {
		ev := args[0]
		x := ev.Get("clientX").Float()
		el.Call("setPointerCapture", ev.Get("pointerId"))
		a.post(func() { a.hover.dragging, a.hover.lastDragX, a.hover.side = true, x, i })
	})
	a.on(el, "pointerup", func(js.Value, []js.Value) { a.post(func() { a.hover.dragging = false }) })
	a.on(el, "pointerleave", func(js.Value, []js.Value) {
		a.post(func() {
			if !a.hover.dragging {
				a.hover.on = false
			}
		})
	})
	a.onPassive(el, "wheel", func(_ js.Value, args []js.Value) {
		ev := args[0]
		ev.Call("preventDefault")
		dx, dy := ev.Get("deltaX").Float(), ev.Get("deltaY").Float()
		if ev.Get("deltaMode").Int() == 1 { // lines
			dx, dy = dx*16, dy*16
		}
		shift := ev.Get("shiftKey").Bool()
		x := ev.Get("clientX").Float()
		a.post(func() {
			h := &a.hover
			h.side, h.x, h.anchorSide = i, x, i
			if shift {
				dx, dy = dx+dy, 0
			}
			if abs(dx) > abs(dy) {
				h.pendingDX += dx
				return
			}
			if h.pendingZ == 0 {
				h.pendingZ = 1
			}
			h.pendingZ *= expNeg(dy * 0.002)
		})
	})
}

// bindAttention makes side i's attention rows answer hover: the column
// under the pointer, its weight over the full history and through the cache.
func (a *app) bindAttention(i int) {
	el := byID("attn-" + strconv.Itoa(i))
	a.on(el, "pointermove", func(_ js.Value, args []js.Value) {
		x, y := args[0].Get("clientX").Float(), args[0].Get("clientY").Float()
		a.post(func() {
			h := &a.hover
			h.on, h.side, h.x, h.y, h.overAttn = true, i, x, y, true
		})
	})
	a.on(el, "pointerleave", func(js.Value, []js.Value) {
		a.post(func() { a.hover.on, a.hover.overAttn = false, false })
	})
}

// bindOverview routes clicks and drags on side i's overview strip: the
// map moves to show the place under the pointer.
func (a *app) bindOverview(i int) {
	el := byID("ov-" + strconv.Itoa(i))
	move := func(_ js.Value, args []js.Value) {
		ev := args[0]
		if ev.Get("type").String() == "pointermove" && ev.Get("buttons").Int()&1 == 0 {
			return
		}
		x := ev.Get("clientX").Float()
		a.post(func() { a.hover.side, a.hover.ovPending, a.hover.ovX = i, true, x })
	}
	a.on(el, "pointerdown", func(this js.Value, args []js.Value) {
		el.Call("setPointerCapture", args[0].Get("pointerId"))
		move(this, args)
	})
	a.on(el, "pointermove", move)
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// reflect writes the applied state into every control.
func (a *app) reflect() {
	for _, c := range a.pg.controls {
		key := c.key
		if f, _, ok := view.Lookup(key); ok && f.PerSide && a.edit == 1 && a.showB() {
			key = "b." + key
		}
		v := view.Get(&a.st, key)
		switch c.kind {
		case "checkbox":
			c.el.Set("checked", v == "1")
		case "radio":
			c.el.Set("checked", c.el.Get("value").String() == v)
		case "select":
			if v == "" { // the simulator's default: the menu's first entry
				if f, _, ok := view.Lookup(c.key); ok && f.Empty {
					v = f.Choices[0]
				}
			}
			if c.el.Get("value").String() != v {
				c.el.Set("value", v)
			}
		case "range":
			if c.key != "speed" {
				side := a.edit
				if !a.showB() {
					side = 0
				}
				c.el.Set("max", view.SliderMax(c.key, a.st.Side(side), a.st.Total()))
			}
			if c.el.Get("value").String() != v {
				c.el.Set("value", v)
			}
		default:
			if c.el.Get("value").String() != v {
				c.el.Set("value", v)
			}
		}
		if c.out.Truthy() {
			c.out.Set("textContent", v)
		}
	}
	byID("layer").Set("max", a.layers()-1)
	byID("mlayer").Set("max", a.layers()-1)
	a.reflectMode()
	cmp := 0
	if a.showB() {
		cmp = 1
	}
	if cmp != a.pg.lastCompare {
		a.pg.lastCompare = cmp
		hidden := !a.showB()
		document.Get("body").Get("classList").Call("toggle", "cmp", !hidden)
		for _, id := range []string{"side-1", "memblock-1", "scale-1", "edit-side"} {
			byID(id).Set("hidden", hidden)
		}
		cols := document.Call("querySelectorAll", ".colB")
		for i := 0; i < cols.Length(); i++ {
			cols.Index(i).Set("hidden", hidden)
		}
		if hidden {
			a.edit = 0
			document.Call("querySelector", "input[name=edit][value='0']").Set("checked", true)
		}
		a.layoutDirty = true
	}
	// Rows no taller than view.MaxRow, maps no taller than a share of the
	// window: the attention rows follow the map and the teaching text the rest.
	maxH := window.Get("innerHeight").Float() - 360
	if a.showB() {
		maxH = (window.Get("innerHeight").Float()-260)/2 - 90
	}
	h := max(60, min(float64(a.kvHeads())*view.MaxRow, maxH))
	for i := 0; i < 2; i++ {
		byID("map-"+strconv.Itoa(i)).Get("parentElement").Get("style").Set("height", strconv.Itoa(int(h))+"px")
	}
	a.layoutDirty = true
	byID("budget").Set("textContent", view.BudgetText(a.st.Side(a.edit)))
	pol := a.st.Side(a.edit).Policy
	for _, c := range a.pg.controls {
		c.el.Get("parentElement").Get("classList").Call("toggle", "irrelevant", !relevant(pol, a.st.Side(a.edit), c.key))
	}
	if pol != a.pg.lastPolicy {
		a.pg.lastPolicy = pol
		dt := byID("learn-" + pol)
		if dt.Truthy() {
			a.pg.policyHelp.set(dt.Get("nextElementSibling").Get("textContent").String())
		}
		cur := document.Call("querySelectorAll", ".techniques dt.current")
		for i := 0; i < cur.Length(); i++ {
			cur.Index(i).Get("classList").Call("remove", "current")
		}
		if dt.Truthy() {
			dt.Get("classList").Call("add", "current")
		}
	}
	a.setPlayButton()
	a.writeURL()
}

// relevant reports whether a setting matters for a configuration, so the
// page can dim the ones that do not.
func relevant(policy string, c *sim.Config, key string) bool {
	switch key {
	case "sink":
		return policy != "full" && policy != "window" && policy != "chunk" && policy != "quest"
	case "heavy":
		return policy != "full" && policy != "window" && policy != "streaming" && policy != "chunk" && policy != "quest"
	case "recent":
		return policy != "full" && policy != "quest"
	case "chunk", "drop":
		return policy == "chunk"
	case "shared":
		return policy != "full"
	case "gran", "group", "residual", "quant", "rotate", "outfp16", "sinkfp16":
		return c.Bits < 16
	case "alloc", "vweight":
		return view.Budgeted(policy)
	case "merge":
		return view.Budgeted(policy) && policy != "duo"
	case "pages":
		return policy == "quest"
	}
	return true
}

func (a *app) setPlayButton() {
	b := a.pg.playBtn
	icon, txt := "▶", "Play"
	if a.st.Playing {
		icon, txt = "❚❚", "Pause"
	}
	b.Call("setAttribute", "aria-pressed", strconv.FormatBool(a.st.Playing))
	b.Call("querySelector", ".icon").Set("textContent", icon)
	b.Call("querySelector", ".txt").Set("textContent", txt)
}

// writeURL puts the state into the address bar without a history entry.
func (a *app) writeURL() {
	s := a.st
	s.At = a.cur()
	if s.Playing || s.At <= a.runPrompt {
		s.At = 0
	}
	link := view.Encode(&s)
	if a.les.l != nil {
		link += "&lesson=" + strconv.Itoa(a.les.l.N)
	}
	window.Get("history").Call("replaceState", nil, "", "#"+link)
}

func (a *app) share() {
	a.writeURL()
	href := window.Get("location").Get("href").String()
	clip := window.Get("navigator").Get("clipboard")
	if clip.Truthy() {
		clip.Call("writeText", href)
	}
	a.addNotices(view.Notice{Msg: "Link copied: it reproduces every setting, the seed and the step."})
}

// renderNotices writes the notices into their panel between the header
// and the pictures: a heading when the first notice is one, a list, and one
// button that dismisses them all. The panel takes room in the page's flow,
// so it pushes the map down instead of covering it.
func (a *app) renderNotices() {
	if a.pg.noticesV == a.noticeV {
		return
	}
	a.pg.noticesV = a.noticeV
	box := byID("notices")
	box.Set("innerHTML", "")
	box.Get("dataset").Set("count", len(a.notices))
	box.Set("hidden", len(a.notices) == 0)
	a.layoutDirty = true
	if len(a.notices) == 0 {
		return
	}
	ns := a.notices
	if view.IsHeading(ns[0]) {
		h := document.Call("createElement", "p")
		h.Set("className", "ntitle")
		h.Set("textContent", ns[0].Msg)
		box.Call("appendChild", h)
		ns = ns[1:]
	}
	ul := document.Call("createElement", "ul")
	for _, n := range ns {
		li := document.Call("createElement", "li")
		li.Set("textContent", n.String())
		ul.Call("appendChild", li)
	}
	box.Call("appendChild", ul)
	btn := document.Call("createElement", "button")
	btn.Set("textContent", "Dismiss")
	btn.Set("type", "button")
	btn.Set("id", "notices-dismiss")
	var fn js.Func
	fn = js.FuncOf(func(js.Value, []js.Value) any {
		a.post(a.clearNotices)
		fn.Release()
		return nil
	})
	btn.Call("addEventListener", "click", fn)
	box.Call("appendChild", btn)
}

// readRect returns an element's viewport rectangle in CSS px.
func readRect(id string) view.Rect {
	el := byID(id)
	if !el.Truthy() {
		return view.Rect{}
	}
	r := el.Call("getBoundingClientRect")
	return view.Rect{X: r.Get("x").Float(), Y: r.Get("y").Float(), W: r.Get("width").Float(), H: r.Get("height").Float()}
}
