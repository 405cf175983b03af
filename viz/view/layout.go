package view

import "math"

// Rect is an axis-aligned rectangle.
type Rect struct{ X, Y, W, H float64 }

// Contains reports whether (x, y) lies inside r (left and top edges included).
func (r Rect) Contains(x, y float64) bool {
	return x >= r.X && y >= r.Y && x < r.X+r.W && y < r.Y+r.H
}

// Zoom limits of the token map, in CSS pixels per token.
const (
	MinAutoCell = 4.0  // automatic zoom never goes below this (a token stays legible); the map scrolls instead and the overview shows the rest
	MaxAutoCell = 16.0 // nor above this
	MaxCell     = 48.0 // the visitor can zoom in to this
	MaxRow      = 36.0 // tallest row, CSS px
)

// Viewport is the token map's horizontal zoom and scroll, kept across
// frames. Its zero value zooms automatically and follows the newest token.
type Viewport struct {
	Cell float64 // CSS px per token; 0 = automatic
	Left float64 // position at the left edge, used only when Free
	Free bool    // the visitor scrolled away from the newest token
}

// Grid is the token map's geometry for one frame, in device pixels.
type Grid struct {
	Area  Rect    // where the map is drawn
	Heads int     // rows
	Steps int     // positions that exist (columns in the history)
	CellW float64 // width of one token; below 1 px, tokens share columns (see Bin)
	CellH float64 // height of one row
	Left  float64 // position at Area.X (fractional)
	Bin   int     // tokens per drawn column: 1, or more when CellW < 1 px
	GapX  float64 // gap between columns (0 when they are narrow)
	GapY  float64 // gap between rows
}

// Place returns the grid for an area (device px), the map's rows, the
// history length so far (steps) and at the end of the run (total), and the
// device scale factor (device px per CSS px, > 0). Automatic zoom fits the
// whole run (at least 64 tokens) into the width, within [MinAutoCell,
// MaxAutoCell], so columns stay put while the history grows; past that the
// view scrolls with the newest token. Place records the scroll position in
// v when v follows the newest token.
func (v *Viewport) Place(area Rect, heads, steps, total int, scale float64) Grid {
	if scale <= 0 {
		scale = 1
	}
	heads = max(heads, 1)
	g := Grid{Area: area, Heads: heads, Steps: steps, Bin: 1}
	cell := v.Cell
	if cell <= 0 {
		cell = area.W / scale / float64(max(steps, total, 64))
		cell = math.Max(MinAutoCell, math.Min(MaxAutoCell, cell))
	}
	g.CellW = cell * scale
	g.CellH = math.Min(area.H/float64(heads), MaxRow*scale)
	if g.CellW > 0 && g.CellW < 1 {
		g.Bin = int(math.Ceil(1 / g.CellW))
	}
	if g.CellW >= 5 {
		g.GapX = math.Max(1, math.Floor(scale))
	}
	if g.CellH >= 6 {
		g.GapY = math.Max(1, math.Floor(scale))
	}
	visible := area.W / g.CellW
	maxLeft := math.Max(0, float64(steps)-visible)
	if !v.Free {
		v.Left = maxLeft
	}
	v.Left = math.Max(0, math.Min(v.Left, maxLeft))
	g.Left = v.Left
	if g.Bin > 1 {
		g.Left = math.Floor(g.Left/float64(g.Bin)) * float64(g.Bin)
	}
	return g
}

// Scroll moves the view by dx CSS px (positive: towards newer tokens) for
// a grid placed with the same scale. Scrolling to the newest token resumes
// following it.
func (v *Viewport) Scroll(g *Grid, dx, scale float64) {
	if g.CellW <= 0 {
		return
	}
	v.Free = true
	v.Left += dx * scale / g.CellW
	maxLeft := math.Max(0, float64(g.Steps)-g.Area.W/g.CellW)
	if v.Left >= maxLeft-0.5 {
		v.Free = false
	}
	v.Left = math.Max(0, math.Min(v.Left, maxLeft))
}

// Zoom multiplies the token width by factor, keeping the position under
// the device-pixel x coordinate anchorX in place.
func (v *Viewport) Zoom(g *Grid, factor, anchorX, scale float64) {
	if g.CellW <= 0 || factor <= 0 || math.IsNaN(factor) {
		return
	}
	anchorPos := g.Left + (anchorX-g.Area.X)/g.CellW
	cell := g.CellW / scale * factor
	fit := g.Area.W / scale / float64(max(g.Steps, 1))
	cell = math.Max(math.Min(fit, MinAutoCell), math.Min(MaxCell, cell))
	v.Cell = cell
	newW := cell * scale
	left := anchorPos - (anchorX-g.Area.X)/newW
	maxLeft := math.Max(0, float64(g.Steps)-g.Area.W/newW)
	if left >= maxLeft-0.5 {
		v.Free = false
		return
	}
	v.Free, v.Left = true, math.Max(0, left)
}

// Fit shows the whole history at once.
func (v *Viewport) Fit(g *Grid, scale float64) {
	v.Cell = g.Area.W / scale / float64(max(g.Steps, 1))
	v.Free, v.Left = false, 0
}

