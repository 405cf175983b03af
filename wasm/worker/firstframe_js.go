//go:build js && wasm

package main

import (
	"encoding/json"
	"errors"
	"syscall/js"

	"github.com/kvscope/kvscope/viz/scene"
)

// firstPicture draws the first picture (firstFrame) onto canvas, an
// OffscreenCanvas the page placed over its box, and replies
// {type:'firstframe', step, asked, drawn, put, presented} with the times
// (ms since the epoch, performance.timeOrigin + now) when the request
// began, the picture was rasterized, it was put on the canvas, and the
// first animation frame after that began: the frame that shows it. A link
// the page draws itself replies {type:'firstframe', skipped: true}.
func (w *worker) firstPicture(payload string, canvas js.Value) {
	var r firstRequest
	if err := json.Unmarshal([]byte(payload), &r); err != nil {
		w.fail(0, err)
		return
	}
	perf := js.Global().Get("performance")
	at := func() float64 { return perf.Get("timeOrigin").Float() + perf.Call("now").Float() }
	t0 := at()
	pic, step, err := firstFrame(r)
	t1 := at()
	if errors.Is(err, errNoFirstFrame) {
		w.post(map[string]any{"type": "firstframe", "skipped": true})
		return
	}
	if err != nil {
		w.fail(0, err)
		return
	}
	scene.StraightAlpha(pic.Pix)
	b := pic.Rect
	arr := js.Global().Get("Uint8ClampedArray").New(len(pic.Pix))
	js.CopyBytesToJS(arr, pic.Pix)
	img := js.Global().Get("ImageData").New(arr, b.Dx(), b.Dy())
	canvas.Call("getContext", "2d").Call("putImageData", img, 0, 0)
	t2 := at()
	var f js.Func
	f = js.FuncOf(func(js.Value, []js.Value) any {
		f.Release()
		w.post(map[string]any{"type": "firstframe", "step": step, "asked": t0, "drawn": t1, "put": t2, "presented": at()})
		return nil
	})
	js.Global().Call("requestAnimationFrame", f)
}
