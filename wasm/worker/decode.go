//go:build js && wasm

package main

import (
	"encoding/json"
	"fmt"
	"sync"
	"syscall/js"
	"time"

	"github.com/kvscope/kvscope/core/session"
	"github.com/kvscope/kvscope/core/sim"
)

// The page's real-model decoder. A worker given a model and an "open"
// message runs a core/session Session: it steps the run towards the goal
// the page sets ("goal") and posts a frame (core/session's wire format)
// about every frameEvery of stepping and whenever it reaches the goal, so
// the page's thread only draws what arrives:
//
//	handle("open",  {"id":n,"settings":session.Settings,"goal":g,"layer":l})
//	handle("goal",  {"id":n,"goal":g})
//	handle("layer", {"id":n,"layer":l})
//	→ {"type":"frame","id":n,"step":s,"data":ArrayBuffer}
//	→ {"type":"error","id":n,"message":…} (a run the model refuses; none is open then)
//	handle("tasks", {"id":n,"tasks":tasksRequest}) (rows of the recall heatmap)
//	→ {"type":"taskcell","id":n,"cell":sim.TaskCell} per cell, then {"type":"tasksdone","id":n}
//	handle("sinkmeter", {"id":n,"text":…})
//	→ {"type":"sinkmeter","id":n,"layers":…,"heads":…,"tokens":…,"importance":[…]}
//
// The sink meter (sim.NewGreedySinkMeter: the text's first sim.SinkPrompt
// tokens, continued greedily) steps only while the run is not stepping,
// so it never slows what the visitor watches.
//
// Messages are queued and applied between steps, so a goal or a layer
// takes effect after the step in progress.

// frameEvery is the most stepping time between two frames: a model that
// decodes hundreds of steps a second sends the page one frame about each
// of its animation frames, not one a step.
const frameEvery = 30 * time.Millisecond

// decoder is the worker's decoding state.
type decoder struct {
	mu    sync.Mutex
	queue []func()
	wake  chan struct{}
	sess  *session.Session
	dirty bool      // a frame is owed: steps taken or a layer changed since the last
	last  time.Time // when the last frame was posted

	meter   *sim.SinkMeter // the loaded model's sink heads, measured while no run steps
	meterID int

	task     *sim.TaskSweep // rows of the recall heatmap, stepped beside the run
	taskID   int
	taskSent int // cells posted
}

// tasksRequest asks for rows of the recall heatmap (sim.NewTaskHeatmap):
// the task instance and its length, the configuration whose policy and
// storage are measured, and this worker's depths, at every budget.
type tasksRequest struct {
	Config  sim.Config `json:"config"`
	Task    string     `json:"task"`
	Length  int        `json:"length"`
	Depths  []float64  `json:"depths"`
	Budgets []int      `json:"budgets"`
}

// taskChunk is how many tokens of a heatmap cell one turn of the decode
// loop feeds: a turn of the heatmap alternates with a step of the run.
const taskChunk = 2

// decodeMsg is the payload of open, goal, layer and sinkmeter.
type decodeMsg struct {
	ID       int               `json:"id"`
	Settings *session.Settings `json:"settings"`
	Goal     int               `json:"goal"`
	Layer    int               `json:"layer"`
	Text     string            `json:"text"`
	Tasks    *tasksRequest     `json:"tasks"`
}

