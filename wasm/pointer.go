//go:build js && wasm

package main

import (
	"strconv"
	"syscall/js"
)

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
