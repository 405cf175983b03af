//go:build js && wasm

// Command wasm is kvscope's page: it binds the DOM controls, runs the
// simulation engines and draws them with Ebiten. It is the only package
// that touches the DOM. Build it with
//
//	GOOS=js GOARCH=wasm go build -o static/main.wasm ./wasm
package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/kvscope/kvscope/core/lesson"
	"github.com/kvscope/kvscope/viz"
	"github.com/kvscope/kvscope/viz/view"
)

func main() {
	a := &app{scale: ebiten.Monitor().DeviceScaleFactor(), summaryAt: -1, sliding: map[string]string{}}
	if a.scale <= 0 {
		a.scale = 1
	}
	defer func() {
		// A panic during start-up: tell the visitor, keep the program
		// alive so the page does not report "Go program has already exited".
		if r := recover(); r != nil {
			msg := fmt.Sprintf("%v", r)
			window.Get("console").Call("error", "kvscope: "+msg+"\n"+string(debug.Stack()))
			window.Call("kvscopeFatal", "kvscope could not start", "Internal error: "+msg)
			select {}
		}
	}()
	// The heap lives in wasm32's 4 GiB: let the collector work harder near
	// the end rather than ask for memory there is none of (a model of up to
	// view.MaxModelMemory bytes may be loaded).
	debug.SetMemoryLimit(3900 << 20)
	mark("main")
	a.initDOM()
	mark("dom")
	a.start(initialLink())
	a.initEmbed()
	a.initExport()
	a.readRects() // the canvas's size before the first frame
	createContext()
	mark("started")
	g := &game{a: a, r: viz.NewRenderer()}
	ebiten.SetRunnableOnUnfocused(true)
	ebiten.SetScreenClearedEveryFrame(false)
	err := ebiten.RunGameWithOptions(g, &ebiten.RunGameOptions{InitUnfocused: true})
	msg := "the drawing loop ended"
	if err != nil {
		msg = err.Error()
	}
	window.Get("console").Call("error", "kvscope: "+msg)
	window.Call("kvscopeFatal", "kvscope stopped drawing", "The graphics loop stopped ("+msg+"). WebGL2 may be unavailable or the GPU context was lost; reload the page to try again.")
	select {}
}

// initialLink returns the settings part of the page's address: the hash,
// or else the query.
func initialLink() string {
	loc := window.Get("location")
	if h := loc.Get("hash").String(); len(h) > 1 {
		return h
	}
	return loc.Get("search").String()
}

// start decodes a link, reports what it had to adjust, and builds the
// engines. It runs when the page opens and again whenever the visitor
// navigates the open tab to another link (hashchange).
func (a *app) start(link string) {
	link, n, bad := splitLesson(link)
	switch {
	case n == 0:
		if a.les.l != nil {
			a.les.begin(nil)
		}
	default:
		// A lesson's link, opened or opened again: measured from its start.
		l, _ := lesson.Get(n)
		a.les.begin(l)
	}
	if n > 0 && strings.TrimSpace(link) == "" {
		// "#lesson=N" alone opens the lesson's own state; a link with more
		// settings is a lesson shared in progress and keeps them.
		link = a.les.l.Link()
	}
	st, ns := view.Decode(link)
	a.mdl.failed = nil // a link opened again tries its model again
	a.clearNotices()
	if ns = append(bad, ns...); len(ns) > 0 {
		a.addNotices(view.Notice{Msg: "This link had settings kvscope cannot use as given; they were adjusted:"})
		a.addNotices(ns...)
	}
	for i := range a.sides {
		a.sides[i].vp = view.Viewport{}
	}
	explicitPlay := containsKey(link, "play=")
	if !explicitPlay && window.Call("matchMedia", "(prefers-reduced-motion: reduce)").Get("matches").Bool() {
		st.Playing = false
		a.addNotices(view.Notice{Msg: "Reduced motion is on: press Play (or Space) to start decoding."})
	}
	a.good = view.DefaultState()
	target := st.At
	a.apply(st, target)
	if target > 0 && !explicitPlay {
		a.st.Playing = false
	}
	a.reflect()
}

func containsKey(link, key string) bool {
	for i := 0; i+len(key) <= len(link); i++ {
		if link[i:i+len(key)] == key && (i == 0 || link[i-1] == '&' || link[i-1] == '#' || link[i-1] == '?') {
			return true
		}
	}
	return false
}

// mark records a start-up milestone in window.kvscopeTiming (ms since navigation).
func mark(name string) {
	if t := window.Get("kvscopeTiming"); t.Truthy() {
		t.Set(name, window.Get("performance").Call("now"))
	}
}
