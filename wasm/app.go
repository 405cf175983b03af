//go:build js && wasm

package main

import (
	"fmt"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/viz/view"
)

// side is one configuration on screen: its engine, latest snapshot, map
// viewport and where its pictures go (device px).
type side struct {
	eng  engine
	snap *sim.Snapshot
	vp   view.Viewport
	grid view.Grid

	mapR, attnR, ovR view.Rect // on the canvas, device px
	ov               view.Grid // the overview strip's grid

	mkey modelKey // what a real-model engine was built from (zero for the synthetic stream)
}

// app is the page's state. Only the game loop touches it; DOM callbacks
// post closures with post, which Update runs.
type app struct {
	qmu     sync.Mutex
	queue   []func()
	sliding map[string]string // the latest value of each slider being dragged, not yet applied

	st    view.State // applied state
	good  view.State // last state whose engines were built
	edit  int        // side the controls edit
	sides [2]side
	rec   streams // the synthetic stream's recording the engines share

	acc         float64 // fractional steps owed while playing
	replayTo    int     // step the engines are catching up to (see replay)
	catchFrames int
	changed     bool // snapshots need refreshing
	version     int  // bumps whenever anything shown changes
	notices     []view.Notice
	noticeV     int // bumps when notices change
	hover       hoverState
	failures    int

	pg          page
	layoutDirty bool    // re-read the holes' rectangles
	scale       float64 // device px per CSS px
	frames      int     // Draw calls (drawn or not: the cadence of DOM writes)
	ready       bool
	readyDue    bool            // the first map is drawn; publish and set data-ready next Update
	broken      bool            // repeated internal errors: simulation stopped
	rectV       int             // bumps when the holes' rectangles are re-read
	domV        int             // version last written to the DOM
	keptDocs    map[string]bool // documents this page kept in the browser (localdoc.go)
	tvV         int             // version last written to the text view
	summaryAt   int             // step of the last aria-live summary
	public      atomic.Value    // string: JSON of the numbers, for window.kvscope.state()
	updMs       float64         // moving averages of Update and of a drawn frame's Draw, ms
	drawMs      float64

	box                 view.Rect // the canvas's place in the viewport, CSS px (see canvas.go)
	runTotal, runPrompt int       // the run's length and prompt (synthetic: A's; model: max tokens and prompt tokens)
	mdl                 modelSource
	loadGen             atomic.Int64    // bumps with every model load started or dropped; a replaced load's goroutine stops
	decode              view.Rate       // engine steps per second of stepping time (in real-model mode a step runs sim.ModelRunDecoders decoders)
	les                 lessonState     // the open guided lesson
	breaks              breaksState     // real-model mode: the task heatmap
	sweepBase           atomic.Value    // string: JSON of what the chart sweeps (see sweepRequest)
	lastSweep           sweepRequest    // the request sweepBase holds, without its Key
	emb                 embedState      // the embedded view and the embed code (embed.go)
	dws                 [2]decodeWorker // the workers side A's and side B's real-model runs decode in (decoder.go)
	goal                int             // real-model mode: the step both sides' workers are to reach while playing
	lastRun             view.State      // real-model mode: the last state whose run sent a frame
	chartTok            chartTokens     // real-model mode: the chart's text length, chosen once per model and run length
}

// sweepRequest is what the chart's worker sweeps: A's configuration and,
// in real-model mode, the model run's settings. Key changes whenever the
// stream (not the compression) changes, so the chart knows to sweep again.
type sweepRequest struct {
	Config    sim.Config `json:"config"`
	Model     bool       `json:"model"`
	Text      string     `json:"text"`
	MaxTokens int        `json:"maxTokens"`
	Repos     bool       `json:"repos"`
	Key       string     `json:"key"`
	ModelName string     `json:"modelName"`
	// Grid is, for a real model, the chart's smaller grid
	// (sim.ModelChartGrid) at the page's storage; nil: the default grid.
	Grid *sim.Grid `json:"grid,omitempty"`
}

// applySettings applies several settings at once, as controls would, the
// policy first (so that the budget it keeps is then set as given): what a
// click on a point of the chart does.
func (a *app) applySettings(kvs map[string]any) {
	next := a.st
	keys := make([]string, 0, len(kvs))
	for k := range kvs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { // the policy first, then by name
		if (keys[i] == "policy") != (keys[j] == "policy") {
			return keys[i] == "policy"
		}
		return keys[i] < keys[j]
	})
	for _, k := range keys {
		v := kvs[k]
		var str string
		switch v := v.(type) {
		case string:
			str = v
		case float64:
			str = strconv.FormatFloat(v, 'g', -1, 64)
		case bool:
			str = "0"
			if v {
				str = "1"
			}
		default:
			continue
		}
		if k == "gran" && str == "" {
			continue
		}
		a.addNotices(view.Set(&next, k, str)...)
	}
	a.apply(next, a.cur())
	a.reflect()
}

