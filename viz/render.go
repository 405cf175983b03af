// Package viz draws kvscope's pictures with Ebiten: the token map and the
// current query's attention, each into a rectangle of the screen given in
// device pixels. Text and the small pictures (memory bars, sparklines) live
// in the page (DOM), not here.
//
// Software WebGL (SwiftShader, what a browser without a GPU uses) spends
// microseconds per triangle, so a frame must not draw a quad per cell: the
// map's cells and the attention bars are written as pixels of one texture,
// one texel per drawn column, and drawn as a few quads scaled over the
// columns (nearest filtering keeps the cells sharp). A frame is then a few
// dozen quads in a few draw calls whatever the history's length. The
// shapes are kept until Reset, so a frame can be drawn again (onto a
// cleared screen) without rebuilding it, and buffers are reused, so a
// steady-state frame allocates nothing.
package viz

import (
	"image"
	"math"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/viz/view"
)

// quadsPerCall keeps vertex indices within uint16.
const quadsPerCall = 16000

// Renderer accumulates filled rectangles and column pictures and draws
// them at Flush. It is not safe for concurrent use.
type Renderer struct {
	white *ebiten.Image
	verts []ebiten.Vertex
	idx   []uint16
	op    ebiten.DrawTrianglesOptions
	runs  []run // consecutive quads with one source, in drawing order

	// The frame's column pictures: blocks of texels, stacked in tex.
	tex      *ebiten.Image
	pix      []byte
	blocks   []block
	texH     int  // texel rows used by the frame
	uploaded bool // the blocks are in tex

	cols []colAgg // per drawn column of the map: attention aggregates
}

// run is a range of queued quads drawn from one source: the white pixel
// or the frame's texture.
type run struct {
	tex      bool
	end      int // index in verts after the run's last vertex
	startIdx int
}

// block is a w×h picture of texels at rows y… of the texture; its pixels
// are pix[off:off+4*w*h].
type block struct{ y, w, h, off int }

// Target is what a Renderer draws onto: an *ebiten.Image or the
// ebiten.FinalScreen of a game that implements ebiten.FinalScreenDrawer.
type Target interface {
	DrawTriangles(vertices []ebiten.Vertex, indices []uint16, img *ebiten.Image, options *ebiten.DrawTrianglesOptions)
}

type colAgg struct{ full, comp float32 }

// NewRenderer returns a renderer with buffers for a typical frame; they
// grow when a frame needs more and are then reused.
func NewRenderer() *Renderer {
	img := ebiten.NewImage(3, 3)
	img.Fill(image.White.C)
	r := &Renderer{
		white: img.SubImage(image.Rect(1, 1, 2, 2)).(*ebiten.Image),
		verts: make([]ebiten.Vertex, 0, 4*1024),
		idx:   make([]uint16, 0, 6*quadsPerCall),
		runs:  make([]run, 0, 16),
		pix:   make([]byte, 0, 4*4096*64),
		cols:  make([]colAgg, 0, 4096),
	}
	for q := 0; q < quadsPerCall; q++ {
		b := uint16(4 * q)
		r.idx = append(r.idx, b, b+1, b+2, b+1, b+3, b+2)
	}
	return r
}

// quad queues a quad from source texels (sx, sy, sw, sh) to device pixels
// (x, y, w, h), tinted by c.
func (r *Renderer) quad(tex bool, x, y, w, h, sx, sy, sw, sh float64, c view.RGBA) {
	if n := len(r.runs); n == 0 || r.runs[n-1].tex != tex || r.runs[n-1].end-r.runs[n-1].startIdx >= 4*quadsPerCall {
		r.runs = append(r.runs, run{tex: tex, startIdx: len(r.verts)})
	}
	x0, y0, x1, y1 := float32(x), float32(y), float32(x+w), float32(y+h)
	s0, t0, s1, t1 := float32(sx), float32(sy), float32(sx+sw), float32(sy+sh)
	r.verts = append(r.verts,
		ebiten.Vertex{DstX: x0, DstY: y0, SrcX: s0, SrcY: t0, ColorR: c.R, ColorG: c.G, ColorB: c.B, ColorA: c.A},
		ebiten.Vertex{DstX: x1, DstY: y0, SrcX: s1, SrcY: t0, ColorR: c.R, ColorG: c.G, ColorB: c.B, ColorA: c.A},
		ebiten.Vertex{DstX: x0, DstY: y1, SrcX: s0, SrcY: t1, ColorR: c.R, ColorG: c.G, ColorB: c.B, ColorA: c.A},
		ebiten.Vertex{DstX: x1, DstY: y1, SrcX: s1, SrcY: t1, ColorR: c.R, ColorG: c.G, ColorB: c.B, ColorA: c.A},
	)
	r.runs[len(r.runs)-1].end = len(r.verts)
}

