//go:build !js

package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/viz/view"
)

// tvSpan is one token of the text view as the page shows it.
type tvSpan struct {
	P     int     `json:"p"`
	Role  string  `json:"role"`
	Share float64 `json:"share"` // --s, 1 when unset
	Text  string  `json:"text"`
	HL    bool    `json:"hl"`
}

func (tb *tab) textView() []tvSpan {
	tb.t.Helper()
	var out []tvSpan
	raw := tb.eval(`JSON.stringify([...document.querySelectorAll("#tv span")].map(s => ({p: +s.dataset.p, role: s.dataset.role,
		share: s.style.getPropertyValue("--s") === "" ? 1 : +s.style.getPropertyValue("--s"), text: s.textContent, hl: s.classList.contains("hl")})))`)
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		tb.t.Fatal(err)
	}
	return out
}

// The text view shows, token by token, what side A's cache does: for one
// KV head, each position's role is that head's in the engine's own run;
// for the share of heads, the role most heads give it and the share that
// hold it. The head is chosen with the keyboard, a token hovered with the
// mouse lights its column, and the map's hovered cell lights its token.
func TestTextViewShowsTheCache(t *testing.T) {
	if skipReason != "" {
		t.Skip(skipReason)
	}
	tb := open(t, "tokens=256&at=200&play=0&policy=h2o&heavy=20&recent=20&thead=2")
	st := tb.settle()
	tb.waitJS(`document.querySelectorAll("#tv span").length === 200`, 10*time.Second)
	e, err := sim.New(st.Sides[0].Config)
	if err != nil {
		t.Fatal(err)
	}
	e.RunTo(200)
	snap := e.Snapshot(0)
	check := func(head int) {
		t.Helper()
		spans := tb.textView()
		if len(spans) != snap.Step {
			t.Fatalf("%d tokens shown at step %d", len(spans), snap.Step)
		}
		evicted := 0
		for p, s := range spans {
			m := view.MarkOf(snap, head, p)
			share := 1.0
			if head == view.AllHeads && m.Role.Held() && m.Share < 1 {
				share = float64(m.Share)
			}
			if s.P != p || s.Role != m.Role.Key() || s.Text != view.TokenLabel(snap, p) || math.Abs(s.Share-share) > 0.006 {
				t.Fatalf("head %d, position %d shown as %+v; the engine's run has %s, share %.2f", head, p, s, m.Role.Key(), m.Share)
			}
			if m.Role == sim.Evicted {
				evicted++
			}
		}
		if evicted == 0 {
			t.Errorf("head %d: no evicted token shown in a run that evicts", head)
		}
	}
	check(2)

	// The head menu, by keyboard: up from KV head 2 to 1, 0, the share.
	if err := chromedp.Do(tb.ctx, chromedp.Focus(chromedp.ID("thead"))); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := chromedp.Do(tb.ctx, chromedp.KeyEvent(kb.ArrowUp)); err != nil {
			t.Fatal(err)
		}
	}
	tb.waitJS(`JSON.parse(window.kvscope.state()).url.includes("thead=-1&")`, 10*time.Second)
	tb.waitJS(`document.getElementById("tv-head").textContent.includes("share")`, 10*time.Second)
	check(view.AllHeads)

	// The map's hovered cell lights its token.
	m := tb.rect("map-0")
	if err := chromedp.Do(tb.ctx, chromedp.MouseEvent(chromedp.MouseMoved, float64(m.Min.X+m.Dx()/2), float64(m.Min.Y+5))); err != nil {
		t.Fatal(err)
	}
	tb.waitJS(`document.querySelectorAll("#tv span.hl").length === 1`, 10*time.Second)
	hl := -1
	for _, s := range tb.textView() {
		if s.HL {
			hl = s.P
		}
	}
	if hl < 0 || hl >= 200 {
		t.Fatalf("the hovered token is %d", hl)
	}

	// A click on an early token shows it on the map.
	tb.do(`document.querySelector('#tv span[data-p="3"]').scrollIntoView({block: "center"})`)
	var r struct{ X, Y float64 }
	if err := json.Unmarshal([]byte(tb.eval(`(() => { const b = document.querySelector('#tv span[data-p="3"]').getBoundingClientRect();
		return JSON.stringify({X: b.x + b.width / 2, Y: b.y + b.height / 2}); })()`)), &r); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(tb.ctx, chromedp.MouseClickXY(r.X, r.Y)); err != nil {
		t.Fatal(err)
	}
	tb.waitJS(`/positions 0–/.test(document.getElementById("axis-0").textContent)`, 10*time.Second)
}

