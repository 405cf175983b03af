package sim

import (
	"fmt"

	"github.com/kvscope/kvscope/core/internal/splitmix"
	"github.com/kvscope/kvscope/core/kv"
	"github.com/kvscope/kvscope/core/store"
)

// storageOptions applies the rotation, quantizer, outlier and sink
// settings of c to the key and value store configurations:
//
//   - Rotate hadamard rotates keys and values (the query at attention
//     time, the output back) — QuaRot rotates both, folding the value
//     rotation into W_v and W_o;
//   - Quant names the keys' quantizer (store.ParseQuantizer); the values
//     use its partner (store.QuantizerDef.Values): turbo codes keys and
//     values with TurboQuant-MSE, which has no scales, so Granularity and
//     GroupSize do not apply; turbo-prod codes the keys with
//     TurboQuant-prod (unbiased q·k is what keys are for) and the values
//     with TurboQuant-MSE at the same bits (attention outputs need the
//     vectors, where the MSE quantizer is better and a sketch's variance
//     only adds error); qjl sketches the keys only and the values stay
//     uniform at Bits with the configured granularity, as in the QJL paper;
//   - OutliersFP16 and SinkFP16 apply to both sides; outliers need the
//     uniform quantizer.
//
// SketchSeed seeds the random rotation and the sketch of every store
// (each key and value store of each layer and kv head draws its own
// matrices from it: see sketchSeed), so that runs differing only in it
// show how much one draw of the sketch matters. It returns an error for an unknown name; the stores' own rules
// (store.Config.Validate) catch the rest.
func (c Config) storageOptions(k, v *store.Config) error {
	rot, err := store.ParseRotation(c.Rotate)
	if err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	q, err := store.ParseQuantizer(c.Quant)
	if err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	if c.OutliersFP16 != 0 && q != store.Uniform {
		return fmt.Errorf("sim: FP16 outliers need the uniform quantizer, not %v", q)
	}
	vq := q
	if d, _ := q.Def(); d.Values != "" {
		if vq, err = store.ParseQuantizer(d.Values); err != nil {
			return fmt.Errorf("sim: the values of quantizer %v: %w", q, err)
		}
	}
	for side, s := range []*store.Config{k, v} {
		s.Rotate, s.Seed, s.Outliers, s.Sinks = rot, sketchSeed(c.SketchSeed, 0, side), c.OutliersFP16, c.SinkFP16
		sq := q
		if side == 1 {
			sq = vq
		}
		if sq == store.Uniform {
			continue
		}
		s.Quantizer, s.Granularity, s.Calib = sq, store.PerToken, nil
	}
	return nil
}

// StorageItems returns what the stores of the compressed cache hold,
// itemized finely (norms, sketches, codebooks, random matrices, outliers
// and their indices, sinks: see store.Items), summed over layers and
// heads. Memory folds the same bytes into its items.
func (e *Engine) StorageItems() store.Items {
	var m store.Items
	for _, layer := range e.c.layers {
		for g := range e.cfg.KVHeads {
			ks, vs := layer.Stores(g)
			for _, s := range []kv.Store{ks, vs} {
				if st, ok := unwrap(s).(*store.Store); ok {
					m = m.Add(st.Items())
				}
			}
		}
	}
	return m
}

// sketchSeed returns the seed of the random matrices of store side (0 keys,
// 1 values) of kv head i = layer·KVHeads + head: SketchSeed mixed with the
// head and side (SplitMix64's finalizer), so that the heads' sketches are
// independent draws and their errors do not line up across heads.
func sketchSeed(seed uint64, i, side int) uint64 {
	return splitmix.Mix(seed + splitmix.Gamma*uint64(2*i+side+1))
}

// storeTables returns the bytes of the fixed tables one key store and one
// value store of head dimension dim hold under c's quantizers, as their
// store.Config.Tables counts them: the FP16 codebooks and random matrices
// that Memory files under Factors, which Project counts once per store.
// The Hadamard rotation holds none. It is 0 for an invalid quantizer.
func (c Config) storeTables(dim int) int64 {
	k, v := store.Config{Bits: c.Bits}, store.Config{Bits: c.Bits}
	if c.storageOptions(&k, &v) != nil {
		return 0
	}
	return k.Tables(dim).Memory().Factors + v.Tables(dim).Memory().Factors
}
