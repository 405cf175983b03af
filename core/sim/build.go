package sim

import (
	"fmt"
	"strings"

	"github.com/kvscope/kvscope/core/kv"
	"github.com/kvscope/kvscope/core/lowrank"
	"github.com/kvscope/kvscope/core/quant"
	"github.com/kvscope/kvscope/core/store"
	"github.com/kvscope/kvscope/core/synth"
)

// CalibTokens is the length of the calibration pass: per-channel and
// per-tensor ranges and low-rank bases are learned from the first
// CalibTokens positions of the stream (or all of it, if shorter), as
// seed 004's calibration pass over a representative sample.
const CalibTokens = 256

// Granularities lists the names Config.Granularity accepts.
var Granularities = []string{"token", "group", "channel", "tensor", "kivi"}

// Validate reports the first problem with c, or nil. New calls it.
func (c Config) Validate() error {
	if err := c.synth().Validate(); err != nil {
		return err
	}
	return c.validateCache()
}

// calibratedRanges reports whether storage uses ranges learned beforehand
// (channel and tensor granularity at 8 bits or fewer).
func (c Config) calibratedRanges() bool {
	g := strings.ToLower(c.Granularity)
	return (g == "channel" || g == "tensor") && c.Bits <= 8
}

// needsCalibration reports whether the storage learns ranges or a basis.
func (c Config) needsCalibration() bool { return c.calibratedRanges() || c.Rank > 0 }

// maxFloats caps the recording a run with the reference keeps (see
// Stream): 2^28 floats, 1 GiB.
const maxFloats = 1 << 28

// recordFloats is the size of a Stream of c, in float32s: queries and
// outputs per query head, keys and values per kv head, and a maximum and
// a normalizer per query head, for every position and layer.
func (c Config) recordFloats() int64 {
	tl := int64(c.Tokens) * int64(c.Layers)
	return tl * (int64(2*c.Heads+2*c.KVHeads)*int64(c.HeadDim) + 2*int64(c.Heads))
}

// tooLong is the error for a recording beyond maxFloats.
func (c Config) tooLong() error {
	return fmt.Errorf("sim: %d tokens × %d layers × (%d query + %d kv heads) × %d dims is too long a run to record for the reference (%d MiB, at most %d MiB); turn the reference off or shorten the run",
		c.Tokens, c.Layers, c.Heads, c.KVHeads, c.HeadDim, c.recordFloats()*4>>20, maxFloats*4>>20)
}

// validateCache checks everything but the generator's knobs.
func (c Config) validateCache() error {
	switch {
	case c.Layers < 1 || c.Heads < 1 || c.KVHeads < 1 || c.HeadDim < 1:
		return fmt.Errorf("sim: layers (%d), heads (%d), kv heads (%d) and head dim (%d) must be positive", c.Layers, c.Heads, c.KVHeads, c.HeadDim)
	case c.Tokens < 1 || c.Tokens > 1<<24:
		return fmt.Errorf("sim: tokens must be in [1, %d], got %d", 1<<24, c.Tokens)
	case c.Prompt < 0 || c.Prompt > c.Tokens:
		return fmt.Errorf("sim: prompt %d must be in [0, tokens %d]", c.Prompt, c.Tokens)
	case c.RefStride < 0:
		return fmt.Errorf("sim: reference stride must not be negative, got %d", c.RefStride)
	case c.Rank < 0 || c.Rank > c.HeadDim:
		return fmt.Errorf("sim: rank %d must be in [0, head dim %d]", c.Rank, c.HeadDim)
	case c.RefStride > 0 && c.Layers <= 1<<20 && c.Heads <= 1<<20 && c.KVHeads <= 1<<20 && c.HeadDim <= 1<<20 && c.recordFloats() > maxFloats,
		c.RefStride > 0 && max(c.Layers, c.Heads, c.KVHeads, c.HeadDim) > 1<<20:
		return c.tooLong()
	}
	if _, err := c.kv(); err != nil {
		return err
	}
	k, v, err := c.storeConfigs(nil, nil, nil, nil)
	if err != nil {
		return err
	}
	if err := k.Validate(c.HeadDim); err != nil {
		return fmt.Errorf("sim: keys: %w", err)
	}
	if err := v.Validate(c.HeadDim); err != nil {
		return fmt.Errorf("sim: values: %w", err)
	}
	return nil
}

