//go:build js && wasm

package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/viz/view"
)

// tooltip shows the hovered cell's details beside the pointer.
func (a *app) tooltip() {
	h := &a.hover
	tip := a.pg.tooltip
	if !h.valid || h.side >= a.active() || a.sides[h.side].snap == nil {
		if a.pg.tipLast != "" {
			tip.Set("hidden", true)
			a.pg.tipLast = ""
		}
		return
	}
	s := a.sides[h.side].snap
	if h.head >= s.Heads || h.pos >= s.Step {
		return
	}
	var b strings.Builder
	if h.head < 0 {
		a.attnTip(&b, s, h.pos)
		a.showTip(b.String())
		return
	}
	c := s.Cell(h.head, h.pos)
	fmt.Fprintf(&b, "head %d · position %d", h.head, h.pos)
	if h.pos < s.Prompt {
		b.WriteString(" (prompt)")
	}
	if h.pos < len(s.Tokens) {
		if t := view.TokenText(s.Tokens[h.pos], false); t != "" {
			fmt.Fprintf(&b, " · token %q", t)
		} else {
			fmt.Fprintf(&b, " · %s", s.Tokens[h.pos])
		}
	}
	fmt.Fprintf(&b, "\nrole: %s", c.Role)
	if c.Role == sim.Evicted && c.EvictedAt >= 0 {
		fmt.Fprintf(&b, " at step %d (%d steps ago)", c.EvictedAt, s.Step-int(c.EvictedAt))
	}
	if c.Role != sim.Evicted && c.Role != sim.Future && int(c.Storage) < len(view.StorageNames) {
		fmt.Fprintf(&b, "\nstored: %s", view.StorageNames[c.Storage])
	}
	fmt.Fprintf(&b, "\naccumulated score: %s", view.Sig(float64(c.Score), 3))
	if a.st.ModelMode() && a.st.Repos {
		// Re-positioned keys see other positions than the full history's:
		// the two attentions are not compared.
		fmt.Fprintf(&b, "\nattention now: %s through the cache", view.Percent(float64(c.Attn)))
	} else {
		fmt.Fprintf(&b, "\nattention now: %s through the cache, %s over the full history", view.Percent(float64(c.Attn)), view.Percent(float64(c.AttnFull)))
	}
	fmt.Fprintf(&b, "\nkey quantization error: %s", view.Percent(float64(c.KErr)))
	a.showTip(b.String())
}

// attnTip describes the attention rows' column at position pos: the
// newest query's weight on it, averaged over heads, over the full history
// and through the compressed cache.
func (a *app) attnTip(b *strings.Builder, s *sim.Snapshot, pos int) {
	fmt.Fprintf(b, "position %d", pos)
	if pos < s.Prompt {
		b.WriteString(" (prompt)")
	}
	if pos < len(s.Tokens) {
		if t := view.TokenText(s.Tokens[pos], false); t != "" {
			fmt.Fprintf(b, " · token %q", t)
		}
	}
	var full, comp float64
	kept := 0
	for hd := 0; hd < s.Heads; hd++ {
		c := s.Cell(hd, pos)
		full += float64(c.AttnFull)
		comp += float64(c.Attn)
		if c.Role != sim.Evicted && c.Role != sim.Future {
			kept++
		}
	}
	n := float64(max(s.Heads, 1))
	fmt.Fprintf(b, "\nattention of the newest query, mean over %d heads:", s.Heads)
	if a.st.ModelMode() && a.st.Repos {
		fmt.Fprintf(b, "\n  through the cache %s", view.Percent(comp/n))
	} else {
		fmt.Fprintf(b, "\n  over the full history %s\n  through the cache %s", view.Percent(full/n), view.Percent(comp/n))
	}
	fmt.Fprintf(b, "\ncached by %d of %d heads", kept, s.Heads)
}

// showTip writes the tooltip's text and places it beside the pointer.
func (a *app) showTip(str string) {
	h := &a.hover
	tip := a.pg.tooltip
	if str != a.pg.tipLast {
		tip.Set("textContent", str)
		tip.Set("hidden", false)
		a.pg.tipLast = str
	}
	vw := window.Get("innerWidth").Float()
	x, y := h.x+14, h.y+14
	if x+300 > vw {
		x = h.x - 314
	}
	st := tip.Get("style")
	st.Set("left", strconv.Itoa(int(x))+"px")
	st.Set("top", strconv.Itoa(int(y))+"px")
}
