//go:build js && wasm

package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kvscope/kvscope/core/lesson"
	"github.com/kvscope/kvscope/viz/view"
)

// Guided lessons (core/lesson): the page opens a lesson's state, shows
// what to notice and the one thing to do, and shows each state it settles
// on to the lesson's tracker, which measures the lesson's start and
// answers every move of the learner from it.

// lessonState is the open lesson: its tracker (core/lesson) measures the
// lesson's start and answers every move from it.
type lessonState struct {
	l      *lesson.Lesson
	tr     *lesson.Tracker
	phase  lesson.Phase  // 0: no lesson open
	ans    lesson.Answer // the tracker's answer for the state last observed
	seenV  int           // the page's version last observed
	shownV int           // lesson card version written to the DOM
	v      int           // bumps when the card changes
}

// begin opens lesson l (nil: none) from its start: nothing measured yet.
func (ls *lessonState) begin(l *lesson.Lesson) {
	*ls = lessonState{l: l, v: ls.v + 1, seenV: -1}
	if l != nil {
		ls.tr, ls.phase = lesson.NewTracker(l, lessonWords), lesson.Settling
	}
}

// lessonWords name the page's settings in a lesson's answers as the
// controls do: a field's label, a menu entry's label, on or off.
var lessonWords = lesson.Words{
	Label: func(key string) string {
		if f, _, ok := view.Lookup(key); ok {
			return f.Label
		}
		return ""
	},
	Value: func(key, value string) string {
		if f, _, ok := view.Lookup(key); ok && f.Kind == view.Bool {
			if value == "1" {
				return "on"
			}
			return "off"
		}
		for _, o := range view.Menu(key) {
			if o.Value == value {
				return o.Label
			}
		}
		return ""
	},
}

// splitLesson removes "lesson=N" from a link, returning the rest and N
// (0 when absent), and a notice when the link names no lesson kvscope has.
func splitLesson(link string) (rest string, n int, bad []view.Notice) {
	link = strings.TrimLeft(link, "#?")
	var keep []string
	for _, part := range strings.Split(link, "&") {
		if v, ok := strings.CutPrefix(part, "lesson="); ok {
			k, err := strconv.Atoi(v)
			if err == nil {
				_, err = lesson.Get(k)
			}
			if err != nil {
				bad = append(bad, view.Notice{Key: "lesson", Value: v,
					Msg: fmt.Sprintf("not a lesson: the lessons are 1 to %d; opened the page without one", len(lesson.All()))})
			} else {
				n = k
			}
			continue
		}
		if part != "" {
			keep = append(keep, part)
		}
	}
	return strings.Join(keep, "&"), n, bad
}

// openLesson applies lesson n's state (on top of the page's defaults) and
// shows its card; n = 0 closes the lesson card.
func (a *app) openLesson(n int) {
	if n == 0 {
		a.les.begin(nil)
		a.writeURL()
		return
	}
	l, err := lesson.Get(n)
	if err != nil {
		a.addNotices(view.Notice{Key: "lesson", Value: strconv.Itoa(n), Msg: "no such lesson; ignored"})
		return
	}
	window.Get("localStorage").Call("setItem", "kvscope.lessons", "seen")
	if offer := byID("offer"); offer.Truthy() && !offer.Get("hidden").Bool() {
		offer.Set("hidden", true) // the lessons are open: the first visit's offer of them is answered
		a.layoutDirty = true
	}
	a.les.begin(l)
	a.start(l.Link() + "&lesson=" + strconv.Itoa(n))
}

// lessonTick shows the open lesson's tracker each state the page settles
// on (once per change of what is shown, when the runs have caught up) and
// keeps the card's phase: measuring while a run catches up, then the
// tracker's answer.
func (a *app) lessonTick() {
	ls := &a.les
	if ls.l == nil || a.sides[0].snap == nil || a.active() == 0 || ls.l.Model() != a.st.ModelMode() {
		return
	}
	if a.replaying() {
		p := lesson.Settling
		if ls.tr.Measured() {
			p = lesson.Measuring
		}
		if ls.phase != p {
			ls.phase = p
			ls.v++
		}
		return
	}
	if ls.seenV == a.version {
		return
	}
	ls.seenV = a.version
	get := func(key string) string {
		if key == "at" {
			return strconv.Itoa(a.pos())
		}
		return view.Get(&a.st, key)
	}
	ans := ls.tr.Observe(get, a.lessonBasis(), a.lessonNumbers)
	if ans != ls.ans || ans.Phase != ls.phase {
		ls.ans, ls.phase = ans, ans.Phase
		ls.v++
	}
}

