// Package scene builds kvscope's pictures — the token map, its overview
// strip and the current query's attention — as a list of quads over one
// picture of texels, without drawing them: package viz draws a scene with
// Ebiten (WebGL in the page), and Rasterize draws it in software, pixel
// for pixel the same, where no GPU context exists (a Web Worker, a test).
//
// Software WebGL (SwiftShader, what a browser without a GPU uses) spends
// microseconds per triangle, so a frame must not draw a quad per cell: the
// map's cells and the attention bars are written as texels, one per drawn
// column, and drawn as a few quads scaled over the columns (nearest
// sampling keeps the cells sharp). A frame is then a few dozen quads
// whatever the history's length. Buffers are reused, so a steady-state
// frame allocates nothing.
package scene

import (
	"image"
	"math"

	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/viz/view"
)

// A Quad is a rectangle of device pixels (X, Y, W, H) filled from the
// source rectangle (SX, SY, SW, SH) of the scene's texels (Tex) or from
// white (not Tex), each colour channel multiplied by C (premultiplied
// alpha: C.A scales the source's alpha, and C.R, C.G, C.B its colour).
type Quad struct {
	X, Y, W, H     float32
	SX, SY, SW, SH float32
	C              view.RGBA
	Tex            bool
}

// A Block is a W×H picture of texels at texel rows Y…; its pixels are
// Scene.Pix[Off : Off+4·W·H] (RGBA, row-major, opaque).
type Block struct{ Y, W, H, Off int }

// Scene is a frame's quads, in drawing order, and its texels. It is not
// safe for concurrent use.
type Scene struct {
	Quads  []Quad
	Pix    []byte
	Blocks []Block
	TexH   int // texel rows used by the frame

	cols  []colAgg // per drawn column of the map: attention aggregates
	rcols []int    // Rasterize: a quad's texel column per pixel column
	lut   struct { // Rasterize: a quad's colour as tables of a channel's value
		src    [3][256]float64 // the source's premultiplied channel
		opaque [3][256]uint8   // the same as a pixel, for an opaque quad
		below  [256]float64    // the share of the pixel below that shows through
	}
}

type colAgg struct{ full, comp float32 }

// New returns a scene with buffers for a typical frame; they grow when a
// frame needs more and are then reused.
func New() *Scene {
	return &Scene{
		Quads: make([]Quad, 0, 1024),
		Pix:   make([]byte, 0, 4*4096*64),
		cols:  make([]colAgg, 0, 4096),
	}
}

// quad queues a quad from source texels (sx, sy, sw, sh) to device pixels
// (x, y, w, h), tinted by c.
func (r *Scene) quad(tex bool, x, y, w, h, sx, sy, sw, sh float64, c view.RGBA) {
	r.Quads = append(r.Quads, Quad{X: float32(x), Y: float32(y), W: float32(w), H: float32(h),
		SX: float32(sx), SY: float32(sy), SW: float32(sw), SH: float32(sh), C: c, Tex: tex})
}

// Rect queues a filled rectangle (device px). Empty rectangles are skipped.
func (r *Scene) Rect(x, y, w, h float64, c view.RGBA) {
	if w <= 0 || h <= 0 || c.A <= 0 {
		return
	}
	r.quad(false, x, y, w, h, 0, 0, 1, 1, c)
}

// Frame outlines a rectangle with lines of width t.
func (r *Scene) Frame(x, y, w, h, t float64, c view.RGBA) {
	r.Rect(x, y, w, t, c)
	r.Rect(x, y+h-t, w, t, c)
	r.Rect(x, y+t, t, h-2*t, c)
	r.Rect(x+w-t, y+t, t, h-2*t, c)
}

// block reserves a w×h picture of texels for this frame and returns its
// first texel row and its pixels (RGBA, row-major, opaque colours).
func (r *Scene) block(w, h int) (y int, pix []byte) {
	off := len(r.Pix)
	n := 4 * w * h
	if cap(r.Pix)-off < n {
		grown := make([]byte, off, 2*(off+n))
		copy(grown, r.Pix)
		r.Pix = grown
	}
	r.Pix = r.Pix[:off+n]
	y = r.TexH
	r.Blocks = append(r.Blocks, Block{Y: y, W: w, H: h, Off: off})
	r.TexH += h
	return y, r.Pix[off : off+n]
}

// Reset empties the scene, keeping its memory.
func (r *Scene) Reset() {
	r.Quads = r.Quads[:0]
	r.Pix, r.Blocks, r.TexH = r.Pix[:0], r.Blocks[:0], 0
}

// Queued reports how many quads are queued.
func (r *Scene) Queued() int { return len(r.Quads) }

// Hover is the cell under the pointer; Head < 0 when there is none. With
// Column set, it is position Pos in every head (Head is then ignored).
type Hover struct {
	Head, Pos int
	Column    bool
}

