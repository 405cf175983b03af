//go:build js && wasm

package main

import (
	"fmt"
	"syscall/js"

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
	metricVals, metricRuns        [2][]*text // per view.Metrics: this step, and over the run
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
	tv                   textPane
	presenting           bool // the page shows presentation mode
	pics                 pictures
	budgetGrid, sinkGrid cellGrid   // the head grids beside the memory bars (writeHeads)
	headCells            []gridCell // their cells, reused
	sinkSum              *text
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

// readRect returns an element's viewport rectangle in CSS px.
func readRect(id string) view.Rect {
	el := byID(id)
	if !el.Truthy() {
		return view.Rect{}
	}
	r := el.Call("getBoundingClientRect")
	return view.Rect{X: r.Get("x").Float(), Y: r.Get("y").Float(), W: r.Get("width").Float(), H: r.Get("height").Float()}
}