// lessonBasis is what the open lesson's numbers depend on besides the
// settings it asks for, as the tracker compares it: A's configuration and
// the real-model run's settings with the asked settings at the lesson's
// start, and the step shown (unless the step is what it asks for). How
// the page shows the run (playing, speed, layer, side B) is not part of it.
func (a *app) lessonBasis() string {
	l := a.les.l
	s := a.st
	at := a.pos()
	for _, kv := range l.Asked() {
		if kv.Key == "at" {
			at = 0
			continue
		}
		view.Set(&s, kv.Key, l.Start(kv.Key))
	}
	return fmt.Sprintf("%+v|%s|%q|%d|%t|%q|%d", s.A, s.Mode, s.Text, s.MaxTok, s.Repos, s.Source, at)
}

// lessonNumbers measures the state shown, as the lesson's claim reads it.
func (a *app) lessonNumbers() lesson.Numbers {
	n := lesson.FromSnapshot(a.sides[0].snap)
	for _, e := range a.les.l.Expect {
		if r, ok := a.sides[0].eng.(interface {
			Perplexity() (float64, float64, error)
		}); ok && e.Metric == "ppl" {
			// The decoded tokens, scored as the command line scores them.
			if _, ppl, err := r.Perplexity(); err == nil {
				n.PPL = ppl
			}
		}
	}
	return n
}

// writeLesson writes the lesson card and the highlight when they changed.
func (a *app) writeLesson() {
	ls := &a.les
	if ls.shownV == ls.v { // the page starts as the card's zero state: hidden, nothing outlined
		return
	}
	ls.shownV = ls.v
	card := byID("lesson")
	for _, el := range []string{"side-0", "numbers", "metrics", "memblock-0", "texts", "chartbox"} {
		if e := byID(el); e.Truthy() {
			e.Get("classList").Call("remove", "spot")
		}
	}
	if ls.l == nil {
		card.Set("hidden", true)
		a.layoutDirty = true
		return
	}
	l := ls.l
	card.Set("hidden", false)
	a.layoutDirty = true
	byID("lesson-step").Set("textContent", fmt.Sprintf("Lesson %d of %d", l.N, len(lesson.All())))
	byID("lesson-title").Set("textContent", l.Title)
	notice := l.Notice
	if note := view.LessonSinkNote(a.mdl.name, a.mdl.sinks); l.Sinks && note != "" {
		notice += " " + note
	}
	writeProse(byID("lesson-notice"), notice)
	writeProse(byID("lesson-ask"), l.Action.Ask)
	res := byID("lesson-result")
	switch {
	case ls.phase == lesson.Settling && ls.ans.Text != "":
		res.Set("textContent", ls.ans.Text) // moved before the start was measured
	case ls.phase == lesson.Settling:
		res.Set("textContent", "Measuring the starting point…")
	case ls.phase == lesson.Asking:
		res.Set("textContent", "Your move: the measured answer will appear here.")
	case ls.phase == lesson.Measuring:
		res.Set("textContent", "Measuring what changed…")
	case ls.phase == lesson.Answered:
		res.Set("textContent", ls.ans.Text)
	}
	card.Get("dataset").Set("phase", strconv.Itoa(int(ls.phase)))
	card.Get("dataset").Set("n", strconv.Itoa(l.N))
	card.Get("dataset").Set("move", ls.ans.Move.String())
	byID("lesson-prev").Set("disabled", l.N <= 1)
	next := byID("lesson-next")
	next.Set("disabled", l.N >= len(lesson.All()))
	if ls.phase == lesson.Answered && ls.ans.Move == lesson.Reached {
		next.Get("classList").Call("add", "go")
	} else {
		next.Get("classList").Call("remove", "go")
	}
	spot := map[string]string{"map": "side-0", "memory": "memblock-0", "fidelity": "metrics", "text": "texts", "chart": "chartbox"}[l.Highlight]
	if e := byID(spot); spot != "" && e.Truthy() {
		e.Get("classList").Call("add", "spot")
	}
	if l.Highlight == "chart" {
		if box := byID("chartbox"); box.Truthy() {
			box.Set("open", true)
		}
		if b := l.Budget; b > 0 {
			window.Call("dispatchEvent", window.Get("CustomEvent").New("kvscope:budget", map[string]any{"detail": b}))
		}
	}
}

// publicLesson is the open lesson in window.kvscope.state().
func (a *app) publicLesson() *view.PageLesson {
	ls := &a.les
	if ls.l == nil {
		return nil
	}
	pl := &view.PageLesson{N: ls.l.N, Phase: int(ls.phase)}
	if ls.phase == lesson.Answered || ls.phase == lesson.Settling {
		pl.Claim = ls.ans.Text
	}
	if ls.phase == lesson.Answered || ls.phase == lesson.Asking {
		pl.Move, pl.Value = ls.ans.Move.String(), ls.ans.Value
	}
	return pl
}
