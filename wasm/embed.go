//go:build js && wasm

package main

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"syscall/js"
	"time"

	"github.com/kvscope/kvscope/viz/view"
)

// The embedded view (#embed=1, see viz/view/embed.go): the page in an
// <iframe> of a course page or a slide shows the map, the controls its
// link names, the memory line and the main fidelity figure, and a link to
// the full page in the same state. static/embed.css lays it out;
// index.html's first script marks <html class="embed"> before the first
// layout. A host page drives it with window.postMessage
// (view.ParseMessage): static/embed.js hands each message to
// kvscope.embedMessage with its origin, and posts the answers back to the
// window that sent it, to that origin only.
//
// The embedded view never takes the host page's keyboard focus: Ebiten
// starts unfocused (main.go: InitUnfocused), its canvas is out of the tab
// order and takes no pointer events (markReady, style.css), and nothing
// of the page calls focus(); a visitor's click gives it the focus.

// embedState is the embedded view's part of the page.
type embedState struct {
	own     string     // the page's own origin
	asks    []embedAsk // messages obeyed whose answer waits for their effect
	ready   bool       // the host was told the view is ready
	footV   int        // version the foot line shows
	footH   float64    // its height, CSS px
	mapMax  float64    // the tallest the map gets: rows of view.MaxRow
	foot    *text
	open    js.Value // the "open in kvscope" link
	copyBtn js.Value // the full page's "Embed" (copies the embed code)
	copyTxt string
	hash    string // the link last written into the open link
	noticeV int    // notices written to the console
}

// embedAsk is a message waiting for its answer.
type embedAsk struct {
	seq int // static/embed.js's number for the message's window and origin
	id  any
}

// maxAsks bounds the answers waiting; a host sending faster is told so.
const maxAsks = 64

// initEmbed binds the embed's parts of the page and lays out the
// embedded view when the link asks for one. Call it after start.
func (a *app) initEmbed() {
	e := &a.emb
	e.own = window.Get("location").Get("origin").String()
	e.foot = newText("embedfoot")
	e.open = byID("embed-open")
	e.copyBtn = byID("embed-copy")
	if e.copyBtn.Truthy() {
		e.copyTxt = e.copyBtn.Get("textContent").String()
	}
	a.on(e.copyBtn, "click", func(js.Value, []js.Value) { a.post(a.copyEmbed) })
	kv := window.Get("kvscope")
	// embedMessage(origin, json, seq): a host page's message (embed.js).
	kv.Set("embedMessage", a.safe(func(_ js.Value, args []js.Value) {
		if len(args) < 3 || args[0].Type() != js.TypeString || args[1].Type() != js.TypeString || args[2].Type() != js.TypeNumber {
			return
		}
		origin, data, seq := args[0].String(), args[1].String(), args[2].Int()
		a.post(func() { a.embedMessage(origin, data, seq) })
	}))
	// embedCode() returns the full page's <iframe> snippet for its state.
	kv.Set("embedCode", js.FuncOf(func(js.Value, []js.Value) any { return a.embedCode() }))
	if a.st.Embed {
		a.layOutEmbed()
	}
}

// layOutEmbed moves the controls the link names into the embedded view's
// bar: the play button and the step buttons for "play", else the row
// holding each control of that key (view.EmbedControls, bound by data-key
// in initDOM). The controls keep their bindings.
func (a *app) layOutEmbed() {
	document.Get("documentElement").Get("classList").Call("add", "embed")
	bar := byID("embed-controls")
	if !bar.Truthy() {
		return
	}
	for _, k := range a.st.ShownControls() {
		if k == "play" {
			for _, id := range []string{"play", "back", "fwd"} {
				if b := byID(id); b.Truthy() {
					bar.Call("appendChild", b)
				}
			}
			continue
		}
		nodes := document.Call("querySelectorAll", `[data-key="`+k+`"]`)
		moved := false
		for i := 0; i < nodes.Length(); i++ {
			row := nodes.Index(i).Call("closest", ".ctl, label.row, label.inline, label.stack")
			if row.Truthy() && !row.Get("parentElement").Equal(bar) {
				bar.Call("appendChild", row)
			}
			moved = moved || row.Truthy()
		}
		if !moved {
			a.addNotices(view.Notice{Key: view.KeyControls, Value: k, Msg: "no control of this page shows it; left out"})
		}
	}
	a.layoutDirty = true
}

