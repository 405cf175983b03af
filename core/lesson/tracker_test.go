package lesson

import (
	"strconv"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/internal/testenv"
	"github.com/kvscope/kvscope/core/internal/testmodel"
	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/sim"
)

// page stands for the page in these tests: the settings it shows (the
// lesson's, then what the learner set) and how it reads and measures them.
type page struct {
	l   *Lesson
	set []Setting
}

func newPage(l *Lesson) *page { return &page{l: l, set: append([]Setting(nil), l.Settings...)} }

// to sets key to value, as a control would.
func (p *page) to(key, value string) {
	for i := range p.set {
		if p.set[i].Key == key {
			p.set[i].Value = value
			return
		}
	}
	p.set = append(p.set, Setting{key, value})
}

func (p *page) get(key string) string { return setting(p.set, key, "") }

// basis is the page's settings with the asked ones at the lesson's start,
// as the page writes it.
func (p *page) basis() string {
	q := &page{l: p.l, set: append([]Setting(nil), p.set...)}
	for _, s := range p.l.Asked() {
		q.to(s.Key, p.l.Start(s.Key))
	}
	return (&Lesson{Settings: q.set}).Link()
}

// observe shows t the page's state, measured by measure.
func (p *page) observe(t *Tracker, measure func([]Setting) Numbers) Answer {
	return t.Observe(p.get, p.basis(), func() Numbers { return measure(p.set) })
}

// simMeasure measures settings as the page does (the synthetic stream
// read from s, or model m decoding).
func simMeasure(t *testing.T, s *sim.Stream, m *model.Model) func([]Setting) Numbers {
	return func(set []Setting) Numbers {
		t.Helper()
		n, err := measure(sim.DefaultConfig(), set, m, s)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
}

// However the control gets to the asked value — typed at once, dragged
// through every value between (each one shown and measured, as a slider's
// input events are), or stepped by keys with some values never shown —
// the answer is the lesson's claim from its own start to that value: the
// same text, with the numbers of the lesson's two configurations.
func TestTrackerAnswersFromTheStart(t *testing.T) {
	testenv.NativeOnly(t)
	s := defaultStream(t)
	for _, tc := range []struct {
		n     int
		paths [][]string // the asked control's values, one per state the page settles on
	}{
		{3, [][]string{{"4"}, {"1", "2", "3", "4"}, {"2", "4"}, {"3", "4"}, {"10", "4"}}},
		{9, [][]string{{"8"}, {"32", "7", "8"}, {"63", "40", "9", "8"}}},
		{6, [][]string{{"2"}, {"4", "3", "2"}, {"16", "2"}}},
	} {
		l, _ := Get(tc.n)
		var m *model.Model
		if l.Model() {
			m = testmodel.Model(t)
		}
		meas := simMeasure(t, s, m)
		before, after := meas(l.Settings), meas(l.After())
		want := l.Claim(before, after)
		if !l.Holds(before, after) {
			t.Fatalf("lesson %d does not hold: %+v → %+v", l.N, before, after)
		}
		for _, path := range tc.paths {
			p := newPage(l)
			tr := NewTracker(l, Words{})
			if a := p.observe(tr, meas); a.Phase != Asking || a.Text != "" {
				t.Fatalf("lesson %d at its start: %+v", l.N, a)
			}
			var a Answer
			for _, v := range path {
				p.to(l.Action.Key, v)
				a = p.observe(tr, meas)
			}
			if a.Phase != Answered || a.Move != Reached || a.Text != want {
				t.Errorf("lesson %d through %v: %v %v %q, want the claim %q", l.N, path, a.Phase, a.Move, a.Text, want)
			}
		}
	}
}

// Where the asked control stands against the lesson's start and the asked
// value.
func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		n    int
		set  map[string]string
		want Move
	}{
		{3, nil, Still}, // sink 0 → 4
		{3, map[string]string{"sink": "2"}, Toward},    //
		{3, map[string]string{"sink": "4"}, Reached},   //
		{3, map[string]string{"sink": " 4 "}, Reached}, // as a number box may send it
		{3, map[string]string{"sink": "10"}, Beyond},   //
		{3, map[string]string{"sink": "x"}, Away},      //
		{3, map[string]string{"sink": ""}, Away},       //
		{9, map[string]string{"recent": "32"}, Toward}, // recent 64 → 8
		{9, map[string]string{"recent": "4"}, Beyond},  //
		{9, map[string]string{"recent": "100"}, Away},  //
		{6, map[string]string{"bits": "4"}, Toward},    // bits 8 → 2
		{6, map[string]string{"bits": "16"}, Away},     //
		{2, map[string]string{"policy": "window"}, Reached},
		{2, map[string]string{"policy": "h2o"}, Away},
		{2, map[string]string{"policy": "FULL"}, Still},
		{5, map[string]string{"shared": "1"}, Reached},
		{1, map[string]string{"at": "300"}, Toward}, // at 256 → 512
		{1, map[string]string{"at": "512"}, Reached},
		{1, map[string]string{"at": "100"}, Away},
		{10, map[string]string{"policy": "h2o", "sink": "4", "recent": "26", "heavy": "25"}, Reached},
		{10, map[string]string{"policy": "h2o", "sink": "4", "recent": "12", "heavy": "13"}, Away},
		{10, map[string]string{"policy": "tova"}, Away},
	} {
		l, _ := Get(tc.n)
		p := newPage(l)
		for k, v := range tc.set {
			p.to(k, v)
		}
		if got := l.Classify(p.get); got != tc.want {
			t.Errorf("lesson %d with %v: %v, want %v", tc.n, tc.set, got, tc.want)
		}
	}
}

