package view

import (
	"fmt"
	"time"

	"github.com/kvscope/kvscope/core/sim"
)

// RateWindow is how much stepping time a Rate's window holds: its figure
// covers the last one to two windows of work, so a slow start (a prompt
// caught up, the browser's first compiler tier) stops counting once that
// much has been measured since.
const RateWindow = 2 * time.Second

// Rate measures a rate of work: units per second of the time spent on
// them, over recent work only. The zero value is ready and has measured
// nothing. Add and PerSecond cost O(1) and allocate nothing.
type Rate struct {
	cur, last rateSpan
}

type rateSpan struct {
	n int
	d time.Duration
}

// Add counts n units done in d. It reports whether a window of
// RateWindow completed, so that a figure shown from PerSecond need be
// redrawn only then.
func (r *Rate) Add(n int, d time.Duration) bool {
	r.cur.n += n
	r.cur.d += d
	if r.cur.d < RateWindow {
		return false
	}
	r.last, r.cur = r.cur, rateSpan{}
	return true
}

// PerSecond returns the units per second over the last completed window
// and the work since it (over everything so far before a window has
// completed); 0 before anything was measured.
func (r *Rate) PerSecond() float64 {
	n, d := r.last.n+r.cur.n, r.last.d+r.cur.d
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// DecodeFact is the model facts' line for the page's decoding speed:
// stepsPerS steps a second (Rate.PerSecond), each a token through
// sim.ModelRunDecoders decoders. It has no value before a step was
// measured.
func DecodeFact(stepsPerS float64) Fact {
	f := Fact{Label: "Decoding"}
	if stepsPerS <= 0 {
		return f
	}
	f.Value = fmt.Sprintf("%.3g steps/s", stepsPerS)
	if stepsPerS >= 1000 {
		f.Value = Count(int(stepsPerS+0.5)) + " steps/s"
	}
	f.Title = fmt.Sprintf("steps a second over the last seconds of decoding, each step a token through %d decoders of this model (uncompressed, compressed, teacher-forced), one after the other on one thread; drawing not counted", sim.ModelRunDecoders)
	return f
}