// columnSpan returns the device-pixel span [x0, x1) of g's drawn columns
// within its area (x1 <= x0 when there are none).
func columnSpan(g *view.Grid) (x0, x1 float64) {
	first, n, bin := g.Columns()
	left := g.Area.X + (float64(first)-g.Left)*g.CellW
	return math.Max(left, g.Area.X), math.Min(left+float64(n*bin)*g.CellW, g.Area.X+g.Area.W)
}

// columns queues a block of texels (one column per drawn column of g) as
// a picture spanning the map's columns horizontally and [y, y+h)
// vertically, clipped to the map's area, and fills the rest of the row to
// the area's right edge with colour gap; when g has gaps between columns,
// strips of gap go over them. The texels' row t0 and count tr select which
// rows of the block (at texel row by) go there.
func (r *Scene) columns(g *view.Grid, by, t0, tr int, y, h float64, gap view.RGBA) {
	first, n, bin := g.Columns()
	colW := g.CellW * float64(bin)
	if h <= 0 {
		return
	}
	dx0, dx1 := columnSpan(g)
	if n <= 0 || colW <= 0 || dx1 <= dx0 {
		r.Rect(g.Area.X, y, g.Area.W, h, gap)
		return
	}
	x0 := g.Area.X + (float64(first)-g.Left)*g.CellW
	r.quad(true, dx0, y, dx1-dx0, h, (dx0-x0)/colW, float64(by+t0), (dx1-dx0)/colW, float64(tr), view.RGBA{R: 1, G: 1, B: 1, A: 1})
	r.Rect(g.Area.X, y, dx0-g.Area.X, h, gap)
	r.Rect(dx1, y, g.Area.X+g.Area.W-dx1, h, gap)
	if g.GapX > 0 {
		for j := 0; j < n; j++ {
			x, w := g.ColumnX(first + j*bin)
			gw := math.Min(g.GapX, w)
			r.Rect(x+w-gw, y, gw, h, gap)
		}
	}
}

// DrawMap queues the token map of s in grid g: one texel per visible
// (head, column), coloured by view.CellColor (columns that stand for
// several tokens take the dominant cell, view.Dominates), with a strip at
// the bottom of each row coloured by view.StripColor, a marker on the
// prompt's end and on the newest token, and an outline on the hovered cell.
//
// Every device pixel of the map is drawn once (software rendering pays
// for each): the rows' pictures, and FutureCell in the gaps and beyond
// the last column.
func (r *Scene) DrawMap(g *view.Grid, s *sim.Snapshot, hover Hover) {
	first, n, bin := g.Columns()
	heads := min(g.Heads, s.Heads)
	rowH := g.CellH - g.GapY
	for h := 0; h < g.Heads; h++ {
		if h >= heads || n <= 0 {
			r.Rect(g.Area.X, g.RowY(h), g.Area.W, rowH, view.FutureCell)
		}
		r.Rect(g.Area.X, g.RowY(h)+rowH, g.Area.W, g.GapY, view.FutureCell)
	}
	if n > 0 && heads > 0 {
		// Two texel rows per head: the role colour, and the storage strip
		// under it (the role colour dimmed by the key's error).
		by, pix := r.block(n, 2*heads)
		for j := 0; j < n; j++ {
			p0 := first + j*bin
			p1 := min(p0+bin, s.Step)
			for h := 0; h < heads; h++ {
				c, strip := view.FutureCell, view.FutureCell
				if p0 < s.Step {
					best := s.Cell(h, p0)
					for p := p0 + 1; p < p1; p++ {
						if c := s.Cell(h, p); view.Dominates(c, best) {
							best = c
						}
					}
					c, strip = view.CellColor(best, s.Step), view.StripColor(best, s.Step)
				}
				o := 4 * (2*h*n + j)
				pix[o], pix[o+1], pix[o+2] = c.RGB8()
				pix[o+3] = 255
				o += 4 * n
				pix[o], pix[o+1], pix[o+2] = strip.RGB8()
				pix[o+3] = 255
			}
		}
		// Rows too short for a readable strip show the role colour alone.
		stripH := 0.0
		if rowH >= 7 {
			stripH = math.Round(rowH * view.StripShare)
		}
		for h := 0; h < heads; h++ {
			r.columns(g, by, 2*h, 1, g.RowY(h), rowH-stripH, view.FutureCell)
			r.columns(g, by, 2*h+1, 1, g.RowY(h)+rowH-stripH, stripH, view.FutureCell)
		}
	}
	line := math.Max(1, math.Floor(g.CellW/4))
	mark := func(pos int, c view.RGBA) {
		x := g.Area.X + (float64(pos)-g.Left)*g.CellW
		if x >= g.Area.X && x <= g.Area.X+g.Area.W {
			r.Rect(x-line/2, g.Area.Y, line, g.CellH*float64(g.Heads), c)
		}
	}
	if s.Prompt > 0 && s.Prompt < s.Step {
		mark(s.Prompt, view.RGBA{R: 1, G: 1, B: 1, A: 0.35})
	}
	mark(s.Step, view.RGBA{R: 1, G: 1, B: 1, A: 0.9})
	if hover.Column {
		x, _, ok := g.CellCenter(0, hover.Pos)
		if ok {
			w := math.Max(g.CellW, 4)
			top, bottom := g.RowY(0), g.RowY(g.Heads-1)+g.CellH
			r.Frame(x-w/2-1, top-1, w+2, bottom-top+2, math.Max(1, line), view.RGBA{R: 1, G: 1, B: 1, A: 1})
		}
	} else if hover.Head >= 0 {
		x, y, ok := g.CellCenter(hover.Head, hover.Pos)
		if ok {
			w := math.Max(g.CellW, 4)
			r.Frame(x-w/2-1, y-g.CellH/2-1, w+2, g.CellH+2, math.Max(1, line), view.RGBA{R: 1, G: 1, B: 1, A: 1})
		}
	}
}

