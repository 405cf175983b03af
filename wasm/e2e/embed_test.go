//go:build !js

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kvscope/kvscope/viz/view"
)

// embedLink is the embedded view the tests and the README's picture show.
const embedLink = "embed=1&controls=play,sink,recent&policy=streaming&sink=4&recent=60&play=0&at=300"

// cutOff lists what of the page a visitor cannot see whole in a w×h
// viewport: scrolling, elements shown (not hidden) outside the viewport,
// and boxes whose content overflows them where they clip it.
const cutOff = `((w, h) => {
	const bad = [];
	const se = document.scrollingElement, app = document.getElementById("app");
	if (se.scrollHeight > h + 0.5 || se.scrollWidth > w + 0.5) bad.push("the document scrolls: " + se.scrollWidth + "×" + se.scrollHeight);
	if (app.scrollHeight > app.clientHeight + 0.5 || app.scrollWidth > app.clientWidth + 0.5) bad.push("#app scrolls: " + app.scrollWidth + "×" + app.scrollHeight);
	const name = (e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.className && typeof e.className === "string" ? "." + e.className.trim().replace(/\s+/g, ".") : "");
	for (const root of document.querySelectorAll("#embedbar, #viz, #embedfoot")) {
		for (const e of [root, ...root.querySelectorAll("*")]) {
			if (!e.getClientRects().length) continue; // not rendered
			const cs = getComputedStyle(e);
			if (cs.visibility === "hidden") continue;
			const r = e.getBoundingClientRect();
			if (r.width === 0 && r.height === 0) continue;
			if (r.left < -0.5 || r.top < -0.5 || r.right > w + 0.5 || r.bottom > h + 0.5)
				bad.push(name(e) + " outside the viewport: " + [r.left, r.top, r.right, r.bottom].map(Math.round).join(","));
			// Within its parent's box (a label placed beside a row stays by the map).
			const p = e.parentElement, pr = p && e !== root && p.getBoundingClientRect();
			if (pr && getComputedStyle(p).display !== "contents" && (r.left < pr.left - 1 || r.top < pr.top - 1 || r.right > pr.right + 1 || r.bottom > pr.bottom + 1))
				bad.push(name(e) + " outside " + name(p) + ": " + [r.left, r.top, r.right, r.bottom].map(Math.round).join(",") + " in " + [pr.left, pr.top, pr.right, pr.bottom].map(Math.round).join(","));
			// Text wider than its box (a squeezed label, a clipped number).
			const text = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
			if (text && cs.display !== "inline" && cs.display !== "contents" && e.scrollWidth > e.clientWidth + 1)
				bad.push(name(e) + " text wider than its box: " + e.scrollWidth + " in " + e.clientWidth);
			const clips = cs.overflowX !== "visible" || cs.overflowY !== "visible" || cs.textOverflow === "ellipsis" || cs.webkitLineClamp !== "none";
			if (clips && e.tagName !== "svg" && (e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1))
				bad.push(name(e) + " cuts its content: " + e.scrollWidth + "×" + e.scrollHeight + " in " + e.clientWidth + "×" + e.clientHeight);
		}
	}
	return JSON.stringify(bad);
})`

