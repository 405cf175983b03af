package main

import (
	"fmt"
	"io"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/sim"
)

// printSinks prints Gu et al.'s sink metric (position 0's attention
// importance per layer × head, sink heads above 0.3) in one line per
// layer after a summary line, sink heads marked *; what says where it
// was measured.
func printSinks(w io.Writer, s *sim.Sinks, what string) {
	if s == nil {
		fmt.Fprintf(w, "Sink heads (%s): reference off (-ref 0)\n", what)
		return
	}
	fmt.Fprintf(w, "Sink heads (%s; Gu et al., position-0 importance > %.1f): %v\n", what, sim.SinkThreshold, s)
	for l := range s.Layers {
		line := fmt.Appendf(nil, "  layer %d:", l)
		for h := range s.Heads {
			line = fmt.Appendf(line, " %.3f", s.At(l, h))
			if s.IsSink(l, h) {
				line = append(line, '*')
			}
		}
		fmt.Fprintf(w, "%s\n", line)
	}
}

// printModelSinks prints the sink metric of the model run r (over the
// whole run) and of m over the run's first sim.SinkPrompt tokens, as Gu
// et al. measure it.
func printModelSinks(w io.Writer, m *model.Model, r *sim.ModelRun) error {
	full, _ := r.Tokens()
	s, err := sim.ModelSinks(m, full[:min(len(full), sim.SinkPrompt)])
	if err != nil {
		return err
	}
	printSinks(w, s, fmt.Sprintf("first %d tokens of the uncompressed text", s.Tokens))
	printSinks(w, r.Sinks(), "uncompressed cache over the compressed run")
	return nil
}