// DrawAttention queues the current query's attention in two rows aligned
// with the map's columns: over the full history (top) and through the
// compressed cache (bottom), both on one scale, height ∝ √attention so
// that small weights stay visible (rounded to whole device pixels). head
// < 0 averages the heads.
func (r *Scene) DrawAttention(area view.Rect, g *view.Grid, s *sim.Snapshot, head int) {
	first, n, bin := g.Columns()
	r.cols = r.cols[:0]
	var hi float32
	h0, h1 := 0, s.Heads
	if head >= 0 && head < s.Heads {
		h0, h1 = head, head+1
	}
	inv := 1 / float32(max(h1-h0, 1))
	for j := 0; j < n; j++ {
		p0 := first + j*bin
		var a colAgg
		for p := p0; p < min(p0+bin, s.Step); p++ {
			for h := h0; h < h1; h++ {
				c := s.Cell(h, p)
				a.full += c.AttnFull * inv
				a.comp += c.Attn * inv
			}
		}
		hi = max(hi, a.full, a.comp)
		r.cols = append(r.cols, a)
	}
	gap := 2.0
	rowH := (area.H - gap) / 2
	rows := int(math.Round(rowH))
	if hi <= 0 || n <= 0 || rows <= 0 {
		r.Rect(area.X, area.Y, area.W, rowH, view.Panel)
		r.Rect(area.X, area.Y+rowH+gap, area.W, rowH, view.Panel)
		return
	}
	scale := 1 / math.Sqrt(float64(hi))
	by, pix := r.block(n, 2*rows)
	pr, pg, pb := view.Panel.RGB8()
	for half, col := range [2]view.RGBA{view.AttnFull, view.AttnCompressed} {
		cr, cg, cb := col.RGB8()
		for j, a := range r.cols {
			v := a.full
			if half == 1 {
				v = a.comp
			}
			top := rows - int(math.Round(math.Sqrt(float64(v))*scale*float64(rows)))
			for t := 0; t < rows; t++ {
				o := 4 * ((half*rows+t)*n + j)
				if t >= top {
					pix[o], pix[o+1], pix[o+2] = cr, cg, cb
				} else {
					pix[o], pix[o+1], pix[o+2] = pr, pg, pb
				}
				pix[o+3] = 255
			}
		}
	}
	r.columns(g, by, 0, rows, area.Y, rowH, view.Panel)
	r.columns(g, by, rows, rows, area.Y+rowH+gap, rowH, view.Panel)
}

// DrawOverview queues the overview strip of s in grid ov (one row, every
// position of the run): per column the dominant cell over all heads, so
// sinks, heavy hitters and the evicted stretch of the whole run show at
// once, and a frame around the span [lensX0, lensX1) the map shows.
func (r *Scene) DrawOverview(ov *view.Grid, s *sim.Snapshot, lensX0, lensX1 float64) {
	first, n, bin := ov.Columns()
	if n > 0 && s.Heads > 0 {
		by, pix := r.block(n, 1)
		for j := 0; j < n; j++ {
			p0 := first + j*bin
			c := view.FutureCell
			if p0 < s.Step {
				best := s.Cell(0, p0)
				for p := p0; p < min(p0+bin, s.Step); p++ {
					for h := 0; h < s.Heads; h++ {
						if c := s.Cell(h, p); view.Dominates(c, best) {
							best = c
						}
					}
				}
				c = view.CellColor(best, s.Step)
			}
			o := 4 * j
			pix[o], pix[o+1], pix[o+2] = c.RGB8()
			pix[o+3] = 255
		}
		r.columns(ov, by, 0, 1, ov.Area.Y, ov.Area.H, view.FutureCell)
	} else {
		r.Rect(ov.Area.X, ov.Area.Y, ov.Area.W, ov.Area.H, view.FutureCell)
	}
	if lensX1 > lensX0 {
		r.Frame(lensX0, ov.Area.Y, lensX1-lensX0, ov.Area.H, math.Max(1, math.Floor(ov.Area.H/8)), view.RGBA{R: 1, G: 1, B: 1, A: 0.9})
	}
}