// The embedded view fits a 640×360 and a 960×540 frame: nothing scrolls
// and nothing shown is cut off; it shows the map, the controls its link
// names (and no other), the memory line with the main fidelity figure,
// and a link to the full page in the same state. The screenshots are
// written to KVSCOPE_EMBED_SHOTS (a directory) when it is set, and the
// 640×360 one to KVSCOPE_EMBED_PNG (make embed-picture).
func TestEmbedFits(t *testing.T) {
	for _, size := range [][2]int64{{640, 360}, {960, 540}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			tb := openSized(t, w, h, embedLink)
			s := tb.settle()
			checkFits(tb, w, h)
			if st := tb.eval(`document.documentElement.className`); st != "embed" {
				t.Errorf("<html> class %q", st)
			}
			// The controls named, shown; the others not.
			shown := tb.eval(`[...document.querySelectorAll("[data-key]")].filter(e => e.getClientRects().length && e.type !== "hidden").map(e => e.dataset.key).filter((k, i, a) => a.indexOf(k) === i).join(",")`)
			if shown != "sink,recent" {
				t.Errorf("controls shown: %q, want sink,recent", shown)
			}
			if tb.eval(`String(["play", "fwd", "back"].every(id => document.getElementById(id).closest("#embed-controls") && document.getElementById(id).getClientRects().length))`) != "true" {
				t.Error("the play and step buttons are not in the bar")
			}
			for _, id := range []string{"controls", "numbers", "learn", "chartbox"} {
				if tb.eval(fmt.Sprintf(`String(document.getElementById(%q).getClientRects().length)`, id)) != "0" {
					t.Errorf("#%s is shown", id)
				}
			}
			if m := tb.rect("map-0"); m.Dy() < 60 || m.Dx() < int(w)-80 {
				t.Errorf("the map is %v in a %d×%d frame", m, w, h)
			}
			foot := domText(tb, "embedfoot")
			if !strings.Contains(foot, "stored ") || !strings.Contains(foot, "attention mass kept") || !strings.Contains(foot, fmt.Sprintf("step %d / %d", s.Step, s.Tokens)) {
				t.Errorf("foot line %q", foot)
			}
			// The full page, same state.
			href := tb.eval(`document.getElementById("embed-open").href`)
			_, link, _ := strings.Cut(href, "#")
			full, ns := view.Decode(link)
			if !strings.HasPrefix(href, serverURL+"/#") || len(ns) > 0 || full.Embed || full.A.Policy != "streaming" || full.A.Recent != 60 || full.At != s.Step {
				t.Errorf("open link %q: %+v, %v", href, full.A, ns)
			}
			// The map is drawn where it is.
			img := tb.screenshot()
			for role, p := range s.Sides[0].Probes {
				if ok, got := near(img, int(p.X), int(p.Y), p.RGB, 8); !ok {
					t.Errorf("%s cell at (%.0f, %.0f): %v, want %v", role, p.X, p.Y, got, p.RGB)
				}
			}
			if len(s.Sides[0].Probes) < 2 { // recent and evicted; the sinks are scrolled off
				t.Errorf("%d roles probed", len(s.Sides[0].Probes))
			}
			png := tb.screenshotPNG()
			dir := os.Getenv("KVSCOPE_EMBED_SHOTS")
			if dir == "" {
				dir = t.TempDir()
			}
			out := filepath.Join(dir, fmt.Sprintf("embed-%dx%d.png", w, h))
			if err := os.WriteFile(out, png, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("screenshot %s", out)
			if p := os.Getenv("KVSCOPE_EMBED_PNG"); p != "" && w == 640 {
				if err := os.WriteFile(p, png, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// checkFits reports what cutOff finds.
func checkFits(tb *tab, w, h int64) {
	tb.t.Helper()
	var bad []string
	if err := json.Unmarshal([]byte(tb.eval(fmt.Sprintf("%s(%d, %d)", cutOff, w, h))), &bad); err != nil {
		tb.t.Fatal(err)
	}
	for _, b := range bad {
		tb.t.Error(b)
	}
}

// Menus, the bits' buttons and a slider in the bar fit a 640×360 frame too.
func TestEmbedFitsOtherControls(t *testing.T) {
	tb := openSized(t, 640, 360, "embed=1&controls=policy,bits,gran,recent&policy=window&recent=32&bits=4&play=0&at=200")
	tb.settle()
	checkFits(tb, 640, 360)
	if dir := os.Getenv("KVSCOPE_EMBED_SHOTS"); dir != "" {
		os.WriteFile(filepath.Join(dir, "embed-menus-640x360.png"), tb.screenshotPNG(), 0o644)
	}
	if shown := tb.eval(`[...document.querySelectorAll("#embed-controls [data-key]")].map(e => e.dataset.key).filter((k, i, a) => a.indexOf(k) === i).join(",")`); shown != "policy,bits,gran,recent" {
		t.Errorf("bar controls %q", shown)
	}
}

// Every control name controls= accepts (view.EmbedControls, from the
// settings table) has a control on the page to show.
func TestEmbedControlsExist(t *testing.T) {
	tb := openSized(t, 1280, 800, "embed=1&play=0&controls="+strings.Join(view.EmbedControls(), ","))
	s := tb.state()
	for _, n := range s.Notices {
		if strings.Contains(n, "controls=") {
			t.Errorf("notice %s", n)
		}
	}
	for _, k := range view.EmbedControls() {
		sel := fmt.Sprintf(`[data-key=%q]`, k)
		if k == "play" {
			sel = "#play"
		}
		if tb.eval(fmt.Sprintf(`String(!!document.querySelector('#embed-controls %s'))`, sel)) != "true" {
			t.Errorf("no control %s in the embed's bar", k)
		}
	}
}

// hostPage is a course page on another origin that embeds kvscope and
// collects its messages; evilPage, on a third origin, posts to the
// embedded view too (through the host's window.frames), which names only
// the host's origin.
const hostPage = `<!doctype html><html><head><meta charset="utf-8"><title>A course page</title></head>
<body style="margin:0;font:14px sans-serif">
<p><label>Notes <input id="typing" autofocus></label></p>
<iframe id="kv" src="%[1]s/#%[2]s" width="640" height="360" title="kvscope" style="border:0"></iframe>
<iframe id="evil" src="%[3]s/evil" width="20" height="20"></iframe>
<script>
window.msgs = []; window.evil = [];
window.addEventListener("message", (e) => {
	if (e.origin === %[1]q) window.msgs.push(e.data);
	else if (e.origin === %[3]q) window.evil.push(e.data);
});
window.send = (m) => document.getElementById("kv").contentWindow.postMessage(m, %[1]q);
window.answer = (id) => window.msgs.find((m) => m.id === id);
</script></body></html>`

const evilPage = `<!doctype html><html><body><script>
window.addEventListener("message", (e) => {
	if (e.data && e.data.kvscope) { parent.postMessage({got: e.data}, "*"); return; }
	if (e.data !== "attack") return;
	const kv = parent.frames[0];
	kv.postMessage({kvscope: 1, type: "set", key: "sink", value: 0, id: "evil-set"}, "*");
	kv.postMessage({kvscope: 1, type: "step", n: 50, id: "evil-step"}, "*");
	kv.postMessage({kvscope: 1, type: "play", id: "evil-play"}, "*");
	parent.postMessage("sent", "*");
});
</script></body></html>`

// A host page on one origin embeds kvscope from another and drives it by
// postMessage: it sets a control, steps, and reads the figures; the view
// never took its keyboard focus meanwhile. A page on a third origin posts
// the same messages and changes nothing, and hears nothing back.
func TestEmbedHostDrivesByPostMessage(t *testing.T) {
	if skipReason != "" {
		t.Skip(skipReason)
	}
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, evilPage)
	}))
	defer evil.Close()
	var hostURL string
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, hostPage, serverURL, "embed=1&controls=sink,recent&policy=streaming&sink=4&recent=60&play=0&at=200&origin="+hostURL, evil.URL)
	}))
	defer host.Close()
	hostURL = host.URL
	if hostURL == serverURL || hostURL == evil.URL {
		t.Fatal("the servers share an origin")
	}
	tb := freshTab(t, 1000, 700, 1, 90*time.Second)
	t.Cleanup(func() {
		if t.Failed() {
			t.Log("console:\n" + joinLogs(tb))
		}
	})
	if err := chromedp.Do(tb.ctx, chromedp.Navigate(host.URL+"/")); err != nil {
		t.Fatal(err)
	}
	tb.waitJS(`window.msgs && window.msgs.some((m) => m.type === "ready")`, 60*time.Second)
	var ready view.Figures
	json.Unmarshal([]byte(tb.eval(`JSON.stringify(window.msgs.find((m) => m.type === "ready"))`)), &ready)
	if ready.Kvscope != 1 || ready.Settings["recent"] != "60" || ready.Mode != view.ModeSynthetic {
		t.Errorf("ready %+v", ready)
	}
	// The host keeps the keyboard: typed keys reach its input, not the view.
	focus := func() string {
		return tb.eval(`document.hasFocus() + " " + (document.activeElement && document.activeElement.id)`)
	}
	if f := focus(); f != "true typing" {
		t.Errorf("host focus after the embed loaded: %s", f)
	}
	if err := chromedp.Do(tb.ctx, chromedp.KeyEvent("a b")); err != nil {
		t.Fatal(err)
	}
	if v := tb.eval(`document.getElementById("typing").value`); v != "a b" {
		t.Errorf("the host's input holds %q after typing \"a b\"", v)
	}

	ask := func(id int, msg string) view.Figures {
		t.Helper()
		tb.do(fmt.Sprintf(`window.send(Object.assign(%s, {kvscope: 1, id: %d}))`, msg, id))
		tb.waitJS(fmt.Sprintf(`window.answer(%d)`, id), 30*time.Second)
		var f view.Figures
		if err := json.Unmarshal([]byte(tb.eval(fmt.Sprintf(`JSON.stringify(window.answer(%d))`, id))), &f); err != nil {
			t.Fatal(err)
		}
		return f
	}
	f := ask(1, `{type: "get"}`)
	before := f
	if f.Type != view.AnsFigures || f.Step != 200 || f.Playing || f.Memory.Stored <= 0 || f.Memory.Full <= f.Memory.Stored || !(f.Fidelity.Mass > 0 && f.Fidelity.Mass <= 1) {
		t.Fatalf("get: %+v", f)
	}
	f = ask(2, `{type: "set", key: "recent", value: 16}`)
	if f.Settings["recent"] != "16" || f.Step != 200 || f.Memory.Stored >= before.Memory.Stored {
		t.Errorf("set recent=16: %+v (stored before %d)", f, before.Memory.Stored)
	}
	f = ask(3, `{type: "step", n: 5}`)
	if f.Step != 205 || f.Playing {
		t.Errorf("step 5 from 200: %+v", f)
	}
	f = ask(4, `{type: "set", key: "at", value: 1}`)
	if f.Type != view.AnsError || !strings.Contains(f.Error, "not a control") {
		t.Errorf("a bad message: %+v", f)
	}
	if tb.eval(`String(window.msgs.filter((m) => m.id === 4).length)`) != "1" {
		t.Error("one message, not one answer")
	}
	f = ask(6, `{type: "set", key: "recent", value: "abc"}`)
	if f.Type != view.AnsError || !strings.Contains(f.Error, "recent") {
		t.Errorf("a value the page cannot use: %+v", f)
	}
	if f = ask(7, `{type: "get"}`); f.Settings["recent"] != "16" {
		t.Errorf("after a refused value: recent %s", f.Settings["recent"])
	}

	// The third origin's messages change nothing.
	tb.do(fmt.Sprintf(`document.getElementById("evil").contentWindow.postMessage("attack", %q)`, evil.URL))
	tb.waitJS(`window.evil.includes("sent")`, 10*time.Second)
	f = ask(5, `{type: "get"}`)
	if f.Settings["sink"] != "4" || f.Settings["recent"] != "16" || f.Step != 205 || f.Playing {
		t.Errorf("after the other origin's messages: %+v", f)
	}
	if got := tb.eval(`JSON.stringify(window.evil.filter((m) => m !== "sent"))`); got != "[]" {
		t.Errorf("the other origin heard back: %s", got)
	}
	if got := tb.eval(`JSON.stringify(window.msgs.filter((m) => String(m.id).startsWith("evil")))`); got != "[]" {
		t.Errorf("the other origin's messages were answered: %s", got)
	}
	if f := focus(); f != "true typing" {
		t.Errorf("host focus after the messages: %s", f)
	}
	// A click gives the view the focus.
	r := tb.rect("kv")
	if err := chromedp.Do(tb.ctx, chromedp.MouseClickXY(float64(r.Min.X+320), float64(r.Min.Y+180))); err != nil {
		t.Fatal(err)
	}
	tb.waitJS(`document.activeElement && document.activeElement.id === "kv"`, 5*time.Second)
}

