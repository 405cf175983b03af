//go:build js && wasm

package main

import (
	"fmt"
	"image"
	"math"
	"runtime/debug"
	"strconv"
	"syscall/js"
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/kvscope/kvscope/viz"
	"github.com/kvscope/kvscope/viz/view"
)

// maxStepsPerFrame bounds the catch-up work of one frame while playing.
const maxStepsPerFrame = 8

// playBudget bounds one frame's stepping while playing: once a frame's
// steps have taken this long it steps no more, so a large model decodes
// one or two steps a frame and the page draws between them instead of
// freezing for up to maxStepsPerFrame. The steps it leaves are not owed.
// Shorter budgets draw more often but decode less: each frame also pays
// for the page's own work (the pictures, the sink meter's share). On
// SmolLM2-135M's shape (TestRealShapesInPage) a 30 ms budget decoded
// 7.1–7.6 steps/s at 7.5–7.7 frames/s, this one 8.0–10.1 at 5.2–5.6, and
// no budget 10.4–11.5 at 2.6–3.0.
const playBudget = 100 * time.Millisecond

// game is the Ebiten side of the page: Update applies queued input and
// advances the engines; Draw renders the pictures into the page's holes.
type game struct {
	a *app
	r *viz.Renderer

	drawn     int           // key of the last frame drawn
	offscreen *ebiten.Image // Ebiten's offscreen, and a pixel of it (see touch)
	pixel     *ebiten.Image
}

func (g *game) Layout(w, h int) (int, int) {
	s := ebiten.Monitor().DeviceScaleFactor()
	if s <= 0 {
		s = 1
	}
	if s != g.a.scale {
		g.a.scale = s
		g.a.layoutDirty = true
	}
	return int(math.Ceil(float64(w) * s)), int(math.Ceil(float64(h) * s))
}

func (g *game) Update() error {
	defer g.recoverPanic("update")
	a := g.a
	if !a.ready && a.frames == 0 {
		mark("update")
	}
	t0 := time.Now()
	defer func() { a.updMs = 0.95*a.updMs + 0.05*float64(time.Since(t0).Microseconds())/1000 }()
	if a.readyDue {
		a.announceReady()
	}
	if a.broken {
		a.drain()
		a.renderNotices()
		return nil
	}
	a.drain()
	if a.remote(0) != nil {
		a.tickRemote(float64(ebiten.TPS()))
	} else if a.replaying() {
		a.catchUp(60 * time.Millisecond)
	} else if a.st.Playing {
		a.acc += a.st.Speed / float64(ebiten.TPS())
		n := min(int(a.acc), maxStepsPerFrame)
		a.acc -= math.Floor(a.acc)
		t1 := time.Now()
		for i := 0; i < n && (i == 0 || time.Since(t1) < playBudget); i++ {
			if !a.stepAll() {
				a.st.Playing, a.acc = false, 0
				a.reflect()
				break
			}
		}
	}
	a.modelTick(30 * time.Millisecond)
	if a.ready && a.mdl.v != a.pg.modelV {
		// A model on its way in: its progress shows as it moves, not
		// only when the pictures change.
		a.writeModelStatus()
		a.publish()
	}
	a.refresh()
	a.lessonTick()
	a.pointer()
	if a.st.ModelMode() {
		a.tokenLabels()
	}
	// While playing, numbers are written five times a second: the pictures
	// move every step, text that changes faster cannot be read anyway.
	// Before the first frame, Draw writes the numbers with the map it
	// draws (see markReady): writing them here too would double the
	// start-up's most expensive DOM work.
	if a.ready && ((a.version != a.domV && (!a.st.Playing || a.frames%12 == 0 || a.domV < 0)) || a.frames%30 == 0) {
		a.writeDOM()
		a.domV = a.version
	}
	if a.ready && a.version != a.tvV && (!a.st.Playing || a.frames%12 == 0) {
		// The text view follows the numbers' cadence while playing.
		a.writeTextView()
		a.tvV = a.version
	}
	a.highlightText()
	a.renderNotices()
	a.writeLesson()
	a.embedTick()
	return nil
}

