package main

import (
	"errors"
	"math"
	"testing"

	"github.com/kvscope/kvscope/viz/view"
)

// laptop is the page's geometry at 1400×1000: the holes' rectangles the
// page measures before its program runs.
var laptop = firstRequest{
	Scale: 1, Box: view.Rect{X: 290, Y: 110, W: 764, H: 390},
	Map:       view.Rect{X: 294, Y: 132.8, W: 756, H: 288},
	Overview:  view.Rect{X: 294, Y: 114.8, W: 756, H: 14},
	Attention: view.Rect{X: 294, Y: 439.8, W: 756, H: 56},
}

// The worker draws the prompt's end, where the page's first frame is, for
// links across policies, storage, a reference stride and pixel densities.
// (That it is the page's own first frame, pixel for pixel, the browser
// test TestFirstPictureIsTheMap shows.)
func TestFirstFrameIsThePromptsEnd(t *testing.T) {
	for _, link := range []string{
		"",
		"policy=window&recent=8",
		"policy=streaming&sink=4&recent=12",
		"policy=seed000&bits=4&gran=channel",
		"policy=snapkv&bits=2&gran=kivi&residual=8",
		"policy=h2o&rank=4&heads=4&kvheads=2",
		"prompt=40&tokens=200&policy=tova",
		"ref=4&prompt=20",
		"ref=0",
		"prompt=64&tokens=80",
	} {
		for _, scale := range []float64{1, 2} {
			r := laptop
			r.Link, r.Scale = link, scale
			pic, step, err := firstFrame(r)
			box := r.Box
			if err != nil {
				t.Fatalf("%q: %v", link, err)
			}
			st, _ := view.Decode(link)
			if want := min(st.A.Prompt, st.A.Tokens); step != want {
				t.Errorf("%q: drew step %d, want the prompt's end %d", link, step, want)
			}
			if w, h := pic.Rect.Dx(), pic.Rect.Dy(); w != int(box.W*scale) || h != int(box.H*scale) {
				t.Errorf("%q: picture %d×%d for a box of %v at scale %g", link, w, h, box, scale)
			}
			// The map's first cell is drawn; the margin around the holes is not.
			m := r.Map
			x, y := int((m.X-box.X+2)*scale), int((m.Y-box.Y+2)*scale)
			if a := pic.RGBAAt(x, y).A; a != 255 {
				t.Errorf("%q: the map's first column is not drawn (alpha %d)", link, a)
			}
			if a := pic.RGBAAt(0, 0).A; a != 0 {
				t.Errorf("%q: the margin is drawn on (alpha %d)", link, a)
			}
		}
	}
}

// Links the page's program starts itself get no picture from the worker,
// and a box no canvas can have is refused.
func TestFirstFrameLeavesToTheProgram(t *testing.T) {
	for _, link := range []string{"mode=model", "cmp=1", "tokens=abc", "sink=-3", "policy=nonesuch"} {
		r := laptop
		r.Link = link
		if _, _, err := firstFrame(r); !errors.Is(err, errNoFirstFrame) {
			t.Errorf("%q: %v, want errNoFirstFrame", link, err)
		}
	}
	for _, box := range []view.Rect{{}, {W: 0.5, H: 10}, {W: 1e5, H: 1e5}, {W: math.NaN(), H: 3}} {
		r := laptop
		r.Box = box
		if _, _, err := firstFrame(r); err == nil {
			t.Errorf("box %v: no error", box)
		}
	}
}

// BenchmarkFirstFrame is the worker's work for the page's first picture
// at 1400×1000 (natively; in the page it runs as freshly compiled
// WebAssembly, several times slower).
func BenchmarkFirstFrame(b *testing.B) {
	for b.Loop() {
		if _, _, err := firstFrame(laptop); err != nil {
			b.Fatal(err)
		}
	}
}
