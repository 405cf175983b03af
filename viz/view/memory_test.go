package view

import (
	"fmt"
	"strings"
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

// The page's model-scale readout prints sim's one projection
// (sim.Config.ProjectSnapshot): for Quest (which evicts nothing) on
// Llama-2-7B at 128K tokens it once showed 21 MB stored where
// sim.Engine.Project gave 39.7 GB.
func TestScaleText(t *testing.T) {
	const ctx = 128 << 10
	c := sim.DefaultConfig()
	c.Policy, c.Tokens, c.RefStride = "quest", 400, 0
	e, err := sim.New(c)
	if err != nil {
		t.Fatal(err)
	}
	e.RunTo(c.Tokens)
	p := c.ProjectSnapshot(e.Snapshot(0), FindModel("llama2-7b"), ctx)
	got := ScaleText(p, "A: ")
	want := "A: Llama-2-7B at 128K tokens: 64 GiB → 64 GiB after eviction → " + Bytes(float64(e.Project(sim.Models[0], ctx))) + " stored"
	if !strings.HasPrefix(got, want) {
		t.Errorf("%q, want it to start %q", got, want)
	}
	for n, want := range map[int]string{4096: "4K", 1 << 20: "1M", 3 << 20: "3M", 1536: "1536", 1000: "1000"} {
		if got := ContextName(n); got != want {
			t.Errorf("ContextName(%d) = %q, want %q", n, got, want)
		}
	}
}

func ExampleScaleText() {
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
		fmt.Println(ScaleText(c.ProjectSnapshot(s, m, 32768), ""))
	}
	// Output:
	// Llama-2-7B at 32K tokens: 16 GiB → 32 MiB after eviction → 18.8 MiB stored (874×)
	// Llama-3-8B at 32K tokens: 4 GiB → 8 MiB after eviction → 4.69 MiB stored (874×)
	// Mistral-7B at 32K tokens: 4 GiB → 8 MiB after eviction → 4.69 MiB stored (874×)
}
