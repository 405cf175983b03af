package lesson

import (
	"math"
	"strconv"
	"strings"
)

// Phase is where the learner stands in an open lesson (the page's card
// shows it, and its state reports it as a number).
type Phase int8

// Phases of a lesson.
const (
	Settling  Phase = 1 // the lesson's start is not measured yet
	Asking    Phase = 2 // the start is measured; the asked control reads its starting value
	Measuring Phase = 3 // a move's run is catching up (the page's own; Observe never returns it)
	Answered  Phase = 4 // a move is answered with what it measured
)

// Move is where the asked control stands, against the lesson's start and
// the value the lesson asks for.
type Move int8

// Moves of the asked control.
const (
	Still   Move = iota // at its starting value
	Toward              // part of the way from its start to the asked value
	Reached             // at the asked value (for the step: at it or beyond)
	Beyond              // past the asked value, in the asked direction
	Away                // the other way from its start, or another choice than the one asked
)

var moveNames = [...]string{"still", "toward", "reached", "beyond", "away"}

// String names the move in lower case ("reached"); an unknown move is "".
func (m Move) String() string {
	if m < 0 || int(m) >= len(moveNames) {
		return ""
	}
	return moveNames[m]
}

// Start returns the lesson's starting value of the setting key, "" when
// its settings do not name it.
func (l *Lesson) Start(key string) string { return setting(l.Settings, key, "") }

// Asked returns the settings the action asks for: its key and value, then
// its Also settings (a point of the chart).
func (l *Lesson) Asked() []Setting {
	return append([]Setting{{l.Action.Key, l.Action.Value}}, l.Action.Also...)
}

// Classify says where the asked control stands when the page's settings
// read as get says (link keys; the step under "at"). A chart point (an
// action with Also settings) is Reached when every asked setting reads its
// value, Still when every one reads its start, and Away otherwise. A
// single control is Reached when Done takes its value and Still at its
// start; a number between the two is Toward, one past the asked value
// Beyond, and any other value (the other way, another choice, a value
// that does not parse) Away.
func (l *Lesson) Classify(get func(key string) string) Move {
	if len(l.Action.Also) > 0 {
		still, reached := true, true
		for _, s := range l.Asked() {
			v := get(s.Key)
			still = still && same(v, l.Start(s.Key))
			reached = reached && same(v, s.Value)
		}
		switch {
		case reached:
			return Reached
		case still:
			return Still
		}
		return Away
	}
	key := l.Action.Key
	v := get(key)
	switch {
	case l.Done(key, v):
		return Reached
	case same(v, l.Start(key)):
		return Still
	}
	s, err1 := strconv.ParseFloat(l.Start(key), 64)
	t, err2 := strconv.ParseFloat(l.Action.Value, 64)
	x, err3 := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err1 != nil || err2 != nil || err3 != nil || s == t || math.Signbit(x-s) != math.Signbit(t-s) {
		return Away
	}
	if math.Abs(x-s) < math.Abs(t-s) {
		return Toward
	}
	return Beyond
}

// same reports whether two setting values read alike: equal but for case
// and spaces, or the same number.
func same(a, b string) bool {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if strings.EqualFold(a, b) {
		return true
	}
	x, err1 := strconv.ParseFloat(a, 64)
	y, err2 := strconv.ParseFloat(b, 64)
	return err1 == nil && err2 == nil && x == y
}

// Words name the page's settings and their values in answers: Label is
// what a control is called ("Sink tokens" for sink), Value what a value
// reads as on it ("H2O" for policy h2o). A nil func names a setting by its
// link key and a value as the link writes it; the step ("at") always
// reads in tokens.
type Words struct {
	Label func(key string) string
	Value func(key, value string) string
}

func (w Words) label(key string) string {
	if w.Label != nil {
		if s := w.Label(key); s != "" {
			return s
		}
	}
	return key
}

func (w Words) value(key, value string) string {
	if key == "at" {
		if v, err := strconv.ParseFloat(value, 64); err == nil {
			return Format("step", v)
		}
	}
	if w.Value != nil {
		if s := w.Value(key, value); s != "" {
			return s
		}
	}
	return value
}

// Answer is what the lesson card says of one state of the page.
type Answer struct {
	Phase Phase
	Move  Move
	Value string // the asked settings' values in that state, in Asked order, joined by '&'
	Text  string // the answer; "" while asking, before any move
}