// Rasterize draws the scene onto dst in software, in order, as the page's
// WebGL draws it: a quad covers the pixels whose centres lie inside it,
// samples its texels (or white) at the nearest texel, multiplies them by
// its colour (straight alpha, premultiplied before use, as Ebiten's
// default colour scale mode does) and blends source-over onto dst, whose
// pixels are premultiplied (image.RGBA's convention). Pixels outside dst
// are skipped. Once its buffers have grown, it allocates nothing.
func (r *Scene) Rasterize(dst *image.RGBA) {
	b := dst.Rect
	for _, q := range r.Quads {
		if q.W <= 0 || q.H <= 0 {
			continue
		}
		x0, y0 := float64(q.X), float64(q.Y)
		x1, y1 := x0+float64(q.W), y0+float64(q.H)
		px0 := max(int(math.Ceil(x0-0.5)), b.Min.X)
		px1 := min(int(math.Ceil(x1-0.5)), b.Max.X)
		py0 := max(int(math.Ceil(y0-0.5)), b.Min.Y)
		py1 := min(int(math.Ceil(y1-0.5)), b.Max.Y)
		if px0 >= px1 || py0 >= py1 {
			continue
		}
		ca := float64(q.C.A)
		c3 := [3]float64{float64(q.C.R) * ca, float64(q.C.G) * ca, float64(q.C.B) * ca}
		keep := 1 - ca
		// The quad's pixels are functions of a texel's channel (white for
		// an untextured quad: 255) and, when it is translucent, of the
		// pixel below: tabulate both once per quad.
		l := &r.lut
		for ch := range 3 {
			for v := range 256 {
				o := float64(v) / 255 * c3[ch]
				l.src[ch][v], l.opaque[ch][v] = o, to8(o)
			}
		}
		a8 := to8(ca)
		if keep != 0 {
			for v := range 256 {
				l.below[v] = float64(v) / 255 * keep
			}
		}
		// A textured quad samples the same texel column at every row: find
		// each pixel column's texel once.
		cols := r.rcols[:0]
		if q.Tex {
			for px := px0; px < px1; px++ {
				u := float64(q.SX) + (float64(px)+0.5-x0)/(x1-x0)*float64(q.SW)
				cols = append(cols, int(math.Floor(u)))
			}
			r.rcols = cols
		}
		for py := py0; py < py1; py++ {
			var bl *Block
			rowOff := 0
			if q.Tex {
				v := float64(q.SY) + (float64(py)+0.5-y0)/(y1-y0)*float64(q.SH)
				if bl = r.blockAt(int(math.Floor(v))); bl != nil {
					rowOff = bl.Off + 4*(int(math.Floor(v))-bl.Y)*bl.W
				}
			}
			o := dst.PixOffset(px0, py)
			for i := range px1 - px0 {
				// Texels are opaque; outside every block they are black.
				sr, sg, sb := 255, 255, 255
				if q.Tex {
					sr, sg, sb = 0, 0, 0
					if c := cols[i]; bl != nil && c >= 0 && c < bl.W {
						t := rowOff + 4*c
						sr, sg, sb = int(r.Pix[t]), int(r.Pix[t+1]), int(r.Pix[t+2])
					}
				}
				p := dst.Pix[o : o+4 : o+4]
				o += 4
				if keep == 0 {
					p[0], p[1], p[2], p[3] = l.opaque[0][sr], l.opaque[1][sg], l.opaque[2][sb], a8
					continue
				}
				// The source's alpha is the colour's.
				p[0] = to8(l.src[0][sr] + l.below[p[0]])
				p[1] = to8(l.src[1][sg] + l.below[p[1]])
				p[2] = to8(l.src[2][sb] + l.below[p[2]])
				p[3] = to8(ca + l.below[p[3]])
			}
		}
	}
}

// blockAt returns the block holding texel row y, or nil.
func (r *Scene) blockAt(y int) *Block {
	for i := range r.Blocks {
		if bl := &r.Blocks[i]; y >= bl.Y && y < bl.Y+bl.H {
			return bl
		}
	}
	return nil
}

func to8(v float64) uint8 {
	return uint8(math.Round(min(max(v, 0), 1) * 255))
}
