package lesson_test

import (
	"testing"

	"github.com/kvscope/kvscope/core/lesson"
	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/viz/view"
)

// The lessons speak the page's language: every setting of every lesson,
// before and after its action, is a key the page's link decoder takes as
// given (no notice), and it gives the page the configuration the lesson's
// tests measure.
func TestLessonsOpenInThePage(t *testing.T) {
	for _, l := range lesson.All() {
		for _, settings := range [][]lesson.Setting{l.Settings, l.After()} {
			link := (&lesson.Lesson{Settings: settings}).Link()
			st, notices := view.Decode(link)
			if len(notices) > 0 {
				t.Errorf("lesson %d: %s: the page adjusts %v", l.N, link, notices)
			}
			want, err := lesson.Config(sim.DefaultConfig(), settings)
			if err != nil {
				t.Fatal(err)
			}
			if !l.Model() && st.A != want {
				t.Errorf("lesson %d: %s: the page runs %+v, the lesson measures %+v", l.N, link, st.A, want)
			}
			if st.Mode != l.Mode || st.Playing {
				t.Errorf("lesson %d: mode %q playing %v", l.N, st.Mode, st.Playing)
			}
			if l.Model() && (st.A.Policy != want.Policy || st.A.Recent != want.Recent || st.A.Bits != want.Bits) {
				t.Errorf("lesson %d: the page's model run uses %+v", l.N, st.A)
			}
		}
		// The page detects the action: its setting reads the asked value.
		st, _ := view.Decode(l.Link())
		if ns := view.Set(&st, l.Action.Key, l.Action.Value); len(ns) > 0 {
			t.Errorf("lesson %d: setting %s=%s: %v", l.N, l.Action.Key, l.Action.Value, ns)
		}
		if got := view.Get(&st, l.Action.Key); !l.Done(l.Action.Key, got) {
			t.Errorf("lesson %d: after the action the page reads %s=%q, which Done does not take", l.N, l.Action.Key, got)
		}
		if l.Done(l.Action.Key, view.Get(&view.State{}, "policy")+"x") {
			t.Errorf("lesson %d: Done takes any value", l.N)
		}
	}
}
