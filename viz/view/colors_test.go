package view

import (
	"math"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/sim"
)

func TestRoleColorsDistinct(t *testing.T) {
	roles := []sim.Role{sim.Future, sim.Evicted, sim.Sink, sim.Heavy, sim.Recent, sim.Kept, sim.Windowed}
	seen := map[string]sim.Role{}
	for _, r := range roles {
		h := RoleColor(r).Hex()
		if prev, dup := seen[h]; dup {
			t.Errorf("%v and %v share colour %s", prev, r, h)
		}
		seen[h] = r
	}
	if RoleColor(sim.Role(200)) != FutureCell {
		t.Error("unknown role not drawn as future")
	}
}

func TestCellColor(t *testing.T) {
	step := 100
	tests := []struct {
		name string
		cell sim.Cell
		want RGBA
	}{
		{"fp16 heavy", sim.Cell{Role: sim.Heavy, Storage: sim.Full}, RoleColor(sim.Heavy)},
		{"future", sim.Cell{Role: sim.Future}, FutureCell},
		{"just evicted", sim.Cell{Role: sim.Evicted, EvictedAt: 100}, RoleColor(sim.Evicted)},
		{"long gone", sim.Cell{Role: sim.Evicted, EvictedAt: 100 - FadeSteps}, GoneCell},
		{"evicted unknown time", sim.Cell{Role: sim.Evicted, EvictedAt: -1}, GoneCell},
	}
	for _, tc := range tests {
		if got := CellColor(&tc.cell, step); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	// The strip darkens with the key error: exact, INT8-like, INT4-like, INT2-like.
	var prev float32 = 2
	for _, kerr := range []float32{0, 0.005, 0.1, 0.5} {
		c := StripColor(&sim.Cell{Role: sim.Sink, Storage: sim.Quantized, KErr: kerr}, step)
		if c.R >= prev {
			t.Errorf("strip at key error %v is not darker than at the smaller error: %v", kerr, c)
		}
		prev = c.R
		if top := CellColor(&sim.Cell{Role: sim.Sink, Storage: sim.Quantized, KErr: kerr}, step); top != RoleColor(sim.Sink) {
			t.Errorf("the cell's role colour changed with the key error: %v", top)
		}
	}
	mid := CellColor(&sim.Cell{Role: sim.Evicted, EvictedAt: int32(step - FadeSteps/2)}, step)
	e := RoleColor(sim.Evicted)
	if !(mid.R < e.R && mid.R > GoneCell.R) {
		t.Errorf("half-faded %v not between %v and %v", mid, e, GoneCell)
	}
}

func TestDominates(t *testing.T) {
	sink := &sim.Cell{Role: sim.Sink}
	heavy := &sim.Cell{Role: sim.Heavy}
	old := &sim.Cell{Role: sim.Evicted, EvictedAt: 3}
	newer := &sim.Cell{Role: sim.Evicted, EvictedAt: 9}
	future := &sim.Cell{}
	if !Dominates(sink, heavy) || Dominates(heavy, sink) {
		t.Error("sink vs heavy")
	}
	if !Dominates(newer, old) || Dominates(old, newer) {
		t.Error("later eviction should win")
	}
	if !Dominates(old, future) || Dominates(future, old) {
		t.Error("evicted vs future")
	}
}

func TestHex(t *testing.T) {
	if h := hex(0xcc79a7).Hex(); h != "#cc79a7" {
		t.Errorf("Hex = %s", h)
	}
	r, g, b := RGBA{1.5, -1, 0.5, 1}.RGB8()
	if r != 255 || g != 0 || b != 128 {
		t.Errorf("RGB8 clamps wrongly: %d %d %d", r, g, b)
	}
}

// The roles on the map stay apart for viewers with normal vision and the
// two common red–green deficiencies: every pair of roles, the eviction
// colour through the first half of its fade, and each role against the
// two background cells, by CIEDE2000 ≥ 20. About 2 is a just-noticeable
// difference for large patches side by side; cells a few pixels wide,
// recognised by colour alone against a legend, need an order of magnitude
// more (categorical palettes for small marks are usually held to 15–20+),
// so 20 is the floor. The future and long-gone cells (both "not in the
// cache", told apart by their place left or right of the newest token) are
// not held to it.
func TestRoleColoursStayApart(t *testing.T) {
	type named struct {
		name string
		c    RGBA
	}
	fade := func(f float32) RGBA {
		return CellColor(&sim.Cell{Role: sim.Evicted, EvictedAt: int32(100 - f*FadeSteps)}, 100)
	}
	roles := []named{
		{"sink", RoleColor(sim.Sink)}, {"heavy", RoleColor(sim.Heavy)}, {"recent", RoleColor(sim.Recent)},
		{"kept", RoleColor(sim.Kept)}, {"evicted", fade(0)}, {"evicted, a quarter faded", fade(0.25)}, {"evicted, half faded", fade(0.5)},
	}
	bgs := []named{{"future", FutureCell}, {"gone", GoneCell}}
	const floor = 20
	visions := []struct {
		name string
		d    CVD
	}{{"normal vision", NormalVision}, {"deuteranopia", Deuteranopia}, {"protanopia", Protanopia}}
	worst := 1e9
	for _, v := range visions {
		for i, a := range roles {
			others := append(append([]named{}, roles[i+1:]...), bgs...)
			for _, b := range others {
				if strings.HasPrefix(a.name, "evicted") && strings.HasPrefix(b.name, "evicted") {
					continue // one fade
				}
				if strings.HasPrefix(a.name, "evicted,") && b.name == "gone" {
					continue // the fade ends in it
				}
				d := DeltaE2000(a.c, b.c, v.d)
				worst = min(worst, d)
				if d < floor {
					t.Errorf("%s: %s %s and %s %s differ by ΔE00 %.1f < %d", v.name, a.name, a.c.Hex(), b.name, b.c.Hex(), d, floor)
				}
			}
		}
	}
	t.Logf("smallest ΔE00 between roles under the three visions: %.1f", worst)
}

// CIEDE2000 against Sharma, Wu and Dalal's published test pairs.
func TestCIEDE2000(t *testing.T) {
	tests := []struct {
		a, b [3]float64
		want float64
	}{
		{[3]float64{50, 2.6772, -79.7751}, [3]float64{50, 0, -82.7485}, 2.0425},
		{[3]float64{50, -1.3802, -84.2814}, [3]float64{50, 0, -82.7485}, 1.0000},
		{[3]float64{50, 2.5, 0}, [3]float64{73, 25, -18}, 27.1492},
		{[3]float64{50, 2.5, 0}, [3]float64{50, 3.1736, 0.5854}, 1.0000},
		{[3]float64{60.2574, -34.0099, 36.2677}, [3]float64{60.4626, -34.1751, 39.4387}, 1.2644},
		{[3]float64{22.7233, 20.0904, -46.694}, [3]float64{23.0331, 14.973, -42.5619}, 2.0373},
	}
	for _, tt := range tests {
		if got := ciede2000(tt.a, tt.b); math.Abs(got-tt.want) > 1e-4 {
			t.Errorf("ΔE00(%v, %v) = %.4f, want %.4f", tt.a, tt.b, got, tt.want)
		}
	}
	if d := DeltaE2000(hex(0xff0000), hex(0xff0000), Deuteranopia); d != 0 {
		t.Errorf("a colour differs from itself by %v", d)
	}
}
