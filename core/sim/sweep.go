package sim

import (
	"context"
	"fmt"
	"math"

	"github.com/kvscope/kvscope/core/kv"
)

// The memory-versus-fidelity sweep: one run of the stream per
// configuration of a grid (eviction policy × token budget × storage), each
// reduced to one Row — what it stores and how faithful it stays. It is the
// figure every KV-compression paper plots (score against compression
// ratio, one line per method), computed on the learner's own stream.

// StorageVariant is how a sweep stores the tokens a policy keeps: the bit
// width and granularity of Config (GroupSize, Residual and Rank come from
// the base configuration).
type StorageVariant struct {
	Bits        int    `json:"bits"` // 32, 16, 8, 4, 3 or 2
	Granularity string `json:"gran"` // token, group, channel, tensor or kivi
}

// Grid is the set of configurations a sweep runs over a base
// configuration (whose stream, storage details and reference stride every
// configuration keeps).
//
// Every budget is a total token budget per head, and every policy gets the
// same total, split by kv's one rule (kv.Config.SetBudget, through
// SplitBudget): sinks (at most half the budget) and the rest between the
// recent window and the heavy hitters as each policy reads them; a share
// of every chunk for chunk and of the prompt for snapkv; sinks and a
// window for DuoAttention's streaming heads. Full and quest, which have no
// budget to set, run once per storage variant.
type Grid struct {
	Policies []string         `json:"policies"` // policy names; nil: every kv policy (kv.Policies)
	Budgets  []int            `json:"budgets"`  // tokens per head, ascending; nil: DefaultBudgets(tokens)
	Storage  []StorageVariant `json:"storage"`  // nil: the base configuration's bits and granularity
	Sink     int              `json:"sink"`     // sink tokens of the policies that keep sinks (fewer when the budget is small)
}

// DefaultSweepSink is the number of sinks DefaultGrid gives the policies
// that keep them: StreamingLLM's four.
const DefaultSweepSink = 4

// DefaultGrid is every policy at DefaultBudgets, stored as base stores,
// with DefaultSweepSink sinks.
func DefaultGrid() Grid { return Grid{Sink: DefaultSweepSink} }

// SweepBudgets is how many budgets DefaultBudgets returns at most.
const SweepBudgets = 8

// DefaultBudgets returns SweepBudgets token budgets spaced geometrically
// from 2 % of tokens to all of them (at least 2 tokens each, ascending,
// without repeats): for 512 tokens 10, 18, 31, 55, 96, 167, 293, 512.
func DefaultBudgets(tokens int) []int {
	var bs []int
	for i := range SweepBudgets {
		f := 0.02 * math.Pow(50, float64(i)/float64(SweepBudgets-1))
		b := min(tokens, max(2, int(math.Round(f*float64(tokens)))))
		if len(bs) == 0 || b > bs[len(bs)-1] {
			bs = append(bs, b)
		}
	}
	return bs
}

// AllStorage is the storage family a full sweep adds: FP16 and 8, 4 and
// 2-bit codes per token, and KIVI (keys per channel, values per token).
func AllStorage() []StorageVariant {
	return []StorageVariant{{16, "token"}, {8, "token"}, {4, "token"}, {2, "token"}, {8, "kivi"}, {4, "kivi"}, {2, "kivi"}}
}

// policies returns the grid's policy names, or every kv policy's.
func (g Grid) policies() []string {
	if g.Policies != nil {
		return g.Policies
	}
	var ps []string
	for _, p := range kv.Policies() {
		ps = append(ps, p.String())
	}
	return ps
}

// Config returns base with policy at a total budget of budget tokens per
// head, split by SplitBudget with the grid's sinks; budget is clamped to
// [1, tokens]. It reports false when the policy has no token budget to
// set (full, quest, or an unknown policy): the configuration is then the
// policy itself, with no sink, recent or heavy setting.
func (g Grid) Config(base Config, policy string, budget int) (Config, bool) {
	c := base
	c.Policy = policy
	c.Sink, c.Recent, c.Heavy, c.DropShare = 0, 0, 0, 0
	return c.SplitBudget(budget, g.Sink)
}

// SplitBudget returns c with the settings of its policy set so that a kv
// head keeps budget tokens of a history of c.Tokens tokens (c.Prompt of
// them the prompt), up to sink of them attention sinks: kv's one rule
// (kv.Config.SetBudget), which the sweep (Grid.Config) and the recall
// tasks (WithBudget) both ask. It reports false, c unchanged, for a
// policy without a budget to set (full, quest) or an unknown one.
func (c Config) SplitBudget(budget, sink int) (Config, bool) {
	p, err := kv.ParsePolicy(c.Policy)
	if err != nil {
		return c, false
	}
	kc, ok := c.kvWith(p, kv.Uniform).SetBudget(budget, sink)
	if !ok {
		return c, false
	}
	c.Sink, c.Recent, c.Heavy, c.DropShare = kc.Sink, kc.Recent, kc.Heavy, kc.DropShare
	return c, true
}

