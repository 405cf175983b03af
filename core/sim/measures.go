package sim

import (
	"math"
	"slices"
)

// A Measure is one figure of fidelity a run reports, described once: the
// sweep's rows (Row's JSON keys), the lessons' claims, the page's table,
// chart and definitions all name and label it from here.
type Measure struct {
	Key   string // Row's JSON key, a lesson's claim's name, the page's definition key
	Label string // a short name: "output error"
	Up    bool   // higher is better (else lower)
	// Unit is how a value prints: "share" as a percentage, "nats", or ""
	// a plain number.
	Unit string
	// Perfect is the value of an uncompressed cache (NaN when it depends
	// on the run: PerfectKey then names the Row field that holds it).
	Perfect    float64
	PerfectKey string
	Model      bool // measured on a real model only (Row's omitempty fields)
	Chart      bool // the memory-versus-fidelity chart can plot it
	Table      bool // the page's per-step fidelity table shows it (Metrics has it)
	// Scale is a value well beyond a good run's: a sparkline of the
	// measure is scaled to at least this, so small values draw small.
	Scale float64

	// The page's definition: a longer name, how it is computed, which way
	// is better and what it tells a learner.
	Title, Formula, Better, Meaning string
}

// Measures are the fidelity measures, in the order the page lists them.
var Measures = []Measure{
	{Key: "key_error", Label: "key error", Unit: "share", Perfect: 0, Table: true, Scale: 0.02,
		Title:   "key error",
		Formula: "‖K̂ − K‖ / ‖K‖: the stored keys K̂ of the tokens still cached against the exact keys K (Frobenius norms, averaged over KV heads)",
		Better:  "Lower is better; 0% when keys are stored exactly",
		Meaning: "How much storing keys in fewer bits (or low rank) bent them; eviction alone leaves it at 0%."},
	{Key: "value_error", Label: "value error", Unit: "share", Perfect: 0, Table: true, Scale: 0.02,
		Title:   "value error",
		Formula: "‖V̂ − V‖ / ‖V‖ for the cached values, as for keys",
		Better:  "Lower is better; 0% when values are stored exactly",
		Meaning: "How much storage distorted the values that attention averages."},
	{Key: "output_error", Label: "output error", Unit: "share", Perfect: 0, Chart: true, Table: true, Scale: 0.05,
		Title:   "output error",
		Formula: "‖o − ô‖ / ‖o‖: o is the newest query's attention output over the whole FP16 history, ô the same through the compressed cache",
		Better:  "Lower is better",
		Meaning: "The bottom line of one layer: how far what it passes on moved, from eviction and storage together."},
	{Key: "mass", Label: "attention mass kept", Up: true, Unit: "share", Perfect: 1, Chart: true, Table: true, Scale: 1,
		Title:   "attention mass kept",
		Formula: "Σ over cached tokens of the full-history attention weight of the newest query, averaged over heads",
		Better:  "Higher is better; 100% means no evicted token would have been attended to",
		Meaning: "How much of what the query wanted to read is still in the cache."},
	{Key: "kl", Label: "attention KL", Unit: "nats", Perfect: 0, Chart: true, Table: true, Scale: 0.05,
		Title:   "attention KL (compressed ‖ full)",
		Formula: "Σᵢ cᵢ·ln(cᵢ/fᵢ) over cached tokens i, in nats: c is the newest query's attention through the compressed cache, f its attention over the full history",
		Better:  "Lower is better; 0 when the cache attends exactly as the full history does",
		Meaning: "How differently one layer's attention is spread once tokens are gone or bent; it grows as the attention mass kept falls."},
	{Key: "top1", Label: "top-1 agreement", Up: true, Unit: "share", Perfect: 1, Model: true, Chart: true, Scale: 1,
		Title:   "top-1 agreement",
		Formula: "share of decoded steps at which the full and the compressed cache pick the same most likely next token",
		Better:  "Higher is better; 100% means greedy decoding writes the same text",
		Meaning: "Whether compression changes the words, not just the probabilities."},
	{Key: "next_kl", Label: "next-token KL", Unit: "nats", Perfect: 0, Model: true, Chart: true, Scale: 0.05,
		Title:   "next-token KL (model output)",
		Formula: "Σₜ P(t)·ln(P(t)/Q(t)) over the vocabulary, in nats: P is the model's next-token distribution with the full cache, Q with the compressed cache, both reading the same text",
		Better:  "Lower is better; 0 when both caches predict alike",
		Meaning: "How much the whole model's prediction changed: every layer's compression adds up here."},
	{Key: "ppl", Label: "perplexity", Perfect: math.NaN(), PerfectKey: "ppl_full", Model: true, Chart: true, Scale: 1,
		Title:   "perplexity",
		Formula: "exp of the mean negative log-likelihood of the uncompressed cache's text, teacher-forced through the compressed cache",
		Better:  "Lower is better; the uncompressed cache's own perplexity is the best it gets",
		Meaning: "How surprised the model is by its own uncompressed text once its cache is compressed."},
}

// FindMeasure returns the measure of the given key, false for none.
func FindMeasure(key string) (Measure, bool) {
	if i := slices.IndexFunc(Measures, func(m Measure) bool { return m.Key == key }); i >= 0 {
		return Measures[i], true
	}
	return Measure{}, false
}

// Of returns m's value in metrics x, and false for a measure Metrics does
// not hold (the real model's).
func (m Measure) Of(x *Metrics) (float64, bool) {
	switch m.Key {
	case "key_error":
		return x.KErr, true
	case "value_error":
		return x.VErr, true
	case "output_error":
		return x.OutErr, true
	case "mass":
		return x.Mass, true
	case "kl":
		return x.KL, true
	}
	return 0, false
}
