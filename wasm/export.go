//go:build js && wasm

package main

import (
	"bytes"
	"math"
	"strconv"
	"syscall/js"

	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/viz/scene"
	"github.com/kvscope/kvscope/viz/view"
)

// Figures a teacher takes away: static/export.js draws and downloads
// them (a Blob and an <a download>; nothing leaves the browser), asking
// the program for what only it knows:
//
//	kvscope.sweepCSV(rowsJSON)  the chart's rows as kvscope -sweep's CSV (view.SweepCSV):
//	                            {csv} or {error}
//	kvscope.recallCSV()         the recall heatmap's measured cells as kvscope -task's
//	                            CSV (sim.WriteTaskCSV), "" before a heatmap
//	kvscope.mapPixels(side, scale)
//	                            side's map, overview and attention rows drawn in
//	                            software at scale device px per CSS px (scene.Picture):
//	                            {x, y, w, h (CSS px, viewport), width, height, data
//	                            (straight-alpha RGBA)}, or null
//	kvscope.caption()           the settings a figure shows, in a line (view.Caption)
//
// They run on the page's thread between frames, so they read the state
// the last frame showed.
func (a *app) initExport() {
	kv := window.Get("kvscope")
	kv.Set("sweepCSV", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) < 1 || args[0].Type() != js.TypeString {
			return map[string]any{"error": "sweepCSV(json) needs the rows as JSON"}
		}
		var b bytes.Buffer
		if err := view.SweepCSV(&b, []byte(args[0].String())); err != nil {
			return map[string]any{"error": err.Error()}
		}
		return map[string]any{"csv": b.String()}
	}))
	kv.Set("recallCSV", js.FuncOf(func(js.Value, []js.Value) any {
		var done []sim.TaskCell
		for _, c := range a.breaks.cells {
			if c.Done {
				done = append(done, c)
			}
		}
		var b bytes.Buffer
		if err := sim.WriteTaskCSV(&b, done); err != nil {
			return ""
		}
		return b.String()
	}))
	kv.Set("mapPixels", js.FuncOf(func(_ js.Value, args []js.Value) any {
		side, scale := 0, 2.0
		if len(args) > 0 && args[0].Type() == js.TypeNumber {
			side = args[0].Int()
		}
		if len(args) > 1 && args[1].Type() == js.TypeNumber {
			scale = args[1].Float()
		}
		return a.mapPixels(side, scale)
	}))
	kv.Set("caption", js.FuncOf(func(js.Value, []js.Value) any {
		ps := a.pageState()
		return view.Caption(&ps, &a.st)
	}))
}

// maxExportPixels bounds an exported map (device px): an 8K screen's worth.
const maxExportPixels = 7680 * 4320

// mapPixels draws side's pictures as the page shows them, at scale.
func (a *app) mapPixels(side int, scale float64) any {
	if side < 0 || side >= a.active() || !(scale > 0 && scale <= 4) {
		return nil
	}
	sd := &a.sides[side]
	if sd.snap == nil {
		return nil
	}
	si := strconv.Itoa(side)
	m, ov, at := readRect("map-"+si), readRect("ov-"+si), readRect("attn-"+si)
	// The holes' union, integer edges, wherever it is (scrolled off too).
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, r := range []view.Rect{m, ov, at} {
		if r.W > 0 && r.H > 0 {
			x0, y0 = math.Min(x0, r.X), math.Min(y0, r.Y)
			x1, y1 = math.Max(x1, r.X+r.W), math.Max(y1, r.Y+r.H)
		}
	}
	box := view.Rect{X: math.Floor(x0), Y: math.Floor(y0), W: math.Ceil(x1) - math.Floor(x0), H: math.Ceil(y1) - math.Floor(y0)}
	if !(box.W > 0 && box.H > 0) || box.W*box.H*scale*scale > maxExportPixels {
		return nil
	}
	in := func(r view.Rect) view.Rect { return view.Rect{X: r.X - box.X, Y: r.Y - box.Y, W: r.W, H: r.H} }
	pic := scene.Picture(sd.snap, sd.vp, a.runTotal, scene.Holes{Map: in(m), Overview: in(ov), Attention: in(at)}, box.W, box.H, scale)
	if pic == nil {
		return nil
	}
	scene.StraightAlpha(pic.Pix)
	arr := js.Global().Get("Uint8ClampedArray").New(len(pic.Pix))
	js.CopyBytesToJS(arr, pic.Pix)
	return map[string]any{"x": box.X, "y": box.Y, "w": box.W, "h": box.H, "width": pic.Rect.Dx(), "height": pic.Rect.Dy(), "data": arr}
}
