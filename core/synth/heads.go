package synth

import (
	"math"
	"math/rand/v2"
)

// HeadKind is the behaviour a query head is given, for the page's legend.
// Every kind mixes the same three effects (sinks, salience, locality); the
// kind sets their weights.
type HeadKind uint8

// Head kinds. The zero value is Mixed.
const (
	Mixed     HeadKind = iota // some of everything
	Local                     // mostly the recent band
	Sink                      // mostly the first tokens
	Retrieval                 // like Mixed, but now and then copies an earlier token's key (see Generator.Target)
)

// String returns the kind's name as the page shows it.
func (k HeadKind) String() string {
	switch k {
	case Mixed:
		return "mixed"
	case Local:
		return "local"
	case Sink:
		return "sink"
	case Retrieval:
		return "retrieval"
	}
	return "unknown"
}

// kindWeights are the logit sizes of each effect for a head kind at strength
// 1: the boost of position 0 over an ordinary token, the logit standard
// deviation of salience, and the boost of the current position from the
// locality band.
var kindWeights = [...]struct{ sink, heavy, local float64 }{
	Mixed:     {sink: 7, heavy: 3, local: 3},
	Local:     {sink: 3.5, heavy: 2.2, local: 6},
	Sink:      {sink: 11, heavy: 2.4, local: 1.5},
	Retrieval: {sink: 2.5, heavy: 2.4, local: 3},
}

// assignKinds fills kinds ([Layers][Heads]) layer by layer: a RetrievalShare
// of the heads are retrieval heads; of the rest, a share that peaks in the
// middle layers (as attention sinks do) are sink heads, and the others are
// split between local and mixed. Kinds are shuffled within a layer.
func assignKinds(kinds []HeadKind, c Config, r *rand.Rand) {
	for l := range c.Layers {
		row := kinds[l*c.Heads : (l+1)*c.Heads]
		nRet := int(math.Round(c.RetrievalShare * float64(c.Heads)))
		rest := c.Heads - nRet
		depth := 0.5
		if c.Layers > 1 {
			depth = float64(l) / float64(c.Layers-1)
		}
		nSink := int(math.Round((0.15 + 0.25*math.Sin(math.Pi*depth)) * float64(rest)))
		nLocal := int(math.Round(float64(rest-nSink) / 2))
		i := 0
		for _, kn := range [...]struct {
			kind HeadKind
			n    int
		}{{Retrieval, nRet}, {Sink, nSink}, {Local, nLocal}} {
			for range kn.n {
				row[i] = kn.kind
				i++
			}
		}
		for ; i < len(row); i++ {
			row[i] = Mixed
		}
		r.Shuffle(len(row), func(a, b int) { row[a], row[b] = row[b], row[a] })
	}
}
