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

// ScoreBytes is the memory of the policy's state: per-token state
// (accumulated attention scores of H2O and Seed000: 8 bytes, float64, per
// cached token and head, or once per layer when the decision is shared;
// key norms of Knorm, Chunk and KeyDiff: 4 bytes), state that is not per
// token (ExpectedAttention's query statistics, Quest's page bounds, Duo's
// head classes), value norms kept for value-aware weighting (4 bytes per
// token and head), and a non-uniform allocator's per-head budgets (4 bytes
// per head). Window, Streaming, Random and Full keep none; TOVA and SnapKV
// rank by attention computed at that step (SnapKV's prompt scores are
// dropped once the prompt is compressed).
func (l *Layer) ScoreBytes() int64 {
	return l.scoreBytes(func(g int) int { return len(l.heads[g].pos) })
}

// scoreBytes is ScoreBytes with head g holding held(g) tokens.
func (l *Layer) scoreBytes(held func(g int) int) int64 {
	var tokens int64 // cached tokens, over heads (once when shared)
	if l.cfg.SharedDecision() {
		tokens = int64(held(0))
	} else {
		for g := range l.heads {
			tokens += int64(held(g))
		}
	}
	n := int64(l.def.stateBytes) * tokens
	if l.vnorms && !l.def.valueNorms {
		n += 4 * tokens
	}
	if l.def.extraBytes != nil {
		n += l.def.extraBytes(l)
	}
	if l.cfg.Alloc != Uniform {
		n += 4 * int64(len(l.heads))
	}
	return n
}

// OverheadHolding returns IndexBytes and ScoreBytes as they stand when
// every head holds n tokens: what a layer whose configuration keeps every
// token (Config.KeepsAll) stores beside the tokens themselves at the end of
// an n-token history. The policy state that is not per token is counted
// as it is now.
func (l *Layer) OverheadHolding(n int) (index, scores int64) {
	held := func(int) int { return n }
	return l.indexBytes(held), l.scoreBytes(held)
}
