package sim

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/kvscope/kvscope/core/synth"
	"github.com/kvscope/kvscope/core/trace"
)

// record writes cfg's synthetic stream as a trace, as a real model's
// recording would be written.
func record(t *testing.T, cfg Config) *trace.Trace {
	t.Helper()
	g, err := synth.New(cfg.synth())
	if err != nil {
		t.Fatal(err)
	}
	tr := &trace.Trace{Layers: cfg.Layers, Tokens: cfg.Tokens, QHeads: cfg.Heads, KVHeads: cfg.KVHeads, Dim: cfg.HeadDim}
	qs, kvs := cfg.Heads*cfg.HeadDim, cfg.KVHeads*cfg.HeadDim
	tr.Q = make([]float32, cfg.Layers*cfg.Tokens*qs)
	tr.K = make([]float32, cfg.Layers*cfg.Tokens*kvs)
	tr.V = make([]float32, len(tr.K))
	q, k, v := make([]float32, cfg.Layers*qs), make([]float32, cfg.Layers*kvs), make([]float32, cfg.Layers*kvs)
	for p := range cfg.Tokens {
		g.Next(q, k, v)
		for l := range cfg.Layers {
			copy(tr.Q[(l*cfg.Tokens+p)*qs:], q[l*qs:(l+1)*qs])
			copy(tr.K[(l*cfg.Tokens+p)*kvs:], k[l*kvs:(l+1)*kvs])
			copy(tr.V[(l*cfg.Tokens+p)*kvs:], v[l*kvs:(l+1)*kvs])
		}
	}
	var buf bytes.Buffer
	if err := trace.Write(&buf, tr); err != nil {
		t.Fatal(err)
	}
	back, err := trace.Read(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// Replaying a recorded stream through any policy and storage must make the
// same decisions as running the stream live.
func TestReplayMatchesLiveRun(t *testing.T) {
	for _, tc := range []struct {
		policy, gran string
		bits         int
	}{
		{"h2o", "token", 32}, {"seed000", "channel", 8}, {"snapkv", "kivi", 2}, {"chunk", "group", 4},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Layers, cfg.Heads, cfg.KVHeads, cfg.Tokens = 2, 4, 2, 300
			cfg.Policy, cfg.Granularity, cfg.Bits, cfg.GroupSize, cfg.ChunkSize = tc.policy, tc.gran, tc.bits, 8, 64
			live, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			live.RunTo(cfg.Tokens)
			rep, err := NewReplay(cfg, record(t, cfg))
			if err != nil {
				t.Fatal(err)
			}
			rep.RunTo(cfg.Tokens)
			for l := range cfg.Layers {
				a := append([]Cell(nil), live.Snapshot(l).Cells...)
				b := rep.Snapshot(l).Cells
				if !reflect.DeepEqual(a, b) {
					t.Fatalf("layer %d: replay differs from the live run", l)
				}
			}
			if live.Memory() != rep.Memory() {
				t.Fatalf("memory differs: %+v vs %+v", live.Memory(), rep.Memory())
			}
		})
	}
}

func TestReplayRejectsBadTrace(t *testing.T) {
	if _, err := NewReplay(DefaultConfig(), &trace.Trace{Layers: 1, Tokens: 2, QHeads: 3, KVHeads: 2, Dim: 4}); err == nil {
		t.Fatal("a trace whose heads do not group evenly was accepted")
	}
}
