// Package viz draws kvscope's pictures with Ebiten: the token map, the
// current query's attention, memory bars and metric sparklines, each into
// a rectangle of the screen given in device pixels. Text lives in the page
// (DOM), not here. All shapes of a frame go into one vertex buffer drawn
// from one white source image, so the whole frame batches into a few draw
// calls; buffers are kept between frames, so a steady-state frame allocates
// nothing.
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

// Renderer accumulates filled rectangles and draws them at Flush.
// It is not safe for concurrent use.
type Renderer struct {
	white *ebiten.Image
	verts []ebiten.Vertex
	idx   []uint16
	op    ebiten.DrawTrianglesOptions

	cols  []colAgg  // per drawn column of the map: attention aggregates
	spark []float32 // sparkline scratch
}

type colAgg struct{ full, comp float32 }

// NewRenderer returns a renderer with buffers for a typical frame; they
// grow when a frame needs more and are then reused.
func NewRenderer() *Renderer {
	img := ebiten.NewImage(3, 3)
	img.Fill(image.White.C)
	r := &Renderer{
		white: img.SubImage(image.Rect(1, 1, 2, 2)).(*ebiten.Image),
		verts: make([]ebiten.Vertex, 0, 4*8192),
		idx:   make([]uint16, 0, 6*quadsPerCall),
		cols:  make([]colAgg, 0, 4096),
		spark: make([]float32, 0, 2048),
	}
	for q := 0; q < quadsPerCall; q++ {
		b := uint16(4 * q)
		r.idx = append(r.idx, b, b+1, b+2, b+1, b+3, b+2)
	}
	return r
}

// Rect queues a filled rectangle (device px). Empty rectangles are skipped.
func (r *Renderer) Rect(x, y, w, h float64, c view.RGBA) {
	if w <= 0 || h <= 0 || c.A <= 0 {
		return
	}
	x0, y0, x1, y1 := float32(x), float32(y), float32(x+w), float32(y+h)
	r.verts = append(r.verts,
		ebiten.Vertex{DstX: x0, DstY: y0, SrcX: 1, SrcY: 1, ColorR: c.R, ColorG: c.G, ColorB: c.B, ColorA: c.A},
		ebiten.Vertex{DstX: x1, DstY: y0, SrcX: 2, SrcY: 1, ColorR: c.R, ColorG: c.G, ColorB: c.B, ColorA: c.A},
		ebiten.Vertex{DstX: x0, DstY: y1, SrcX: 1, SrcY: 2, ColorR: c.R, ColorG: c.G, ColorB: c.B, ColorA: c.A},
		ebiten.Vertex{DstX: x1, DstY: y1, SrcX: 2, SrcY: 2, ColorR: c.R, ColorG: c.G, ColorB: c.B, ColorA: c.A},
	)
}

// Frame outlines a rectangle with lines of width t.
func (r *Renderer) Frame(x, y, w, h, t float64, c view.RGBA) {
	r.Rect(x, y, w, t, c)
	r.Rect(x, y+h-t, w, t, c)
	r.Rect(x, y+t, t, h-2*t, c)
	r.Rect(x+w-t, y+t, t, h-2*t, c)
}

// Flush draws every queued rectangle onto dst, in order, and empties the queue.
func (r *Renderer) Flush(dst *ebiten.Image) {
	for start := 0; start < len(r.verts); start += 4 * quadsPerCall {
		end := min(len(r.verts), start+4*quadsPerCall)
		dst.DrawTriangles(r.verts[start:end], r.idx[:(end-start)/4*6], r.white, &r.op)
	}
	r.verts = r.verts[:0]
}

// Hover is the cell under the pointer; Head < 0 when there is none.
type Hover struct{ Head, Pos int }

