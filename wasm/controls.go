//go:build js && wasm

package main

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"syscall/js"

	"github.com/kvscope/kvscope/core/lesson"
	"github.com/kvscope/kvscope/viz/view"
)

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
		pg.budgetGrid.id, pg.sinkGrid.id, pg.sinkSum = "budget-grid", "sink-grid", newText("sink-sum")
		for j := 0; j < 3; j++ {
			pg.memLabels[i][j] = newText(fmt.Sprintf("mem-%d-%d", i, j))
		}
	}
	tp := &pg.texts
	tp.diverge, tp.nextKL, tp.meanKL, tp.agree = newText("text-diverge"), newText("kl-now"), newText("kl-mean"), newText("agree")
	tp.divergeB = newText("text-diverge-1")
	a.fillSelects()
	a.fillTechniques()
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
	a.on(byID("present"), "click", func(js.Value, []js.Value) { a.post(func() { a.setField("present", boolStr(!a.st.Present)) }) })
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
	for _, id := range []string{"chartbox", "breaks", "textview"} {
		a.on(byID(id), "toggle", func(js.Value, []js.Value) { a.post(func() { a.layoutDirty = true }) })
	}
	for i := 0; i < 2; i++ {
		a.bindMap(i)
		a.bindOverview(i)
		a.bindAttention(i)
	}
	a.bindTextView()
	a.bindDocuments()
	a.bindModelInputs()
	a.installTestAPI()
}

// reflect writes the applied state into every control.
func (a *app) reflect() {
	for _, c := range a.pg.controls {
		key := a.editKey(c.key)
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
		case "text", "textarea":
			// A box the visitor is typing in keeps what they typed: it is
			// applied when they leave it (its change event).
			if c.el.Get("value").String() != v && !c.el.Equal(document.Get("activeElement")) {
				c.el.Set("value", v)
			}
		default:
			if c.el.Get("value").String() != v {
				c.el.Set("value", v)
			}
		}
		if c.out.Truthy() {
			if f, _, ok := view.Lookup(c.key); ok && f.Unit != "" {
				v += " " + f.Unit
			}
			c.out.Set("textContent", v)
		}
	}
	// Reset decodes again from the end of the prompt (a run never stops
	// inside it): its title says which step that is.
	byID("reset").Set("title", fmt.Sprintf("Decode again from the end of the prompt, step %d (R)", a.runPrompt))
	byID("layer").Set("max", a.layers()-1)
	byID("mlayer").Set("max", a.layers()-1)
	a.reflectMode()
	if a.st.Present != a.pg.presenting {
		a.pg.presenting = a.st.Present
		document.Get("documentElement").Get("classList").Call("toggle", "present", a.st.Present)
		byID("present").Set("textContent", map[bool]string{true: "Leave presentation", false: "Present"}[a.st.Present])
		a.layoutDirty = true
	}
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
		c.el.Get("parentElement").Get("classList").Call("toggle", "irrelevant", !view.Relevant(a.st.Side(a.edit), c.key))
	}
	if pol != a.pg.lastPolicy {
		a.pg.lastPolicy = pol
		dt := byID("learn-" + pol)
		a.pg.policyHelp.set(view.PolicyHelp(pol))
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

// onKey: Space plays or pauses, ←/→ step, R resets, P enters or leaves
// presentation mode (Esc leaves it), wherever the focus
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
	case "p", "P":
		a.post(func() { a.setField("present", boolStr(!a.st.Present)) })
	case "Escape":
		if !a.st.Present {
			return
		}
		a.post(func() { a.setField("present", "0") })
	default:
		return
	}
	ev.Call("preventDefault")
}

// boolStr is a boolean as a link writes it.
func boolStr(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