// embedMessage obeys a host page's message, or ignores it (see
// view.OriginAllowed, view.ParseMessage).
func (a *app) embedMessage(origin, data string, seq int) {
	e := &a.emb
	if !view.OriginAllowed(a.st.Origin, e.own, origin) {
		a.embedDrop(seq)
		return
	}
	m, err := view.ParseMessage([]byte(data))
	switch {
	case errors.Is(err, view.ErrNotForUs):
		a.embedDrop(seq)
		return
	case err != nil:
		a.embedReply(seq, view.Figures{Kvscope: 1, Type: view.AnsError, ID: m.ID, Error: err.Error()})
		return
	case len(e.asks) >= maxAsks:
		a.embedReply(seq, view.Figures{Kvscope: 1, Type: view.AnsError, ID: m.ID, Error: "view: too many messages waiting; wait for the answers"})
		return
	}
	switch m.Type {
	case view.MsgSet:
		// A value the page cannot use is an error, not a silent no-op;
		// one out of range is clamped, as a link's is, and answered.
		probe := a.st
		key := a.editKey(m.Key)
		if ns := view.Set(&probe, key, m.Value); len(ns) > 0 && view.Get(&probe, key) == view.Get(&a.st, key) && view.Get(&probe, key) != m.Value {
			a.embedReply(seq, view.Figures{Kvscope: 1, Type: view.AnsError, ID: m.ID, Error: "view: " + ns[0].String()})
			return
		}
		a.setField(m.Key, m.Value)
	case view.MsgPlay, view.MsgPause:
		if a.st.Playing != (m.Type == view.MsgPlay) {
			a.togglePlay()
		}
	case view.MsgStep:
		a.st.Playing = false
		a.replay(a.cur() + m.N)
		a.reflect()
	}
	e.asks = append(e.asks, embedAsk{seq: seq, id: m.ID})
}

// embedTick answers the messages whose effect is shown, tells the host
// when the view is first ready, and keeps the foot line and the open link
// current. The game loop calls it every Update.
func (a *app) embedTick() {
	e := &a.emb
	if !a.ready {
		return
	}
	if a.st.Embed && !e.ready && (!a.st.ModelMode() || a.mdl.m != nil && a.active() > 0 && a.sides[0].snap != nil && a.pos() > 0 && !a.replaying()) {
		// Ready once there is something to drive: in real-model mode, a
		// model loaded and decoding (and again after a model change).
		e.ready = true
		ps := a.pageState()
		target := a.st.Origin
		if target == "" {
			target = e.own
		}
		if b, err := json.Marshal(view.NewFigures(view.AnsReady, nil, &ps, &a.st)); err == nil {
			if f := window.Get("kvscopeEmbedAnnounce"); f.Type() == js.TypeFunction {
				f.Invoke(string(b), target)
			}
		}
	}
	if len(e.asks) > 0 && !a.replaying() && !a.changed {
		ps := a.pageState()
		for _, ask := range e.asks {
			a.embedReply(ask.seq, view.NewFigures(view.AnsFigures, ask.id, &ps, &a.st))
		}
		e.asks = e.asks[:0]
	}
	if !a.st.Embed && !a.st.Present {
		return
	}
	if a.st.Embed && e.noticeV != a.noticeV {
		// The embedded view has no room for the notices panel: whoever
		// writes the link reads them in the console.
		e.noticeV = a.noticeV
		for _, n := range a.notices {
			window.Get("console").Call("warn", "kvscope: "+n.String())
		}
	}
	if !a.st.Embed {
		e.writeFoot(a)
		return
	}
	if h := float64(max(a.kvHeads(), 1)) * view.MaxRow; h != e.mapMax {
		e.mapMax = h // rows no taller than the full page's; the rest of the frame stays below
		document.Get("documentElement").Get("style").Call("setProperty", "--embed-map-max", strconv.Itoa(int(h))+"px")
		a.layoutDirty = true
	}
	e.writeFoot(a)
	if h := window.Get("location").Get("hash").String(); h != e.hash && e.open.Truthy() {
		e.hash = h
		e.open.Set("href", pageAddress()+"#"+view.WithoutEmbed(h))
	}
}

