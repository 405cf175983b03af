package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/core/store"
)

// storageFlags binds the storage's settings: its width, granularity,
// residual and rank, rotation, quantizer, outliers and sinks.
func storageFlags(fs *flag.FlagSet, c *sim.Config) {
	fs.IntVar(&c.Bits, "bits", c.Bits, "storage: 32 (float32), 16 (FP16), 8, 4, 3 or 2-bit integer codes")
	fs.StringVar(&c.Granularity, "granularity", c.Granularity, "storage: token, group, channel (calibrated), tensor (calibrated) or kivi (keys per channel, values per token)")
	fs.IntVar(&c.GroupSize, "group", c.GroupSize, "storage: channels per group (group); tokens per block (kivi)")
	fs.IntVar(&c.Residual, "residual", c.Residual, "storage: newest tokens kept in FP16 before being quantized")
	fs.IntVar(&c.Rank, "rank", c.Rank, "storage: low-rank coefficients per token (0 off)")
	fs.StringVar(&c.Rotate, "rotate", c.Rotate, "storage: rotate keys and values by H/√d before quantizing (queries alike): none or hadamard (QuaRot, SpinQuant)")
	fs.StringVar(&c.Quant, "quant", c.Quant, quantHelp())
	fs.Float64Var(&c.OutliersFP16, "outliers-fp16", c.OutliersFP16, "storage: `share` of each token's values kept exactly in FP16 with their indices, the rest quantized (KVQuant's dense-and-sparse; 0 off, at most 0.5)")
	fs.IntVar(&c.SinkFP16, "sink-fp16", c.SinkFP16, "storage: first `n` tokens kept in FP16 whatever -bits (sink-aware precision)")
	fs.Uint64Var(&c.SketchSeed, "sketch-seed", c.SketchSeed, "storage: seed of the random rotation (turbo, turbo-prod) and Gaussian sketch (turbo-prod, qjl); each layer and head draws its own from it")
}

// quantHelp is the -quant flag's help: every quantizer store knows, with
// its own description (and the values' quantizer where it differs).
func quantHelp() string {
	var b strings.Builder
	b.WriteString("storage quantizer for -bits 8..2: " + strings.Join(store.Quantizers, ", "))
	for i := range store.Quantizers {
		d, _ := store.Quantizer(i).Def()
		if d.Values != "" {
			fmt.Fprintf(&b, "; %s: keys as %s, values %s", d.Name, d.Help, d.Values)
		} else {
			fmt.Fprintf(&b, "; %s: %s", d.Name, d.Help)
		}
	}
	return b.String()
}

// storageSummary prints what the storage options hold, when they hold
// anything: the items the honest total folds into payload, scales,
// residual and factors.
func storageSummary(w io.Writer, e *sim.Engine) {
	it := e.StorageItems()
	if it.Norms+it.Sketch+it.Codebook+it.Rotation+it.Outliers+it.OutlierIndex+it.Sinks == 0 {
		return
	}
	cfg := e.Config()
	fmt.Fprintf(w, "Storage %s, rotation %s: codes %d + sign sketches %d + norms %d + FP16 outliers %d + their indices %d + FP16 sinks %d + codebooks %d + random matrices %d bytes (in the total above)\n",
		orDefault(cfg.Quant, "uniform"), orDefault(cfg.Rotate, "none"),
		it.Payload, it.Sketch, it.Norms, it.Outliers, it.OutlierIndex, it.Sinks, it.Codebook, it.Rotation)
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
