package view

import (
	"strings"
	"testing"
)

// The built-in documents are prompts as the page keeps them (sanitizing
// changes nothing), each holds its answer once, and a link names them
// instead of carrying their text.
func TestDocuments(t *testing.T) {
	keys := map[string]bool{}
	for _, d := range Documents {
		if keys[d.Key] || d.Key == "" || d.Title == "" || d.Question == "" || d.Answer == "" {
			t.Errorf("document %+q: a key, title, question and answer each, keys unique", d.Key)
		}
		keys[d.Key] = true
		if s, changed := SanitizePrompt(d.Text); changed || s != d.Text {
			t.Errorf("%s: sanitizing changes the text", d.Key)
		}
		if n := strings.Count(d.Text, d.Answer); n != 1 {
			t.Errorf("%s: the answer %q appears %d times", d.Key, d.Answer, n)
		}
		if i := strings.Index(d.Text, d.Answer); i < len(d.Text)/4 || i > 3*len(d.Text)/4 {
			t.Errorf("%s: the answer sits at %d of %d bytes, not in the middle", d.Key, i, len(d.Text))
		}
		st := DefaultState()
		st.Mode, st.Text, st.Question = ModeModel, d.Text, d.Question
		link := Encode(&st)
		if !strings.Contains(link, "doc="+d.Key) || len(link) > 3000 {
			t.Errorf("%s: the link is %d bytes and names the document %v", d.Key, len(link), strings.Contains(link, "doc="+d.Key))
		}
		back, ns := Decode(link)
		if back.Text != d.Text || back.Question != d.Question || len(ns) != 0 {
			t.Errorf("%s: the link gives back another text (%d bytes, question %q, notices %v)", d.Key, len(back.Text), back.Question, ns)
		}
	}
	if _, ns := Decode("doc=nonesuch"); len(ns) != 1 || !strings.Contains(ns[0].Msg, "no built-in document") {
		t.Errorf("an unknown document: %v", ns)
	}
	st := DefaultState()
	st.Text = Documents[0].Text + " and more"
	if strings.Contains(Encode(&st), "doc="+Documents[0].Key) {
		t.Error("an edited document is still written as its name")
	}
}

// A prompt too long for a link is named in it by its hash, and a link
// naming one tells the page to look it up; short prompts stay text.
func TestLocalDocLinks(t *testing.T) {
	long := strings.Repeat("A document pasted by a visitor. ", 100)
	st := DefaultState()
	st.Mode, st.Text = ModeModel, long
	link := Encode(&st)
	id := LocalDocID(long)
	if !IsLocalDocID(id) || !strings.Contains(link, "doc="+id) || strings.Contains(link, "text=") {
		t.Fatalf("link %q for a %d-byte prompt (id %s)", link, len(long), id)
	}
	back, ns := Decode(link)
	if back.LocalDoc != id || len(ns) != 0 || back.Text == long {
		t.Fatalf("decoded: local doc %q, %d-byte text, notices %v", back.LocalDoc, len(back.Text), ns)
	}
	if again := Encode(&back); !strings.Contains(again, "doc="+id) {
		t.Errorf("a link whose document is not found here no longer names it: %s", again)
	}
	if LocalDocID(long+"!") == id {
		t.Error("two documents share a name")
	}
	for _, bad := range []string{"local-", "local-zzzzzzzzzzzzzzzz", "local-0123", "remote-0123456789abcdef"} {
		if IsLocalDocID(bad) {
			t.Errorf("%q taken for a kept document's name", bad)
		}
	}
	st.Text = "short"
	if l := Encode(&st); !strings.Contains(l, "text=short") {
		t.Errorf("a short prompt is not text in the link: %s", l)
	}
}
