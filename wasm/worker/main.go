//go:build js && wasm

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"syscall/js"
	"time"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/sim"
)

// worker is the state kept between messages.
type worker struct {
	stream *sim.Stream   // the last sweep's recording
	model  *model.Model  // the model for real-model sweeps
	cancel func()        // stops the running job; nil when idle
	id     int           // the running job's id
	done   chan struct{} // closed when the running job has stopped
	yield  time.Time     // when the job last let the event loop run
	wake   js.Func       // a timer callback that resumes a paused job
	woke   chan struct{} // signalled by wake
	dec    decoder       // the page's real-model decoder (decode.go)
}

// gcPercent is the worker's GOGC. A worker's live heap is mostly its
// model's bytes, which hold no pointers and cost the collector nothing to
// scan, and WebAssembly memory never shrinks: at Go's default of 100 the
// heap of a 145 MB model may grow to about twice that before a collection.
const gcPercent = 20

func main() {
	debug.SetGCPercent(gcPercent)
	w := &worker{}
	js.Global().Set("kvscopeWorker", js.ValueOf(map[string]any{
		"handle": js.FuncOf(func(_ js.Value, args []js.Value) any {
			if len(args) < 2 {
				w.post(map[string]any{"type": "error", "message": "handle(type, json) needs two arguments"})
				return nil
			}
			w.handle(args[0].String(), args[1].String())
			return nil
		}),
		"loadModel": js.FuncOf(func(_ js.Value, args []js.Value) any {
			id := 0
			if len(args) > 1 {
				id = args[1].Int()
			}
			if len(args) < 1 || args[0].Get("byteLength").IsUndefined() {
				w.post(map[string]any{"type": "error", "id": id, "message": "loadModel(bytes) needs a Uint8Array"})
				return nil
			}
			b := make([]byte, args[0].Get("byteLength").Int())
			js.CopyBytesToGo(b, args[0])
			w.loadModel(b, id)
			return nil
		}),
		"firstFrame": js.FuncOf(func(_ js.Value, args []js.Value) any {
			if len(args) < 2 {
				w.post(map[string]any{"type": "error", "message": "firstFrame(json, canvas) needs two arguments"})
				return nil
			}
			w.firstPicture(args[0].String(), args[1])
			return nil
		}),
	}))
	w.post(map[string]any{"type": "ready"})
	select {}
}

// post sends one reply to the page.
func (w *worker) post(msg map[string]any) {
	b, err := json.Marshal(msg)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"type": "error", "id": msg["id"], "message": "kvscope worker: " + err.Error()})
	}
	js.Global().Call("kvscopePost", string(b))
}

func (w *worker) fail(id int, err error) {
	w.post(map[string]any{"type": "error", "id": id, "message": err.Error()})
}

func (w *worker) loadModel(b []byte, id int) {
	// As the page loads it: every non-F32 matrix kept in the file's bytes.
	m, err := model.LoadBytes(b, model.Options{KeepQuantized: true})
	if err != nil {
		w.fail(id, err)
		return
	}
	w.model = m
	c := m.Config
	w.post(map[string]any{"type": "model", "id": id, "layers": c.Layers, "heads": c.Heads, "kvHeads": c.KVHeads,
		"headDim": c.HeadDim, "context": c.ContextLength})
}

// handle starts or stops a job. Jobs run on their own goroutine, so the
// worker's event loop stays free to deliver the next message.
func (w *worker) handle(kind, payload string) {
	switch kind {
	case "cancel":
		var m struct {
			ID int `json:"id"`
		}
		if err := json.Unmarshal([]byte(payload), &m); err != nil {
			w.fail(0, err)
			return
		}
		if w.cancel != nil && (m.ID == 0 || m.ID == w.id) {
			w.cancel()
		}
	case "open", "goal", "layer", "sinkmeter", "tasks":
		w.decodeRequest(kind, payload)
	case "sweep":
		r, err := sim.ParseSweepRequest([]byte(payload))
		if err != nil {
			w.fail(0, err)
			return
		}
		w.start(r.ID, func(ctx context.Context) error { return w.sweep(ctx, r) })
	case "reference":
		var r referenceRequest
		if w.decode(kind, payload, &r) {
			w.start(r.ID, func(ctx context.Context) error { return w.reference(ctx, r) })
		}
	case "sinks":
		r := sinksRequest{Config: sim.DefaultConfig(), Sink: sim.DefaultSweepSink}
		if w.decode(kind, payload, &r) {
			w.start(r.ID, func(context.Context) error { return w.sinks(r) })
		}
	case "bench":
		var r benchRequest
		if w.decode(kind, payload, &r) {
			w.start(r.ID, func(context.Context) error { return w.bench(r) })
		}
	default:
		w.fail(0, fmt.Errorf("unknown message type %q", kind))
	}
}

