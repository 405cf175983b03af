//go:build js && wasm

package main

import (
	"fmt"
	"strings"
	"syscall/js"

	"github.com/kvscope/kvscope/viz/view"
)

// Documents too long for a link are kept in the browser they were pasted
// in (localStorage, under "kvscope-doc:" and their view.LocalDocID), and
// links name them. localDocsKept caps how many are kept: the oldest goes.
const (
	localDocPrefix = "kvscope-doc:"
	localDocIndex  = "kvscope-docs" // the kept names, oldest first, space-separated
	localDocsKept  = 12
)

// storage returns the browser's localStorage, or undefined where it is
// refused (a sandboxed frame, some private modes).
func storage() (s js.Value) {
	defer func() {
		if recover() != nil {
			s = js.Undefined()
		}
	}()
	return window.Get("localStorage")
}

// resolveLocalDoc makes the document a link named (next.LocalDoc) the
// prompt when this browser keeps it; otherwise a notice says why the
// prompt is not the link's, and the prompt that was showing stays.
func (a *app) resolveLocalDoc(next *view.State) {
	id := next.LocalDoc
	if id == "" {
		return
	}
	if next.Text != "" && view.LocalDocID(next.Text) == id {
		return // already resolved
	}
	txt := ""
	if s := storage(); s.Truthy() {
		if v := s.Call("getItem", localDocPrefix+id); v.Type() == js.TypeString {
			txt = v.String()
		}
	}
	if txt == "" || view.LocalDocID(txt) != id {
		a.addNotices(view.Notice{Msg: fmt.Sprintf("This link's document (%s) was pasted in another browser: kvscope keeps a document too long for a link in the browser it was pasted in, not in the link. Paste it here to run it; the prompt that was showing stays.", id)})
		next.Text = a.good.Text
		if next.Text == "" {
			next.Text = view.DefaultPrompt
		}
		next.LocalDoc = "" // said once; the page's link now gives its own prompt
		return
	}
	next.Text = txt
}

// keepDoc keeps a prompt too long for a link in this browser, so that the
// page's link (which names it) opens it again here. A browser that
// refuses (storage full or off) gets a notice: the link will not bring the
// document back.
func (a *app) keepDoc(text string) {
	if len(text) <= view.MaxLinkText {
		return
	}
	if _, ok := view.FindDocument(text); ok {
		return
	}
	id := view.LocalDocID(text)
	if a.keptDocs[id] {
		return
	}
	s := storage()
	err := ""
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Sprint(r)
			}
		}()
		if !s.Truthy() {
			err = "this page may not use the browser's storage"
			return
		}
		names := strings.Fields(jsString(s.Call("getItem", localDocIndex)))
		for i := 0; i < len(names); i++ {
			if names[i] == id {
				names = append(names[:i], names[i+1:]...)
				i--
			}
		}
		for len(names) >= localDocsKept {
			s.Call("removeItem", localDocPrefix+names[0])
			names = names[1:]
		}
		s.Call("setItem", localDocPrefix+id, text)
		s.Call("setItem", localDocIndex, strings.Join(append(names, id), " "))
	}()
	if err != "" {
		a.addNotices(view.Notice{Msg: "The document could not be kept in this browser (" + err + "): its link will not open it again."})
		return
	}
	if a.keptDocs == nil {
		a.keptDocs = map[string]bool{}
	}
	a.keptDocs[id] = true
}

// jsString returns v's string, or "" when it is not one (null).
func jsString(v js.Value) string {
	if v.Type() == js.TypeString {
		return v.String()
	}
	return ""
}
