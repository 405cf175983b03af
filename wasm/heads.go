//go:build js && wasm

package main

import (
	"fmt"
	"html"
	"strings"

	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/viz/view"
)

// headsKey is what the two head grids were last written from.
type headsKey struct {
	budgets, sinks string
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
	var bk, sk strings.Builder
	layers := max(1, len(s.Budgets)/max(1, s.Heads))
	if len(s.Budgets) > 0 {
		lo, hi, sum := s.Budgets[0], s.Budgets[0], 0
		for _, b := range s.Budgets {
			lo, hi, sum = min(lo, b), max(hi, b), sum+b
		}
		r, g, bl := view.RoleColor(sim.Recent).RGB8()
		for l := 0; l < layers; l++ {
			bk.WriteString(`<div class="grow">`)
			for h := 0; h < s.Heads; h++ {
				i := l*s.Heads + h
				b := s.Budgets[i]
				mark, why := "", ""
				if i < len(s.Retrieval) && s.Retrieval[i] {
					mark, why = "R", " (retrieval head: the full cache)"
				}
				t := 0.15 + 0.85*float64(b)/float64(max(hi, 1))
				fmt.Fprintf(&bk, `<i style="background:rgba(%d,%d,%d,%.2f)" title="layer %d, KV head %d: keeps up to %d tokens%s">%s</i>`,
					r, g, bl, t, l, h, b, why, mark)
			}
			bk.WriteString(`</div>`)
		}
		even := "every head the same"
		if lo != hi {
			even = fmt.Sprintf("from %d to %d", lo, hi)
		}
		bk.WriteString(fmt.Sprintf(`<p class="gsum">%d tokens in all, %s</p>`, sum, even))
	}
	grid := view.SinkGridOf(s.Sinks)
	if sn := s.Sinks; grid.Header != "" {
		sr, sg, sb := view.RoleColor(sim.Sink).RGB8()
		for l := 0; l < sn.Layers; l++ {
			sk.WriteString(`<div class="grow">`)
			for h := 0; h < sn.Heads; h++ {
				v := sn.At(l, h)
				mark := ""
				if grid.Marked && sn.IsSink(l, h) {
					mark = "S"
				}
				fmt.Fprintf(&sk, `<i style="background:rgba(%d,%d,%d,%.2f)" title="layer %d, query head %d: position 0 gets %s of the attention">%s</i>`,
					sr, sg, sb, 0.08+0.92*min(1, v), l, h, view.Percent(v), mark)
			}
			sk.WriteString(`</div>`)
		}
	}
	fmt.Fprintf(&sk, `<p class="gsum">%s</p>`, html.EscapeString(grid.Summary))
	key := headsKey{bk.String(), sk.String()}
	if key == a.pg.heads {
		return
	}
	a.pg.heads = key
	byID("budget-grid").Set("innerHTML", key.budgets)
	byID("sink-grid").Set("innerHTML", key.sinks)
	byID("sink-sum").Set("textContent", grid.Header)
}
