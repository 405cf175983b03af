package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

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

	// Shards > 1 splits the points between workers: this one runs the
	// points whose index i has i % Shards == Shard. Rows keep their index.
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

// mine returns the indices of n points this request's shard runs (nil:
// all of them).
func (r *SweepRequest) mine(n int) []int {
	if r.Shards <= 1 {
		return nil
	}
	only := []int{}
	for i := r.Shard; i < n; i += r.Shards {
		only = append(only, i)
	}
	return only
}

// Run runs the request's share of the sweep and calls emit with each row
// as it completes. s is a recording to reuse (nil: none); Run returns the
// recording the sweep used, for the next request over the same stream
// (nil in real-model mode). m is the model for real-model mode.
func (r *SweepRequest) Run(ctx context.Context, ps []Point, s *Stream, m *model.Model, emit func(Row) error) (*Stream, error) {
	only := r.mine(len(ps))
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
