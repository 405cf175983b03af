package sim

import (
	"time"

	"github.com/kvscope/kvscope/core/kv"
)

// Costs is the time per decoded token of each stage of a run, measured
// while timing is on: generating the stream, storing the token
// (quantization, low-rank projection), attention over the compressed
// cache, scoring and eviction, and the reference attention over the
// uncompressed history (on reference steps, averaged over all steps).
type Costs struct {
	Generate, Store, Attend, Evict, Reference time.Duration
	Steps                                     int
}

// Overhead is what compression adds to a token (storing and evicting)
// relative to attention over the compressed cache: seed 004 weighs a
// pipeline against a latency budget such as 15 %.
func (c Costs) Overhead() float64 {
	if c.Attend == 0 {
		return 0
	}
	return float64(c.Store+c.Evict) / float64(c.Attend)
}

// SetTiming turns stage timing on or off and clears what was measured.
// Timing reads the clock a few times per step and layer.
func (e *Engine) SetTiming(on bool) {
	e.timing = on
	e.genTime, e.refTime, e.timedSteps = 0, 0, 0
	for _, l := range e.c.layers {
		l.SetTiming(on)
	}
}

// Costs returns the mean time per token of each stage since timing was
// turned on (zero before the first timed step).
func (e *Engine) Costs() Costs {
	if e.timedSteps == 0 {
		return Costs{}
	}
	var kc kv.Costs
	for _, l := range e.c.layers {
		kc = kc.Add(l.Costs())
	}
	n := time.Duration(e.timedSteps)
	return Costs{Generate: e.genTime / n, Store: kc.Store / n, Attend: kc.Attend / n, Evict: kc.Evict / n,
		Reference: e.refTime / n, Steps: e.timedSteps}
}
