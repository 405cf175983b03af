package sim

import (
	"math"
	"reflect"
	"testing"
)

func TestDefaultRuns(t *testing.T) {
	cfg := DefaultConfig()
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for e.Step() {
	}
	if e.Err() != nil || e.Pos() != cfg.Tokens {
		t.Fatalf("stopped at %d: %v", e.Pos(), e.Err())
	}
	s := e.Snapshot(0)
	counts := map[Role]int{}
	for _, c := range s.Cells {
		counts[c.Role]++
	}
	t.Logf("roles %v, memory %+v (total %d) of %d FP16 bytes, metrics %+v", counts, s.Mem, s.Mem.Total(), s.FullBytes, s.Metrics)
	for _, r := range []Role{Sink, Heavy, Recent, Evicted} {
		if counts[r] == 0 {
			t.Errorf("no %s cell in the default run", r)
		}
	}
}

func TestDeterministic(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Tokens = 200
	run := func() ([]Cell, []Metrics) {
		e, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		e.RunTo(cfg.Tokens)
		s := e.Snapshot(0)
		return append([]Cell(nil), s.Cells...), append([]Metrics(nil), s.History...)
	}
	c1, m1 := run()
	c2, m2 := run()
	if !reflect.DeepEqual(c1, c2) || !reflect.DeepEqual(m1, m2) {
		t.Fatal("two runs of one config differ")
	}
}

// Between reference steps, a snapshot still carries the reference
// attention, equal to what a reference step would have computed.
func TestSnapshotReferenceOnDemand(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Tokens = 100
	every, sparse := cfg, cfg
	sparse.RefStride = 7
	a, _ := New(every)
	b, _ := New(sparse)
	for n := 1; n <= 40; n += 3 {
		a.RunTo(n)
		b.RunTo(n)
		ca, cb := a.Snapshot(0).Cells, b.Snapshot(0).Cells
		for i := range ca {
			if ca[i].AttnFull != cb[i].AttnFull {
				t.Fatalf("step %d cell %d: reference attention %v, on demand %v", n, i, ca[i].AttnFull, cb[i].AttnFull)
			}
		}
	}
	if _, h := b.Metrics(); len(h) != 6 {
		t.Fatalf("stride 7 over 40 steps kept %d metric entries, want 6", len(h))
	}
}

func TestCosts(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Tokens = 300
	e, _ := New(cfg)
	e.RunTo(100)
	e.SetTiming(true)
	e.RunTo(300)
	c := e.Costs()
	t.Logf("per token: generate %v, store %v, attention %v, eviction %v, reference %v; compression overhead %.0f%% of attention",
		c.Generate, c.Store, c.Attend, c.Evict, c.Reference, 100*c.Overhead())
	if c.Steps != 200 || c.Store <= 0 || c.Attend <= 0 || c.Evict <= 0 || c.Reference <= 0 || c.Generate <= 0 {
		t.Fatalf("costs %+v", c)
	}
}

// Each bit of storage is worth about 6 dB of signal-to-noise, and the
// largest error shrinks with it; exact storage has none.
func TestStorageErrorPerBit(t *testing.T) {
	snr := map[int]float64{}
	maxErr := map[int]float64{}
	for _, bits := range []int{32, 8, 4, 2} {
		cfg := DefaultConfig()
		cfg.Policy, cfg.Bits, cfg.Granularity, cfg.Tokens, cfg.RefStride = "full", bits, "group", 200, 199
		e, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		e.RunTo(cfg.Tokens)
		m, _ := e.Metrics()
		snr[bits], maxErr[bits] = m.VSNR(), m.VMax
		t.Logf("%2d-bit values (groups of %d): SNR %.1f dB, max |v − v̂| %.4f", bits, cfg.GroupSize, m.VSNR(), m.VMax)
	}
	if maxErr[32] != 0 || !math.IsInf(snr[32], 1) {
		t.Errorf("float32 storage measured as lossy: %v dB, max %v", snr[32], maxErr[32])
	}
	for _, p := range [][2]int{{8, 4}, {4, 2}} {
		hi, lo := p[0], p[1]
		gain := snr[hi] - snr[lo]
		if perBit := gain / float64(hi-lo); perBit < 4.5 || perBit > 7.5 {
			t.Errorf("%d→%d bits gains %.1f dB (%.1f per bit), want about 6 per bit", lo, hi, gain, perBit)
		}
		if maxErr[hi] >= maxErr[lo] {
			t.Errorf("max error at %d bits (%v) not below %d bits (%v)", hi, maxErr[hi], lo, maxErr[lo])
		}
	}
}