// Columns returns the drawn columns: the first position of the first
// column, how many columns, and tokens per column (g.Bin).
func (g *Grid) Columns() (first, n, bin int) {
	bin = max(g.Bin, 1)
	first = int(math.Floor(g.Left))
	if g.CellW <= 0 || g.Steps <= first {
		return first, 0, bin
	}
	last := int(math.Ceil(g.Left + g.Area.W/g.CellW)) // exclusive
	last = min(last, g.Steps)
	n = (last - first + bin - 1) / bin
	return first, n, bin
}

// ColumnX returns the left edge and width (device px, before the gap) of
// the column starting at position p, clipped to the area.
func (g *Grid) ColumnX(p int) (x, w float64) {
	x = g.Area.X + (float64(p)-g.Left)*g.CellW
	w = g.CellW * float64(max(g.Bin, 1))
	if x < g.Area.X {
		w -= g.Area.X - x
		x = g.Area.X
	}
	if r := g.Area.X + g.Area.W; x+w > r {
		w = r - x
	}
	return x, math.Max(0, w)
}

// RowY returns the top edge of row h.
func (g *Grid) RowY(h int) float64 { return g.Area.Y + float64(h)*g.CellH }

// CellAt returns the head and position under the device-pixel point
// (x, y), and false when the point is outside the map or over a position
// that does not exist yet.
func (g *Grid) CellAt(x, y float64) (head, pos int, ok bool) {
	if !g.Area.Contains(x, y) || g.CellW <= 0 || g.CellH <= 0 {
		return 0, 0, false
	}
	head = int((y - g.Area.Y) / g.CellH)
	pos = int(math.Floor(g.Left + (x-g.Area.X)/g.CellW))
	if head < 0 || head >= g.Heads || pos < 0 || pos >= g.Steps {
		return 0, 0, false
	}
	return head, pos, true
}

// CellCenter returns the device-pixel centre of (head, pos), and false
// when that cell is not in view.
func (g *Grid) CellCenter(head, pos int) (x, y float64, ok bool) {
	x = g.Area.X + (float64(pos)-g.Left+0.5)*g.CellW
	y = g.Area.Y + (float64(head)+0.5)*g.CellH
	return x, y, head >= 0 && head < g.Heads && pos >= 0 && pos < g.Steps && g.Area.Contains(x, y)
}

// Cover returns the smallest rectangle with integer edges that covers
// every non-empty, finite rectangle of rs with margin around it, clipped to the
// viewport [0, vw]×[0, vh]; it is at least 1×1 (at the origin when rs has
// no non-empty rectangle). The page sizes its drawing canvas with it.
func Cover(vw, vh, margin float64, rs ...Rect) Rect {
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, r := range rs {
		if !(r.W > 0 && r.H > 0) || !finite(r.X+r.Y+r.W+r.H) {
			continue
		}
		x0, y0 = math.Min(x0, r.X), math.Min(y0, r.Y)
		x1, y1 = math.Max(x1, r.X+r.W), math.Max(y1, r.Y+r.H)
	}
	if !(x0 <= x1) {
		return Rect{W: 1, H: 1}
	}
	x0 = math.Max(0, math.Floor(x0-margin))
	y0 = math.Max(0, math.Floor(y0-margin))
	x1 = math.Min(math.Max(vw, 1), math.Ceil(x1+margin))
	y1 = math.Min(math.Max(vh, 1), math.Ceil(y1+margin))
	x0, y0 = math.Min(x0, math.Max(vw, 1)-1), math.Min(y0, math.Max(vh, 1)-1)
	return Rect{X: x0, Y: y0, W: math.Max(1, x1-x0), H: math.Max(1, y1-y0)}
}

// Overview returns the grid of the overview strip: one row in area
// (device px) showing every position of a run of total tokens at once,
// tokens sharing columns when they are narrower than a pixel.
func Overview(area Rect, steps, total int, scale float64) Grid {
	if scale <= 0 {
		scale = 1
	}
	v := Viewport{Cell: area.W / scale / float64(max(steps, total, 1))}
	return v.Place(area, 1, steps, total, scale)
}

// Lens returns the span [x0, x1) of the overview ov (device px) that the
// map grid g shows.
func (g *Grid) Lens(ov *Grid) (x0, x1 float64) {
	if g.CellW <= 0 || ov.CellW <= 0 {
		return ov.Area.X, ov.Area.X
	}
	first := g.Left
	last := math.Min(g.Left+g.Area.W/g.CellW, float64(g.Steps))
	x0 = ov.Area.X + (first-ov.Left)*ov.CellW
	x1 = ov.Area.X + (last-ov.Left)*ov.CellW
	return math.Max(ov.Area.X, x0), math.Min(ov.Area.X+ov.Area.W, math.Max(x1, x0+1))
}

// Center moves the view so that position pos of a grid g lies in the
// middle of the map (following the newest token again when that is in
// view at the right edge).
func (v *Viewport) Center(g *Grid, pos float64) {
	if g.CellW <= 0 {
		return
	}
	visible := g.Area.W / g.CellW
	maxLeft := math.Max(0, float64(g.Steps)-visible)
	left := pos - visible/2
	if left >= maxLeft-0.5 {
		v.Free = false
		return
	}
	v.Free, v.Left = true, math.Max(0, left)
}
