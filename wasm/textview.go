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

// textPane is the text view: side A's text, one span per position,
// coloured by what the cache does with each token (view.TextView). Each
// span carries its position as data-p and its role as data-role (a
// sim.Role key, the legend's names); in the share-of-heads view, the
// share of heads holding it as the CSS variable --s. A frame appends the
// new positions and rewrites only the spans whose mark changed.
type textPane struct {
	el      js.Value // #tv: the spans
	head    *text    // what the colours show
	tv      view.TextView
	changed []int
	spans   js.Value // el.children (a live collection)
	n       int      // spans written
	run     any      // the engine the spans describe
	layer   int
	th      int // the head setting they were coloured for
	heads   int // KV heads in the head menu
	hl      int // the highlighted position (the map's hover); -1 for none
	hover   int // the position under the pointer in the text; -1 for none
}

// bindTextView finds the text view's elements and routes its pointer
// input: hovering a token lights its column in the map, a click shows it
// there.
func (a *app) bindTextView() {
	tp := &a.pg.tv
	tp.el, tp.head = byID("tv"), newText("tv-head")
	tp.spans = tp.el.Get("children")
	tp.hl, tp.hover, tp.th = -1, -1, view.AllHeads-1
	pos := func(args []js.Value) int {
		t := args[0].Get("target")
		if !t.Truthy() || t.Get("dataset").IsUndefined() {
			return -1
		}
		p, err := strconv.Atoi(t.Get("dataset").Get("p").String())
		if err != nil {
			return -1
		}
		return p
	}
	a.on(tp.el, "pointerover", func(_ js.Value, args []js.Value) {
		p := pos(args)
		a.post(func() { tp.hover = p })
	})
	a.on(tp.el, "pointerleave", func(js.Value, []js.Value) { a.post(func() { tp.hover = -1 }) })
	a.on(tp.el, "click", func(_ js.Value, args []js.Value) {
		p := pos(args)
		if p < 0 {
			return
		}
		a.post(func() {
			if sd := &a.sides[0]; sd.snap != nil && p < sd.snap.Step {
				sd.vp.Center(&sd.grid, float64(p)+0.5)
				a.changed = true
			}
		})
	})
}

// textHover is the map cell the text view's pointer names: side A, the
// head whose colours the view shows (or every head), position p.
func (a *app) textHover() (head, pos int, ok bool) {
	tp := &a.pg.tv
	s := a.sides[0].snap
	if tp.hover < 0 || s == nil || tp.hover >= s.Step {
		return 0, 0, false
	}
	return textHead(a.st.TextHead, s), tp.hover, true
}

// textHead is the head setting the text view colours s by: the KV head
// asked for, or the share of heads when the layer has no such head.
func textHead(h int, s *sim.Snapshot) int {
	if h >= s.Heads {
		return view.AllHeads
	}
	return h
}

// writeTextView brings the text view to side A's snapshot: new positions
// appended as spans, changed marks rewritten, the map's hovered position
// highlighted. A new run, layer or head setting writes it afresh.
func (a *app) writeTextView() {
	tp := &a.pg.tv
	if !tp.el.Truthy() {
		return
	}
	sd := &a.sides[0]
	s := sd.snap
	if s == nil {
		if tp.n > 0 {
			tp.el.Set("innerHTML", "")
			tp.n, tp.run = 0, nil
			tp.tv.Reset()
		}
		return
	}
	head := textHead(a.st.TextHead, s)
	if tp.run != sd.eng || tp.layer != s.Layer || tp.th != head || tp.n > s.Step {
		tp.el.Set("innerHTML", "")
		tp.n, tp.run, tp.layer, tp.th, tp.hl = 0, sd.eng, s.Layer, head, -1
		tp.tv.Reset()
	}
	if head == view.AllHeads {
		tp.head.set(fmt.Sprintf("· side A, layer %d, the share of its %d KV heads", s.Layer, s.Heads))
	} else {
		tp.head.set(fmt.Sprintf("· side A, layer %d, KV head %d", s.Layer, head))
	}
	if s.Heads != tp.heads {
		// The head menu: the share, then each KV head of the layer.
		var b strings.Builder
		b.WriteString(`<option value="-1">the share of heads</option>`)
		for h := range s.Heads {
			fmt.Fprintf(&b, `<option value="%d">KV head %d</option>`, h, h)
		}
		sel := byID("thead")
		sel.Set("innerHTML", b.String())
		sel.Set("value", strconv.Itoa(head))
		tp.heads = s.Heads
	}
	var old int
	tp.changed, old = tp.tv.Update(s, head, tp.changed[:0])
	for _, p := range tp.changed {
		if p < tp.n {
			setMark(tp.spans.Index(p), tp.tv.Mark(p), head)
		}
	}
	if tp.tv.Len() > tp.n {
		var b strings.Builder
		for p := max(old, tp.n); p < tp.tv.Len(); p++ {
			m := tp.tv.Mark(p)
			fmt.Fprintf(&b, `<span data-p="%d" data-role="%s"`, p, m.Role.Key())
			if head == view.AllHeads && m.Role.Held() && m.Share < 1 {
				fmt.Fprintf(&b, ` style="--s:%.2f"`, m.Share)
			}
			b.WriteString(">")
			b.WriteString(html.EscapeString(view.TokenLabel(s, p)))
			b.WriteString("</span>")
		}
		tp.el.Call("insertAdjacentHTML", "beforeend", b.String())
		tp.n = tp.tv.Len()
	}
	a.highlightText()
}

// highlightText marks the text view's token under the map's pointer.
func (a *app) highlightText() {
	tp := &a.pg.tv
	hl := -1
	if h := a.hover; h.valid && h.side == 0 && h.pos < tp.n {
		hl = h.pos
	}
	if hl != tp.hl {
		if tp.hl >= 0 && tp.hl < tp.n {
			tp.spans.Index(tp.hl).Get("classList").Call("remove", "hl")
		}
		if hl >= 0 {
			tp.spans.Index(hl).Get("classList").Call("add", "hl")
		}
		tp.hl = hl
	}
}

// setMark writes a mark onto its span.
func setMark(el js.Value, m view.TokenMark, head int) {
	el.Get("dataset").Set("role", m.Role.Key())
	st := el.Get("style")
	if head == view.AllHeads && m.Role.Held() && m.Share < 1 {
		st.Call("setProperty", "--s", strconv.FormatFloat(float64(m.Share), 'f', 2, 64))
	} else {
		st.Call("removeProperty", "--s")
	}
}

// roleCSS is the style sheet of role colours the legend and the text view
// share: each role key's colour as the variable --c.
func roleCSS() string {
	var b strings.Builder
	for r := sim.Role(0); int(r) < sim.NumRoles; r++ {
		fmt.Fprintf(&b, "[data-role=%q]{--c:%s}", r.Key(), view.RoleColor(r).Hex())
	}
	return b.String()
}