// A Point is one configuration of a sweep and the grid budget it was made
// for (the history's length for a policy without a budget).
type Point struct {
	Config Config
	Budget int
}

// Points returns every configuration of the grid over base, in the
// order a sweep runs them: per storage variant, budgets ascending, and
// per budget every policy (so every curve grows together), then each
// policy without a budget once. Every configuration is valid, or Points
// returns the first error.
func (g Grid) Points(base Config) ([]Point, error) {
	if err := base.Validate(); err != nil {
		return nil, err
	}
	budgets := g.Budgets
	if budgets == nil {
		budgets = DefaultBudgets(base.Tokens)
	}
	storage := g.Storage
	if storage == nil {
		storage = []StorageVariant{{base.Bits, base.Granularity}}
	}
	if len(budgets) == 0 || len(storage) == 0 || len(g.policies()) == 0 {
		return nil, fmt.Errorf("sim: sweep grid has no budgets, storage or policies")
	}
	for _, b := range budgets {
		if b < 1 {
			return nil, fmt.Errorf("sim: sweep budget %d must be at least 1 token", b)
		}
	}
	var ps []Point
	for _, st := range storage {
		s := base
		s.Bits, s.Granularity = st.Bits, st.Granularity
		var once []Point
		for i, b := range budgets {
			for _, p := range g.policies() {
				c, budgeted := g.Config(s, p, b)
				if !budgeted {
					if i == 0 {
						once = append(once, Point{c, c.Tokens})
					}
					continue
				}
				ps = append(ps, Point{c, min(b, c.Tokens)})
			}
		}
		ps = append(ps, once...)
	}
	for _, p := range ps {
		c := p.Config
		if err := c.Validate(); err != nil {
			return nil, fmt.Errorf("sim: sweep configuration %s sink %d recent %d heavy %d, %d-bit %s: %w",
				c.Policy, c.Sink, c.Recent, c.Heavy, c.Bits, c.Granularity, err)
		}
	}
	return ps, nil
}

// Row is one configuration of a sweep and what it measured: the stored
// bytes at the end of the run and the fidelity averaged over the run's
// reference steps (as the command line's summary does). JSON names follow
// the page's link keys for the settings.
type Row struct {
	Index       int     `json:"index"` // position in the sweep's configuration list
	Policy      string  `json:"policy"`
	Budget      int     `json:"budget"` // the grid budget of the configuration, tokens per head (see Grid)
	Sink        int     `json:"sink"`
	Recent      int     `json:"recent"`
	Heavy       int     `json:"heavy"`
	DropShare   float64 `json:"drop"`
	Bits        int     `json:"bits"`
	Granularity string  `json:"gran"`

	Bytes     int64   `json:"bytes"`      // everything the cache stores at the end (Memory.Total)
	FullBytes int64   `json:"full_bytes"` // the FP16 history at the end
	Ratio     float64 `json:"ratio"`      // FullBytes / Bytes

	Mass   float64 `json:"mass"`         // attention mass kept, mean over reference steps
	OutErr float64 `json:"output_error"` // relative output error, mean
	KL     float64 `json:"kl"`           // attention KL(compressed ‖ full), nats, mean
	KErr   float64 `json:"key_error"`    // relative key storage error, mean
	VErr   float64 `json:"value_error"`  // relative value storage error, mean

	// Real-model sweeps only (zero otherwise).
	Top1    float64 `json:"top1,omitempty"`     // share of steps whose most likely next tokens agree
	NextKL  float64 `json:"next_kl,omitempty"`  // next-token KL(full ‖ compressed), nats, mean over steps
	PPL     float64 `json:"ppl,omitempty"`      // perplexity of the uncompressed text under the compressed cache
	PPLFull float64 `json:"ppl_full,omitempty"` // … and under the uncompressed cache
}

// newRow fills a row's settings from p.
func newRow(i int, p Point) Row {
	c := &p.Config
	return Row{Index: i, Policy: c.Policy, Budget: p.Budget, Sink: c.Sink, Recent: c.Recent, Heavy: c.Heavy,
		DropShare: c.DropShare, Bits: c.Bits, Granularity: c.Granularity}
}

// measuredRow is point p's row (index i) at the end of its run: the bytes
// the run held (m; full uncompressed) and the mean of its fidelity
// history hist.
func measuredRow(i int, p Point, m Memory, full int64, hist []Metrics) Row {
	r := newRow(i, p)
	r.setBytes(m.Total(), full)
	mean := MeanMetrics(hist)
	r.Mass, r.OutErr, r.KL, r.KErr, r.VErr = mean.Mass, mean.OutErr, mean.KL, mean.KErr, mean.VErr
	return r
}

// setBytes fills a row's bytes, full bytes and their ratio.
func (r *Row) setBytes(bytes, full int64) {
	r.Bytes, r.FullBytes = bytes, full
	if bytes > 0 {
		r.Ratio = float64(full) / float64(bytes)
	}
}