// synth is the generator part of c.
func (c Config) synth() synth.Config {
	return synth.Config{Seed: c.Seed, Layers: c.Layers, Heads: c.Heads, KVHeads: c.KVHeads, HeadDim: c.HeadDim,
		Prompt: c.Prompt, SinkStrength: c.SinkStrength, HeavyStrength: c.HeavyStrength, Locality: c.Locality,
		RetrievalShare: c.RetrievalShare, OutlierChannels: c.OutlierChannels, OutlierScale: c.OutlierScale, TailDF: c.TailDF}
}

// kv is the eviction part of c, without stores.
func (c Config) kv() (kv.Config, error) {
	p, err := kv.ParsePolicy(c.Policy)
	if err != nil {
		return kv.Config{}, err
	}
	a, err := kv.ParseAlloc(c.Alloc)
	if err != nil {
		return kv.Config{}, err
	}
	k := c.kvWith(p, a)
	return k, k.Validate()
}

// KV returns the eviction part of c as core/kv reads it (without stores),
// and kv's verdict on it (an unknown policy gives the zero Config).
func (c Config) KV() (kv.Config, error) { return c.kv() }

// kvWith is the eviction part of c with policy p and allocator a.
func (c Config) kvWith(p kv.Policy, a kv.Alloc) kv.Config {
	return kv.Config{Policy: p, Sink: c.Sink, Recent: c.Recent, Heavy: c.Heavy, ChunkSize: c.ChunkSize,
		DropShare: c.DropShare, Shared: c.Shared, Seed: c.Seed, Heads: c.Heads, KVHeads: c.KVHeads,
		Dim: c.HeadDim, MaxTokens: c.Tokens, MaxPrompt: c.Prompt,
		Alloc: a, Layers: c.Layers, Merge: c.Merge, ValueWeight: c.ValueWeight, Pages: c.Pages, PageSize: c.PageSize}
}

// storeConfigs returns the key and value store configurations, with the
// given calibrations and bases (nil while only validating: placeholders
// of the right shape stand in).
func (c Config) storeConfigs(kcal, vcal *quant.Calibration, kbasis, vbasis []float32) (store.Config, store.Config, error) {
	k := store.Config{Bits: c.Bits, GroupSize: c.GroupSize, Residual: c.Residual}
	stored := c.HeadDim
	if c.Rank > 0 {
		stored = c.Rank
		if kbasis == nil {
			kbasis, vbasis = identity(c.Rank, c.HeadDim), identity(c.Rank, c.HeadDim)
		}
		k.Basis = kbasis
	}
	full := c.Bits == 32 || c.Bits == 16
	gran := strings.ToLower(c.Granularity)
	switch gran {
	case "token":
		k.Granularity = store.PerToken
	case "group":
		k.Granularity = store.PerGroup
	case "channel", "tensor":
		k.Granularity = store.PerChannel
		n := stored
		if gran == "tensor" {
			k.Granularity, n = store.PerTensor, 1
		}
		if !full {
			if kcal == nil {
				kcal, vcal = placeholder(n), placeholder(n)
			}
			k.Calib = kcal
		}
	case "kivi":
		k.Granularity = store.PerChannel
	default:
		return k, k, fmt.Errorf("sim: unknown granularity %q (want one of %s)", c.Granularity, strings.Join(Granularities, ", "))
	}
	if full {
		k.Residual = 0 // an FP16 residual in front of FP16 storage changes nothing
	}
	v := k
	v.Basis, v.Calib = vbasis, vcal
	if gran == "kivi" {
		v.Granularity = store.PerToken // KIVI: keys per channel, values per token
	}
	return k, v, c.storageOptions(&k, &v)
}

