//go:build js && wasm

package main

import (
	"strconv"

	"github.com/kvscope/kvscope/viz/view"
)

// The canvas covers only the pictures Ebiten draws — the token maps and
// attention rows of the sides shown — not the whole window. Ebiten sizes
// its canvas to the <body> (its clientWidth × clientHeight × device scale
// factor, read every frame), so the page makes <body> a fixed box over
// those pictures (static/style.css: body is position: fixed, #app covers
// the viewport on its own) and the canvas follows. Software WebGL
// (SwiftShader) spends time in proportion to the canvas's pixels on every
// frame that changes it, so this keeps a playing frame cheap.

// canvasMargin is the room around the pictures, CSS px: the hovered
// cell's outline reaches a pixel beyond the map.
const canvasMargin = 4

// placeCanvas moves <body>, and with it Ebiten's canvas, to b, and sizes
// the canvas's drawing buffer to b in device px (as Ebiten does on a
// window resize), so the next frame draws at the new size.
func (a *app) placeCanvas(b view.Rect) {
	if b == a.box {
		return
	}
	a.box = b
	st := document.Get("body").Get("style")
	px := func(v float64) string { return strconv.Itoa(int(v)) + "px" }
	st.Call("setProperty", "left", px(b.X), "important")
	st.Call("setProperty", "top", px(b.Y), "important")
	st.Call("setProperty", "width", px(b.W), "important")
	st.Call("setProperty", "height", px(b.H), "important")
	if c := document.Call("querySelector", "body > canvas"); c.Truthy() {
		c.Set("width", int(b.W*a.scale))
		c.Set("height", int(b.H*a.scale))
	}
}

// dev converts a viewport point (CSS px) to the canvas's device px.
func (a *app) dev(x, y float64) (float64, float64) {
	return (x - a.box.X) * a.scale, (y - a.box.Y) * a.scale
}

// css converts a canvas point (device px) to viewport CSS px.
func (a *app) css(x, y float64) (float64, float64) {
	return x/a.scale + a.box.X, y/a.scale + a.box.Y
}

// onCanvas converts a viewport rectangle (CSS px) to the canvas's device px.
func (a *app) onCanvas(r view.Rect) view.Rect {
	x, y := a.dev(r.X, r.Y)
	return view.Rect{X: x, Y: y, W: r.W * a.scale, H: r.H * a.scale}
}

// createContext creates the canvas's WebGL2 context before Ebiten asks
// for it (its request then returns this one): Ebiten's attributes
// (alpha, premultiplied alpha, stencil) without the default multisampling,
// since the pictures are drawn straight onto the canvas (see
// game.DrawFinalScreen), where multisampling would blend the cells' edges
// and cost software WebGL a resolve per frame. Call it before RunGame.
func createContext() {
	c := document.Call("querySelector", "body > canvas")
	if !c.Truthy() {
		return
	}
	attr := window.Get("Object").New()
	attr.Set("alpha", true)
	attr.Set("premultipliedAlpha", true)
	attr.Set("stencil", true)
	attr.Set("antialias", false)
	c.Call("getContext", "webgl2", attr)
}
