package scene

import (
	"image"
	"image/color"
	"testing"

	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/viz/view"
)

func rgba8(c view.RGBA) color.RGBA {
	r, g, b := c.RGB8()
	return color.RGBA{r, g, b, 255}
}

// A rectangle covers the pixels whose centres it holds; a translucent one
// blends over what is there; a picture of texels is sampled at the
// nearest texel.
func TestRasterize(t *testing.T) {
	s := New()
	s.Rect(1, 1, 2, 2, view.RGBA{R: 1, A: 1})                   // pixels (1,1)–(2,2)
	s.Rect(2.4, 0, 1.2, 1, view.RGBA{R: 1, G: 1, B: 1, A: 0.5}) // pixels (2,0) and (3,0): centres 2.5 and 3.5 lie in [2.4, 3.6)
	_, pix := s.block(2, 1)
	copy(pix, []byte{0, 0, 255, 255, 0, 255, 0, 255}) // blue, green
	s.quad(true, 0, 4, 4, 1, 0, 0, 2, 1, view.RGBA{R: 1, G: 1, B: 1, A: 1})
	img := image.NewRGBA(image.Rect(0, 0, 5, 5))
	s.Rasterize(img)
	for _, c := range []struct {
		x, y int
		want color.RGBA
	}{
		{1, 1, color.RGBA{255, 0, 0, 255}}, {2, 2, color.RGBA{255, 0, 0, 255}},
		{0, 0, color.RGBA{}}, {0, 1, color.RGBA{}}, {1, 0, color.RGBA{}}, {3, 1, color.RGBA{}}, {1, 3, color.RGBA{}},
		{2, 0, color.RGBA{128, 128, 128, 128}}, {3, 0, color.RGBA{128, 128, 128, 128}}, {4, 0, color.RGBA{}},
		{0, 4, color.RGBA{0, 0, 255, 255}}, {1, 4, color.RGBA{0, 0, 255, 255}},
		{2, 4, color.RGBA{0, 255, 0, 255}}, {3, 4, color.RGBA{0, 255, 0, 255}},
	} {
		if got := img.RGBAAt(c.x, c.y); got != c.want {
			t.Errorf("pixel (%d, %d) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
}

// The map drawn in software shows each cell in view.CellColor, where
// view's layout puts it.
func TestRasterizedMapShowsTheCells(t *testing.T) {
	cfg, snap := snapshotAt(t, 96, 96)
	var vp view.Viewport
	g := vp.Place(view.Rect{X: 10, Y: 20, W: 400, H: 160}, snap.Heads, snap.Step, cfg.Tokens, 1)
	s := New()
	s.DrawMap(&g, snap, Hover{Head: -1})
	if s.Queued() == 0 {
		t.Fatal("no quads")
	}
	img := image.NewRGBA(image.Rect(0, 0, 420, 200))
	s.Rasterize(img)
	first, n, bin := g.Columns()
	if bin != 1 {
		t.Fatalf("%d positions per column; the test reads one cell per column", bin)
	}
	checked := 0
	for h := 0; h < snap.Heads; h++ {
		for p := first; p < first+n && p < snap.Step-1; p++ {
			x, y, ok := g.CellCenter(h, p)
			if !ok {
				continue
			}
			// The role colour fills the top of the row; the strip under it
			// shows the storage.
			y -= g.CellH / 4
			want := rgba8(view.CellColor(snap.Cell(h, p), snap.Step))
			if got := img.RGBAAt(int(x), int(y)); got != want {
				t.Fatalf("head %d position %d at (%.0f, %.0f): %v, want %v", h, p, x, y, got, want)
			}
			checked++
		}
	}
	if checked < snap.Heads*n/2 {
		t.Errorf("checked %d cells of %d", checked, snap.Heads*n)
	}
}

// BenchmarkRasterize draws the default page's picture at 1400×1000 (map,
// overview and attention rows of the 512-token stream at step 300) in
// software, as the page's first picture is drawn.
func BenchmarkRasterize(b *testing.B) {
	cfg, snap := snapshotAt(b, 512, 300)
	var vp view.Viewport
	g := vp.Place(view.Rect{X: 4, Y: 22, W: 756, H: 288}, snap.Heads, snap.Step, cfg.Tokens, 1)
	ov := view.Overview(view.Rect{X: 4, Y: 4, W: 756, H: 14}, snap.Step, cfg.Tokens, 1)
	s := New()
	s.DrawMap(&g, snap, Hover{Head: -1})
	lx0, lx1 := g.Lens(&ov)
	s.DrawOverview(&ov, snap, lx0, lx1)
	s.DrawAttention(view.Rect{X: 4, Y: 330, W: 756, H: 56}, &g, snap, -1)
	img := image.NewRGBA(image.Rect(0, 0, 764, 390))
	for b.Loop() {
		clear(img.Pix)
		s.Rasterize(img)
	}
}

// snapshotAt returns the default stream of tokens tokens, decoded to step,
// and its layer 0's snapshot.
func snapshotAt(tb testing.TB, tokens, step int) (sim.Config, *sim.Snapshot) {
	tb.Helper()
	cfg := sim.DefaultConfig()
	cfg.Tokens = tokens
	e, err := sim.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	e.RunTo(step)
	return cfg, e.Snapshot(0)
}
