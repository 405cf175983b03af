package view

import (
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

// Scale is the model-scale readout: what the run's compression would do to
// a real model's KV cache at a context length (sim.Projection, in the
// floats the page formats).
type Scale struct {
	Model   Model
	Context int     // tokens
	Kept    int     // tokens each head keeps at that context
	Full    float64 // FP16 bytes of the uncompressed cache
	Evicted float64 // FP16 bytes of the kept tokens
	Stored  float64 // bytes after eviction and storage
}

// ScaleTo is sim's one model-scale projection (sim.Config.ProjectSnapshot)
// of a snapshot of a run of c onto model m at ctx tokens: the policy says
// which tokens it keeps there (Quest and SnapKV keep the history, Duo's
// retrieval heads too), the run what each costs. With nothing kept,
// Stored is 0. It allocates nothing.
func ScaleTo(s *sim.Snapshot, c *sim.Config, m Model, ctx int) Scale {
	p := c.ProjectSnapshot(s, m, ctx)
	return Scale{Model: m, Context: ctx, Kept: int(p.Kept + 0.5),
		Full: float64(p.Full), Evicted: float64(p.Evicted), Stored: float64(p.Stored)}
}

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
