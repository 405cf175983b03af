//go:build js && wasm

package main

import (
	"fmt"
	"html"
	"strings"

	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/viz/view"
)

// gridCell is one head of a head grid: its colour, tooltip and mark.
type gridCell struct{ bg, title, mark string }

// cellGrid is a head grid on the page (rows of <i> cells, then a summary
// paragraph). It is written whole when its shape changes and otherwise
// cell by cell, only where a cell changed: while a model plays the sink
// metric moves every frame, and rewriting hundreds of cells made the
// browser lay the panel out again each time.
type cellGrid struct {
	id         string
	rows, cols int
	cells      []gridCell
	sum        string
	written    bool // the grid's elements exist
}

func (g *cellGrid) write(rows, cols int, cells []gridCell, sum string) {
	el := byID(g.id)
	if !el.Truthy() {
		return
	}
	if !g.written || rows != g.rows || cols != g.cols || len(g.cells) != len(cells) {
		var b strings.Builder
		for r := 0; r < rows; r++ {
			b.WriteString(`<div class="grow">`)
			for _, c := range cells[r*cols : (r+1)*cols] {
				fmt.Fprintf(&b, `<i style="background:%s" title="%s">%s</i>`, c.bg, html.EscapeString(c.title), c.mark)
			}
			b.WriteString(`</div>`)
		}
		fmt.Fprintf(&b, `<p class="gsum">%s</p>`, html.EscapeString(sum))
		el.Set("innerHTML", b.String())
		g.rows, g.cols, g.cells, g.sum, g.written = rows, cols, append(g.cells[:0], cells...), sum, true
		return
	}
	kids := el.Get("children")
	for i, c := range cells {
		old := &g.cells[i]
		if c == *old {
			continue
		}
		cell := kids.Index(i / cols).Get("children").Index(i % cols)
		if c.bg != old.bg {
			cell.Get("style").Set("background", c.bg)
		}
		if c.title != old.title {
			cell.Set("title", c.title)
		}
		if c.mark != old.mark {
			cell.Set("textContent", c.mark)
		}
		*old = c
	}
	if sum != g.sum {
		kids.Index(rows).Set("textContent", sum)
		g.sum = sum
	}
}

// writeHeads draws two small grids beside the memory bars for side A:
// the token budget of every KV head of every layer (uneven under AdaKV,
// PyramidKV and DuoAttention; R marks Duo's retrieval heads), and the sink
// metric of every query head (Gu et al.): the attention position 0
// receives, with the share of sink heads.
func (a *app) writeHeads() {
	s := a.sides[0].snap
	if s == nil {
		return
	}
	pg := &a.pg
	layers := max(1, len(s.Budgets)/max(1, s.Heads))
	cells := pg.headCells[:0]
	sum := ""
	if len(s.Budgets) > 0 {
		lo, hi, total := s.Budgets[0], s.Budgets[0], 0
		for _, b := range s.Budgets {
			lo, hi, total = min(lo, b), max(hi, b), total+b
		}
		r, g, bl := view.RoleColor(sim.Recent).RGB8()
		for i, b := range s.Budgets[:layers*s.Heads] {
			mark, why := "", ""
			if i < len(s.Retrieval) && s.Retrieval[i] {
				mark, why = "R", " (retrieval head: the full cache)"
			}
			t := 0.15 + 0.85*float64(b)/float64(max(hi, 1))
			cells = append(cells, gridCell{fmt.Sprintf("rgba(%d,%d,%d,%.2f)", r, g, bl, t),
				fmt.Sprintf("layer %d, KV head %d: keeps up to %d tokens%s", i/s.Heads, i%s.Heads, b, why), mark})
		}
		even := "every head the same"
		if lo != hi {
			even = fmt.Sprintf("from %d to %d", lo, hi)
		}
		sum = fmt.Sprintf("%d tokens in all, %s", total, even)
	}
	if len(cells) > 0 {
		pg.budgetGrid.write(layers, s.Heads, cells, sum)
	} else {
		pg.budgetGrid.write(0, 0, nil, "")
	}
	n := len(cells)
	grid := view.SinkGridOf(s.Sinks)
	rows, cols := 0, 0
	if sn := s.Sinks; grid.Header != "" {
		sr, sg, sb := view.RoleColor(sim.Sink).RGB8()
		rows, cols = sn.Layers, sn.Heads
		for l := 0; l < sn.Layers; l++ {
			for h := 0; h < sn.Heads; h++ {
				v := sn.At(l, h)
				mark := ""
				if grid.Marked && sn.IsSink(l, h) {
					mark = "S"
				}
				cells = append(cells, gridCell{fmt.Sprintf("rgba(%d,%d,%d,%.2f)", sr, sg, sb, 0.08+0.92*min(1, v)),
					fmt.Sprintf("layer %d, query head %d: position 0 gets %s of the attention", l, h, view.Percent(v)), mark})
			}
		}
	}
	pg.sinkGrid.write(rows, cols, cells[n:], grid.Summary)
	pg.headCells = cells
	pg.sinkSum.set(grid.Header)
}
