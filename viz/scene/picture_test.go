package scene

import (
	"bytes"
	"image"
	"testing"

	"github.com/kvscope/kvscope/viz/view"
)

// A picture at two device px per CSS px has twice the pixels in each
// direction, and shows each cell where the page's geometry puts it at
// that scale, in its colour; outside the holes it stays transparent.
func TestPictureAtTwicePixels(t *testing.T) {
	cfg, snap := snapshotAt(t, 128, 100)
	holes := Holes{Overview: view.Rect{X: 40, Y: 4, W: 300, H: 14}, Map: view.Rect{X: 40, Y: 22, W: 300, H: 120}, Attention: view.Rect{X: 40, Y: 150, W: 300, H: 40}}
	vp := view.Viewport{Cell: 6}
	for _, scale := range []float64{1, 2} {
		pic := Picture(snap, vp, cfg.Tokens, holes, 360, 200, scale)
		if got := pic.Rect; got != image.Rect(0, 0, int(360*scale), int(200*scale)) {
			t.Fatalf("scale %g: picture %v", scale, got)
		}
		if vp != (view.Viewport{Cell: 6}) {
			t.Fatalf("Picture changed the viewport: %+v", vp)
		}
		v := vp
		g := v.Place(view.Rect{X: 40 * scale, Y: 22 * scale, W: 300 * scale, H: 120 * scale}, snap.Heads, snap.Step, cfg.Tokens, scale)
		first, n, _ := g.Columns()
		checked := 0
		for p := first; p < first+n && p < snap.Step-1; p += 7 {
			x, y, ok := g.CellCenter(2, p)
			if !ok {
				continue
			}
			y -= g.CellH / 4
			if got, want := pic.RGBAAt(int(x), int(y)), rgba8(view.CellColor(snap.Cell(2, p), snap.Step)); got != want {
				t.Fatalf("scale %g, position %d at (%.0f, %.0f): %v, want %v", scale, p, x, y, got, want)
			}
			checked++
		}
		if checked < 5 {
			t.Errorf("scale %g: checked %d cells", scale, checked)
		}
		if a := pic.RGBAAt(int(10*scale), int(100*scale)).A; a != 0 {
			t.Errorf("scale %g: outside the holes alpha %d", scale, a)
		}
	}
	if Picture(snap, vp, cfg.Tokens, holes, 0, 10, 2) != nil || Picture(nil, vp, 1, holes, 10, 10, 1) != nil {
		t.Error("a picture without pixels or snapshot")
	}
}

// The straight-alpha conversion leaves opaque and empty pixels alone and
// undoes the premultiplication of the others.
func TestStraightAlpha(t *testing.T) {
	pix := []byte{10, 20, 30, 255, 0, 0, 0, 0, 50, 25, 0, 128}
	StraightAlpha(pix)
	want := []byte{10, 20, 30, 255, 0, 0, 0, 0, 100, 50, 0, 128}
	if !bytes.Equal(pix, want) {
		t.Errorf("got %v, want %v", pix, want)
	}
}
