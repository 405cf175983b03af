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

func TestScaleTo(t *testing.T) {
	llama2 := FindModel("llama2-7b")
	c := sim.DefaultConfig() // h2o, budget 4+32+28 = 64, 1 layer × 8 kv heads × 32 dims
	s := snap(8, 512, 64)
	// 1 byte per kept element (INT8 without metadata).
	s.Mem.Payload = int64(2 * 64 * 1 * 8 * 32)
	sc := ScaleTo(s, &c, llama2, 32768)
	if want := 16.0 * (1 << 30); sc.Full != want {
		t.Errorf("Llama-2-7B at 32K FP16 = %v, want 16 GiB", sc.Full)
	}
	if sc.Kept != 64 {
		t.Errorf("kept %d, want the 64-token budget", sc.Kept)
	}
	if want := 64 * 2 * 32 * 32 * 128 * 2.0; sc.Evicted != want {
		t.Errorf("after eviction %v, want %v", sc.Evicted, want)
	}
	if math.Abs(sc.Stored-sc.Evicted/2) > 1e-6 {
		t.Errorf("INT8 should halve FP16: %v vs %v", sc.Stored, sc.Evicted)
	}
	// Full policy keeps everything; chunk keeps the run's share.
	c.Policy = "full"
	if k := KeptAt(&c, 1000, 512, 512); k != 1000 {
		t.Errorf("full keeps %v of 1000", k)
	}
	c.Policy = "chunk"
	if k := KeptAt(&c, 1000, 350, 500); k != 700 {
		t.Errorf("chunk keeps %v of 1000, want 700", k)
	}
	c.Policy, c.Sink, c.Recent, c.Heavy = "tova", 0, 0, 0
	if k := KeptAt(&c, 1000, 40, 500); k != 40 {
		t.Errorf("budgetless policy keeps %v, want the run's 40", k)
	}
	empty := &sim.Snapshot{}
	if sc := ScaleTo(empty, &c, llama2, 1024); sc.Stored != 0 || math.IsNaN(sc.Stored) {
		t.Errorf("empty snapshot stores %v", sc.Stored)
	}
}

func ExampleScaleTo() {
	// A run that keeps 64 tokens per head (sinks + heavy hitters + recent)
	// in INT8 with no metadata: one byte per kept element.
	c := sim.DefaultConfig()
	s := snap(c.KVHeads, 1000, 64)
	s.Mem.Payload = int64(2 * 64 * c.Layers * c.KVHeads * c.HeadDim)
	for _, m := range Models {
		sc := ScaleTo(s, &c, m, 32768)
		fmt.Printf("%s at 32K tokens: %s → %s → %s\n", m.Name, Bytes(sc.Full), Bytes(sc.Evicted), Bytes(sc.Stored))
	}
	// Output:
	// Llama-2-7B at 32K tokens: 16 GiB → 32 MiB → 16 MiB
	// Llama-3-8B at 32K tokens: 4 GiB → 8 MiB → 4 MiB
	// Mistral-7B at 32K tokens: 4 GiB → 8 MiB → 4 MiB
}