// A document pasted into the prompt runs whole: a prompt longer than Max
// tokens raises it, with a notice that gives the numbers, and a prompt
// longer than the model's context is refused with both numbers while the
// run that was showing stays.
func TestPastedDocument(t *testing.T) {
	if skipReason != "" {
		t.Skip(skipReason)
	}
	tb := open(t, "mode=model&play=0&mtokens=64")
	tb.waitJS(`(s => s.model.loaded && s.step >= s.runPrompt && s.runPrompt > 0)(JSON.parse(window.kvscope.state()))`, time.Minute)
	paste := func(doc string) {
		t.Helper()
		if err := chromedp.Do(tb.ctx, chromedp.Focus(chromedp.ID("text"))); err != nil {
			t.Fatal(err)
		}
		tb.do(`document.getElementById("text").select()`)
		if _, err := chromedp.Call(tb.ctx, input.InsertText, input.InsertTextParams{Text: doc}); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(tb.ctx, chromedp.KeyEvent(kb.Tab)); err != nil { // leaving the box applies it
			t.Fatal(err)
		}
	}
	var para []string
	for i := range 12 {
		para = append(para, fmt.Sprintf("Line %d: the little dog ran to the park and saw a big red ball.", i))
	}
	doc := strings.Join(para, "\n")
	paste(doc)
	tb.waitJS(`(s => s.tokens > 64)(JSON.parse(window.kvscope.state()))`, 30*time.Second)
	tb.waitJS(`(s => s.step >= s.runPrompt)(JSON.parse(window.kvscope.state()))`, time.Minute)
	st := tb.state()
	if !strings.Contains(strings.Join(st.Notices, " "), "Max tokens raised to "+fmt.Sprint(st.Tokens)) {
		t.Errorf("run of %d tokens; notices %q", st.Tokens, st.Notices)
	}
	if st.Text == nil || !strings.Contains(st.Text.Full, "Line 11: the little dog") || !strings.Contains(st.Text.Full, "\n") {
		t.Fatalf("the document was not run whole, line breaks kept: %+v", st.Text)
	}
	shown := tb.eval(`document.getElementById("tv").textContent`)
	if !strings.Contains(shown, "Line 11: the little dog") {
		t.Errorf("the text view does not show the document's last line: %q…", shown[:min(len(shown), 200)])
	}

	long := strings.Repeat(doc+"\n", 4)
	paste(long)
	tb.waitJS(`JSON.parse(window.kvscope.state()).notices.some(n => n.includes("context holds"))`, 30*time.Second)
	after := tb.state()
	if after.Text == nil || after.Text.Full[:40] != st.Text.Full[:40] || after.Tokens != st.Tokens {
		t.Errorf("a refused document replaced the run: %d tokens, text %.40q", after.Tokens, after.Text.Full)
	}
	var n string
	for _, s := range after.Notices {
		if strings.Contains(s, "context holds") {
			n = s
		}
	}
	if !strings.Contains(n, "512") {
		t.Errorf("the refusal does not give the model's context: %q", n)
	}
	if v := tb.eval(`document.getElementById("text").value`); v != doc {
		t.Errorf("the prompt box holds %d characters after the refusal, want the %d that run", len(v), len(doc))
	}

	// A dropped .txt file becomes the prompt; a binary one is refused and
	// the prompt stays.
	drop := func(name, body string) {
		tb.do(`(() => { const dt = new DataTransfer();
			dt.items.add(new File([` + body + `], ` + strconv.Quote(name) + `, {type: "text/plain"}));
			document.dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true})); })()`)
	}
	drop("notes.txt", `"Max found the red ball in the garden.\nLily was happy."`)
	tb.waitJS(`(s => s.text && s.text.full.startsWith("Max found the red ball"))(JSON.parse(window.kvscope.state()))`, 30*time.Second)
	drop("photo.txt", `new Uint8Array([0, 159, 146, 150, 255, 0, 1, 2, 3, 200, 201])`)
	tb.waitJS(`JSON.parse(window.kvscope.state()).notices.some(n => n.includes("photo.txt is empty or not text"))`, 10*time.Second)
	if s := tb.state(); s.Text == nil || !strings.HasPrefix(s.Text.Full, "Max found the red ball") {
		t.Errorf("a binary file replaced the prompt: %+v", s.Text)
	}
}

