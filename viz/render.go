// Package viz draws kvscope's pictures with Ebiten: the token map and the
// current query's attention, each into a rectangle of the screen given in
// device pixels, built as a scene (package scene) and drawn as a few
// textured quads. Text and the small pictures (memory bars, sparklines)
// live in the page (DOM), not here.
//
// The shapes are kept until Reset, so a frame can be drawn again (onto a
// cleared screen) without rebuilding it, and buffers are reused, so a
// steady-state frame allocates nothing.
package viz

import (
	"image"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/kvscope/kvscope/viz/scene"
)

// quadsPerCall keeps vertex indices within uint16.
const quadsPerCall = 16000

// Renderer is a scene (its Draw and Rect methods queue shapes) that Flush
// draws with Ebiten. It is not safe for concurrent use.
type Renderer struct {
	*scene.Scene

	white *ebiten.Image
	verts []ebiten.Vertex
	idx   []uint16
	op    ebiten.DrawTrianglesOptions
	runs  []run // consecutive quads with one source, in drawing order

	tex      *ebiten.Image // the scene's texels
	uploaded int           // texel bytes of the scene already in tex; -1 none
	built    int           // quads of the scene already in verts; -1 none
}

// run is a range of vertices drawn from one source: the white pixel or the
// scene's texture.
type run struct {
	tex        bool
	start, end int // vertex indices
}

// Hover is the cell under the pointer; Head < 0 when there is none.
type Hover = scene.Hover

// Target is what a Renderer draws onto: an *ebiten.Image or the
// ebiten.FinalScreen of a game that implements ebiten.FinalScreenDrawer.
type Target interface {
	DrawTriangles(vertices []ebiten.Vertex, indices []uint16, img *ebiten.Image, options *ebiten.DrawTrianglesOptions)
}

// NewRenderer returns a renderer with buffers for a typical frame; they
// grow when a frame needs more and are then reused.
func NewRenderer() *Renderer {
	img := ebiten.NewImage(3, 3)
	img.Fill(image.White.C)
	r := &Renderer{
		Scene:    scene.New(),
		white:    img.SubImage(image.Rect(1, 1, 2, 2)).(*ebiten.Image),
		verts:    make([]ebiten.Vertex, 0, 4*1024),
		idx:      make([]uint16, 0, 6*quadsPerCall),
		runs:     make([]run, 0, 16),
		uploaded: -1,
		built:    -1,
	}
	for q := 0; q < quadsPerCall; q++ {
		b := uint16(4 * q)
		r.idx = append(r.idx, b, b+1, b+2, b+1, b+3, b+2)
	}
	return r
}

// Reset empties the scene, keeping its memory.
func (r *Renderer) Reset() {
	r.Scene.Reset()
	r.uploaded, r.built = -1, -1
}

// upload writes the scene's blocks into the texture, growing it when
// needed.
func (r *Renderer) upload() {
	s := r.Scene
	if r.uploaded == len(s.Pix) || len(s.Blocks) == 0 {
		r.uploaded = len(s.Pix)
		return
	}
	w := 1
	for _, b := range s.Blocks {
		w = max(w, b.W)
	}
	if r.tex == nil || r.tex.Bounds().Dx() < w || r.tex.Bounds().Dy() < s.TexH {
		tw, th := 256, 64
		if r.tex != nil {
			tw, th = r.tex.Bounds().Dx(), r.tex.Bounds().Dy()
			r.tex.Deallocate()
		}
		for tw < w {
			tw *= 2
		}
		for th < s.TexH {
			th *= 2
		}
		r.tex = ebiten.NewImageWithOptions(image.Rect(0, 0, tw, th), &ebiten.NewImageOptions{Unmanaged: true})
	}
	for _, b := range s.Blocks {
		r.tex.SubImage(image.Rect(0, b.Y, b.W, b.Y+b.H)).(*ebiten.Image).WritePixels(s.Pix[b.Off : b.Off+4*b.W*b.H])
	}
	r.uploaded = len(s.Pix)
}

// Flush draws the scene onto dst, in order. The scene is kept, so the same
// frame can be drawn again (from the same vertices); Reset empties it.
func (r *Renderer) Flush(dst Target) {
	r.upload()
	if r.built != len(r.Quads) {
		r.build()
	}
	for _, ru := range r.runs {
		src := r.white
		if ru.tex {
			src = r.tex
		}
		n := ru.end - ru.start
		dst.DrawTriangles(r.verts[ru.start:ru.end], r.idx[:n/4*6], src, &r.op)
	}
}

// build turns the scene's quads into vertices, in runs of one source.
func (r *Renderer) build() {
	r.verts, r.runs = r.verts[:0], r.runs[:0]
	for _, q := range r.Quads {
		n := len(r.runs)
		if n == 0 || r.runs[n-1].tex != q.Tex || r.runs[n-1].end-r.runs[n-1].start >= 4*quadsPerCall {
			r.runs = append(r.runs, run{tex: q.Tex, start: len(r.verts)})
		}
		s0, t0, s1, t1 := float32(1), float32(1), float32(2), float32(2) // the white pixel
		if q.Tex {
			s0, t0, s1, t1 = q.SX, q.SY, q.SX+q.SW, q.SY+q.SH
		}
		x0, y0, x1, y1 := q.X, q.Y, q.X+q.W, q.Y+q.H
		c := q.C
		r.verts = append(r.verts,
			ebiten.Vertex{DstX: x0, DstY: y0, SrcX: s0, SrcY: t0, ColorR: c.R, ColorG: c.G, ColorB: c.B, ColorA: c.A},
			ebiten.Vertex{DstX: x1, DstY: y0, SrcX: s1, SrcY: t0, ColorR: c.R, ColorG: c.G, ColorB: c.B, ColorA: c.A},
			ebiten.Vertex{DstX: x0, DstY: y1, SrcX: s0, SrcY: t1, ColorR: c.R, ColorG: c.G, ColorB: c.B, ColorA: c.A},
			ebiten.Vertex{DstX: x1, DstY: y1, SrcX: s1, SrcY: t1, ColorR: c.R, ColorG: c.G, ColorB: c.B, ColorA: c.A},
		)
		r.runs[len(r.runs)-1].end = len(r.verts)
	}
	r.built = len(r.Quads)
}