// In real-model mode an embed says ready only once its model is loaded
// and decoding: the ready message already carries the run's figures.
func TestEmbedModelReady(t *testing.T) {
	if skipReason != "" {
		t.Skip(skipReason)
	}
	var hostURL string
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, hostPage, serverURL, "embed=1&mode=model&play=0&mtokens=40&origin="+hostURL, serverURL)
	}))
	defer host.Close()
	hostURL = host.URL
	tb := freshTab(t, 1000, 700, 1, 90*time.Second)
	if err := chromedp.Do(tb.ctx, chromedp.Navigate(host.URL+"/")); err != nil {
		t.Fatal(err)
	}
	tb.waitJS(`window.msgs && window.msgs.some((m) => m.type === "ready")`, 60*time.Second)
	var ready view.Figures
	json.Unmarshal([]byte(tb.eval(`JSON.stringify(window.msgs.find((m) => m.type === "ready"))`)), &ready)
	if ready.Mode != view.ModeModel || ready.Memory.Stored <= 0 || ready.Step <= 0 {
		t.Errorf("ready before the model decodes: %+v", ready)
	}
	if n := tb.eval(`String(window.msgs.filter((m) => m.type === "ready").length)`); n != "1" {
		t.Errorf("%s ready messages for one model", n)
	}
}