// decodeRequest queues an open, goal or layer message for the decode loop,
// starting the loop on first use.
func (w *worker) decodeRequest(kind, payload string) {
	// Settings a message leaves out take kvscope's defaults, as a sweep
	// request's do.
	m := decodeMsg{Settings: &session.Settings{Config: sim.DefaultConfig()}}
	if !w.decode(kind, payload, &m) {
		return
	}
	d := &w.dec
	if d.wake == nil {
		d.wake = make(chan struct{}, 1)
		go w.decodeLoop()
	}
	d.mu.Lock()
	d.queue = append(d.queue, func() { w.apply(kind, m) })
	d.mu.Unlock()
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// apply carries out one queued message on the loop's goroutine.
func (w *worker) apply(kind string, m decodeMsg) {
	d := &w.dec
	switch kind {
	case "open":
		if w.model == nil {
			w.fail(m.ID, fmt.Errorf("no model loaded to decode"))
			return
		}
		if d.sess == nil || d.sess.Model() != w.model {
			s, err := session.New(w.model)
			if err != nil {
				w.fail(m.ID, err)
				return
			}
			d.sess = s
		}
		if m.Settings == nil {
			w.fail(m.ID, fmt.Errorf("open: no settings"))
			return
		}
		if err := d.sess.Open(m.ID, *m.Settings, m.Goal, m.Layer); err != nil {
			w.fail(m.ID, err)
			return
		}
		w.postFrame() // the run is built: its empty frame says so
	case "goal":
		if d.sess != nil {
			d.sess.SetGoal(m.ID, m.Goal)
		}
	case "sinkmeter":
		d.meter, d.meterID = nil, m.ID
		if w.model == nil {
			w.fail(m.ID, fmt.Errorf("no model loaded to measure"))
			return
		}
		mc := w.model.Config
		prompt := w.model.Tokenizer.Prompt(m.Text)
		prompt = prompt[:min(len(prompt), sim.SinkPrompt, mc.ContextLength)]
		sm, err := sim.NewGreedySinkMeter(w.model, prompt, sim.SinkPrompt)
		if err != nil {
			w.postSinks(&sim.Sinks{}) // nothing to measure
			return
		}
		d.meter = sm
	case "tasks":
		d.task, d.taskID, d.taskSent = nil, m.ID, 0
		if m.Tasks == nil || len(m.Tasks.Depths) == 0 {
			return // no rows for this worker: nothing to do
		}
		if w.model == nil {
			w.fail(m.ID, fmt.Errorf("no model loaded to score"))
			return
		}
		r := m.Tasks
		sw, err := sim.NewTaskHeatmap(w.model, r.Config, sim.TaskSpec{Kind: r.Task, Seed: 1, Length: r.Length}, r.Depths, r.Budgets, false)
		if err != nil {
			w.fail(m.ID, err)
			return
		}
		sw.SetChunk(taskChunk)
		d.task = sw
	case "layer":
		if d.sess == nil {
			return
		}
		ok, err := d.sess.SetLayer(m.ID, m.Layer)
		if err != nil {
			w.fail(m.ID, err)
		}
		d.dirty = d.dirty || ok && err == nil
	}
}

// decodeLoop applies queued messages and does the next piece of work:
// a step of the open run, then a turn of the recall heatmap when one is
// asked for, or else a token of the sink meter; with nothing to do it
// waits for a message. Frames are posted as stepSession says.
func (w *worker) decodeLoop() {
	d := &w.dec
	for {
		d.mu.Lock()
		q := d.queue
		d.queue = nil
		d.mu.Unlock()
		for _, f := range q {
			f()
		}
		busy := w.stepSession()
		switch {
		case d.task != nil:
			w.stepTask()
			busy = true
		case !busy && d.meter != nil:
			w.stepMeter()
			busy = true
		}
		if !busy {
			<-d.wake
			continue
		}
		w.pause()
	}
}

// stepSession steps the open run when it is pending, posting a frame
// every frameEvery and when it stops; it reports whether it stepped.
func (w *worker) stepSession() bool {
	d := &w.dec
	s := d.sess
	if s == nil || !s.Pending() {
		if d.dirty && s != nil {
			w.postFrame()
		}
		return false
	}
	s.Step()
	d.dirty = true // a step, or the run's end, which the frame says
	if time.Since(d.last) >= frameEvery || !s.Pending() {
		w.postFrame()
	}
	return true
}

// stepTask feeds the heatmap's next tokens and posts the cells that
// completed, then {"type":"tasksdone"} after the last.
func (w *worker) stepTask() {
	d := &w.dec
	d.task.Next()
	cells := d.task.Cells()
	for ; d.taskSent < d.task.Done(); d.taskSent++ {
		w.post(map[string]any{"type": "taskcell", "id": d.taskID, "cell": cells[d.taskSent]})
	}
	switch {
	case d.task.Err() != nil:
		w.fail(d.taskID, d.task.Err())
		d.task = nil
	case d.task.Done() >= d.task.Len():
		w.post(map[string]any{"type": "tasksdone", "id": d.taskID})
		d.task = nil
	}
}

// stepMeter feeds the sink meter's next token, posting the result after
// its last.
func (w *worker) stepMeter() {
	d := &w.dec
	if d.meter.Step() {
		return
	}
	if d.meter.Err() != nil {
		w.postSinks(&sim.Sinks{})
	} else {
		w.postSinks(d.meter.Sinks())
	}
	d.meter = nil
}

// postSinks sends the sink meter's result.
func (w *worker) postSinks(s *sim.Sinks) {
	w.post(map[string]any{"type": "sinkmeter", "id": w.dec.meterID, "layers": s.Layers, "heads": s.Heads,
		"tokens": s.Tokens, "importance": s.Importance})
}

// postFrame sends the open run's frame to the page, its bytes handed over.
func (w *worker) postFrame() {
	d := &w.dec
	b := d.sess.Frame()
	d.dirty, d.last = false, time.Now()
	if b == nil {
		return
	}
	head, _ := json.Marshal(map[string]any{"type": "frame", "id": d.sess.ID(), "step": d.sess.Pos()})
	arr := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(arr, b)
	js.Global().Call("kvscopePostBlock", string(head), arr)
}