// DrawMap queues the token map of s in grid g: one rectangle per visible
// (head, column), coloured by view.CellColor (columns that stand for
// several tokens take the dominant cell, view.Dominates), a marker on the
// prompt's end and on the newest token, and an outline on the hovered cell.
func (r *Renderer) DrawMap(g *view.Grid, s *sim.Snapshot, hover Hover) {
	r.Rect(g.Area.X, g.Area.Y, g.Area.W, g.CellH*float64(g.Heads), view.FutureCell)
	first, n, bin := g.Columns()
	rowH := g.CellH - g.GapY
	for j := 0; j < n; j++ {
		p0 := first + j*bin
		x, w := g.ColumnX(p0)
		w -= g.GapX
		if w <= 0 {
			continue
		}
		p1 := min(p0+bin, s.Step)
		for h := 0; h < g.Heads && h < s.Heads; h++ {
			best := s.Cell(h, p0)
			for p := p0 + 1; p < p1; p++ {
				if c := s.Cell(h, p); view.Dominates(c, best) {
					best = c
				}
			}
			if best.Role == sim.Future {
				continue
			}
			r.Rect(x, g.RowY(h), w, rowH, view.CellColor(best, s.Step))
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
// that small weights stay visible. head < 0 averages the heads.
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
	r.Rect(area.X, area.Y, area.W, rowH, view.Panel)
	r.Rect(area.X, area.Y+rowH+gap, area.W, rowH, view.Panel)
	if hi <= 0 {
		return
	}
	scale := 1 / math.Sqrt(float64(hi))
	for j, a := range r.cols {
		x, w := g.ColumnX(first + j*bin)
		w -= g.GapX
		if w <= 0 {
			continue
		}
		hf := math.Sqrt(float64(a.full)) * scale * rowH
		hc := math.Sqrt(float64(a.comp)) * scale * rowH
		r.Rect(x, area.Y+rowH-hf, w, hf, view.AttnFull)
		r.Rect(x, area.Y+2*rowH+gap-hc, w, hc, view.AttnCompressed)
	}
}

// DrawMemory queues the three memory bars in area, one per row, widths in
// proportion to bytes with scaleBytes spanning the full width.
func (r *Renderer) DrawMemory(area view.Rect, bars *[3]view.Bar, scaleBytes int64) {
	if scaleBytes <= 0 {
		return
	}
	gap := math.Max(2, area.H*0.12)
	rowH := (area.H - 2*gap) / 3
	for i := range bars {
		y := area.Y + float64(i)*(rowH+gap)
		r.Rect(area.X, y, area.W, rowH, view.Panel)
		x := area.X
		b := &bars[i]
		for k := 0; k < b.N; k++ {
			w := area.W * float64(b.Segs[k].Bytes) / float64(scaleBytes)
			// Keep a tiny but real slice visible.
			w = math.Max(w, 1)
			r.Rect(x, y, w, rowH, view.SegColors[b.Segs[k].Kind])
			x += w
		}
	}
}

// DrawSpark queues a sparkline of metric k: one bar per column of about
// 2 device px, heights scaled by view.Spark with the given floor; the
// newest column is highlighted. It returns the value the full height stands for.
func (r *Renderer) DrawSpark(area view.Rect, hist []sim.Metrics, k view.Metric, c view.RGBA, floor float64) float64 {
	r.Rect(area.X, area.Y, area.W, area.H, view.Panel)
	cols := max(1, int(area.W/2))
	if cap(r.spark) < cols {
		r.spark = make([]float32, cols)
	}
	hs, hi := view.Spark(r.spark[:cols], hist, k, floor)
	r.sparkBars(area, hs, c)
	return hi
}

// DrawSparkValues is DrawSpark for a plain series (the real model's
// next-token KL per step), scaled by view.SparkValues.
func (r *Renderer) DrawSparkValues(area view.Rect, vals []float64, c view.RGBA, floor float64) float64 {
	r.Rect(area.X, area.Y, area.W, area.H, view.Panel)
	cols := max(1, int(area.W/2))
	if cap(r.spark) < cols {
		r.spark = make([]float32, cols)
	}
	hs, hi := view.SparkValues(r.spark[:cols], vals, floor)
	r.sparkBars(area, hs, c)
	return hi
}

// sparkBars queues one bar per height in [0, 1], the last one brighter.
func (r *Renderer) sparkBars(area view.Rect, hs []float32, c view.RGBA) {
	if len(hs) == 0 {
		return
	}
	w := area.W / float64(len(hs))
	for i, v := range hs {
		h := float64(v) * area.H
		col := c
		if i != len(hs)-1 {
			col.A = 0.7
		}
		r.Rect(area.X+float64(i)*w, area.Y+area.H-h, math.Max(w-0.5, 0.5), h, col)
	}
}
