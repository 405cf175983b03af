package view

import (
	"fmt"
	"math"
	"testing"

	"github.com/kvscope/kvscope/core/sim"
)

func snap(heads, step int, kept int) *sim.Snapshot {
	s := &sim.Snapshot{Step: step, Heads: heads, Cells: make([]sim.Cell, heads*step)}
	for h := 0; h < heads; h++ {
		for p := 0; p < step; p++ {
			c := s.Cell(h, p)
			if p < step-kept {
				c.Role, c.EvictedAt = sim.Evicted, int32(p)
			} else {
				c.Role, c.Storage = sim.Recent, sim.Quantized
			}
		}
	}
	return s
}

func TestMemoryBars(t *testing.T) {
	s := snap(2, 10, 4)
	s.FullBytes, s.EvictBytes = 1000, 400
	s.Mem = sim.Memory{Payload: 200, Meta: 20, Residual: 0, Index: 8, Holes: 4}
	bars := MemoryBars(s)
	if bars[0].Total != 1000 || bars[1].Total != 400 || bars[2].Total != s.Mem.Total() {
		t.Fatalf("totals %d %d %d", bars[0].Total, bars[1].Total, bars[2].Total)
	}
	if bars[2].N != 4 {
		t.Errorf("zero slices not dropped: %d slices", bars[2].N)
	}
	kinds := []int{SegPayload, SegMeta, SegIndex, SegHoles}
	for i, k := range kinds {
		if bars[2].Segs[i].Kind != k {
			t.Errorf("slice %d is %s, want %s", i, SegNames[bars[2].Segs[i].Kind], SegNames[k])
		}
	}
	if n := testing.AllocsPerRun(100, func() { MemoryBars(s) }); n != 0 {
		t.Errorf("MemoryBars allocates %v times", n)
	}
}

// The page's model-scale readout is sim's projection: for Quest (which
// evicts nothing) on Llama-2-7B at 128K tokens it once showed 21 MB
// stored where sim.Engine.Project gave 39.7 GB, SnapKV and DuoAttention
// being wrong the same way.
func TestScaleToIsSimsProjection(t *testing.T) {
	const ctx = 128 << 10
	for _, p := range []string{"quest", "snapkv", "duo", "h2o", "chunk", "full", "streaming"} {
		c := sim.DefaultConfig()
		c.Policy, c.Tokens, c.RefStride = p, 400, 0
		e, err := sim.New(c)
		if err != nil {
			t.Fatal(err)
		}
		e.RunTo(c.Tokens)
		m := FindModel("llama2-7b")
		sc := ScaleTo(e.Snapshot(0), &c, m, ctx)
		want := e.Project(sim.Models[0], ctx)
		if math.Abs(sc.Stored-float64(want)) > 1 {
			t.Errorf("%s: the page shows %s stored at %d tokens, the projection %s", p, Bytes(sc.Stored), ctx, Bytes(float64(want)))
		}
		if sc.Full != float64(sim.Models[0].FP16Bytes(ctx)) || sc.Evicted > sc.Full || (p == "quest" || p == "full") && sc.Evicted != sc.Full {
			t.Errorf("%s: full %v, after eviction %v", p, sc.Full, sc.Evicted)
		}
	}
	empty := &sim.Snapshot{}
	c := sim.DefaultConfig()
	if sc := ScaleTo(empty, &c, Models[0], 1024); sc.Stored != 0 || math.IsNaN(sc.Stored) {
		t.Errorf("empty snapshot stores %v", sc.Stored)
	}
}

func ExampleScaleTo() {
	// A run that keeps 64 tokens per head (sinks + heavy hitters + recent)
	// in INT8 per token, projected onto each preset at 32K tokens.
	c := sim.DefaultConfig()
	c.Tokens, c.RefStride = 400, 0
	e, err := sim.New(c)
	if err != nil {
		panic(err)
	}
	e.RunTo(c.Tokens)
	s := e.Snapshot(0)
	for _, m := range Models {
		sc := ScaleTo(s, &c, m, 32768)
		fmt.Printf("%s at 32K tokens: %s → %s → %s, %d tokens per head\n", m.Name, Bytes(sc.Full), Bytes(sc.Evicted), Bytes(sc.Stored), sc.Kept)
	}
	// Output:
	// Llama-2-7B at 32K tokens: 16 GiB → 32 MiB → 18.8 MiB, 64 tokens per head
	// Llama-3-8B at 32K tokens: 4 GiB → 8 MiB → 4.69 MiB, 64 tokens per head
	// Mistral-7B at 32K tokens: 4 GiB → 8 MiB → 4.69 MiB, 64 tokens per head
}