// A Tracker follows one learner through one lesson. The page shows it
// each state it settles on (Observe). It measures the lesson's start once
// the page shows it — the asked control at its starting value — and
// answers every other state from that measurement, however the control
// got there: a value typed once, or a slider dragged or stepped through
// many, gives the same answer. The start is measured again only when the
// page shows the asked control at its start with something else changed
// (another setting the learner moved, so that the answer compares like
// with like). The zero Tracker, or one without a lesson, answers nothing.
type Tracker struct {
	L     *Lesson
	Words Words

	before   Numbers // the start's numbers
	basis    string  // the basis they were measured on
	measured bool
	seen     string // the state last observed: its asked values and basis
	ans      Answer
}

// NewTracker starts following lesson l: nothing measured yet.
func NewTracker(l *Lesson, w Words) *Tracker { return &Tracker{L: l, Words: w} }

// Measured reports whether the lesson's start has been measured.
func (t *Tracker) Measured() bool { return t.measured }

// Observe answers the state the page shows, once its run has caught up.
// get reads the state's settings (link keys; the step under "at"); basis
// is everything else the state's numbers depend on, written so that two
// states with the same asked values measure alike exactly when their
// bases are equal (the page writes its settings with the asked ones at
// the lesson's start); measure measures the state. A state equal to the
// one observed last is answered again without measuring.
func (t *Tracker) Observe(get func(key string) string, basis string, measure func() Numbers) Answer {
	l := t.L
	if l == nil {
		return Answer{}
	}
	vals := make([]string, 0, 1+len(l.Action.Also))
	for _, s := range l.Asked() {
		vals = append(vals, get(s.Key))
	}
	value := strings.Join(vals, "&")
	key := value + "\x00" + basis
	if key == t.seen && t.ans.Phase != 0 {
		return t.ans
	}
	t.seen = key
	move := l.Classify(get)
	switch {
	case move == Still:
		if !t.measured || basis != t.basis {
			t.before, t.basis, t.measured = measure(), basis, true
		}
		t.ans = Answer{Phase: Asking, Move: Still, Value: value}
	case !t.measured:
		t.ans = Answer{Phase: Settling, Move: move, Value: value,
			Text: "The lesson measures where it starts from: set " + t.backToStart(get) + ", then make your move."}
	default:
		text := l.answer(move, get, t.Words, t.before, measure())
		if basis != t.basis {
			text += " Other settings changed too since the lesson measured its start, so not all of this is the move it asks for: set " +
				t.backToStart(get) + " to measure the start again with them, then make your move."
		}
		t.ans = Answer{Phase: Answered, Move: move, Value: value, Text: text}
	}
	return t.ans
}

// backToStart names the asked settings away from the lesson's start and
// their starting values: "Sink tokens back to 0".
func (t *Tracker) backToStart(get func(key string) string) string {
	var parts []string
	for _, s := range t.L.Asked() {
		if start := t.L.Start(s.Key); !same(get(s.Key), start) {
			parts = append(parts, t.Words.label(s.Key)+" back to "+t.Words.value(s.Key, start))
		}
	}
	return join(parts)
}

// answer writes what a move measured from before to after, and for a
// move other than the one asked, what it was and what to try.
func (l *Lesson) answer(m Move, get func(string) string, w Words, before, after Numbers) string {
	key := l.Action.Key
	v := get(key)
	did := l.claimFor(strings.TrimSpace(v), before, after)
	if m == Reached {
		return did
	}
	if len(l.Action.Also) > 0 {
		return "That is not the point the lesson asks for. " + did + " Try again: " + lowerFirst(l.Action.Ask)
	}
	label, val := w.label(key), w.value(key, v)
	start, want := w.value(key, l.Start(key)), w.value(key, l.Action.Value)
	switch m {
	case Toward:
		return label + " at " + val + " is part of the way from " + start + " to the " + want + " the lesson asks for. " +
			did + " Go on to " + want + "."
	case Beyond:
		return label + " at " + val + " is past the " + want + " the lesson asks for. " +
			did + " Set it to " + want + " for the lesson's comparison."
	}
	if _, err := strconv.ParseFloat(l.Action.Value, 64); err == nil {
		return label + " at " + val + " went the other way: the lesson asks for " + want + ", from " + start + ". " +
			did + " Try " + want + "."
	}
	return label + " set to " + val + " is another choice: the lesson asks for " + want + ", from " + start + ". " +
		did + " Try " + want + "."
}

// lowerFirst lowers the first letter of s; upperFirst raises it.
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
