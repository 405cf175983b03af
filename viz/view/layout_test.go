package view

import (
	"math"
	"testing"
)

func TestPlaceAutoZoomFollows(t *testing.T) {
	area := Rect{X: 10, Y: 20, W: 900, H: 160}
	tests := []struct {
		steps, total, heads int
		scale               float64
		cellCSS             float64 // expected token width, CSS px
		left                float64
	}{
		{64, 64, 8, 1, 900.0 / 64, 0},
		{10, 10, 8, 1, 900.0 / 64, 0},            // short runs use the 64-token zoom
		{100, 200, 8, 1, 900.0 / 200, 0},         // the whole run fits at ≥ 4 px: columns stay put
		{100, 512, 8, 1, MinAutoCell, 0},         // it does not: 4 px per token, from the start
		{900, 900, 8, 1, MinAutoCell, 900 - 225}, // 900/4 = 225 visible: follow the newest
		{4096, 4096, 32, 2, MinAutoCell, 4096 - 225},
		{16, 0, 4, 1, 900.0 / 64, 0},
	}
	for _, tc := range tests {
		var v Viewport
		a := area
		a.W *= tc.scale
		g := v.Place(a, tc.heads, tc.steps, tc.total, tc.scale)
		if math.Abs(g.CellW/tc.scale-tc.cellCSS) > 1e-9 {
			t.Errorf("steps %d: cell %v CSS px, want %v", tc.steps, g.CellW/tc.scale, tc.cellCSS)
		}
		if math.Abs(g.Left-tc.left) > 1e-9 {
			t.Errorf("steps %d: left %v, want %v", tc.steps, g.Left, tc.left)
		}
		if g.CellH > MaxRow*tc.scale || g.CellH*float64(tc.heads) > a.H+1e-9 {
			t.Errorf("steps %d: row height %v", tc.steps, g.CellH)
		}
		first, n, bin := g.Columns()
		if last := first + n*bin; last < tc.steps || first > tc.steps {
			t.Errorf("steps %d: columns %d+%d×%d miss the newest token", tc.steps, first, n, bin)
		}
	}
}

func TestCellAtInvertsCellCenter(t *testing.T) {
	for _, steps := range []int{1, 64, 300, 4096} {
		var v Viewport
		g := v.Place(Rect{X: 5, Y: 7, W: 800, H: 200}, 8, steps, steps, 1.5)
		first, n, bin := g.Columns()
		for p := first; p < first+n*bin && p < steps; p += 7 {
			for h := 0; h < 8; h++ {
				x, y, ok := g.CellCenter(h, p)
				if !ok {
					continue
				}
				hh, pp, ok := g.CellAt(x, y)
				if !ok || hh != h || pp != p {
					t.Fatalf("steps %d: CellAt(CellCenter(%d,%d)) = %d,%d,%v", steps, h, p, hh, pp, ok)
				}
			}
		}
		if _, _, ok := g.CellAt(4, 8); ok {
			t.Error("point left of the map hit a cell")
		}
		if _, _, ok := g.CellAt(6, 7+200); ok {
			t.Error("point below the map hit a cell")
		}
	}
}

func TestCellAtFuturePosition(t *testing.T) {
	var v Viewport
	g := v.Place(Rect{W: 900, H: 100}, 4, 10, 10, 1) // 10 tokens in a 64-token-wide zoom
	if _, _, ok := g.CellAt(800, 10); ok {
		t.Error("a position not decoded yet was hit")
	}
	if h, p, ok := g.CellAt(1, 30); !ok || h != 1 || p != 0 {
		t.Errorf("CellAt(1,30) = %d %d %v", h, p, ok)
	}
}

func TestScrollZoomFit(t *testing.T) {
	var v Viewport
	area := Rect{W: 600, H: 100}
	g := v.Place(area, 4, 1000, 1000, 1)
	v.Scroll(&g, -300, 1)
	if !v.Free {
		t.Fatal("scrolling back does not free the view")
	}
	g = v.Place(area, 4, 1001, 1001, 1)
	if want := 1000 - 600/MinAutoCell - 300/MinAutoCell; math.Abs(g.Left-want) > 1e-9 {
		t.Errorf("free view moved: left %v, want %v", g.Left, want)
	}
	v.Scroll(&g, 10000, 1)
	if v.Free {
		t.Error("scrolling to the end does not resume following")
	}
	g = v.Place(area, 4, 1001, 1001, 1)
	// Zooming in around x=300 keeps the position under it.
	before := g.Left + 300/g.CellW
	v.Zoom(&g, 2, 300, 1)
	g = v.Place(area, 4, 1001, 1001, 1)
	if after := g.Left + 300/g.CellW; math.Abs(after-before) > 1e-6 {
		t.Errorf("zoom moved the anchor: %v → %v", before, after)
	}
	v.Fit(&g, 1)
	g = v.Place(area, 4, 1001, 1001, 1)
	if g.Bin != 2 || g.Left != 0 {
		t.Errorf("fit: bin %d left %v", g.Bin, g.Left)
	}
	if _, n, _ := g.Columns(); n != 501 {
		t.Errorf("fit: %d columns, want 501", n)
	}
}

