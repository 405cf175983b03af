//go:build js && wasm

package main

import (
	"encoding/json"
	"syscall/js"

	"github.com/kvscope/kvscope/viz/view"
)

// installTestAPI exposes window.kvscope, what the page's scripts
// (panels.js) and the browser tests ask the Go program: state() returns
// the numbers as JSON (see view.PageState), config() what the chart
// sweeps, catalog() the policies, quantizers and measures as their
// descriptions give them (view.Catalogue), and applySettings, lesson and
// modelBytes act on the page.
func (a *app) installTestAPI() {
	kv := js.Global().Get("Object").New()
	catalog := view.Catalogue().JSON()
	kv.Set("catalog", js.FuncOf(func(js.Value, []js.Value) any { return catalog }))
	// lesson(n) opens guided lesson n (0 closes the card).
	kv.Set("lesson", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) > 0 {
			n := args[0].Int()
			a.post(func() { a.openLesson(n) })
		}
		return nil
	}))
	// applySettings(json) applies {key: value, …} as controls would (the
	// chart's points do this); config() returns what the chart sweeps.
	kv.Set("applySettings", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) == 0 {
			return nil
		}
		var kvs map[string]any
		if err := json.Unmarshal([]byte(args[0].String()), &kvs); err != nil {
			return err.Error()
		}
		a.post(func() { a.applySettings(kvs) })
		return nil
	}))
	// modelBytes() returns a copy of the loaded model file (a Uint8Array),
	// or null: the chart's worker loads the same model.
	kv.Set("modelBytes", js.FuncOf(func(js.Value, []js.Value) any {
		raw := a.mdl.raw
		if raw == nil {
			return nil
		}
		u := js.Global().Get("Uint8Array").New(len(raw))
		js.CopyBytesToJS(u, raw)
		return u
	}))
	kv.Set("config", js.FuncOf(func(js.Value, []js.Value) any {
		if v, ok := a.sweepBase.Load().(string); ok {
			return v
		}
		return ""
	}))
	kv.Set("state", js.FuncOf(func(js.Value, []js.Value) any {
		if v, ok := a.public.Load().(string); ok {
			return v
		}
		return `{"ready":false}`
	}))
	js.Global().Set("kvscope", kv)
}
