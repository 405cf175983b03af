//go:build js && wasm

package main

import (
	"fmt"
	"html"
	"strings"
	"syscall/js"
	"unicode/utf8"

	"github.com/kvscope/kvscope/viz/view"
)

// The real-model panel: the status line and progress bar, the loaded
// model's facts, the suggested models (view.Suggested, one click each), an
// address box (the link's model field), the drop zone, and the models
// kept in the browser's cache.

// wants reports whether the state's model address src asks for a load
// that is neither done nor under way: not the loaded model's, not the one
// downloading or converting, not the one that failed last (asked for again
// only by the visitor), and not while a dropped file is on its way in.
func (ms *modelSource) wants(src string) bool {
	switch {
	case ms.dl != nil:
		return !ms.dl.dropped && ms.dl.src != src && !ms.failedOn(src)
	case ms.conv != nil:
		return !ms.conv.d.dropped && ms.conv.d.src != src && !ms.failedOn(src)
	case ms.m != nil && ms.src == src:
		return false
	}
	return !ms.failedOn(src)
}

// failedOn reports whether src is the address that failed last.
func (ms *modelSource) failedOn(src string) bool { return ms.failed != nil && *ms.failed == src }

// chooseSource opens the model at src as the visitor asked (a click in
// the list): real-model mode, that model, even if it failed before or a
// dropped file replaced it.
func (a *app) chooseSource(src string) {
	a.mdl.failed = nil
	next := a.st
	next.Mode, next.Source = view.ModeModel, src
	if a.mdl.dropped && a.mdl.src == src && !a.mdl.wants(src) {
		a.openSource(src)
	}
	a.apply(next, a.cur())
	a.reflect()
}

// bindModelInputs wires the file picker, drag-and-drop, the suggested
// models and the cache's controls.
func (a *app) bindModelInputs() {
	a.fillModelList()
	a.refreshCache()
	input := byID("model-file")
	a.on(input, "change", func(js.Value, []js.Value) {
		files := input.Get("files")
		if files.Truthy() && files.Length() > 0 {
			f := newJSFile(files.Index(0))
			a.post(func() { a.openFile(f) })
		}
		input.Set("value", "")
	})
	a.on(byID("modelbox"), "click", func(_ js.Value, args []js.Value) {
		t := args[0].Get("target")
		if !t.Get("closest").Truthy() {
			return
		}
		if b := t.Call("closest", "[data-src]"); b.Truthy() {
			src := b.Get("dataset").Get("src").String()
			a.post(func() { a.chooseSource(src) })
		} else if b := t.Call("closest", "[data-forget]"); b.Truthy() {
			src := b.Get("dataset").Get("forget").String()
			a.post(func() { a.forgetCached(src, true) })
		} else if t.Get("id").String() == "model-forget-all" {
			a.post(a.forgetAllCached)
		}
	})
	zone := byID("model-drop")
	hasFiles := func(ev js.Value) bool {
		dt := ev.Get("dataTransfer")
		if !dt.Truthy() {
			return false
		}
		types := dt.Get("types")
		for i := 0; i < types.Length(); i++ {
			if types.Index(i).String() == "Files" {
				return true
			}
		}
		return false
	}
	// Anywhere on the page: a dropped file must not replace the page.
	a.on(document, "dragover", func(_ js.Value, args []js.Value) {
		if ev := args[0]; hasFiles(ev) {
			ev.Call("preventDefault")
			zone.Get("classList").Call("add", "over")
		}
	})
	a.on(document, "dragleave", func(_ js.Value, args []js.Value) {
		if !args[0].Get("relatedTarget").Truthy() {
			zone.Get("classList").Call("remove", "over")
		}
	})
	a.on(document, "drop", func(_ js.Value, args []js.Value) {
		ev := args[0]
		zone.Get("classList").Call("remove", "over")
		if !hasFiles(ev) {
			return
		}
		ev.Call("preventDefault")
		files := ev.Get("dataTransfer").Get("files")
		if files.Length() > 0 && view.IsTextFile(files.Index(0).Get("name").String(), files.Index(0).Get("type").String()) {
			a.readDocument(files.Index(0))
			return
		}
		if files.Length() > 0 {
			f := newJSFile(files.Index(0))
			a.post(func() { a.openFile(f) })
		}
	})
}

