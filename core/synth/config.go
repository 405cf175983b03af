package synth

import (
	"errors"
	"fmt"
	"math"
)

// Config sets the shape of the stream and the strength of each effect. The
// field names match core/sim.Config, so a simulator copies them across.
//
// Every strength knob is a float where 1 is the default strength and 0 turns
// the effect off; strengths scale the effect's logit contribution linearly.
type Config struct {
	Seed    uint64 // same seed and settings give the same stream
	Layers  int    // layers generated
	Heads   int    // query heads per layer
	KVHeads int    // key/value heads per layer; Heads must be a multiple (grouped-query attention)
	HeadDim int    // dimensions per head, at least MinHeadDim
	Prompt  int    // tokens the caller prefills before decoding (see Generator.Fill)

	SinkStrength    float64 // logit boost of the first tokens (position 0 most), in 0..MaxStrength
	HeavyStrength   float64 // spread of per-token salience, which makes heavy hitters, in 0..MaxStrength
	Locality        float64 // logit boost of recent tokens (a RoPE-like band), in 0..MaxStrength
	RetrievalShare  float64 // share of each layer's query heads that are retrieval heads, in 0..1
	OutlierChannels int     // key channels carrying a large constant offset, in 0..HeadDim
	OutlierScale    float64 // offset of those channels in units of a typical key channel's RMS, in 0..MaxOutlierScale
	TailDF          float64 // Student-t degrees of freedom of key/value noise: 0 for Gaussian, else > 2
}

// Limits of Config values; Validate reports any value outside them.
const (
	MinHeadDim      = 8       // room for the sink, salience and locality directions
	MaxStrength     = 8       // largest SinkStrength, HeavyStrength or Locality
	MaxOutlierScale = 1000    // largest OutlierScale
	MaxFloats       = 1 << 20 // largest Layers·Heads·HeadDim (floats in one position's queries)
	MaxPrompt       = 1 << 24 // largest Prompt
)

// DefaultConfig returns the page's opening stream: one layer of eight heads
// of 32 dimensions, a 16-token prompt and every effect at its default
// strength (the same values as core/sim.DefaultConfig).
func DefaultConfig() Config {
	return Config{
		Seed: 1, Layers: 1, Heads: 8, KVHeads: 8, HeadDim: 32, Prompt: 16,
		SinkStrength: 1, HeavyStrength: 1, Locality: 1, RetrievalShare: 0.25,
		OutlierChannels: 2, OutlierScale: 10, TailDF: 4,
	}
}

// Validate returns nil if the configuration can build a Generator, or an
// error (prefixed "synth:") naming every value out of range.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("synth: "+format, args...))
	}
	if c.Layers < 1 {
		bad("Layers is %d, want at least 1", c.Layers)
	}
	if c.Heads < 1 {
		bad("Heads is %d, want at least 1", c.Heads)
	}
	if c.KVHeads < 1 {
		bad("KVHeads is %d, want at least 1", c.KVHeads)
	} else if c.Heads >= 1 && c.Heads%c.KVHeads != 0 {
		bad("Heads (%d) is not a multiple of KVHeads (%d)", c.Heads, c.KVHeads)
	}
	if c.HeadDim < MinHeadDim {
		bad("HeadDim is %d, want at least %d", c.HeadDim, MinHeadDim)
	}
	if c.Layers >= 1 && c.Heads >= 1 && c.HeadDim >= 1 &&
		(c.Layers > MaxFloats || c.Heads > MaxFloats || c.HeadDim > MaxFloats ||
			c.Layers*c.Heads > MaxFloats || c.Layers*c.Heads*c.HeadDim > MaxFloats) {
		bad("Layers·Heads·HeadDim (%d·%d·%d) exceeds %d", c.Layers, c.Heads, c.HeadDim, MaxFloats)
	}
	if c.Prompt < 0 || c.Prompt > MaxPrompt {
		bad("Prompt is %d, want 0..%d", c.Prompt, MaxPrompt)
	}
	knob := func(name string, x, hi float64) {
		if !(x >= 0 && x <= hi) { // also rejects NaN
			bad("%s is %g, want 0..%g", name, x, hi)
		}
	}
	knob("SinkStrength", c.SinkStrength, MaxStrength)
	knob("HeavyStrength", c.HeavyStrength, MaxStrength)
	knob("Locality", c.Locality, MaxStrength)
	knob("RetrievalShare", c.RetrievalShare, 1)
	knob("OutlierScale", c.OutlierScale, MaxOutlierScale)
	if c.OutlierChannels < 0 || (c.HeadDim >= MinHeadDim && c.OutlierChannels > c.HeadDim) {
		bad("OutlierChannels is %d, want 0..HeadDim (%d)", c.OutlierChannels, c.HeadDim)
	}
	if c.TailDF != 0 && !(c.TailDF > 2 && !math.IsInf(c.TailDF, 1)) {
		bad("TailDF is %g, want 0 (Gaussian) or a finite value above 2 (finite variance)", c.TailDF)
	}
	return errors.Join(errs...)
}
