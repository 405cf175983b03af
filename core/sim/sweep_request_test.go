package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"testing"
)

// A worker's sweep — a JSON request as the page sends it, split between
// two workers — gives the numbers the main engine gives for the same
// configurations, bit for bit.
func TestSweepRequestEqualsEngine(t *testing.T) {
	base := sweepBase()
	base.Tokens = 96
	cfg, err := json.Marshal(base)
	if err != nil {
		t.Fatal(err)
	}
	var rows []Row
	for shard := range 2 {
		req, err := ParseSweepRequest([]byte(fmt.Sprintf(`{"id":7,"config":%s,"grid":{"policies":["window","h2o","full"],"budgets":[4,24],"storage":[{"bits":8,"gran":"token"},{"bits":2,"gran":"kivi"}]},"shard":%d,"shards":2}`, cfg, shard)))
		if err != nil {
			t.Fatal(err)
		}
		if req.ID != 7 || req.Grid.Sink != DefaultSweepSink || req.Config != base {
			t.Fatalf("request read as %+v", req)
		}
		ps, err := req.Points(nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) != 10 {
			t.Fatalf("%d points, want 10", len(ps))
		}
		var s *Stream
		for range 2 { // the second run reuses the first's recording
			n := len(rows)
			s2, err := req.Run(context.Background(), ps, s, nil, func(r Row) error { rows = append(rows, r); return nil })
			if err != nil {
				t.Fatal(err)
			}
			if s != nil && s2 != s {
				t.Fatal("the recording was not reused")
			}
			s = s2
			mine := map[int]bool{}
			for _, i := range Shares(ps, 2)[shard] {
				mine[i] = true
			}
			for _, r := range rows[n:] {
				if !mine[r.Index] {
					t.Fatalf("shard %d ran point %d", shard, r.Index)
				}
				mem, full, m := singleRun(t, ps[r.Index].Config)
				if r.Bytes != mem.Total() || r.FullBytes != full || r.Mass != m.Mass || r.OutErr != m.OutErr || r.KL != m.KL {
					t.Errorf("point %d (%s %d-bit %s budget %d): %+v; engine bytes %d mass %v error %v KL %v",
						r.Index, r.Policy, r.Bits, r.Granularity, r.Budget, r, mem.Total(), m.Mass, m.OutErr, m.KL)
				}
			}
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Index < rows[j].Index })
	for i := 0; i < len(rows); i += 2 {
		if rows[i].Index != i/2 || !reflect.DeepEqual(rows[i], rows[i+1]) {
			t.Fatalf("rows %d: %+v and %+v", i/2, rows[i], rows[i+1])
		}
	}
}

func TestParseSweepRequestRefuses(t *testing.T) {
	for _, in := range []string{
		``, `{`, `[]`, `{"id":"x"}`, `{"bogus":1}`, `{"config":{"Bogus":1}}`,
		`{"shard":2,"shards":2}`, `{"shard":-1}`, `{"shards":-2}`,
	} {
		if _, err := ParseSweepRequest([]byte(in)); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
	r, err := ParseSweepRequest([]byte(`{"model":true}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Points(nil); err == nil {
		t.Error("a model sweep without a model: no error")
	}
}

// FuzzParseSweepRequest: any input either is refused or gives a request
// whose points are valid configurations (or an error), never a panic.
func FuzzParseSweepRequest(f *testing.F) {
	f.Add([]byte(`{"id":1,"config":{"Tokens":64,"Policy":"h2o"},"grid":{"budgets":[2,64]}}`))
	f.Add([]byte(`{"grid":{"policies":["window"],"storage":[{"bits":4,"gran":"kivi"}],"sink":9}}`))
	f.Add([]byte(`{"config":{"Tokens":-1},"shards":3,"shard":1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseSweepRequest(b)
		if err != nil {
			return
		}
		if r.Config.Tokens > 1<<12 || r.Config.Layers*r.Config.Heads*r.Config.HeadDim > 1<<14 {
			return // valid but too large to enumerate quickly
		}
		ps, err := r.Points(nil)
		if err != nil {
			return
		}
		for _, p := range ps {
			if err := p.Config.Validate(); err != nil {
				t.Fatalf("point %+v is invalid: %v", p, err)
			}
		}
	})
}
