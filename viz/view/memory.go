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

// Model is a real model's KV-cache shape, for the model-scale readout.
type Model struct {
	Key     string // URL value
	Name    string // shown
	Layers  int
	KVHeads int
	HeadDim int
}

// Models are the model-scale presets.
var Models = []Model{
	{"llama2-7b", "Llama-2-7B", 32, 32, 128},
	{"llama3-8b", "Llama-3-8B", 32, 8, 128},
	{"mistral-7b", "Mistral-7B", 32, 8, 128},
}

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
// a real model's KV cache at a context length.
type Scale struct {
	Model   Model
	Context int     // tokens
	Kept    int     // tokens each head keeps at that context
	Full    float64 // FP16 bytes of the uncompressed cache
	Evicted float64 // FP16 bytes of the kept tokens
	Stored  float64 // bytes after eviction and storage
}

// KeptAt returns how many tokens a policy keeps per head at a context
// length, extrapolated from a run that keeps kept of step tokens: full
// and chunk keep a share of the history (kept/step); the others keep a
// fixed budget, sink+recent+heavy (or kept when that sum is 0).
func KeptAt(c *sim.Config, ctx int, kept float64, step int) float64 {
	switch c.Policy {
	case "full", "chunk":
		if step <= 0 {
			return float64(ctx)
		}
		return float64(ctx) * min(1, kept/float64(step))
	}
	budget := float64(c.Sink + c.Recent + c.Heavy)
	if budget <= 0 {
		budget = kept
	}
	return min(float64(ctx), budget)
}

// ScaleTo extrapolates a snapshot of a run of c to model m at ctx tokens.
// Bytes per stored element are the run's Mem.Total() over the elements it
// keeps (2 × kept × layers × kv heads × head dim); the model then keeps
// KeptAt tokens. With nothing kept, Stored is 0.
func ScaleTo(s *sim.Snapshot, c *sim.Config, m Model, ctx int) Scale {
	kept := KeptPerHead(s)
	elemsPerToken := 2 * float64(m.Layers*m.KVHeads*m.HeadDim)
	sc := Scale{Model: m, Context: ctx}
	sc.Full = float64(ctx) * elemsPerToken * 2
	k := KeptAt(c, ctx, kept, s.Step)
	sc.Kept = int(k + 0.5)
	sc.Evicted = k * elemsPerToken * 2
	runElems := 2 * kept * float64(max(c.Layers, 1)*max(c.KVHeads, 1)*max(c.HeadDim, 1))
	if runElems > 0 {
		sc.Stored = k * elemsPerToken * float64(s.Mem.Total()) / runElems
	}
	return sc
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
