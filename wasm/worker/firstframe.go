package main

import (
	"errors"
	"fmt"
	"image"
	"math"

	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/viz/scene"
	"github.com/kvscope/kvscope/viz/view"
)

// The first picture. The page's thread is busy for a second or more
// before its first frame: it compiles main.wasm and runs the Go program's
// package initialisation (Ebiten compiles its shaders there), all in one
// go. A worker compiles the smaller worker.wasm on the other core
// meanwhile and draws the first picture itself, in software, onto a canvas
// the page handed it (an OffscreenCanvas reaches the screen without the
// page's thread). The page's program, once running, draws the same
// picture with WebGL and removes the worker's.

// firstRequest is the page's geometry when it asks for the first picture:
// the link it opened and where the pictures' holes are.
type firstRequest struct {
	Link      string    `json:"link"`  // the page's settings (hash or query), as view.Decode reads them
	Scale     float64   `json:"scale"` // device px per CSS px
	Box       view.Rect `json:"box"`   // the canvas, CSS px in the viewport, integer edges
	Map       view.Rect `json:"map"`   // side A's holes, CSS px in the viewport
	Overview  view.Rect `json:"ov"`
	Attention view.Rect `json:"attn"`
}

// errNoFirstFrame says the link's first picture is not drawn by a worker:
// real-model mode (the model must load first) and the comparison (two
// sides) start with the page's own program, and so does a link with
// values kvscope adjusts (the program's notices about them push the
// pictures down).
var errNoFirstFrame = errors.New("the page draws this link's first picture itself")

// maxPixels bounds the picture (device px): a 4K screen's worth.
const maxPixels = 3840 * 2160

// firstFrame decodes r's link, decodes its stream up to the prompt's end
// (where the page's first frame is: it never shows a half-read prompt)
// and draws side A's map, overview strip and attention rows as the page's
// program would, with the map following the newest token and nothing
// hovered. It returns the picture of the canvas box r.Box in device px
// (the page makes the box what its program's canvas covers, view.Cover of
// the holes), and the step drawn.
func firstFrame(r firstRequest) (pic *image.RGBA, step int, err error) {
	st, ns := view.Decode(r.Link)
	ns = append(ns, view.Normalize(&st)...)
	if st.ModelMode() || st.Compare || len(ns) > 0 {
		return nil, 0, errNoFirstFrame
	}
	scale := r.Scale
	if !(scale > 0) || math.IsInf(scale, 0) {
		scale = 1
	}
	box := r.Box
	if !(box.W >= 1 && box.H >= 1 && box.W*box.H*scale*scale <= maxPixels) {
		return nil, 0, fmt.Errorf("first picture: a canvas of %g×%g CSS px at scale %g", box.W, box.H, scale)
	}
	c := st.A
	e, err := sim.New(c)
	if err != nil {
		return nil, 0, err
	}
	for e.Pos() < min(c.Prompt, c.Tokens) && e.Step() {
	}
	snap := e.Snapshot(st.Layer)
	in := func(q view.Rect) view.Rect { return view.Rect{X: q.X - box.X, Y: q.Y - box.Y, W: q.W, H: q.H} }
	pic = scene.Picture(snap, view.Viewport{}, c.Tokens, scene.Holes{Map: in(r.Map), Overview: in(r.Overview), Attention: in(r.Attention)}, box.W, box.H, scale)
	return pic, snap.Step, nil
}