// Every move is answered: the asked one with the claim, any other with
// what it was, the numbers it measured, and what to try.
func TestTrackerAnswersEveryMove(t *testing.T) {
	words := Words{
		Label: func(key string) string {
			return map[string]string{"sink": "Sink tokens", "recent": "Recent window", "policy": "Policy", "at": "Step"}[key]
		},
		Value: func(key, v string) string { return map[string]string{"h2o": "H2O", "window": "window only"}[v] },
	}
	// Numbers that depend on the state: mass grows with the sinks kept
	// and the recent window, and with the policy's name.
	fake := func(set []Setting) Numbers {
		sink, _ := strconv.Atoi(setting(set, "sink", "0"))
		recent, _ := strconv.Atoi(setting(set, "recent", "0"))
		at, _ := strconv.Atoi(setting(set, "at", "0"))
		mass := float64(sink+recent+len(setting(set, "policy", ""))) / 200
		return Numbers{Step: at, Mass: mass, OutErr: 1 - mass, Top1: mass, NextKL: 1 - mass, Bytes: int64(100*(sink+recent) + 64*at), Diverge: -1}
	}
	for _, tc := range []struct {
		n        int
		key, val string
		move     Move
		want     []string // in the answer, besides the measured numbers
	}{
		{3, "sink", "2", Toward, []string{"Sink tokens at 2 is part of the way from 0 to the 4 the lesson asks for.", "With 2 sink tokens", "Go on to 4."}},
		{3, "sink", "10", Beyond, []string{"Sink tokens at 10 is past the 4 the lesson asks for.", "With 10 sink tokens", "Set it to 4"}},
		{9, "recent", "100", Away, []string{"Recent window at 100 went the other way: the lesson asks for 8, from 64.", "Top-1 agreement over the run rose", "Try 8."}},
		{2, "policy", "h2o", Away, []string{"Policy set to H2O is another choice: the lesson asks for window only, from full.", "from full. Attention mass kept ", "Try window only."}},
		{1, "at", "300", Toward, []string{"Step at 300 tokens is part of the way from 256 tokens to the 512 tokens", "From 256 tokens to 300 tokens", "Go on to 512 tokens."}},
		{10, "policy", "h2o", Away, []string{"That is not the point the lesson asks for.", "Try again: pick, on the chart,"}},
	} {
		l, _ := Get(tc.n)
		p := newPage(l)
		tr := NewTracker(l, words)
		if a := p.observe(tr, fake); a.Phase != Asking {
			t.Fatalf("lesson %d at its start: %+v", tc.n, a)
		}
		before := fake(p.set)
		p.to(tc.key, tc.val)
		a := p.observe(tr, fake)
		after := fake(p.set)
		if a.Phase != Answered || a.Move != tc.move || a.Value != strings.Join(values(l, p), "&") {
			t.Errorf("lesson %d, %s=%s: %v %v %q", tc.n, tc.key, tc.val, a.Phase, a.Move, a.Value)
		}
		for _, w := range tc.want {
			if !strings.Contains(a.Text, w) {
				t.Errorf("lesson %d, %s=%s: %q lacks %q", tc.n, tc.key, tc.val, a.Text, w)
			}
		}
		for _, e := range measured(l.Expect, before, after) {
			if !strings.Contains(a.Text, Format(e.Metric, before.Get(e.Metric))) || !strings.Contains(a.Text, Format(e.Metric, after.Get(e.Metric))) {
				t.Errorf("lesson %d, %s=%s: %q lacks the measured %s", tc.n, tc.key, tc.val, a.Text, e.Metric)
			}
		}
		if strings.Contains(a.Text, "Your move") || strings.Contains(a.Text, "stayed at") && tc.n == 3 {
			t.Errorf("lesson %d, %s=%s: %q", tc.n, tc.key, tc.val, a.Text)
		}
	}
}