type hoverState struct {
	on         bool
	side       int
	x, y       float64 // CSS px, viewport
	head, pos  int
	valid      bool
	dragging   bool
	lastDragX  float64
	pendingZ   float64 // wheel zoom factor to apply (1 = none)
	pendingDX  float64 // drag scroll, CSS px
	anchorSide int
	overAttn   bool    // the pointer is over the attention rows, not the map
	ovPending  bool    // the overview was clicked or dragged at ovX (CSS px, viewport)
	ovX        float64 //
}

// post queues f to run in the game loop. It never blocks for long and is
// safe to call from DOM callbacks.
func (a *app) post(f func()) {
	a.qmu.Lock()
	a.queue = append(a.queue, f)
	a.qmu.Unlock()
}

func (a *app) drain() {
	a.qmu.Lock()
	q := a.queue
	a.queue = nil
	a.qmu.Unlock()
	for _, f := range q {
		f()
	}
}

// active returns how many sides have an engine: two in compare mode, one
// otherwise, none in real-model mode while no model is loaded.
func (a *app) active() int {
	if a.st.ModelMode() {
		switch {
		case a.sides[0].eng == nil:
			return 0
		case a.st.Compare && a.sides[1].eng != nil:
			return 2
		}
		return 1
	}
	if a.st.Compare {
		return 2
	}
	return 1
}

// showB reports whether configuration B is on screen.
func (a *app) showB() bool { return a.st.Compare }

// pos returns the step every side shown has reached: the smallest
// position of the active engines, so that a side rebuilt after its
// settings moved is caught up before the page steps on (both sides always
// show the same step).
func (a *app) pos() int {
	n := a.active()
	if n == 0 {
		return 0
	}
	p := a.sides[0].eng.Pos()
	for i := 1; i < n; i++ {
		p = min(p, a.sides[i].eng.Pos())
	}
	return p
}

func (a *app) addNotices(ns ...view.Notice) {
	if len(ns) == 0 {
		return
	}
	a.notices = append(a.notices, ns...)
	// One panel holds them all; past maxNotices the oldest go, but a
	// heading (a notice without a key that ends in a colon) stays first.
	if len(a.notices) > maxNotices {
		keep := 0
		if view.IsHeading(a.notices[0]) {
			keep = 1
		}
		a.notices = append(a.notices[:keep], a.notices[len(a.notices)-(maxNotices-keep):]...)
	}
	a.noticeV++
}

// maxNotices is how many notices the panel lists at most.
const maxNotices = 12

// clearNotices empties the notices panel.
func (a *app) clearNotices() {
	if len(a.notices) > 0 {
		a.notices = a.notices[:0]
		a.noticeV++
	}
}

// apply makes next the state shown: it rebuilds the engines whose
// configuration changed and replays them to target steps. A configuration
// the engine refuses is reported and the previous one kept.
func (a *app) apply(next view.State, target int) {
	a.resolveLocalDoc(&next)
	view.Normalize(&next)
	if next.ModelMode() {
		a.applyModel(next, target)
		return
	}
	if a.rec.cur != nil && !a.rec.cur.Matches(next.A) {
		// Another stream: drop the engines holding the old recording
		// before a new one is allocated, so the two are never held at once.
		a.rec.cur = nil
		for i := range a.sides {
			if !isModelEngine(a.sides[i].eng) {
				a.sides[i].eng, a.sides[i].snap = nil, nil
			}
		}
	}
	for i := 0; i < 2; i++ {
		if i == 1 && !next.Compare {
			a.sides[1].eng, a.sides[1].snap = nil, nil
			continue
		}
		c := *next.Side(i)
		s := &a.sides[i]
		if s.eng != nil && !isModelEngine(s.eng) && s.eng.Config() == c && s.eng.Pos() <= target {
			continue
		}
		e, err := a.rec.newEngine(c)
		if err != nil {
			name := "A"
			if i == 1 {
				name = "B"
			}
			a.addNotices(view.Notice{Msg: fmt.Sprintf("%s: the simulator refused these settings (%v); keeping the previous ones", name, err)})
			*next.Side(i) = *a.good.Side(i)
			if i == 0 {
				next.B = a.good.B
				view.Normalize(&next)
			}
			if s.eng != nil && s.eng.Config() == *next.Side(i) {
				continue
			}
			if e, err = a.rec.newEngine(*next.Side(i)); err != nil {
				// The last good settings fail too (should not happen): defaults.
				d := view.DefaultState()
				*next.Side(i) = *d.Side(i)
				if e, err = a.rec.newEngine(*next.Side(i)); err != nil {
					panic("kvscope: default configuration refused: " + err.Error())
				}
			}
		}
		s.eng, s.snap, s.mkey = e, nil, modelKey{}
		a.decode = view.Rate{} // measure the new run
	}
	a.st = next
	a.good = next
	a.runTotal, a.runPrompt = next.A.Tokens, next.A.Prompt
	a.replay(target)
}

