//go:build js && wasm

package main

import (
	"encoding/json"
	"fmt"
	"syscall/js"
	"time"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/session"
	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/viz/view"
)

// A real model decodes in a Web Worker (static/sweep-worker.js running
// worker.wasm, wasm/worker/decode.go): the page's thread sends the
// worker the model once, then each run's settings, the goal it is to
// reach and the layer shown, and draws the frames it sends back
// (core/session). A decode step never runs on the page's thread, so a
// click, a key or a slider is never kept waiting by one.

// decodeWorker is one of the page's decoding workers: side A's, or in
// compare mode side B's, so the two sides decode on two cores.
type decodeWorker struct {
	w      js.Value
	onMsg  js.Func
	m      *model.Model // the model the worker was last sent
	nextID int
}

// decodeWorker returns side i's decoding worker, starting it on first
// use. Run ids are unique across the workers (odd for A, even for B).
func (a *app) decodeWorker(i int) *decodeWorker {
	d := &a.dws[i]
	if d.w.Truthy() {
		return d
	}
	d.w = js.Global().Get("Worker").New("sweep-worker.js")
	d.onMsg = js.FuncOf(func(_ js.Value, args []js.Value) any {
		data := args[0].Get("data")
		kind := data.Get("type").String()
		id := 0
		if v := data.Get("id"); v.Type() == js.TypeNumber {
			id = v.Int()
		}
		switch kind {
		case "frame":
			u := js.Global().Get("Uint8Array").New(data.Get("data"))
			b := make([]byte, u.Get("byteLength").Int())
			js.CopyBytesToGo(b, u)
			a.post(func() { a.onFrame(id, b) })
		case "sinkmeter":
			s := &sim.Sinks{Layers: data.Get("layers").Int(), Heads: data.Get("heads").Int(), Tokens: data.Get("tokens").Int()}
			if imp := data.Get("importance"); imp.Truthy() {
				s.Importance = make([]float64, imp.Length())
				for i := range s.Importance {
					s.Importance[i] = imp.Index(i).Float()
				}
			}
			a.post(func() { a.onSinks(id, s) })
		case "taskcell":
			var c sim.TaskCell
			if err := json.Unmarshal([]byte(js.Global().Get("JSON").Call("stringify", data.Get("cell")).String()), &c); err == nil {
				a.post(func() { a.onTaskCell(id, c) })
			}
		case "error":
			msg := data.Get("message").String()
			a.post(func() {
				if !a.onTasksError(id, msg) {
					a.onDecodeError(id, msg)
				}
			})
		}
		return nil
	})
	d.w.Set("onmessage", d.onMsg)
	d.nextID = i + 1
	return d
}

// send posts a message of the given type with payload's fields.
func (d *decodeWorker) send(kind string, payload any) {
	b, err := json.Marshal(payload)
	if err != nil {
		panic("kvscope: decode message: " + err.Error()) // the payloads are the page's own structs
	}
	msg := js.Global().Get("JSON").Call("parse", string(b))
	msg.Set("type", kind)
	d.w.Call("postMessage", msg)
}

// sendModel hands the worker a copy of the model file when it does not
// have this model yet.
func (d *decodeWorker) sendModel(m *model.Model, raw []byte) {
	if d.m == m {
		return
	}
	d.m = m
	u := js.Global().Get("Uint8Array").New(len(raw))
	js.CopyBytesToJS(u, raw)
	msg := js.Global().Get("Object").New()
	msg.Set("type", "model")
	msg.Set("bytes", u.Get("buffer"))
	d.w.Call("postMessage", msg, []any{u.Get("buffer")})
}

// remoteRun is the engine of a run decoding in the worker: the page's
// copy of its latest frame. Step only asks for a step; the frames that
// arrive move it on.
type remoteRun struct {
	d     *decodeWorker
	id    int
	cfg   sim.Config
	set   session.Settings
	m     *model.Model
	rc    session.Receiver
	snap  *sim.Snapshot
	ids   []int
	goal  int
	layer int
	ended bool
	err   string
}

// openRemote starts run set of model m (file raw) in the worker, to reach
// goal tokens showing layer. cfg is the configuration with the model's
// shape, as the run reports it.
func (a *app) openRemote(i int, m *model.Model, raw []byte, cfg sim.Config, set session.Settings, goal, layer int) *remoteRun {
	d := a.decodeWorker(i)
	d.sendModel(m, raw)
	d.nextID += 2
	r := &remoteRun{d: d, id: d.nextID, cfg: cfg, set: set, m: m, goal: goal, layer: layer}
	d.send("open", map[string]any{"id": r.id, "settings": set, "goal": goal, "layer": layer})
	return r
}

// Step asks the worker for one more step; it reports false once the run
// has ended.
func (r *remoteRun) Step() bool {
	r.setGoal(r.Pos() + 1)
	return !r.ended
}

