package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/kvscope/kvscope/core/sim"
)

// sweepOptions are the flags of kvscope -sweep: the memory-versus-fidelity
// sweep, printed as CSV.
type sweepOptions struct {
	on       bool
	policies string // comma-separated policy names; "" = every policy
	budgets  string // comma-separated token budgets; "" = sim.DefaultBudgets
	bits     string // comma-separated bit widths; "" = -bits
	gran     string // comma-separated granularities; "" = -granularity
	sink     int
}

// sweepFlags binds the sweep's flags to fs.
func sweepFlags(fs *flag.FlagSet, o *sweepOptions) {
	fs.BoolVar(&o.on, "sweep", false, "print the memory-versus-fidelity sweep as CSV: one row per policy × budget × storage over the stream (or -model), with stored bytes, ratio and fidelity")
	fs.StringVar(&o.policies, "sweep-policies", "", "with -sweep, comma-separated `policies` (default every policy)")
	fs.StringVar(&o.budgets, "sweep-budgets", "", "with -sweep, comma-separated token `budgets` per head (default 8 from 2% of -tokens to all of them)")
	fs.StringVar(&o.bits, "sweep-bits", "", "with -sweep, comma-separated bit `widths` to store with (default -bits), e.g. 16,8,4,2")
	fs.StringVar(&o.gran, "sweep-gran", "", "with -sweep, comma-separated `granularities` (default -granularity), e.g. token,kivi")
	fs.IntVar(&o.sink, "sweep-sink", sim.DefaultSweepSink, "with -sweep, sink tokens of the policies that keep sinks (streaming gets the rest as its window; h2o-like policies split the rest between recent and heavy)")
}

// grid reads the sweep's flags; bits and granularity default to cfg's.
func (o sweepOptions) grid(cfg sim.Config) (sim.Grid, error) {
	g := sim.Grid{Sink: o.sink}
	if o.sink < 0 {
		return g, fmt.Errorf("-sweep-sink must not be negative, got %d", o.sink)
	}
	if o.policies != "" {
		g.Policies = split(o.policies)
	}
	if o.budgets != "" {
		for _, s := range split(o.budgets) {
			b, err := strconv.Atoi(s)
			if err != nil || b < 1 {
				return g, fmt.Errorf("-sweep-budgets: %q is not a budget of at least 1 token", s)
			}
			g.Budgets = append(g.Budgets, b)
		}
	}
	bits := []int{cfg.Bits}
	if o.bits != "" {
		bits = nil
		for _, s := range split(o.bits) {
			b, err := strconv.Atoi(s)
			if err != nil {
				return g, fmt.Errorf("-sweep-bits: %q is not a bit width", s)
			}
			bits = append(bits, b)
		}
	}
	grans := []string{cfg.Granularity}
	if o.gran != "" {
		grans = split(o.gran)
	}
	for _, gr := range grans {
		for _, b := range bits {
			g.Storage = append(g.Storage, sim.StorageVariant{Bits: b, Granularity: gr})
		}
	}
	return g, nil
}

// runSweep prints the sweep of cfg's stream (or, with -model, of the
// model's run) as CSV, one row as each configuration completes.
func runSweep(stdout io.Writer, cfg sim.Config, o options) error {
	if o.trace != "" {
		return fmt.Errorf("-sweep runs the synthetic stream or -model, not -trace")
	}
	g, err := o.sweep.grid(cfg)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(stdout)
	w := csv.NewWriter(bw)
	withModel := o.model != ""
	if err := w.Write(sim.CSVHeader(withModel)); err != nil {
		return err
	}
	emit := func(r sim.Row) error {
		if err := w.Write(r.CSV(withModel)); err != nil {
			return err
		}
		w.Flush()
		if err := w.Error(); err != nil {
			return err
		}
		return bw.Flush()
	}
	ctx := context.Background()
	if withModel {
		m, err := loadModel(o.model)
		if err != nil {
			return err
		}
		err = sim.ModelSweep(ctx, m, cfg, o.prompt, min(cfg.Tokens, m.Config.ContextLength), o.repos, g, emit)
		if err != nil {
			return err
		}
	} else if err := sim.Sweep(ctx, cfg, g, nil, emit); err != nil {
		return err
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return bw.Flush()
}