// replay makes the engines catch up to target tokens (never stopping
// inside the prompt). The work happens in Update, a time slice per frame,
// so a long replay leaves the page responsive and shows its progress.
func (a *app) replay(target int) {
	a.replayTo = min(max(target, a.runPrompt), a.runTotal)
	if a.active() == 0 {
		a.replayTo = 0
	}
	a.changed = true
}

// replaying reports whether the engines are still catching up.
func (a *app) replaying() bool { return a.pos() < a.replayTo }

// cur is the step the page shows or is catching up to.
func (a *app) cur() int { return max(a.pos(), a.replayTo) }

// catchUp steps the engines towards replayTo for about budget. The
// picture is refreshed a few times a second while catching up, and when done.
func (a *app) catchUp(budget time.Duration) {
	if a.remote(0) != nil {
		a.tickRemote(1) // the workers step; their frames move the page on
		return
	}
	t0 := time.Now()
	steps := 0
	for a.replaying() && time.Since(t0) < budget {
		for n := 0; n < 8; n++ {
			for i := 0; i < a.active(); i++ {
				if e := a.sides[i].eng; e.Pos() < a.replayTo {
					steps++
					if !e.Step() && i == 0 {
						a.replayTo = e.Pos() // the run ended early
					}
				}
			}
		}
	}
	a.addDecoded(steps, time.Since(t0), !a.replaying())
	a.catchFrames++
	if !a.replaying() || a.catchFrames%8 == 0 {
		a.changed = true
	}
}

// addDecoded counts n engine steps that took d. In real-model mode the
// model facts' decoding line is redrawn with the first figure, each time
// the rate's window completes, and when done (a catch-up finished).
func (a *app) addDecoded(n int, d time.Duration, done bool) {
	first := a.decode.PerSecond() == 0
	if (a.decode.Add(n, d) || first || done) && a.st.ModelMode() {
		a.mdl.v++
	}
}

// rebuild starts every engine again from step 0 and replays to target.
func (a *app) rebuild(target int) {
	for i := range a.sides {
		a.sides[i].eng = nil
	}
	a.apply(a.st, target)
}

// stepAll decodes one token on every side. It reports false when a run
// is complete; with no engine yet (a model still loading) there is
// nothing to step and it reports true, so playing waits instead of pausing.
func (a *app) stepAll() bool {
	if a.active() == 0 {
		return true
	}
	t0 := time.Now()
	ok := true
	for i := 0; i < a.active(); i++ {
		if !a.sides[i].eng.Step() {
			ok = false
		}
	}
	a.addDecoded(a.active(), time.Since(t0), false)
	a.changed = true
	return ok
}

// editKey is a control's key as it applies to the side being edited: a
// per-side setting of side B takes the "b." prefix.
func (a *app) editKey(key string) string {
	if f, _, ok := view.Lookup(key); ok && f.PerSide && a.edit == 1 && a.showB() {
		return "b." + key
	}
	return key
}

// setField applies one control or link setting to the side being edited.
func (a *app) setField(key, value string) {
	key = a.editKey(key)
	next := a.st
	a.addNotices(view.Set(&next, key, value)...)
	a.apply(next, a.cur())
	a.reflect()
}

func (a *app) applyPreset(name string) {
	next := a.st
	if !view.ApplyPreset(next.Side(a.edit), name) {
		a.addNotices(view.Notice{Key: "preset", Value: name, Msg: "unknown preset; ignored"})
		return
	}
	a.apply(next, a.cur())
	a.reflect()
}

func (a *app) refresh() {
	if !a.changed {
		return
	}
	for i := 0; i < a.active(); i++ {
		s := &a.sides[i]
		s.snap = s.eng.Snapshot(a.st.Layer)
	}
	a.changed = false
	a.version++
}