// readDocument reads a dropped text file and runs it as the real model's
// prompt.
func (a *app) readDocument(file js.Value) {
	name := file.Get("name").String()
	var done js.Func
	done = js.FuncOf(func(_ js.Value, args []js.Value) any {
		defer done.Release()
		txt := ""
		if len(args) > 0 && args[0].Type() == js.TypeString {
			txt = args[0].String()
		}
		a.post(func() { a.useDocument(name, txt) })
		return nil
	})
	file.Call("text").Call("then", done, done)
}

// useDocument makes txt, read from the file name, the real model's prompt.
func (a *app) useDocument(name, txt string) {
	if !view.ReadableText(txt) {
		a.addNotices(view.Notice{Msg: fmt.Sprintf("%s is empty or not text (a binary file, or not UTF-8); the prompt is unchanged", name)})
		return
	}
	next := a.st
	next.Mode = view.ModeModel
	a.addNotices(view.Set(&next, "text", txt)...)
	a.addNotices(view.Notice{Msg: fmt.Sprintf("%s (%d characters) is the prompt", name, utf8.RuneCountInString(next.Text))})
	a.apply(next, a.cur())
	a.reflectMode()
	a.reflect()
}

// bindDocuments fills the built-in documents' menu; choosing one makes it
// the prompt, with its question.
func (a *app) bindDocuments() {
	sel := byID("docs")
	if !sel.Truthy() {
		return
	}
	var b strings.Builder
	b.WriteString(`<option value="">choose…</option>`)
	for _, d := range view.Documents {
		fmt.Fprintf(&b, `<option value="%s">%s</option>`, html.EscapeString(d.Key), html.EscapeString(d.Title))
	}
	sel.Set("innerHTML", b.String())
	a.on(sel, "change", func(js.Value, []js.Value) {
		key := sel.Get("value").String()
		sel.Set("value", "")
		a.post(func() {
			d, ok := view.DocumentByKey(key)
			if !ok {
				return
			}
			next := a.st
			next.Mode = view.ModeModel
			a.addNotices(view.Set(&next, "text", d.Text)...)
			a.addNotices(view.Set(&next, "question", d.Question)...)
			a.addNotices(view.Notice{Msg: fmt.Sprintf("%s: %d characters; its question's answer is %q", d.Title, len(d.Text), d.Answer)})
			a.apply(next, a.cur())
			a.reflectMode()
			a.reflect()
		})
	})
}

// fillModelList writes the suggested models, one button each.
func (a *app) fillModelList() {
	var b strings.Builder
	for _, m := range view.Suggested {
		title := fmt.Sprintf("%s %s: %s, %s, %s licence", m.Name, m.Quant, m.Arch, m.Size(), m.Licence)
		fmt.Fprintf(&b, `<li data-model="%s"><button type="button" class="mpick" data-src="%s" title="%s"><b>%s</b> <span class="mq">%s</span></button><span class="mmeta"><span class="msize">%s</span><span class="mlic" title="%s">%s</span>`,
			html.EscapeString(m.Key), html.EscapeString(m.Source), html.EscapeString(title), html.EscapeString(m.Name), html.EscapeString(m.Quant),
			html.EscapeString(m.Size()), html.EscapeString(m.Licence), html.EscapeString(m.Licence))
		if page := view.SourcePage(m.Source); page != "" {
			fmt.Fprintf(&b, `<a class="mcard" href="%s" target="_blank" rel="noopener" title="the model's page">card</a>`, html.EscapeString(page))
		} else {
			b.WriteString(`<span class="mcard">built in</span>`)
		}
		b.WriteString(`</span>`)
		b.WriteString(`</li>`)
	}
	byID("model-list").Set("innerHTML", b.String())
}

