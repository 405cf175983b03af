package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kvscope/kvscope/core/sim"
)

// taskOptions are the settings of -task mode.
type taskOptions struct {
	kind     string
	length   int
	span     int
	seeds    int
	depths   string
	budgets  string
	policies string
}

// taskFlags binds -task mode's flags to fs.
func taskFlags(fs *flag.FlagSet, o *taskOptions) {
	fs.StringVar(&o.kind, "task", "", "with -model, score a recall task instead of decoding: "+strings.Join(sim.TaskKinds, ", ")+"; prints CSV task,policy,budget,bits,depth,score,full_score (score: mean log-probability of the answer's tokens, nats)")
	fs.IntVar(&o.length, "task-length", 256, "with -task, tokens per task instance (at most the model's context)")
	fs.IntVar(&o.span, "span", sim.DefaultSpan, "with -task copy, random tokens per copy")
	fs.IntVar(&o.seeds, "task-seeds", 1, "with -task, instances averaged per cell (seeds -seed, -seed+1, …)")
	fs.StringVar(&o.depths, "depths", "0,0.25,0.5,0.75,1", "with -task, comma-separated needle depths (0 first, 1 last)")
	fs.StringVar(&o.budgets, "budgets", "8,16,32,64", "with -task, comma-separated cache budgets (tokens per head)")
	fs.StringVar(&o.policies, "policies", "window,streaming,h2o,tova,knorm,snapkv", "with -task, comma-separated policies (with -sink, -recent, -heavy as proportions and the storage flags)")
}

// runTask scores o.task.kind with the model in o.model for every policy
// × depth × budget, averaging o.task.seeds instances per cell, and writes
// one CSV row per cell with the full cache's score of the same instances.
func runTask(w io.Writer, cfg sim.Config, o options) error {
	t := o.task
	if o.model == "" {
		return fmt.Errorf("-task needs -model")
	}
	if t.seeds < 1 {
		return fmt.Errorf("-task-seeds must be at least 1, got %d", t.seeds)
	}
	depths, err := parseList(t.depths, "-depths", func(s string) (float64, error) { return strconv.ParseFloat(s, 64) })
	if err != nil {
		return err
	}
	budgets, err := parseList(t.budgets, "-budgets", strconv.Atoi)
	if err != nil {
		return err
	}
	policies, err := parseList(t.policies, "-policies", func(s string) (string, error) { return s, nil })
	if err != nil {
		return err
	}
	m, err := loadModel(o.model)
	if err != nil {
		return err
	}
	var cells []sim.TaskCell
	for _, p := range policies {
		c := cfg
		c.Policy = p
		var sum []sim.TaskCell
		for i := range t.seeds {
			spec := sim.TaskSpec{Kind: t.kind, Seed: cfg.Seed + uint64(i), Length: t.length, Span: t.span}
			s, err := sim.NewTaskHeatmap(m, c, spec, depths, budgets, o.repos)
			if err != nil {
				return err
			}
			for s.Next() {
			}
			if s.Err() != nil {
				return s.Err()
			}
			if sum == nil {
				sum = append([]sim.TaskCell(nil), s.Cells()...)
				continue
			}
			for j, cell := range s.Cells() {
				sum[j].Score.LogProb += cell.Score.LogProb
				sum[j].Full.LogProb += cell.Full.LogProb
			}
		}
		n := float64(t.seeds)
		for _, cell := range sum {
			cell.Score.LogProb /= n
			cell.Full.LogProb /= n
			cells = append(cells, cell)
		}
	}
	return sim.WriteTaskCSV(w, cells)
}
