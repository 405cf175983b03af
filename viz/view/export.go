package view

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kvscope/kvscope/core/sim"
)

// SweepCSV writes the chart's rows (JSON: an array of the sweep worker's
// rows, as the chart holds them, see sim.Row) as the CSV kvscope -sweep
// writes (sim.WriteCSV), so the columns are described once. Rows are
// grouped by storage in the order each storage first appears (a chart
// keeps the storages tried before), each group in its sweep's order
// (Index). The real model's columns are written when the rows carry them
// (a perplexity). It returns an error for JSON that is not such an array.
func SweepCSV(w io.Writer, rowsJSON []byte) error {
	d := json.NewDecoder(bytes.NewReader(rowsJSON))
	d.DisallowUnknownFields()
	var rows []sim.Row
	if err := d.Decode(&rows); err != nil {
		return fmt.Errorf("view: chart rows: %w", err)
	}
	first := map[string]int{}
	storage := func(r *sim.Row) string { return fmt.Sprint(r.Bits, r.Granularity) }
	model := false
	for i := range rows {
		if _, ok := first[storage(&rows[i])]; !ok {
			first[storage(&rows[i])] = len(first)
		}
		model = model || rows[i].PPLFull > 0
	}
	slices.SortStableFunc(rows, func(a, b sim.Row) int {
		if d := first[storage(&a)] - first[storage(&b)]; d != 0 {
			return d
		}
		return a.Index - b.Index
	})
	return sim.WriteCSV(w, rows, model)
}

// Caption names the settings of a figure taken from the page (an exported
// chart, map or heatmap): the stream and configuration A, as ps (the
// page's numbers) and st (its state) say them.
func Caption(ps *PageState, st *State) string {
	var b strings.Builder
	b.WriteString("kvscope · ")
	c := &st.A
	if st.ModelMode() {
		name := ps.Model.Name
		if name == "" {
			name = "real model"
		}
		fmt.Fprintf(&b, "%s, prompt %q, %d tokens", name, st.Text, st.MaxTok)
	} else {
		layers := "layers"
		if c.Layers == 1 {
			layers = "layer"
		}
		fmt.Fprintf(&b, "synthetic stream seed %d, %d tokens (prompt %d), %d %s, %d query / %d KV heads, head dim %d",
			c.Seed, c.Tokens, c.Prompt, c.Layers, layers, c.Heads, c.KVHeads, c.HeadDim)
	}
	if len(ps.Sides) > 0 && ps.Sides[0].Name != "" {
		b.WriteString(" · ")
		b.WriteString(ps.Sides[0].Name)
	}
	fmt.Fprintf(&b, " · step %d", ps.Step)
	return b.String()
}