// A question typed after the document is read after it, as plain text for
// stories260K (a base model without a chat template, which a notice
// says), and the answers under both caches appear; compressing after the
// question is a setting of its own that opens a new run.
func TestQuestionAnswers(t *testing.T) {
	if skipReason != "" {
		t.Skip(skipReason)
	}
	tb := open(t, "mode=model&play=1&speed=240&mtokens=64&text=Lily+had+a+red+ball.+She+gave+it+to+her+dog+Max.")
	tb.waitJS(`(s => s.model.loaded && s.step >= s.runPrompt && s.runPrompt > 0)(JSON.parse(window.kvscope.state()))`, time.Minute)
	before := tb.state().RunPrompt
	if err := chromedp.Do(tb.ctx, chromedp.Focus(chromedp.ID("question"))); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(tb.ctx, chromedp.KeyEvent("Who got the ball?"+kb.Enter)); err != nil {
		t.Fatal(err)
	}
	tb.waitJS(`(s => s.runPrompt > `+fmt.Sprint(before)+` && s.step > s.runPrompt + 4)(JSON.parse(window.kvscope.state()))`, time.Minute)
	st := tb.state()
	if st.Text == nil {
		t.Fatalf("no texts: %.600s", tb.eval(`window.kvscope.state()`))
	}
	if !strings.Contains(strings.Join(st.Notices, " "), "no chat template") {
		t.Errorf("no notice says how the question is asked: %q", st.Notices)
	}
	for _, s := range []string{st.Text.Full, st.Text.Compressed} {
		i := strings.Index(s, "Question: Who got the ball?\nAnswer:")
		if i < 0 || len(s) <= i+len("Question: Who got the ball?\nAnswer:") {
			t.Fatalf("no answer after the question in %q", s)
		}
	}
	if !strings.Contains(tb.eval(`document.getElementById("text-full").textContent`), "Answer:") {
		t.Errorf("the texts panel does not show the question and its answer")
	}
	if !strings.Contains(st.URL, "question=Who+got+the+ball%3F") && !strings.Contains(st.URL, "question=Who%20got") {
		t.Errorf("the link does not carry the question: %s", st.URL)
	}
	v := st.Version
	if err := chromedp.Do(tb.ctx, chromedp.Click(chromedp.ID("qafter"))); err != nil {
		t.Fatal(err)
	}
	tb.waitJS(fmt.Sprintf(`(s => s.version > %d && s.url.includes("qafter=1"))(JSON.parse(window.kvscope.state()))`, v), 10*time.Second)
}

