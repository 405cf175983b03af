package lesson

import "github.com/kvscope/kvscope/core/sim"

// better reports whether a higher value of metric is better (mass, top-1)
// rather than a lower one (errors, KLs, perplexity).
func better(metric string) Direction {
	switch metric {
	case "mass", "top1":
		return Up
	}
	return Down
}

// Best returns the row of a sweep that does best on metric (mass, top1:
// highest; output_error, kl, key_error, value_error, next_kl, ppl:
// lowest) among those storing at most maxBytes, the first such row on a
// tie, and false when no row fits the budget. The chart lesson asks the
// learner to find it.
func Best(rows []sim.Row, maxBytes int64, metric string) (sim.Row, bool) {
	var best sim.Row
	var bv float64
	found := false
	for _, r := range rows {
		if r.Bytes > maxBytes {
			continue
		}
		v := rowValue(r, metric)
		if !found || (better(metric) == Up && v > bv) || (better(metric) == Down && v < bv) {
			best, bv, found = r, v, true
		}
	}
	return best, found
}

// rowValue is a sweep row's measure named metric (the names of Numbers.Get).
func rowValue(r sim.Row, metric string) float64 {
	return Numbers{Mass: r.Mass, OutErr: r.OutErr, KL: r.KL, KErr: r.KErr, VErr: r.VErr, Bytes: r.Bytes,
		Top1: r.Top1, NextKL: r.NextKL, PPL: r.PPL}.Get(metric)
}
