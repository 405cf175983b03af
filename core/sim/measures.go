package sim

import (
	"bytes"
	_ "embed"
	"encoding/json"
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

// The two kinds of a fidelity figure, as the page's table heads them and
// the lessons' claims name them: the newest query's (Snapshot.Metrics),
// and the mean over the reference steps so far (MeanMetrics of
// Snapshot.History; a real model's top-1 agreement and next-token KL are
// over the run's steps too).
const (
	ThisStep   = "this step"
	OverTheRun = "over the run"
)

// Measures are the fidelity measures, in the order the page lists them,
// read from measures.json: each one's fields under Measure's JSON names;
// a measure whose perfect value depends on the run gives perfectKey
// instead of perfect (Perfect is then NaN).
var Measures = mustParseMeasures(measuresJSON)

//go:embed measures.json
var measuresJSON []byte

// mustParseMeasures reads measures.json; it panics on a malformed file,
// which every test of the package would report.
func mustParseMeasures(b []byte) []Measure {
	var ms []Measure
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&ms); err != nil {
		panic("sim: measures.json: " + err.Error())
	}
	for i := range ms {
		if ms[i].PerfectKey != "" {
			ms[i].Perfect = math.NaN()
		}
	}
	return ms
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