func identity(r, d int) []float32 {
	b := make([]float32, r*d)
	for i := range r {
		b[i*d+i] = 1
	}
	return b
}

func placeholder(n int) *quant.Calibration {
	c := &quant.Calibration{Lo: make([]float32, n), Hi: make([]float32, n)}
	for i := range c.Hi {
		c.Hi[i] = 1
	}
	return c
}

// calibrate learns, per layer and kv head, the ranges and bases the
// storage configuration asks for, from the first CalibTokens positions of
// the stream.
func calibrate(c Config, newSource func() (Source, error)) (calibration, error) {
	kcal, vcal, kb, vb, err := calibrateArrays(c, newSource)
	return calibration{kcal, vcal, kb, vb}, err
}

func calibrateArrays(c Config, newSource func() (Source, error)) (kcal, vcal []*quant.Calibration, kb, vb [][]float32, err error) {
	gran := strings.ToLower(c.Granularity)
	needCal := c.calibratedRanges()
	if !c.needsCalibration() {
		return nil, nil, nil, nil, nil
	}
	g, err := newSource()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	n := min(CalibTokens, c.Tokens)
	qLen, kvLen := c.Layers*c.Heads*c.HeadDim, c.Layers*c.KVHeads*c.HeadDim
	q := make([]float32, qLen)
	ks, vs := make([]float32, n*kvLen), make([]float32, n*kvLen)
	for t := range n {
		g.Next(q, ks[t*kvLen:(t+1)*kvLen], vs[t*kvLen:(t+1)*kvLen])
	}
	heads := c.Layers * c.KVHeads
	d := c.HeadDim
	kcal, vcal = make([]*quant.Calibration, heads), make([]*quant.Calibration, heads)
	kb, vb = make([][]float32, heads), make([][]float32, heads)
	col := make([]float32, n*d)
	coef := make([]float32, c.Rank)
	for hd := range heads {
		for side, src := range [][]float32{ks, vs} {
			for t := range n {
				copy(col[t*d:(t+1)*d], src[t*kvLen+hd*d:t*kvLen+(hd+1)*d])
			}
			samples, sdim := col, d
			var basis []float32
			if c.Rank > 0 {
				b, err := lowrank.Fit(col, n, d, min(c.Rank, n))
				if err != nil {
					return nil, nil, nil, nil, fmt.Errorf("sim: low-rank basis: %w", err)
				}
				basis = b.Rows()
				if b.Rank() < c.Rank {
					return nil, nil, nil, nil, fmt.Errorf("sim: rank %d needs at least %d tokens to fit", c.Rank, c.Rank)
				}
				samples, sdim = make([]float32, n*c.Rank), c.Rank
				for t := range n {
					b.Project(coef, col[t*d:(t+1)*d])
					copy(samples[t*c.Rank:], coef)
				}
			}
			var cal *quant.Calibration
			if needCal {
				if gran == "tensor" {
					cal, err = quant.CalibrateTensor(samples, 0)
				} else {
					cal, err = quant.CalibrateChannels(samples, sdim, 0)
				}
				if err != nil {
					return nil, nil, nil, nil, fmt.Errorf("sim: calibration: %w", err)
				}
			}
			if side == 0 {
				kcal[hd], kb[hd] = cal, basis
			} else {
				vcal[hd], vb[hd] = cal, basis
			}
		}
	}
	return kcal, vcal, kb, vb, nil
}

// Keeps says what each head of c keeps, in the words of c's policy
// (kv.Config.Keeps): the page's titles and the command line print it.
// An unknown policy is its own name.
func (c Config) Keeps() string {
	p, err := kv.ParsePolicy(c.Policy)
	if err != nil {
		return c.Policy
	}
	return c.kvWith(p, kv.Uniform).Keeps()
}
