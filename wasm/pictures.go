//go:build js && wasm

package main

import (
	"fmt"
	"strconv"
	"strings"
	"syscall/js"

	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/viz/view"
)

// The small pictures — memory bars and sparklines — are DOM (spans and
// SVG paths), so Ebiten's canvas need only cover the token maps (see
// canvas.go). They are rewritten with the numbers, a few times a second
// while playing.

// Sparkline geometry, in the SVG's user units (CSS px: the holes' sizes
// in static/style.css); one column per 2 px.
const (
	sparkW, sparkH     = 64, 22
	klSparkW, klSparkH = 160, 22
)

// spark is one sparkline: an SVG with a path for the older bars and one
// for the newest.
type spark struct {
	older, newest js.Value
	w, h          float64
	last          string
}

// newSpark fills the element id with an empty w×h sparkline in colour c.
func newSpark(id string, w, h float64, c view.RGBA) *spark {
	el := byID(id)
	if !el.Truthy() {
		return &spark{w: w, h: h}
	}
	el.Set("innerHTML", fmt.Sprintf(`<svg viewBox="0 0 %g %g" preserveAspectRatio="none" aria-hidden="true">`+
		`<path fill="%s" fill-opacity="0.7"/><path fill="%s"/></svg>`, w, h, c.Hex(), c.Hex()))
	ps := el.Call("querySelectorAll", "path")
	return &spark{older: ps.Index(0), newest: ps.Index(1), w: w, h: h}
}

// set draws heights hs (in [0, 1]); nothing is written when they draw the same.
func (s *spark) set(hs []float32) {
	older, newest := view.SparkPaths(hs, s.w, s.h)
	if key := older + "|" + newest; key != s.last && s.older.Truthy() {
		s.older.Call("setAttribute", "d", older)
		s.newest.Call("setAttribute", "d", newest)
		s.last = key
	}
}

// memBars is one side's three memory bars: a row of segment spans each.
type memBars struct {
	segs [3][view.MaxSegs]js.Value
	last string
}

func newMemBars(id string) *memBars {
	m := &memBars{}
	el := byID(id)
	if !el.Truthy() {
		return m
	}
	var b strings.Builder
	for range 3 {
		b.WriteString(`<div class="bar">`)
		for range view.MaxSegs {
			b.WriteString(`<i hidden></i>`)
		}
		b.WriteString(`</div>`)
	}
	el.Set("innerHTML", b.String())
	rows := el.Get("children")
	for i := range m.segs {
		for k := range m.segs[i] {
			m.segs[i][k] = rows.Index(i).Get("children").Index(k)
		}
	}
	return m
}

// set shows bars with scaleBytes spanning the full width.
func (m *memBars) set(bars *[3]view.Bar, scaleBytes int64) {
	if scaleBytes <= 0 || !m.segs[0][0].Truthy() {
		return
	}
	var key strings.Builder
	var pct [3][view.MaxSegs]string
	for i := range bars {
		for k := 0; k < bars[i].N; k++ {
			pct[i][k] = strconv.FormatFloat(100*float64(bars[i].Segs[k].Bytes)/float64(scaleBytes), 'f', 2, 64) + "%"
			fmt.Fprintf(&key, "%d:%s,", bars[i].Segs[k].Kind, pct[i][k])
		}
		key.WriteByte('|')
	}
	if key.String() == m.last {
		return
	}
	m.last = key.String()
	for i := range bars {
		for k, el := range m.segs[i] {
			if k >= bars[i].N {
				el.Set("hidden", true)
				continue
			}
			st := el.Get("style")
			st.Set("width", pct[i][k])
			st.Set("background", view.SegColors[bars[i].Segs[k].Kind].Hex())
			el.Set("hidden", false)
		}
	}
}

// nextKLScale is the next-token KL sparkline's least scale (its measure's).
var nextKLScale = func() float64 { m, _ := sim.FindMeasure("next_kl"); return m.Scale }()

// pictures holds the page's DOM pictures.
type pictures struct {
	mem    [2]*memBars
	sparks [2][]*spark // per view.Metrics
	kl     *spark
	cols   []float32 // sparkline scratch
}

// initPictures builds the memory bars and sparklines (after fillMetricRows).
func (a *app) initPictures() {
	p := &a.pg.pics
	for i := 0; i < 2; i++ {
		p.mem[i] = newMemBars("mem-" + strconv.Itoa(i))
		c := view.SparkA
		if i == 1 {
			c = view.SparkB
		}
		p.sparks[i] = make([]*spark, len(view.Metrics))
		for k := range p.sparks[i] {
			p.sparks[i][k] = newSpark(fmt.Sprintf("spark-%d-%d", i, k), sparkW, sparkH, c)
		}
	}
	p.kl = newSpark("kl-spark", klSparkW, klSparkH, view.SparkA)
	p.cols = make([]float32, klSparkW/2)
}

// writePictures redraws the memory bars and sparklines of the sides shown.
func (a *app) writePictures() {
	p := &a.pg.pics
	var maxFull int64
	for i := 0; i < a.active(); i++ {
		if s := a.sides[i].snap; s != nil {
			maxFull = max(maxFull, s.FullBytes)
		}
	}
	for i := 0; i < a.active(); i++ {
		s := a.sides[i].snap
		if s == nil {
			continue
		}
		bars := view.MemoryBars(s)
		p.mem[i].set(&bars, maxFull)
		for k, m := range view.Metrics {
			// The sparkline's scale reaches at least the measure's Scale,
			// so that tiny errors do not fill it.
			hs, _ := view.Spark(p.cols[:sparkW/2], s.History, view.Metric(k), m.Scale)
			if !a.st.Measured() {
				hs = nil // nothing measured: an empty sparkline
			}
			p.sparks[i][k].set(hs)
		}
	}
	if a.st.ModelMode() && a.active() == 1 {
		if s := a.sides[0].snap; s != nil && s.Text != nil {
			hs, _ := view.SparkValues(p.cols[:klSparkW/2], s.Text.KLHistory, nextKLScale)
			p.kl.set(hs)
		}
	}
}
