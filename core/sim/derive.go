package sim

import "github.com/kvscope/kvscope/core/kv"

// A sweep's largest budget is the whole history, and there every budgeted
// policy keeps every token: it holds what the full cache holds at every
// step, so its attention, and each fidelity figure, are the full cache's
// at the same storage, bit for bit. Only its bookkeeping differs — the
// index map of kept positions, accumulated scores or norms — and that
// depends on how many tokens it holds, not on their values. A sweep runs
// such a point as the full cache once and derives each policy's row from
// it (derivedRow), which spares it the most expensive run of every curve.
// TestDerivedRowsEqualRuns checks the derived rows against real runs.

// keepsAll reports whether c keeps every token of its run (kv's
// Config.KeepsAll over the whole history) and returns the full cache's
// configuration it then equals: c's with the full policy, as a sweep grid
// makes it.
func keepsAll(c Config) (Config, bool) {
	kc, err := c.kv()
	if err != nil || !kc.KeepsAll(c.Tokens) {
		return Config{}, false
	}
	fc := fullOf(c)
	if _, err := fc.kv(); err != nil {
		return Config{}, false
	}
	return fc, true
}

// fullOf is c with the full cache in place of its policy (Grid.Config's
// full point). Value-aware weighting, which rescales a policy's scores,
// is not the full cache's.
func fullOf(c Config) Config {
	c.Policy = kv.Full.String()
	c.Sink, c.Recent, c.Heavy, c.DropShare = 0, 0, 0, 0
	c.ValueWeight = false
	return c
}

// derivedRow is point p's row (index i) when p keeps every token: full's
// fidelity, and full's bytes plus what p's policy keeps beside the tokens
// in every layer at the end of the run.
func derivedRow(i int, p Point, full Row) (Row, error) {
	c := p.Config
	r := newRow(i, p)
	extra := int64(0)
	for l := range c.Layers {
		kc, err := c.kv()
		if err != nil {
			return Row{}, err
		}
		kc.Seed += uint64(l)
		kc.Layer = l
		layer, err := kv.NewLayer(kc)
		if err != nil {
			return Row{}, err
		}
		index, scores := layer.OverheadHolding(c.Tokens)
		extra += index + scores
	}
	r.setBytes(full.Bytes+extra, full.FullBytes)
	r.Mass, r.OutErr, r.KL, r.KErr, r.VErr = full.Mass, full.OutErr, full.KL, full.KErr, full.VErr
	return r, nil
}