// Draw builds the frame's shapes when anything shown changed and marks the
// offscreen modified so that Ebiten presents a frame; DrawFinalScreen then
// draws the shapes straight onto the (cleared) canvas. Unchanged frames
// leave the offscreen alone, and after a few of them Ebiten stops
// presenting: the canvas keeps its last picture at no cost. The offscreen
// itself is never shown, which saves a full-canvas copy per frame.
func (g *game) Draw(offscreen *ebiten.Image) {
	defer g.recoverPanic("draw")
	a := g.a
	if !a.ready && a.frames == 0 {
		mark("draw")
	}
	if a.layoutDirty || a.frames%30 == 0 {
		a.readRects()
	}
	key := a.version*31 + a.hover.head*7919 + a.hover.pos*13 + a.rectV*101
	if a.hover.valid {
		key += 17 + a.hover.side
	}
	th, tpos, tok := a.textHover()
	if tok {
		key += 104729 + tpos*7 + th*3
	}
	for i := 0; i < a.active(); i++ {
		vp := a.sides[i].vp
		key += int(vp.Cell*1000) + int(vp.Left*7) + i
	}
	if key == g.drawn && a.ready {
		a.frames++
		return // nothing changed: the canvas keeps the last frame
	}
	g.drawn = key
	t0 := time.Now()
	defer func() { a.drawMs = 0.95*a.drawMs + 0.05*float64(time.Since(t0).Microseconds())/1000 }()
	g.r.Reset()
	if !a.broken {
		for i := 0; i < a.active(); i++ {
			s := &a.sides[i]
			if s.snap == nil {
				continue
			}
			prev := s.grid
			s.grid = s.vp.Place(s.mapR, s.snap.Heads, s.snap.Step, a.runTotal, a.scale)
			f0, n0, b0 := prev.Columns()
			f1, n1, b1 := s.grid.Columns()
			if (s.grid.CellW != prev.CellW || s.grid.Left != prev.Left || f0 != f1 || n0 != n1 || b0 != b1) && !a.st.Playing {
				// The axis line describes the grid: rewrite it now after a
				// zoom, a scroll or the last steps of a catch-up. While
				// playing the grid moves every step and the numbers' own
				// cadence rewrites it.
				a.domV = -1
			}
			hov := viz.Hover{Head: -1}
			if a.hover.valid && a.hover.side == i {
				hov = viz.Hover{Head: a.hover.head, Pos: a.hover.pos}
			} else if tok && i == 0 {
				hov = viz.Hover{Head: th, Pos: tpos, Column: th < 0}
			}
			g.r.DrawMap(&s.grid, s.snap, hov)
			s.ov = view.Overview(s.ovR, s.snap.Step, a.runTotal, a.scale)
			lx0, lx1 := s.grid.Lens(&s.ov)
			g.r.DrawOverview(&s.ov, s.snap, lx0, lx1)
			g.r.DrawAttention(s.attnR, &s.grid, s.snap, hov.Head)
		}
	}
	g.touch(offscreen)
	a.frames++
	// Real-model mode without a model is ready too: it shows how to get one.
	// The first frame shows the prompt read and the numbers of the grid
	// it drew, never a half-read prompt or an unplaced map.
	if !a.ready && (a.sides[0].snap != nil && a.pos() >= min(a.runPrompt, a.replayTo) || a.active() == 0) {
		a.writeDOM()
		a.domV = a.version
		a.markReady()
	}
}

// DrawFinalScreen draws the frame's shapes onto the canvas, which Ebiten
// has cleared to transparent (the page's background shows through).
func (g *game) DrawFinalScreen(screen ebiten.FinalScreen, _ *ebiten.Image, _ ebiten.GeoM) {
	defer g.recoverPanic("draw")
	g.r.Flush(screen)
}

// touch marks the offscreen modified at the cost of clearing one pixel.
func (g *game) touch(offscreen *ebiten.Image) {
	if g.offscreen != offscreen {
		g.offscreen = offscreen
		g.pixel = offscreen.SubImage(image.Rect(0, 0, 1, 1)).(*ebiten.Image)
	}
	g.pixel.Clear()
}

func (g *game) recoverPanic(where string) {
	r := recover()
	if r == nil {
		return
	}
	a := g.a
	a.failures++
	window.Get("console").Call("error", fmt.Sprintf("kvscope: panic in %s: %v\n%s", where, r, debug.Stack()))
	if a.failures > 3 {
		a.broken = true
		a.addNotices(view.Notice{Msg: fmt.Sprintf("Internal error (%v). The simulation has stopped; the controls still work — reload the page to start again.", r)})
		return
	}
	a.addNotices(view.Notice{Msg: fmt.Sprintf("Internal error (%v); back to the default settings.", r)})
	func() {
		defer func() {
			if recover() != nil {
				a.broken = true
			}
		}()
		d := view.DefaultState()
		d.Playing = false
		a.good = d
		for i := range a.sides {
			a.sides[i] = side{}
		}
		a.apply(d, 0)
		a.reflect()
	}()
}

// readRects re-reads where the pictures go, moves the canvas over them
// (see canvas.go) and bumps rectV when anything moved.
func (a *app) readRects() {
	var maps, attns, ovs [2]view.Rect
	var rs []view.Rect
	for i := 0; i < 2; i++ {
		si := strconv.Itoa(i)
		maps[i], attns[i], ovs[i] = readRect("map-"+si), readRect("attn-"+si), readRect("ov-"+si)
		if i < max(a.active(), 1) {
			rs = append(rs, maps[i], attns[i], ovs[i])
		}
	}
	box := view.Cover(window.Get("innerWidth").Float(), window.Get("innerHeight").Float(), canvasMargin, rs...)
	moved := box != a.box
	a.placeCanvas(box)
	for i := 0; i < 2; i++ {
		sd := &a.sides[i]
		m, at, ov := a.onCanvas(maps[i]), a.onCanvas(attns[i]), a.onCanvas(ovs[i])
		moved = moved || m != sd.mapR || at != sd.attnR || ov != sd.ovR
		sd.mapR, sd.attnR, sd.ovR = m, at, ov
	}
	a.layoutDirty = false
	if moved {
		a.rectV++
	}
}

