package scene

import (
	"image"

	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/viz/view"
)

// Holes are where a side's pictures go in a picture, CSS px from its top
// left corner: the token map, the overview strip under the title and the
// attention rows (empty ones are not drawn).
type Holes struct {
	Map, Overview, Attention view.Rect
}

// Picture draws snapshot s as the page shows it — the map as viewport vp
// places it for a run of total positions, its overview strip with the
// map's lens, the newest query's attention, nothing hovered — into a new
// picture of w×h CSS px at scale device px per CSS px (its pixels:
// ⌊w·scale⌋ × ⌊h·scale⌋), transparent where nothing is drawn, premultiplied
// (image.RGBA's convention). vp is not changed. It returns nil for a
// picture without pixels.
func Picture(s *sim.Snapshot, vp view.Viewport, total int, holes Holes, w, h, scale float64) *image.RGBA {
	if !(scale > 0) {
		scale = 1
	}
	pw, ph := int(w*scale), int(h*scale)
	if s == nil || !(pw > 0 && ph > 0) {
		return nil
	}
	on := func(q view.Rect) view.Rect {
		return view.Rect{X: q.X * scale, Y: q.Y * scale, W: q.W * scale, H: q.H * scale}
	}
	sc := New()
	grid := vp.Place(on(holes.Map), s.Heads, s.Step, total, scale)
	if holes.Map.W > 0 && holes.Map.H > 0 {
		sc.DrawMap(&grid, s, Hover{Head: -1})
	}
	if holes.Overview.W > 0 && holes.Overview.H > 0 {
		ov := view.Overview(on(holes.Overview), s.Step, total, scale)
		lx0, lx1 := grid.Lens(&ov)
		sc.DrawOverview(&ov, s, lx0, lx1)
	}
	if holes.Attention.W > 0 && holes.Attention.H > 0 {
		sc.DrawAttention(on(holes.Attention), &grid, s, -1)
	}
	pic := image.NewRGBA(image.Rect(0, 0, pw, ph))
	sc.Rasterize(pic)
	return pic
}

// StraightAlpha converts premultiplied RGBA pixels (image.RGBA's
// convention) to straight alpha in place (a canvas's ImageData's).
func StraightAlpha(pix []byte) {
	for i := 0; i+3 < len(pix); i += 4 {
		a := int(pix[i+3])
		if a == 0 || a == 255 {
			continue
		}
		for j := 0; j < 3; j++ {
			pix[i+j] = uint8(min(255, (int(pix[i+j])*255+a/2)/a))
		}
	}
}
