package view

import (
	"testing"

	"github.com/kvscope/kvscope/core/sim"
)

func TestRoleColorsDistinct(t *testing.T) {
	roles := []sim.Role{sim.Future, sim.Evicted, sim.Sink, sim.Heavy, sim.Recent, sim.Kept}
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
	q := CellColor(&sim.Cell{Role: sim.Sink, Storage: sim.Quantized}, step)
	lr := CellColor(&sim.Cell{Role: sim.Sink, Storage: sim.LowRank}, step)
	full := RoleColor(sim.Sink)
	if !(lr.R < q.R && q.R < full.R) {
		t.Errorf("storage shading not ordered: full %v quantized %v low rank %v", full, q, lr)
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
