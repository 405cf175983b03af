package kv

import "time"

// Costs is the time a Layer spent in each stage of its steps while timing
// was on: storing the new token (quantization, low-rank projection),
// attention over the stored cache, and the policy's scoring and eviction.
type Costs struct {
	Store, Attend, Evict time.Duration
	Steps                int
}

// Add returns the stage-wise sum of c and o.
func (c Costs) Add(o Costs) Costs {
	return Costs{c.Store + o.Store, c.Attend + o.Attend, c.Evict + o.Evict, c.Steps + o.Steps}
}

// PerStep returns the mean time per step of each stage (zero before any step).
func (c Costs) PerStep() (store, attend, evict time.Duration) {
	if c.Steps == 0 {
		return 0, 0, 0
	}
	n := time.Duration(c.Steps)
	return c.Store / n, c.Attend / n, c.Evict / n
}

// SetTiming turns stage timing of Step on or off and clears the costs
// measured so far. Timing reads the clock three times per step.
func (l *Layer) SetTiming(on bool) {
	l.timing = on
	l.costs = Costs{}
}

// Costs returns the stage times measured since timing was turned on.
func (l *Layer) Costs() Costs { return l.costs }