// pointer applies queued wheel and drag input and finds the hovered cell.
func (a *app) pointer() {
	h := &a.hover
	if h.side >= a.active() {
		h.on, h.valid = false, false
		return
	}
	sd := &a.sides[h.side]
	if h.pendingZ != 0 && h.pendingZ != 1 {
		x, _ := a.dev(h.x, h.y)
		sd.vp.Zoom(&sd.grid, h.pendingZ, x, a.scale)
		h.pendingZ = 1
	}
	if h.pendingDX != 0 {
		sd.vp.Scroll(&sd.grid, h.pendingDX, a.scale)
		h.pendingDX = 0
	}
	if h.ovPending {
		// A click or drag on the overview: centre the map there.
		h.ovPending = false
		if x, _ := a.dev(h.ovX, 0); sd.ov.CellW > 0 {
			sd.vp.Center(&sd.grid, sd.ov.Left+(x-sd.ov.Area.X)/sd.ov.CellW)
		}
	}
	h.valid = false
	if h.on && sd.snap != nil && h.overAttn {
		// The attention rows: the column under the pointer, all heads.
		g := &sd.grid
		if x, _ := a.dev(h.x, h.y); g.CellW > 0 && x >= g.Area.X && x < g.Area.X+g.Area.W {
			if p := int(g.Left + (x-g.Area.X)/g.CellW); p >= 0 && p < sd.snap.Step {
				h.head, h.pos, h.valid = -1, p, true
			}
		}
	} else if h.on && sd.snap != nil {
		if hd, p, ok := sd.grid.CellAt(a.dev(h.x, h.y)); ok && hd < sd.snap.Heads {
			h.head, h.pos, h.valid = hd, p, true
		}
	}
}

func (a *app) togglePlay() {
	if !a.st.Playing && a.cur() >= a.runTotal {
		a.rebuild(0)
	}
	a.st.Playing = !a.st.Playing
	a.acc = 0
	a.reflect()
	a.summaryAt = -1
}

func (a *app) stepForward() {
	a.st.Playing = false
	if a.replaying() {
		a.replayTo = min(a.replayTo+1, a.runTotal)
	} else {
		a.stepAll()
	}
	a.reflect()
	a.summaryAt = -1
}

func (a *app) stepBack() {
	a.st.Playing = false
	if p := a.cur(); p > a.runPrompt {
		a.rebuild(p - 1)
	}
	a.reflect()
	a.summaryAt = -1
}

func (a *app) reset() {
	a.rebuild(0)
	for i := range a.sides {
		a.sides[i].vp = view.Viewport{}
	}
	a.reflect()
	a.summaryAt = -1
}

func (a *app) zoomButton(i int, what string) {
	if i >= a.active() {
		return
	}
	sd := &a.sides[i]
	center := sd.grid.Area.X + sd.grid.Area.W/2
	switch what {
	case "in":
		sd.vp.Zoom(&sd.grid, 1.5, center, a.scale)
	case "out":
		sd.vp.Zoom(&sd.grid, 1/1.5, center, a.scale)
	case "fit":
		sd.vp.Fit(&sd.grid, a.scale)
	case "follow":
		sd.vp = view.Viewport{}
	}
}

func (a *app) markReady() {
	a.ready = true
	body := document.Get("body")
	body.Get("classList").Call("add", "running")
	byID("loading").Set("hidden", true)
	byID("app").Call("removeAttribute", "inert")
	if c := document.Call("querySelector", "body > canvas"); c.Truthy() {
		c.Call("setAttribute", "tabindex", "-1")
		c.Call("setAttribute", "aria-hidden", "true")
	}
	// The worker's first picture (static/app.js) goes with this frame.
	if done := window.Get("kvscopeOverlayDone"); done.Truthy() {
		done.Invoke()
	}
	// The frame is on screen once the browser has composited it, before
	// the next animation frame's callbacks run.
	mark("drawn")
	var f js.Func
	f = js.FuncOf(func(js.Value, []js.Value) any {
		window.Get("kvscope").Set("firstFrameMs", window.Get("performance").Call("now"))
		f.Release()
		return nil
	})
	window.Call("requestAnimationFrame", f)
	// The state for scripts (window.kvscope.state) is published by the
	// next Update, after this frame has reached the screen.
	a.readyDue = true
}

// announceReady publishes the first state and tells scripts the page is
// ready (data-ready), one frame after the first map was drawn.
func (a *app) announceReady() {
	a.readyDue = false
	a.publish()
	document.Get("body").Get("dataset").Set("ready", "1")
}

func expNeg(v float64) float64 { return math.Exp(-v) }