// stepper is a run decoded step by step: an Engine (a token a step) or a
// ModelRun (a prompt chunk or a token a step).
type stepper interface {
	Step() bool
	Pos() int
	Err() error
}

// runToEnd steps s until it stops and returns its error, looking at ctx
// each time the position passes a multiple of every: a cancelled ctx
// stops the run there with ctx's error.
func runToEnd(ctx context.Context, s stepper, every int) error {
	last := s.Pos()
	for s.Step() {
		p := s.Pos()
		if p/every != last/every {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		last = p
	}
	return s.Err()
}

// MeanMetrics is the mean of every field over hist: summed in order, then
// divided by len(hist), as the command line's summary computes it (zero
// for an empty hist).
func MeanMetrics(hist []Metrics) Metrics {
	var m Metrics
	for _, h := range hist {
		m = m.add(h)
	}
	if len(hist) == 0 {
		return m
	}
	n := float64(len(hist))
	return Metrics{m.KErr / n, m.VErr / n, m.OutErr / n, m.Mass / n, m.KL / n, m.Bias / n, m.KMax / n, m.VMax / n}
}

// RunRow runs p's configuration to its end through an engine reading
// stream s (nil: a private one, as New) and returns its row (index i).
// The reference must be on (RefStride > 0). ctx stops the run between
// steps.
func RunRow(ctx context.Context, i int, p Point, s *Stream) (Row, error) {
	cfg := p.Config
	if cfg.RefStride < 1 {
		return Row{}, fmt.Errorf("sim: a sweep row needs the reference (RefStride ≥ 1), got %d", cfg.RefStride)
	}
	e, err := NewShared(cfg, s)
	if err != nil {
		return Row{}, err
	}
	if err := runToEnd(ctx, e, 64); err != nil {
		return Row{}, err
	}
	_, hist := e.Metrics()
	return measuredRow(i, p, e.Memory(), e.FullBytes(), hist), nil
}

// Sweep runs every configuration of g over base's synthetic stream and
// calls fn with each row as it completes, in Points order. The stream is
// generated, and its reference computed, once: from s when s matches base
// (see Stream.Matches; s then keeps the recording for later sweeps), else
// from a new recording. A base without the reference (RefStride 0) is
// measured at every step. It stops at the first error, the first error fn
// returns, or when ctx is done (returning ctx.Err()). The same base and
// grid give the same rows, bit for bit equal to New's runs of the same
// configurations.
func Sweep(ctx context.Context, base Config, g Grid, s *Stream, fn func(Row) error) error {
	if base.RefStride < 1 {
		base.RefStride = 1
	}
	ps, err := g.Points(base)
	if err != nil {
		return err
	}
	return SweepPoints(ctx, ps, nil, s, fn)
}

// SweepPoints runs the configurations ps (all over one synthetic stream,
// with the reference on) and calls fn with each row as it completes. only,
// if not nil, picks the indices of ps to run (a worker's share); rows keep
// their index in ps. s is reused when it matches the stream, as in Sweep.
func SweepPoints(ctx context.Context, ps []Point, only []int, s *Stream, fn func(Row) error) error {
	if len(ps) == 0 {
		return nil
	}
	longest := ps[0].Config
	for _, p := range ps {
		if p.Config.synth() != longest.synth() {
			return fmt.Errorf("sim: a sweep runs one stream; configuration %s differs in its stream settings", p.Config.Policy)
		}
		if p.Config.Tokens > longest.Tokens {
			longest = p.Config
		}
	}
	if s == nil || !s.Matches(longest) {
		var err error
		if s, err = NewStream(longest); err != nil {
			return err
		}
	}
	// Points of the same configuration (SnapKV or chunk pruning at budgets
	// that round to the same setting) run once: a run is deterministic. A
	// point that keeps every token is derived from the full cache's run
	// (see derive.go), which runs once.
	done := map[Config]Row{}
	row := func(i int, p Point) (Row, error) {
		if r, ok := done[p.Config]; ok {
			r.Index, r.Budget = i, p.Budget
			return r, nil
		}
		var r Row
		var err error
		if fc, ok := keepsAll(p.Config); ok {
			full, ok := done[fc]
			if !ok {
				if full, err = RunRow(ctx, -1, Point{fc, fc.Tokens}, s); err != nil {
					return Row{}, err
				}
				done[fc] = full
			}
			r, err = derivedRow(i, p, full)
		} else {
			r, err = RunRow(ctx, i, p, s)
		}
		if err != nil {
			return Row{}, err
		}
		done[p.Config] = r
		return r, nil
	}
	run := func(i int) error {
		if i < 0 || i >= len(ps) {
			return fmt.Errorf("sim: sweep index %d out of range [0, %d)", i, len(ps))
		}
		r, err := row(i, ps[i])
		if err != nil {
			return err
		}
		return fn(r)
	}
	if only == nil {
		for i := range ps {
			if err := run(i); err != nil {
				return err
			}
		}
		return nil
	}
	for _, i := range only {
		if err := run(i); err != nil {
			return err
		}
	}
	return nil
}