func values(l *Lesson, p *page) []string {
	var out []string
	for _, s := range l.Asked() {
		out = append(out, p.get(s.Key))
	}
	return out
}

// The start is measured once, and again only when the page shows the
// asked control at its start with something else changed; a state seen
// last time is not measured again. A move shown before the start was
// measured asks for the start; a move with something else changed says so.
func TestTrackerMeasuresTheStart(t *testing.T) {
	l, _ := Get(3)
	calls := 0
	fake := func(set []Setting) Numbers {
		calls++
		sink, _ := strconv.Atoi(setting(set, "sink", "0"))
		recent, _ := strconv.Atoi(setting(set, "recent", "0"))
		return Numbers{Mass: float64(sink+recent) / 100, OutErr: 1 - float64(sink+recent)/100}
	}
	words := Words{Label: func(key string) string { return map[string]string{"sink": "Sink tokens"}[key] }}

	// A move before the start was measured (a link opened mid-lesson).
	p := newPage(l)
	p.to("sink", "4")
	tr := NewTracker(l, words)
	if a := p.observe(tr, fake); a.Phase != Settling || !strings.Contains(a.Text, "set Sink tokens back to 0") || calls != 0 || tr.Measured() {
		t.Errorf("a move before the start: %+v, %d measurements", a, calls)
	}
	p.to("sink", "0")
	if a := p.observe(tr, fake); a.Phase != Asking || calls != 1 || !tr.Measured() {
		t.Errorf("back at the start: %+v, %d measurements", a, calls)
	}
	if a := p.observe(tr, fake); a.Phase != Asking || calls != 1 {
		t.Errorf("the same state again: %+v, %d measurements", a, calls)
	}

	// Another setting moved at the start: measured again from there.
	p.to("recent", "30")
	p.observe(tr, fake)
	if calls != 2 {
		t.Errorf("another setting at the start: %d measurements, want 2", calls)
	}
	p.to("sink", "4")
	a := p.observe(tr, fake)
	if want := "rose from 30 % to 34 %"; a.Move != Reached || !strings.Contains(a.Text, want) || strings.Contains(a.Text, "Other settings") {
		t.Errorf("the asked move after another setting: %q, want %q", a.Text, want)
	}

	// Another setting moved away from the start: the answer says so.
	p.to("recent", "40")
	if a := p.observe(tr, fake); !strings.Contains(a.Text, "Other settings changed too") || !strings.Contains(a.Text, "set Sink tokens back to 0") {
		t.Errorf("another setting moved after the asked one: %q", a.Text)
	}
	if calls != 4 {
		t.Errorf("%d measurements, want 4", calls)
	}

	// No lesson: nothing to answer, nothing measured.
	var none Tracker
	if a := none.Observe(p.get, "", func() Numbers { calls++; return Numbers{} }); a != (Answer{}) || calls != 4 {
		t.Errorf("a tracker without a lesson: %+v", a)
	}
}

// Every lesson names the starting value of each setting it asks for, so
// that its start can be told from a move: its own settings are Still, its
// settings after the action Reached.
func TestLessonsStartWhereTheyAsk(t *testing.T) {
	for i := range All() {
		l := &All()[i]
		for _, s := range l.Asked() {
			if l.Start(s.Key) == "" || same(l.Start(s.Key), s.Value) {
				t.Errorf("lesson %d asks for %s=%s from %q", l.N, s.Key, s.Value, l.Start(s.Key))
			}
		}
		if m := l.Classify((&page{set: l.Settings}).get); m != Still {
			t.Errorf("lesson %d at its start: %v", l.N, m)
		}
		if m := l.Classify((&page{set: l.After()}).get); m != Reached {
			t.Errorf("lesson %d after its action: %v", l.N, m)
		}
	}
}