// KVzip runs on the real model in the page: the document is scored by
// the model repeating it, the cost of that pass is shown beside the
// memory, and the compressed cache then holds the prompt tokens it chose
// as heavy hitters.
func TestKVzipInThePage(t *testing.T) {
	if skipReason != "" {
		t.Skip(skipReason)
	}
	tb := open(t, "mode=model&play=1&speed=240&mtokens=80&policy=kvzip&sink=2&heavy=6&question=Who+got+the+ball%3F&text=Lily+had+a+red+ball.+She+gave+it+to+her+dog+Max.+Max+ran+to+the+park+with+it.")
	tb.waitJS(`(s => s.model.loaded && s.runPrompt > 0 && s.step > s.runPrompt + 2)(JSON.parse(window.kvscope.state()))`, time.Minute)
	tb.waitJS(`document.getElementById("memratio-0").textContent.includes("KVzip scored the prompt")`, 20*time.Second)
	if txt := tb.eval(`document.getElementById("memratio-0").textContent`); !strings.Contains(txt, "more positions read") {
		t.Errorf("the cost of KVzip's pass is not shown: %q", txt)
	}
	st := tb.state()
	if st.Sides[0].Config.Policy != "kvzip" || st.Sides[0].Roles["heavy hitter"] == 0 {
		t.Errorf("policy %s, roles %v: KVzip kept no prompt token by score", st.Sides[0].Config.Policy, st.Sides[0].Roles)
	}
}

// A built-in document chosen from its menu with the keyboard becomes the
// prompt with its question; the link names it (doc=) instead of carrying
// its text, and stories260K reads the short story whole and answers.
func TestBuiltinDocument(t *testing.T) {
	if skipReason != "" {
		t.Skip(skipReason)
	}
	tb := open(t, "mode=model&play=1&speed=240&mtokens=64")
	tb.waitJS(`(s => s.model.loaded && s.runPrompt > 0)(JSON.parse(window.kvscope.state()))`, time.Minute)
	if err := chromedp.Do(tb.ctx, chromedp.Focus(chromedp.ID("docs"))); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(tb.ctx, chromedp.KeyEvent(kb.ArrowDown)); err != nil {
		t.Fatal(err)
	}
	d := view.Documents[0]
	tb.waitJS(`(s => s.url.includes("doc=`+d.Key+`") && s.step > s.runPrompt + 2)(JSON.parse(window.kvscope.state()))`, time.Minute)
	st := tb.state()
	if !strings.Contains(st.URL, "question=") || strings.Contains(st.URL, "text=") {
		t.Errorf("the link: %s", st.URL)
	}
	if st.Text == nil || !strings.HasPrefix(st.Text.Full, d.Text[:40]) || !strings.Contains(st.Text.Full, d.Question) {
		t.Fatalf("the run's text does not hold the document and its question: %+v", st.Text)
	}
	if shown := tb.eval(`document.getElementById("tv").textContent`); !strings.Contains(shown, d.Answer) {
		t.Errorf("the text view does not show the planted fact %q", d.Answer)
	}
}

