//go:build js && wasm

package main

import (
	"syscall/js"

	"github.com/kvscope/kvscope/viz/view"
)

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
