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
// what to notice and the one thing to do, measures the numbers before and
// after the learner does it, and writes the claim from those numbers.

// lessonPhase is where the learner is in the open lesson.
type lessonPhase int

const (
	lessonOff      lessonPhase = iota // no lesson open
	lessonSettling                    // the lesson's state is replaying; "before" not measured yet
	lessonAsking                      // measured; waiting for the action
	lessonActing                      // the action is done; waiting for the run to replay
	lessonDone                        // the claim is shown
)

// lessonState is the open lesson.
type lessonState struct {
	l      *lesson.Lesson
	phase  lessonPhase
	before lesson.Numbers
	claim  string
	shownV int // lesson card version written to the DOM
	v      int // bumps when the card changes
}

// splitLesson removes "lesson=N" from a link, returning the rest and N
// (0 when absent or not a lesson number).
func splitLesson(link string) (rest string, n int) {
	link = strings.TrimLeft(link, "#?")
	var keep []string
	for _, part := range strings.Split(link, "&") {
		if v, ok := strings.CutPrefix(part, "lesson="); ok {
			if k, err := strconv.Atoi(v); err == nil {
				if _, err := lesson.Get(k); err == nil {
					n = k
				}
			}
			continue
		}
		if part != "" {
			keep = append(keep, part)
		}
	}
	return strings.Join(keep, "&"), n
}

// openLesson applies lesson n's state (on top of the page's defaults) and
// shows its card; n = 0 closes the lesson card.
func (a *app) openLesson(n int) {
	if n == 0 {
		a.les = lessonState{v: a.les.v + 1}
		a.writeURL()
		return
	}
	l, err := lesson.Get(n)
	if err != nil {
		a.addNotices(view.Notice{Key: "lesson", Value: strconv.Itoa(n), Msg: "no such lesson; ignored"})
		return
	}
	window.Get("localStorage").Call("setItem", "kvscope.lessons", "seen")
	a.les = lessonState{l: l, phase: lessonSettling, v: a.les.v + 1}
	a.start(l.Link() + "&lesson=" + strconv.Itoa(n))
}

// lessonTick advances the open lesson once per frame: it measures the
// state before the action once the lesson's run has caught up, notices the
// action (a control set to the asked value, or the step reached), and
// writes the claim once the run after it has caught up.
func (a *app) lessonTick() {
	ls := &a.les
	if ls.l == nil || a.replaying() || a.sides[0].snap == nil || a.active() == 0 {
		return
	}
	if ls.l.Model() != a.st.ModelMode() {
		return
	}
	switch ls.phase {
	case lessonSettling:
		ls.before = a.lessonNumbers()
		ls.phase = lessonAsking
		ls.v++
	case lessonAsking:
		if a.lessonActionDone() {
			ls.phase = lessonActing
			ls.v++
		}
	case lessonActing:
		if !a.lessonActionDone() {
			ls.phase = lessonAsking // moved away again before the run caught up
			ls.v++
			return
		}
		after := a.lessonNumbers()
		ls.claim = ls.l.Claim(ls.before, after)
		ls.phase = lessonDone
		ls.v++
	}
}

// lessonActionDone reports whether the page's settings (or its step)
// now read what the lesson asked.
func (a *app) lessonActionDone() bool {
	l := a.les.l
	key := l.Action.Key
	if key == "at" {
		return l.Done("at", strconv.Itoa(a.pos()))
	}
	return l.Done(key, view.Get(&a.st, key))
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
	byID("lesson-notice").Set("textContent", notice)
	byID("lesson-ask").Set("textContent", l.Action.Ask)
	res := byID("lesson-result")
	switch ls.phase {
	case lessonSettling:
		res.Set("textContent", "Measuring the starting point…")
	case lessonAsking:
		res.Set("textContent", "Your move: the measured answer will appear here.")
	case lessonActing:
		res.Set("textContent", "Measuring what changed…")
	case lessonDone:
		res.Set("textContent", ls.claim)
	}
	card.Get("dataset").Set("phase", strconv.Itoa(int(ls.phase)))
	card.Get("dataset").Set("n", strconv.Itoa(l.N))
	byID("lesson-prev").Set("disabled", l.N <= 1)
	next := byID("lesson-next")
	next.Set("disabled", l.N >= len(lesson.All()))
	if ls.phase == lessonDone {
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
	return &view.PageLesson{N: ls.l.N, Phase: int(ls.phase), Claim: ls.claim}
}