// writeModelStatus shows what is known about the model: the status line,
// the facts, which suggested model is loaded or loading, and the cache.
func (a *app) writeModelStatus() {
	if mc := &a.mdl.cache; mc.shownV != mc.v {
		mc.shownV = mc.v
		a.writeCache()
	}
	if a.pg.modelV == a.mdl.v {
		return
	}
	a.pg.modelV = a.mdl.v
	el := byID("model-status")
	el.Set("textContent", a.mdl.status)
	el.Get("classList").Call("toggle", "error", a.mdl.err != "")
	el.Get("classList").Call("toggle", "unknown", a.mdl.m != nil && !a.mdl.known)
	byID("model-get").Set("hidden", a.mdl.m != nil && a.mdl.known)

	facts := a.mdl.facts
	if c := a.mdl.conv; c != nil && c.facts.File > 0 {
		facts = &c.facts // the file being converted
	}
	var b strings.Builder
	if facts != nil {
		lines := facts.Lines()
		if facts == a.mdl.facts && a.mdl.m != nil {
			if a.mdl.sinks != nil && a.mdl.sinks.Tokens == 0 {
				lines = append(lines, view.Fact{Label: "Sink heads", Value: "not measured (too short a context)"})
			} else {
				lines = append(lines, view.SinkFact(a.mdl.sinks))
			}
			if f := view.DecodeFact(a.decode.PerSecond()); f.Value != "" && a.st.ModelMode() {
				lines = append(lines, f)
			}
		}
		for _, l := range lines {
			fmt.Fprintf(&b, `<dt>%s</dt><dd title="%s">%s</dd>`, html.EscapeString(l.Label), html.EscapeString(l.Title), html.EscapeString(l.Value))
		}
	}
	fe := byID("model-facts")
	fe.Set("innerHTML", b.String())
	fe.Set("hidden", facts == nil)
	var name string
	switch {
	case a.mdl.dl != nil:
		name = a.mdl.dl.displayName()
	case a.mdl.conv != nil:
		name = a.mdl.conv.d.displayName()
	default:
		name = a.mdl.name
	}
	byID("model-facts-name").Set("textContent", name)

	items := document.Call("querySelectorAll", "#model-list button[data-src]")
	for i := 0; i < items.Length(); i++ {
		it := items.Index(i)
		src := it.Get("dataset").Get("src").String()
		on := a.mdl.m != nil && !a.mdl.dropped && a.mdl.src == src
		busy := (a.mdl.dl != nil && !a.mdl.dl.dropped && a.mdl.dl.src == src) || (a.mdl.conv != nil && !a.mdl.conv.d.dropped && a.mdl.conv.d.src == src)
		it.Get("classList").Call("toggle", "on", on)
		it.Get("classList").Call("toggle", "busy", busy)
		if on {
			it.Call("setAttribute", "aria-current", "true")
		} else {
			it.Call("removeAttribute", "aria-current")
		}
	}
}

// writeCache lists the models kept in the browser's cache, each with a
// button that forgets it.
func (a *app) writeCache() {
	mc := &a.mdl.cache
	byID("model-cache-line").Set("textContent", mc.line())
	var b strings.Builder
	for _, c := range mc.list {
		fmt.Fprintf(&b, `<li><span class="cname" title="%s">%s</span><span class="msize">%s</span><button type="button" data-forget="%s" title="Remove it from this browser">Forget</button></li>`,
			html.EscapeString(c.Source), html.EscapeString(c.Name), html.EscapeString(view.Bytes(float64(c.Bytes))), html.EscapeString(c.Source))
	}
	byID("model-cache-list").Set("innerHTML", b.String())
	byID("model-forget-all").Set("hidden", len(mc.list) < 2)
	byID("model-cache").Set("hidden", !mc.known)
}

// publicModel describes the model in window.kvscope.state().
func (a *app) publicModel() view.PageModel {
	pm := view.PageModel{Loaded: a.mdl.m != nil, Name: a.mdl.name, SHA256: a.mdl.sha256, Known: a.mdl.known, Error: a.mdl.err, Status: a.mdl.status,
		Progress: a.mdl.progress, Layers: a.modelLayers(), Vocab: a.modelVocab(),
		Source: a.mdl.src, Dropped: a.mdl.dropped, Facts: a.mdl.facts, Sinks: view.SinkSummary(a.mdl.sinks), CacheOK: a.mdl.cache.known}
	if d := a.mdl.dl; d != nil {
		pm.Download = &view.PageDownload{Source: d.src, Got: d.got, Total: d.total, FromCache: d.fromCache}
	}
	for _, c := range a.mdl.cache.list {
		pm.Cached = append(pm.Cached, view.PageCached{Source: c.Source, Name: c.Name, Bytes: c.Bytes})
	}
	return pm
}
