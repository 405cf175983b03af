// Package lesson holds kvscope's guided lessons: each one a state of the
// page (its link's key/value settings), what to notice, the one action
// asked of the learner, and a claim written from the numbers measured
// before and after that action — never a fixed figure. The page detects
// the action by comparing its settings with Action, measures both states
// (FromSnapshot), and shows Claim's text; the tests run every lesson's
// two configurations through core/sim and check that the claim holds.
package lesson

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/kvscope/kvscope/core/sim"
)

// A Setting is one key/value of the page's link (the keys of viz/view's
// settings table: policy, sink, recent, heavy, bits, gran, tokens, mode…).
type Setting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// An Action is the one thing a lesson asks: set the control Key to Value.
// The page detects it when its setting Key reads Value.
type Action struct {
	Key   string `json:"key"`   // a settings key, e.g. "sink"
	Value string `json:"value"` // the value to set, as the link writes it, e.g. "0"
	Ask   string `json:"ask"`   // the request, in the page's words

	// Also are the settings that come with the action when the learner
	// picks a point on the chart (a point is a whole setting); nil for a
	// single control.
	Also []Setting `json:"also,omitempty"`
}

// Direction is how a measure is expected to move when the learner acts.
type Direction int8

// Directions of an Expect.
const (
	Down Direction = -1
	Up   Direction = 1
)

// An Expect is a change a lesson teaches: Metric moves in Dir. The claim
// reports it from the measured numbers; the tests check it holds.
type Expect struct {
	Metric string    `json:"metric"` // a Numbers name (see Numbers.Get)
	Dir    Direction `json:"dir"`    // -1 down, 1 up
}

// Lesson is one step of the guided path.
type Lesson struct {
	N         int       `json:"n"`         // 1-based; the page opens it with #lesson=N
	Slug      string    `json:"slug"`      // stable short name
	Title     string    `json:"title"`     // a few words
	Mode      string    `json:"mode"`      // "synthetic" or "model" (the page's mode setting)
	Settings  []Setting `json:"settings"`  // the lesson's state, on top of the page's defaults
	Highlight string    `json:"highlight"` // the part of the screen that matters: map, memory, fidelity, text or chart
	Notice    string    `json:"notice"`    // two to four sentences: what to notice
	Action    Action    `json:"action"`
	Expect    []Expect  `json:"expect"` // what the action changes, in the claim's order

	// Sinks marks a lesson that speaks of attention sinks or heavy
	// hitters: the page adds what the real model it loaded measured.
	Sinks bool `json:"sinks,omitempty"`

	// Budget is the memory budget of the chart lesson, in bytes (0 for
	// the others): the learner picks the best point that stores at most
	// this much.
	Budget int64 `json:"budget,omitempty"`

	// claim writes the claim of a lesson that says more than its
	// Expects' changes; value is the asked control's value at the end.
	claim func(l *Lesson, value string, before, after Numbers) string
}

// Model reports whether the lesson runs the real model.
func (l *Lesson) Model() bool { return l.Mode == "model" }

// Link is the lesson's state as a link query (key=value pairs joined by
// '&', in Settings order), without the lesson's own number.
func (l *Lesson) Link() string {
	var b strings.Builder
	for i, s := range l.Settings {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(s.Key + "=" + s.Value)
	}
	return b.String()
}

// After returns the lesson's settings once the action is done (with the
// action's Also settings).
func (l *Lesson) After() []Setting {
	out := append([]Setting(nil), l.Settings...)
	for _, a := range append([]Setting{{l.Action.Key, l.Action.Value}}, l.Action.Also...) {
		found := false
		for i := range out {
			if out[i].Key == a.Key {
				out[i].Value, found = a.Value, true
			}
		}
		if !found {
			out = append(out, a)
		}
	}
	return out
}

// Done reports whether the page's setting key, now reading value, is the
// action the lesson asked for. For the step ("at") reaching the asked
// step or going beyond it counts.
func (l *Lesson) Done(key, value string) bool {
	if key != l.Action.Key {
		return false
	}
	value = strings.TrimSpace(value)
	if key == "at" {
		v, err1 := strconv.Atoi(value)
		w, err2 := strconv.Atoi(l.Action.Value)
		return err1 == nil && err2 == nil && v >= w
	}
	return strings.EqualFold(value, l.Action.Value)
}

// Claim writes what the learner's action did, from the numbers measured
// before it and after it: each Expect's measure, before and after, with
// the word its direction earned ("rose", "fell", "stayed at"). The same
// numbers give the same text.
func (l *Lesson) Claim(before, after Numbers) string {
	return l.claimFor(l.Action.Value, before, after)
}

