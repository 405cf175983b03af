package view

import (
	"fmt"
	"strconv"

	"github.com/kvscope/kvscope/core/sim"
)

// Segment kinds of the memory bars, in drawing order.
const (
	SegHistory  = iota // FP16 bytes of the whole history
	SegEvicted         // FP16 bytes of the tokens eviction keeps
	SegPayload         // quantized codes or stored floats
	SegMeta            // scales and zero points
	SegResidual        // FP16 residual window
	SegFactors         // low-rank bases
	SegIndex           // position index of kept tokens
	SegScores          // the policy's per-token scores or key norms
	SegHoles           // evicted tokens' bytes not yet freed
	NumSegs
)

// SegNames are the legend's names of the segment kinds.
var SegNames = [NumSegs]string{"FP16 history", "FP16 kept", "payload", "scales + zero points", "FP16 residual", "low-rank factors", "index", "policy scores", "holes"}

// SegKeys are the segment kinds' keys in Definitions.
var SegKeys = [NumSegs]string{"mem-full", "mem-evict", "seg-payload", "seg-scales", "seg-residual", "seg-lowrank", "seg-index", "seg-scores", "seg-holes"}

// SegColors are the segment kinds' colours.
var SegColors = [NumSegs]RGBA{
	hex(0x5b6270), hex(0x8a93a3), hex(0x0072b2), hex(0xcc79a7),
	hex(0x56b4e9), hex(0x009e73), hex(0xf0e442), hex(0x9467bd), hex(0xd55e00),
}

// MaxSegs is the most slices one bar has.
const MaxSegs = 7

// Segment is one slice of a memory bar.
type Segment struct {
	Kind  int   // Seg* constant
	Bytes int64 //
}

// Bar is one memory bar: at most MaxSegs slices.
type Bar struct {
	Total int64
	Segs  [MaxSegs]Segment
	N     int // slices in use
}

// MemoryBars returns the page's three bars for a snapshot: the FP16 history,
// what eviction keeps (in FP16), and what the cache really holds, itemized.
// Zero-byte slices are left out. It allocates nothing.
func MemoryBars(s *sim.Snapshot) [3]Bar {
	var bars [3]Bar
	bars[0].add(SegHistory, s.FullBytes)
	bars[1].add(SegEvicted, s.EvictBytes)
	m := s.Mem
	bars[2].add(SegPayload, m.Payload)
	bars[2].add(SegMeta, m.Meta)
	bars[2].add(SegResidual, m.Residual)
	bars[2].add(SegFactors, m.Factors)
	bars[2].add(SegIndex, m.Index)
	bars[2].add(SegScores, m.Scores)
	bars[2].add(SegHoles, m.Holes)
	return bars
}

func (b *Bar) add(kind int, n int64) {
	if n <= 0 || b.N == len(b.Segs) {
		return
	}
	b.Segs[b.N] = Segment{kind, n}
	b.N++
	b.Total += n
}

// Model is a real model's KV-cache shape, for the model-scale readout:
// sim's (its Key is the URL value).
type Model = sim.Model

// Models are the model-scale presets: sim's.
var Models = sim.Models

func modelKeys() []string {
	k := make([]string, len(Models))
	for i, m := range Models {
		k[i] = m.Key
	}
	return k
}

// FindModel returns the model with the given key, or Models[0].
func FindModel(key string) Model {
	for _, m := range Models {
		if m.Key == key {
			return m
		}
	}
	return Models[0]
}

// ScaleText is the model-scale readout of projection p (sim's one
// projection, sim.Config.ProjectSnapshot), after tag ("A: " when two
// sides show): "Llama-2-7B at 32K tokens: 16 GiB → 1 GiB after eviction →
// 300 MiB stored (55×)".
func ScaleText(p sim.Projection, tag string) string {
	return fmt.Sprintf("%s%s at %s tokens: %s → %s after eviction → %s stored (%s)",
		tag, p.Model.Name, ContextName(p.Tokens), Bytes(float64(p.Full)), Bytes(float64(p.Evicted)), Bytes(float64(p.Stored)),
		Ratio(float64(p.Full), float64(p.Stored)))
}

// ContextName writes a context length as the page's menu does: "4K",
// "128K", "1M", or the number.
func ContextName(n int) string {
	if n%1024 == 0 {
		if n >= 1<<20 && n%(1<<20) == 0 {
			return strconv.Itoa(n>>20) + "M"
		}
		return strconv.Itoa(n>>10) + "K"
	}
	return strconv.Itoa(n)
}

// StorageNames are the page's names of how one cell is stored.
var StorageNames = [...]string{sim.NotStored: "not stored", sim.Full: "FP16 (exact)", sim.Quantized: "quantized", sim.LowRank: "low rank"}

// KeptPerHead returns the mean number of cached (not evicted, not future)
// positions per head of a snapshot.
func KeptPerHead(s *sim.Snapshot) float64 {
	if s.Heads == 0 {
		return 0
	}
	n := 0
	for i := range s.Cells[:min(len(s.Cells), s.Heads*s.Step)] {
		if r := s.Cells[i].Role; r != sim.Evicted && r != sim.Future {
			n++
		}
	}
	return float64(n) / float64(s.Heads)
}