// decode decodes the payload of a request of the given kind into r, which
// holds the defaults of the fields the payload leaves out, and reports
// whether it did. A payload that does not decode, or names a field r does
// not have (a misspelt setting must not pass unnoticed), is answered with
// an error and reported false.
func (w *worker) decode(kind, payload string, r any) bool {
	d := json.NewDecoder(strings.NewReader(payload))
	d.DisallowUnknownFields()
	if err := d.Decode(r); err != nil {
		w.fail(0, fmt.Errorf("%s request: %w", kind, err))
		return false
	}
	return true
}

// start cancels the running job, waits for it to stop, and runs job.
func (w *worker) start(id int, job func(context.Context) error) {
	prev, prevDone := w.cancel, w.done
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	w.cancel, w.id, w.done = cancel, id, done
	go func() {
		defer close(done)
		if prev != nil {
			prev()
			<-prevDone
		}
		err := job(ctx)
		switch {
		case ctx.Err() != nil:
			w.post(map[string]any{"type": "cancelled", "id": id})
		case err != nil:
			w.fail(id, err)
		}
		cancel()
	}()
}

// pause lets the worker's event loop run (and a cancel message arrive)
// when the job has held it for 100 ms (a cancel waits at most about a
// row more; each pause costs a timer tick, up to 4 ms).
//
// The job waits for a JavaScript timer rather than sleeping: a Go timer
// that is already due when the scheduler looks (1 ms passes quickly on a
// loaded machine) is run at once without returning to the event loop,
// and the cancel would never be read.
func (w *worker) pause() {
	if time.Since(w.yield) <= 100*time.Millisecond {
		return
	}
	if w.woke == nil {
		w.woke = make(chan struct{}, 1)
		w.wake = js.FuncOf(func(js.Value, []js.Value) any {
			w.woke <- struct{}{}
			return nil
		})
	}
	js.Global().Call("setTimeout", w.wake, 0)
	<-w.woke
	w.yield = time.Now()
}

// sweep runs a sweep request, posting the points, then each row.
func (w *worker) sweep(ctx context.Context, r sim.SweepRequest) error {
	t0 := time.Now()
	w.yield = t0
	ps, err := r.Points(w.model)
	if err != nil {
		return err
	}
	points := make([]map[string]any, len(ps))
	for i, p := range ps {
		c := p.Config
		points[i] = map[string]any{"index": i, "policy": c.Policy, "budget": p.Budget, "sink": c.Sink, "recent": c.Recent,
			"heavy": c.Heavy, "drop": c.DropShare, "bits": c.Bits, "gran": c.Granularity}
	}
	w.post(map[string]any{"type": "start", "id": r.ID, "total": len(ps), "points": points})
	n := 0
	s, err := r.Run(ctx, ps, w.stream, w.model, func(row sim.Row) error {
		n++
		w.post(map[string]any{"type": "row", "id": r.ID, "row": row})
		w.pause()
		return ctx.Err()
	})
	if s != nil {
		w.stream = s
	}
	if err != nil {
		return err
	}
	w.post(map[string]any{"type": "done", "id": r.ID, "rows": n, "ms": time.Since(t0).Milliseconds()})
	return nil
}

// sinksRequest asks for the attention-sinks figure (sim.SinkFigure).
type sinksRequest struct {
	ID        int        `json:"id"`
	Config    sim.Config `json:"config"`
	Text      string     `json:"text"`
	MaxTokens int        `json:"maxTokens"`
	Budget    int        `json:"budget"`
	Sink      int        `json:"sink"`
	Repos     bool       `json:"repos"`
}

func (w *worker) sinks(r sinksRequest) error {
	if w.model == nil {
		return fmt.Errorf("the attention-sinks figure needs a model (loadModel)")
	}
	toks, curves, err := sim.SinkFigure(w.model, r.Config, r.Text, r.MaxTokens, r.Budget, r.Sink, r.Repos)
	if err != nil {
		return err
	}
	pieces := make([]string, len(toks))
	for i, t := range toks {
		prev := -1
		if i > 0 {
			prev = toks[i-1]
		}
		pieces[i] = w.model.Tokenizer.TokenText(prev, t)
	}
	out := make([]map[string]any, len(curves))
	for i, c := range curves {
		out[i] = map[string]any{"label": c.Label, "policy": c.Config.Policy, "sink": c.Config.Sink, "recent": c.Config.Recent, "nll": c.NLL}
	}
	w.post(map[string]any{"type": "sinks", "id": r.ID, "tokens": pieces, "curves": out})
	return nil
}