// A document too long for a link is kept in the browser it was pasted
// in: the page's link names it and opens it again when loaded afresh in
// that browser; in another browser it gives a notice and runs the prompt
// it has, never another text in silence.
func TestLocalDocumentLink(t *testing.T) {
	if skipReason != "" {
		t.Skip(skipReason)
	}
	tb := freshTab(t, viewW, viewH, 1, 3*time.Minute)
	defer tb.close()
	if err := chromedp.Do(tb.ctx, chromedp.Navigate(serverURL+"/#mode=model&play=1&speed=240&mtokens=48")); err != nil {
		t.Fatal(err)
	}
	tb.waitJS(`window.kvscope && (s => s.model.loaded && s.runPrompt > 0)(JSON.parse(window.kvscope.state()))`, time.Minute)
	doc := strings.Repeat("The dog met a cat in the park. ", 28) // 868 bytes: over view.MaxLinkText, inside stories260K's context
	if err := chromedp.Do(tb.ctx, chromedp.Focus(chromedp.ID("text"))); err != nil {
		t.Fatal(err)
	}
	tb.do(`document.getElementById("text").select()`)
	if _, err := chromedp.Call(tb.ctx, input.InsertText, input.InsertTextParams{Text: doc}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(tb.ctx, chromedp.KeyEvent(kb.Tab)); err != nil {
		t.Fatal(err)
	}
	tb.waitJS(`(s => s.url.includes("doc=local-") && s.step >= s.runPrompt && s.runPrompt > 64)(JSON.parse(window.kvscope.state()))`, time.Minute)
	st := tb.state()
	id := view.LocalDocID(st.Text.Full[:len(doc)])
	if !strings.Contains(st.URL, "doc="+id) || strings.Contains(st.URL, "text=") {
		t.Fatalf("the link %s does not name the document %s", st.URL, id)
	}
	link := serverURL + "/#" + strings.Replace(st.URL, "play=1", "play=0", 1)

	// The same browser, the page loaded afresh: the document is back.
	if err := chromedp.Do(tb.ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(link), chromedp.WaitReady(chromedp.ID("app"))); err != nil {
		t.Fatal(err)
	}
	tb.waitJS(`window.kvscope && (s => s.model.loaded && s.text && s.text.full.length > 800)(JSON.parse(window.kvscope.state()))`, time.Minute)
	if got := tb.state().Text.Full; !strings.HasPrefix(got, doc[:200]) {
		t.Errorf("the same browser opened another text: %.80q", got)
	}

	// Another browser has not got it: a notice, and the prompt it has.
	other := open(t, "mode=model&play=0&doc="+id)
	defer other.close()
	other.waitJS(`(s => (s.notices || []).some(n => n.includes("pasted in another browser")) && s.model.loaded && s.text)(JSON.parse(window.kvscope.state()))`, time.Minute)
	if got := other.state().Text.Full; strings.Contains(got, "committee") {
		t.Errorf("another browser ran the document it cannot have: %.80q", got)
	}
}

// Presentation mode, by its key: the side panels go, the map stays and
// grows, the line under it gives the memory and the main fidelity figure,
// the link keeps it, and Esc leaves it.
func TestPresentationMode(t *testing.T) {
	if skipReason != "" {
		t.Skip(skipReason)
	}
	tb := openSized(t, 1920, 1080, "play=0&at=300")
	w0 := tb.rect("map-0").Dx()
	if err := chromedp.Do(tb.ctx, chromedp.KeyEvent("p")); err != nil {
		t.Fatal(err)
	}
	tb.waitJS(`document.documentElement.classList.contains("present") && JSON.parse(window.kvscope.state()).url.includes("present=1")`, 10*time.Second)
	tb.settle()
	if v := tb.eval(`[getComputedStyle(document.getElementById("controls")).display, getComputedStyle(document.getElementById("numbers")).display].join(" ")`); v != "none none" {
		t.Errorf("side panels shown in presentation mode: %s", v)
	}
	if w1 := tb.rect("map-0").Dx(); w1 <= w0*5/4 {
		t.Errorf("the map is %d px wide in presentation mode, %d before", w1, w0)
	}
	tb.waitJS(`document.getElementById("embedfoot").textContent.length > 10`, 10*time.Second)
	if r := tb.rect("embedfoot"); r.Dy() < 20 || r.Max.Y > 1080 || r.Min.Y < 0 {
		t.Errorf("the line under the map is not on screen: %v", r)
	}
	if foot := domText(tb, "embedfoot"); !strings.Contains(foot, "×") && !strings.Contains(foot, "smaller") {
		t.Errorf("the line under the map: %q", foot)
	}
	if os.Getenv("KVSCOPE_SHOTS") != "" {
		os.WriteFile(filepath.Join(os.Getenv("KVSCOPE_SHOTS"), "present-1920x1080.png"), tb.screenshotPNG(), 0o644)
	}
	if err := chromedp.Do(tb.ctx, chromedp.KeyEvent(kb.Escape)); err != nil {
		t.Fatal(err)
	}
	tb.waitJS(`!document.documentElement.classList.contains("present")`, 10*time.Second)
}