// setGoal tells the worker how many tokens to reach, when that changed.
func (r *remoteRun) setGoal(g int) {
	if g != r.goal {
		r.goal = g
		r.d.send("goal", map[string]any{"id": r.id, "goal": g})
	}
}

// Snapshot returns the latest frame's snapshot (nil before the first),
// asking the worker for layer when it shows another.
func (r *remoteRun) Snapshot(layer int) *sim.Snapshot {
	if layer != r.layer {
		r.layer = layer
		r.d.send("layer", map[string]any{"id": r.id, "layer": layer})
	}
	return r.snap
}

// Pos returns the tokens the latest frame shows fed.
func (r *remoteRun) Pos() int {
	if r.snap == nil {
		return 0
	}
	return r.snap.Step
}

func (r *remoteRun) Config() sim.Config { return r.cfg }

// Err returns why the run stopped, if it failed.
func (r *remoteRun) Err() error {
	if r.err == "" {
		return nil
	}
	return fmt.Errorf("%s", r.err)
}

// Perplexity scores the run's uncompressed tokens so far as
// sim.ModelRun.Perplexity does, on the page's copy of the model.
func (r *remoteRun) Perplexity() (full, compressed float64, err error) {
	return sim.PerplexityTokens(r.m, r.cfg, r.ids, r.set.Repos)
}

// remote returns side i's run when it decodes in the worker.
func (a *app) remote(i int) *remoteRun {
	r, _ := a.sides[i].eng.(*remoteRun)
	return r
}

// onFrame takes in a frame of run id.
func (a *app) onFrame(id int, b []byte) {
	for i := range a.sides {
		r := a.remote(i)
		if r == nil || r.id != id {
			continue
		}
		f, err := r.rc.Receive(b)
		if err != nil {
			// Should not happen: frames arrive whole and in order. Start the
			// run again rather than show a snapshot half taken in.
			a.addNotices(view.Notice{Msg: "A frame from the decoding worker did not read (" + err.Error() + "); decoding again."})
			a.rebuild(a.cur())
			return
		}
		r.snap, r.ids, r.ended, r.err = f.Snap, f.IDs, f.Ended, f.Err
		a.changed = true
		if f.Err == "" {
			a.lastRun = a.st // these settings run: a refused change goes back to them
		}
		if f.Ended && a.replayTo > r.Pos() {
			a.replayTo = r.Pos() // the run ended early
		}
		a.addDecoded(f.Steps, time.Duration(f.Nanos), !a.replaying())
		if f.Ended && a.st.Playing && !a.replaying() && a.allEnded() {
			a.st.Playing, a.acc = false, 0
			a.reflect()
		}
	}
}

// onDecodeError reports a run the worker refused, and goes back to the
// last settings that ran.
func (a *app) onDecodeError(id int, msg string) {
	for i := range a.sides {
		if r := a.remote(i); r != nil && r.id == id {
			a.addNotices(view.Notice{Msg: fmt.Sprintf("The model refused these settings (%s); keeping the previous ones.", msg)})
			a.sides[i].eng, a.sides[i].snap, a.sides[i].mkey = nil, nil, modelKey{}
			back := a.lastRun
			if back == a.st || !back.ModelMode() {
				d := view.DefaultState()
				d.Playing = false
				a.apply(d, 0)
			} else {
				a.apply(back, a.cur())
			}
			a.reflect()
			return
		}
	}
	a.addNotices(view.Notice{Msg: "The decoding worker: " + msg})
}

// allEnded reports whether every side's run has ended.
func (a *app) allEnded() bool {
	for i := 0; i < a.active(); i++ {
		if r := a.remote(i); r == nil || !r.ended {
			return false
		}
	}
	return true
}

// tickRemote moves the workers' goal: to the replay's target while
// catching up; while playing, Speed steps a second (tps frames a second),
// never more than a tenth of a second's worth ahead of the side furthest
// behind (at least two steps, so a worker never waits for the page between
// steps), which keeps the two sides of a comparison together; when
// paused, each side's step shown.
func (a *app) tickRemote(tps float64) {
	n := a.active()
	switch {
	case a.replaying():
		a.goal = a.replayTo
	case a.st.Playing && !a.allEnded():
		a.acc += a.st.Speed / tps
		k := int(a.acc)
		a.acc -= float64(k)
		pos := a.pos()
		lead := max(2, int(a.st.Speed/10))
		a.goal = max(a.goal, min(max(a.goal, pos)+k, pos+lead))
	default:
		for i := range n {
			if r := a.remote(i); r != nil {
				r.setGoal(r.Pos())
			}
		}
		a.goal = a.pos()
		return
	}
	for i := range n {
		if r := a.remote(i); r != nil {
			r.setGoal(a.goal)
		}
	}
}
