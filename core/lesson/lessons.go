package lesson

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/kvscope/kvscope/core/sim"
)

// ChartBudget is the memory budget of the chart lesson: 40 KiB.
const ChartBudget = 40 << 10

// lessons.json holds the lessons, in order, as data: each one's fields
// under Lesson's JSON names, but for N (its place in the list) and Mode
// (its settings' mode), with its settings written as a link query
// ("mode=synthetic&tokens=512&…", the form Link returns).
//
//go:embed lessons.json
var lessonsJSON []byte

// claims are the lessons whose claim says more than their Expects'
// changes (see Lesson.Claim), by slug.
var claims = map[string]func(l *Lesson, value string, before, after Numbers) string{
	"grows": growsClaim, "sinks": sinksClaim, "bytes": bytesClaim, "model": modelClaim, "chart": chartClaim,
}

var lessons = mustParseLessons(lessonsJSON)

// mustParseLessons reads lessons.json; it panics on a malformed file, which
// every test of the package would report.
func mustParseLessons(b []byte) []Lesson {
	var file []struct {
		Lesson
		Settings string `json:"settings"` // the link query; it hides Lesson.Settings
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&file); err != nil {
		panic("lesson: lessons.json: " + err.Error())
	}
	ls := make([]Lesson, len(file))
	for i, f := range file {
		l := f.Lesson
		l.N = i + 1
		for _, kv := range strings.Split(f.Settings, "&") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				panic(fmt.Sprintf("lesson: lessons.json: lesson %d: setting %q is not key=value", l.N, kv))
			}
			l.Settings = append(l.Settings, Setting{k, v})
			if k == "mode" {
				l.Mode = v
			}
		}
		l.claim = claims[l.Slug]
		ls[i] = l
	}
	return ls
}

// growsClaim: the full cache's bytes per token.
func growsClaim(l *Lesson, _ string, before, after Numbers) string {
	s := "From " + Format("step", float64(before.Step)) + " to " + Format("step", float64(after.Step)) +
		", " + change("bytes", float64(before.Bytes), float64(after.Bytes))
	if d := after.Step - before.Step; d > 0 && after.Bytes > before.Bytes {
		s += ": " + Format("bytes", float64(after.Bytes-before.Bytes)/float64(d)) + " more for every token"
	}
	return s + "."
}

// sinksClaim names the sinks kept.
func sinksClaim(l *Lesson, value string, before, after Numbers) string {
	return "With " + value + " sink tokens beside the recent window, " + changes(l.Expect, before, after) + "."
}

// bytesClaim compares the codes' change with the total's.
func bytesClaim(l *Lesson, _ string, before, after Numbers) string {
	s := upperFirst(change("payload", float64(before.Payload), float64(after.Payload))) + ", but " +
		change("bytes", float64(before.Bytes), float64(after.Bytes))
	if after.Bytes > 0 {
		s += ": the bookkeeping (scales, zero points, index map, scores), " + Format("overhead", float64(after.Overhead)) +
			", is now " + Format("mass", float64(after.Overhead)/float64(after.Bytes)) + " of what the cache stores"
	}
	return s + "."
}

// modelClaim adds where the texts part.
func modelClaim(l *Lesson, _ string, before, after Numbers) string {
	s := upperFirst(changes(measured(l.Expect, before, after), before, after))
	if after.Diverge >= 0 {
		s += "; the two stories part at token " + strconv.Itoa(after.Diverge)
	} else {
		s += "; the two stories still agree"
	}
	return s + "."
}

// chartClaim judges the learner's pick against the budget.
func chartClaim(l *Lesson, _ string, before, after Numbers) string {
	within := "within"
	if after.Bytes > l.Budget {
		within = "over"
	}
	return "Your pick stores " + Format("bytes", float64(after.Bytes)) + ", " + within + " the " + Format("bytes", float64(l.Budget)) +
		" budget, and keeps " + Format("mass", after.Mass) + " of the attention mass " + sim.OverTheRun + "; the window you started from stored " +
		Format("bytes", float64(before.Bytes)) + " and kept " + Format("mass", before.Mass) + "."
}