// writeFoot keeps the line under the map current: the memory and the main
// fidelity figure, in the embedded view and in presentation mode.
func (e *embedState) writeFoot(a *app) {
	if e.footV == a.version && a.frames%30 != 0 {
		return
	}
	e.footV = a.version
	ps := view.PageState{Step: a.pos(), Tokens: a.runTotal, Text: a.publicText()}
	if s := a.sides[0].snap; s != nil && a.active() > 0 {
		ps.Sides = []view.PageSide{{Full: s.FullBytes, Evict: s.EvictBytes, Stored: s.Mem.Total(), Metrics: s.Metrics}}
	}
	e.foot.set(view.EmbedFoot(&ps, &a.st))
	if h := e.foot.el.Get("offsetHeight").Float(); h != e.footH {
		e.footH = h // a line more or less moves the map: place the canvas again
		a.layoutDirty = true
	}
}

// pageState returns the page's numbers as window.kvscope.state() does.
func (a *app) pageState() view.PageState {
	a.publish()
	var ps view.PageState
	if s, ok := a.public.Load().(string); ok {
		json.Unmarshal([]byte(s), &ps)
	}
	return ps
}

// embedReply posts an answer to the window and origin of message seq.
func (a *app) embedReply(seq int, f view.Figures) {
	b, err := json.Marshal(f)
	if err != nil {
		b, _ = json.Marshal(view.Figures{Kvscope: 1, Type: view.AnsError, Error: "view: " + err.Error()})
	}
	if fn := window.Get("kvscopeEmbedReply"); fn.Type() == js.TypeFunction {
		fn.Invoke(seq, string(b))
	}
}

// embedDrop forgets message seq without an answer.
func (a *app) embedDrop(seq int) {
	if fn := window.Get("kvscopeEmbedDrop"); fn.Type() == js.TypeFunction {
		fn.Invoke(seq)
	}
}

// pageAddress is the page's address without its fragment.
func pageAddress() string {
	href := window.Get("location").Get("href").String()
	if i := strings.IndexByte(href, '#'); i >= 0 {
		href = href[:i]
	}
	return href
}

// embedControls are the controls a copied embed shows: the play button
// and the sliders that matter for A's policy among the eviction settings
// (the policy's own fieldset).
func (a *app) embedControls() []string {
	ks := []string{"play"}
	pol := byID("policy")
	if !pol.Truthy() {
		return ks
	}
	set := pol.Call("closest", "fieldset")
	c := &a.st.A
	for _, ctl := range a.pg.controls {
		if ctl.kind != "range" || !view.IsEmbedControl(ctl.key) || !view.Relevant(c, ctl.key) {
			continue
		}
		if f := ctl.el.Call("closest", "fieldset"); !f.Equal(set) {
			continue
		}
		ks = append(ks, ctl.key)
	}
	return ks
}

// embedCode returns the <iframe> snippet that embeds the page as it is.
func (a *app) embedCode() string {
	a.writeURL()
	// The host page's origin is the teacher's to fill in: the example
	// stands in its place, as in the README.
	src := pageAddress() + "#" + view.WithEmbed(window.Get("location").Get("hash").String(), a.embedControls(), view.EmbedOriginExample)
	return view.EmbedSnippet(src, "kvscope: "+view.ConfigName(a.engConfig(0)), view.EmbedWidth, view.EmbedHeight)
}

// copyEmbed writes the snippet to the clipboard and says so on the
// button; where the clipboard is refused, a notice shows the snippet.
func (a *app) copyEmbed() {
	code := a.embedCode()
	e := &a.emb
	say := func(s string) {
		if e.copyBtn.Truthy() {
			e.copyBtn.Set("textContent", s)
			e.copyBtn.Get("dataset").Set("copied", s != e.copyTxt)
		}
	}
	refused := func() {
		a.post(func() {
			say(e.copyTxt)
			a.addNotices(view.Notice{Msg: "The browser refused the clipboard; copy the embed code from here: " + code})
		})
	}
	clip := window.Get("navigator").Get("clipboard")
	if !clip.Truthy() || clip.Get("writeText").Type() != js.TypeFunction {
		refused()
		return
	}
	var ok, bad js.Func
	ok = js.FuncOf(func(js.Value, []js.Value) any {
		ok.Release()
		bad.Release()
		a.post(func() {
			say("Embed code copied ✓")
			time.AfterFunc(2500*time.Millisecond, func() { a.post(func() { say(e.copyTxt) }) })
		})
		return nil
	})
	bad = js.FuncOf(func(js.Value, []js.Value) any {
		ok.Release()
		bad.Release()
		refused()
		return nil
	})
	clip.Call("writeText", code).Call("then", ok, bad)
}