// claimFor is Claim for the asked control ending on value, which need not
// be the value asked (see Tracker).
func (l *Lesson) claimFor(value string, before, after Numbers) string {
	if l.claim != nil {
		return l.claim(l, value, before, after)
	}
	return upperFirst(changes(measured(l.Expect, before, after), before, after)) + "."
}

// Claim returns lesson n's claim for the numbers measured before and after
// its action, or an error for an unknown lesson.
func Claim(n int, before, after Numbers) (string, error) {
	l, err := Get(n)
	if err != nil {
		return "", err
	}
	return l.Claim(before, after), nil
}

// Get returns lesson n (1-based).
func Get(n int) (*Lesson, error) {
	if n < 1 || n > len(lessons) {
		return nil, fmt.Errorf("lesson: no lesson %d (there are %d)", n, len(lessons))
	}
	return &lessons[n-1], nil
}

// All returns every lesson, in order. The slice is shared; do not modify it.
func All() []Lesson { return lessons }

// Holds reports whether every Expect of l holds between before and after.
func (l *Lesson) Holds(before, after Numbers) bool {
	for _, e := range l.Expect {
		b, a := before.Get(e.Metric), after.Get(e.Metric)
		if moved(e.Metric, b, a) != e.Dir {
			return false
		}
	}
	return true
}

// measured returns the Expects whose measure both states have: all but
// a perplexity the page has not measured (0).
func measured(es []Expect, before, after Numbers) []Expect {
	out := make([]Expect, 0, len(es))
	for _, e := range es {
		if e.Metric == "ppl" && (before.PPL == 0 || after.PPL == 0) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// changes joins each expected measure's change: "attention mass kept fell
// from 43 % to 22 % and output error rose from 0.41 to 0.7".
func changes(es []Expect, before, after Numbers) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = change(e.Metric, before.Get(e.Metric), after.Get(e.Metric))
	}
	return join(parts)
}

// change writes one measure's change, from its two values as printed.
func change(metric string, before, after float64) string {
	name := nameOf(metric)
	b, a := Format(metric, before), Format(metric, after)
	switch moved(metric, before, after) {
	case Up:
		return name + " rose from " + b + " to " + a
	case Down:
		return name + " fell from " + b + " to " + a
	}
	return name + " stayed at " + a
}

// moved is the direction from before to after, judged on the printed
// values: a change too small to print is no change.
func moved(metric string, before, after float64) Direction {
	if Format(metric, before) == Format(metric, after) {
		return 0
	}
	if after > before {
		return Up
	}
	return Down
}

func join(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// names are the measures beyond the fidelity measures (sim.Measures,
// which name themselves) as a claim calls them: "memory stored" as the
// page's memory bar labels what the cache stores at the step shown.
var names = map[string]string{
	"bytes": "memory stored", "payload": "the codes", "overhead": "the bookkeeping", "step": "the history",
}

// nameOf is what a claim calls a measure: a fidelity measure by its label
// and its kind, over the run (Numbers holds the run's means, and the
// page's fidelity table heads the column of the same figures so), but
// perplexity, which is of the whole text.
func nameOf(metric string) string {
	if m, ok := sim.FindMeasure(metric); ok {
		if metric == "ppl" {
			return m.Label
		}
		return m.Label + " " + sim.OverTheRun
	}
	return names[metric]
}

// Format prints a measure as claims do: shares (mass, errors, top-1) as
// percentages with three significant digits at most, bytes in B, KiB or
// MiB, KLs and perplexity with three significant digits, the step as a
// whole number of tokens.
func Format(metric string, v float64) string {
	if m, ok := sim.FindMeasure(metric); ok {
		switch m.Unit {
		case "share":
			return sig(100*v, 3) + " %"
		case "nats":
			return sig(v, 3) + " nats"
		}
		return sig(v, 3)
	}
	switch metric {
	case "bytes", "payload", "overhead":
		return formatBytes(v)
	case "step":
		return strconv.FormatFloat(v, 'f', 0, 64) + " tokens"
	}
	return sig(v, 3)
}

// sig formats v with at most digits significant digits, no exponent, no
// trailing zeros.
func sig(v float64, digits int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	if v == 0 {
		return "0"
	}
	d := digits - 1 - int(math.Floor(math.Log10(math.Abs(v))))
	if d < 0 {
		p := math.Pow(10, float64(-d))
		return strconv.FormatFloat(math.Round(v/p)*p, 'f', 0, 64)
	}
	s := strconv.FormatFloat(v, 'f', d, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

func formatBytes(n float64) string {
	units := [...]string{"B", "KiB", "MiB", "GiB"}
	u := 0
	for n >= 1024 && u < len(units)-1 {
		n /= 1024
		u++
	}
	if u == 0 {
		return strconv.FormatFloat(math.Round(n), 'f', 0, 64) + " B"
	}
	return sig(n, 3) + " " + units[u]
}
