package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/kvscope/kvscope/core/model"
)

// SweepRequest is a sweep as a page asks a worker for it, in JSON: the
// base configuration (Config's Go field names: {"Seed":1,"Tokens":512,…};
// fields left out keep DefaultConfig's values), the grid, the worker's
// share of the points, and for real-model mode the model run's settings.
type SweepRequest struct {
	ID     int    `json:"id"`     // echoed in every reply
	Config Config `json:"config"` // the stream (or the model run's) base configuration
	Grid   Grid   `json:"grid"`   // null fields take Grid's defaults; a missing sink is DefaultSweepSink

	// Shards > 1 splits the points between workers of about equal work
	// (Shares): this one runs share Shard. Rows keep their index.
	Shard  int `json:"shard"`
	Shards int `json:"shards"`

	// Real-model mode: decode Text for MaxTokens positions with the
	// worker's model (see ModelSweep).
	Model     bool   `json:"model"`
	Text      string `json:"text"`
	MaxTokens int    `json:"maxTokens"`
	Repos     bool   `json:"repos"`
}

// ParseSweepRequest reads a request: unknown fields are errors, absent
// ones take the defaults (DefaultConfig, DefaultGrid's sink).
func ParseSweepRequest(b []byte) (SweepRequest, error) {
	r := SweepRequest{Config: DefaultConfig(), Grid: DefaultGrid()}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&r); err != nil {
		return r, fmt.Errorf("sim: sweep request: %w", err)
	}
	if r.Shards < 0 || r.Shard < 0 || (r.Shards > 0 && r.Shard >= r.Shards) {
		return r, fmt.Errorf("sim: sweep request: shard %d of %d", r.Shard, r.Shards)
	}
	return r, nil
}

// Points returns the request's configurations (every shard's), with model
// m in real-model mode.
func (r *SweepRequest) Points(m *model.Model) ([]Point, error) {
	base := r.Config
	if base.RefStride < 1 {
		base.RefStride = 1
	}
	if !r.Model {
		return r.Grid.Points(base)
	}
	if m == nil {
		return nil, fmt.Errorf("sim: a real-model sweep needs a model")
	}
	return ModelPoints(m, base, r.Text, r.MaxTokens, r.Grid)
}

// mine returns the indices of the points this request's shard runs (nil:
// all of them), in ascending order. Shards get equal shares of the work,
// not of the points: each point's cost is estimated (Shares) and the
// points are dealt out largest first to the least loaded shard, so the
// expensive runs (keeping most of the history, slow scorers) do not all
// land on one worker. Every shard computes the same deal.
func (r *SweepRequest) mine(ps []Point) []int {
	if r.Shards <= 1 {
		return nil
	}
	return Shares(ps, r.Shards)[r.Shard]
}

// Shares deals the points' indices out to n shards of about equal
// estimated work (see mine); each shard's indices ascend. A point's
// estimate is the work of one step, summed over the run: a fixed part
// (the step, the reference and the metrics: about 23 tokens' worth)
// plus the tokens the heads hold on average — min(t, budget) over the run
// — with a factor for scorers that cost more per token (ExpectedAttention's
// query statistics: 4, while it evicts) and the history's tokens for the
// policies that keep most of it (DuoAttention's retrieval heads, SnapKV's
// generated tokens; Quest reads about half of its pages), and a chunk's
// worth more for chunk pruning, which holds the chunk being filled.
// The points that keep every token are derived from one run of the full
// cache (derive.go): they go, with the full cache's own point if the grid
// has it, to one shard as one run's worth of work.
func Shares(ps []Point, n int) [][]int {
	n = max(n, 1)
	type unit struct {
		cost float64
		ids  []int
	}
	var units []unit
	group := map[Config]int{} // full configuration → its unit
	join := func(fc Config, i int, cost float64) {
		u, ok := group[fc]
		if !ok {
			u = len(units)
			group[fc] = u
			units = append(units, unit{cost: cost})
		}
		units[u].ids = append(units[u].ids, i)
	}
	for i, p := range ps {
		c := pointCost(p)
		switch fc, derived := keepsAll(p.Config); {
		case derived:
			join(fc, i, pointCost(Point{fc, fc.Tokens}))
		case p.Config == fullOf(p.Config):
			join(p.Config, i, c)
		default:
			units = append(units, unit{cost: c, ids: []int{i}})
		}
	}
	order := make([]int, len(units))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return units[order[a]].cost > units[order[b]].cost })
	load := make([]float64, n)
	out := make([][]int, n)
	for i := range out {
		out[i] = []int{}
	}
	for _, u := range order {
		k := 0
		for j := 1; j < n; j++ {
			if load[j] < load[k] {
				k = j
			}
		}
		load[k] += units[u].cost
		out[k] = append(out[k], units[u].ids...)
	}
	for _, o := range out {
		sort.Ints(o)
	}
	return out
}

// pointCost is Shares' estimate of the work of running p (see Shares): a
// fixed cost per step plus, per step, the tokens its policy holds there
// (kv.Config.Held, sampled along the run, DuoAttention's heads a quarter
// retrieval heads) times the policy's relative work per token
// (kv.Description.Work, which an evicting ExpectedAttention and Quest's
// page selection change).
func pointCost(p Point) float64 {
	const fixed, samples = 23, 16
	t := max(p.Config.Tokens, 1)
	kc, err := p.Config.kv()
	if err != nil {
		return fixed
	}
	var held float64
	for i := range samples {
		n, _ := kc.Held(max(1, (2*i+1)*t/(2*samples)), 0.25)
		held += n / samples
	}
	work := kc.Policy.Describe().Work
	if kc.KeepsAll(t) {
		work = 1 // a budget that holds the run never rescores to evict
	}
	return work*held + fixed
}

// Run runs the request's share of the sweep and calls emit with each row
// as it completes. s is a recording to reuse (nil: none); Run returns the
// recording the sweep used, for the next request over the same stream
// (nil in real-model mode). m is the model for real-model mode.
func (r *SweepRequest) Run(ctx context.Context, ps []Point, s *Stream, m *model.Model, emit func(Row) error) (*Stream, error) {
	only := r.mine(ps)
	if r.Model {
		return s, ModelSweepPoints(ctx, m, ps, only, r.Text, r.MaxTokens, r.Repos, emit)
	}
	if len(ps) == 0 {
		return s, nil
	}
	if s == nil || !s.Matches(ps[0].Config) {
		var err error
		if s, err = NewStream(ps[0].Config); err != nil {
			return nil, err
		}
	}
	return s, SweepPoints(ctx, ps, only, s, emit)
}