func TestColumnXClips(t *testing.T) {
	g := Grid{Area: Rect{X: 10, W: 100}, CellW: 8, Left: 2.5, Steps: 100, Bin: 1}
	x, w := g.ColumnX(2)
	if x != 10 || w != 4 {
		t.Errorf("ColumnX(2) = %v, %v; want 10, 4", x, w)
	}
	x, w = g.ColumnX(15) // starts at 10 + 12.5*8 = 110: outside
	if w != 0 {
		t.Errorf("ColumnX(15) = %v, %v; want zero width", x, w)
	}
}

func BenchmarkPlace(b *testing.B) {
	var v Viewport
	b.ReportAllocs()
	for b.Loop() {
		g := v.Place(Rect{W: 1800, H: 400}, 32, 4096, 4096, 2)
		g.Columns()
	}
}

func TestCover(t *testing.T) {
	tests := []struct {
		name   string
		vw, vh float64
		margin float64
		rs     []Rect
		want   Rect
	}{
		{"nothing", 800, 600, 4, nil, Rect{W: 1, H: 1}},
		{"empty rects ignored", 800, 600, 4, []Rect{{X: 10, Y: 10}, {X: 5, Y: 5, W: -3, H: 2}}, Rect{W: 1, H: 1}},
		{"one rect, margin, integer edges", 800, 600, 4, []Rect{{X: 10.5, Y: 20.2, W: 100, H: 50.1}}, Rect{X: 6, Y: 16, W: 109, H: 59}},
		{"union", 800, 600, 0, []Rect{{X: 10, Y: 10, W: 10, H: 10}, {X: 100, Y: 200, W: 50, H: 5}}, Rect{X: 10, Y: 10, W: 140, H: 195}},
		{"clipped to the viewport", 800, 600, 4, []Rect{{X: -20, Y: 590, W: 900, H: 40}}, Rect{X: 0, Y: 586, W: 800, H: 14}},
		{"below the viewport: one pixel at its edge", 800, 600, 0, []Rect{{X: 10, Y: 700, W: 10, H: 10}}, Rect{X: 10, Y: 599, W: 10, H: 1}},
		{"NaN and infinite ignored", 800, 600, 0, []Rect{{X: math.NaN(), Y: 0, W: 1, H: 1}, {X: 0, Y: 0, W: math.Inf(1), H: 1}, {X: 1, Y: 2, W: 3, H: 4}}, Rect{X: 1, Y: 2, W: 3, H: 4}},
	}
	for _, tc := range tests {
		if got := Cover(tc.vw, tc.vh, tc.margin, tc.rs...); got != tc.want {
			t.Errorf("%s: Cover = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestOverviewLens(t *testing.T) {
	area := Rect{X: 10, Y: 0, W: 800, H: 100}
	var v Viewport
	g := v.Place(area, 8, 512, 512, 1) // 4 px per token: 200 of 512 visible, following
	ov := Overview(Rect{X: 10, Y: 110, W: 800, H: 14}, 512, 512, 1)
	if ov.Heads != 1 || math.Abs(ov.CellW*512-800) > 1e-9 {
		t.Fatalf("overview cell %v for 512 tokens in 800 px", ov.CellW)
	}
	x0, x1 := g.Lens(&ov)
	if want0, want1 := 10+312*ov.CellW, 10+512*ov.CellW; math.Abs(x0-want0) > 1e-9 || math.Abs(x1-want1) > 1e-9 {
		t.Errorf("lens %v..%v, want %v..%v", x0, x1, want0, want1)
	}
	// Centring on position 100 shows positions 0–199 (clamped at the start).
	v.Center(&g, 100)
	g = v.Place(area, 8, 512, 512, 1)
	if !v.Free || g.Left != 0 {
		t.Errorf("centred on 100: free %v, left %v", v.Free, g.Left)
	}
	v.Center(&g, 500) // the newest end: follow again
	if v.Free {
		t.Error("centring on the newest tokens did not resume following")
	}
}