// Rect queues a filled rectangle (device px). Empty rectangles are skipped.
func (r *Renderer) Rect(x, y, w, h float64, c view.RGBA) {
	if w <= 0 || h <= 0 || c.A <= 0 {
		return
	}
	r.quad(false, x, y, w, h, 1, 1, 1, 1, c)
}

// Frame outlines a rectangle with lines of width t.
func (r *Renderer) Frame(x, y, w, h, t float64, c view.RGBA) {
	r.Rect(x, y, w, t, c)
	r.Rect(x, y+h-t, w, t, c)
	r.Rect(x, y+t, t, h-2*t, c)
	r.Rect(x+w-t, y+t, t, h-2*t, c)
}

// block reserves a w×h picture of texels for this frame and returns its
// first texel row and its pixels (RGBA, row-major, opaque colours).
func (r *Renderer) block(w, h int) (y int, pix []byte) {
	off := len(r.pix)
	n := 4 * w * h
	if cap(r.pix)-off < n {
		grown := make([]byte, off, 2*(off+n))
		copy(grown, r.pix)
		r.pix = grown
	}
	r.pix = r.pix[:off+n]
	y = r.texH
	r.blocks = append(r.blocks, block{y: y, w: w, h: h, off: off})
	r.texH += h
	r.uploaded = false
	return y, r.pix[off : off+n]
}

// upload writes the frame's blocks into the texture, growing it when needed.
func (r *Renderer) upload() {
	if r.uploaded || len(r.blocks) == 0 {
		r.uploaded = true
		return
	}
	w := 1
	for _, b := range r.blocks {
		w = max(w, b.w)
	}
	if r.tex == nil || r.tex.Bounds().Dx() < w || r.tex.Bounds().Dy() < r.texH {
		tw, th := 256, 64
		if r.tex != nil {
			tw, th = r.tex.Bounds().Dx(), r.tex.Bounds().Dy()
			r.tex.Deallocate()
		}
		for tw < w {
			tw *= 2
		}
		for th < r.texH {
			th *= 2
		}
		r.tex = ebiten.NewImageWithOptions(image.Rect(0, 0, tw, th), &ebiten.NewImageOptions{Unmanaged: true})
	}
	for _, b := range r.blocks {
		r.tex.SubImage(image.Rect(0, b.y, b.w, b.y+b.h)).(*ebiten.Image).WritePixels(r.pix[b.off : b.off+4*b.w*b.h])
	}
	r.uploaded = true
}

// Flush draws everything queued onto dst, in order. The queue is kept,
// so the same frame can be drawn again; Reset empties it.
func (r *Renderer) Flush(dst Target) {
	r.upload()
	for _, ru := range r.runs {
		src := r.white
		if ru.tex {
			src = r.tex
		}
		n := ru.end - ru.startIdx
		dst.DrawTriangles(r.verts[ru.startIdx:ru.end], r.idx[:n/4*6], src, &r.op)
	}
}

// Reset empties the queue, keeping its memory.
func (r *Renderer) Reset() {
	r.verts, r.runs = r.verts[:0], r.runs[:0]
	r.pix, r.blocks, r.texH = r.pix[:0], r.blocks[:0], 0
	r.uploaded = false
}

// Queued reports how many quads are queued.
func (r *Renderer) Queued() int { return len(r.verts) / 4 }

// Hover is the cell under the pointer; Head < 0 when there is none.
type Hover struct{ Head, Pos int }

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
func (r *Renderer) columns(g *view.Grid, by, t0, tr int, y, h float64, gap view.RGBA) {
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
func (r *Renderer) DrawMap(g *view.Grid, s *sim.Snapshot, hover Hover) {
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
	if hover.Head >= 0 {
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
func (r *Renderer) DrawAttention(area view.Rect, g *view.Grid, s *sim.Snapshot, head int) {
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
func (r *Renderer) DrawOverview(ov *view.Grid, s *sim.Snapshot, lensX0, lensX1 float64) {
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
