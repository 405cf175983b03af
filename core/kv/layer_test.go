package kv

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// stream makes a deterministic token stream with mild structure: keys of a
// few tokens are aligned with the queries so attention is not uniform.
type stream struct {
	r          *rand.Rand
	q, k, v    []float32
	qs, kvs    int
	hist       [][]float32 // every key, for checking what the stores return
	heads, dim int
}

func newStream(seed uint64, heads, kvHeads, dim int) *stream {
	return &stream{r: rand.New(rand.NewPCG(seed, 1)), q: make([]float32, heads*dim), k: make([]float32, kvHeads*dim),
		v: make([]float32, kvHeads*dim), qs: heads * dim, kvs: kvHeads * dim, heads: heads, dim: dim}
}

func (s *stream) next() {
	for i := range s.q {
		s.q[i] = float32(s.r.NormFloat64()) + 1
	}
	boost := float32(1)
	if s.r.IntN(10) == 0 {
		boost = 3
	}
	for i := range s.k {
		s.k[i] = float32(s.r.NormFloat64())*0.5 + boost*0.5
		s.v[i] = float32(s.r.NormFloat64())
	}
	s.hist = append(s.hist, slices.Clone(s.k))
}

// checkInvariants verifies what every policy promises after the step that
// added position pos.
func checkInvariants(t testing.TB, l *Layer, s *stream, pos int) {
	t.Helper()
	cfg := l.Config()
	buf := make([]float32, cfg.Dim)
	for g := range cfg.KVHeads {
		ps := l.Positions(g)
		if len(ps) == 0 {
			t.Fatalf("pos %d head %d: cache is empty", pos, g)
		}
		for i := 1; i < len(ps); i++ {
			if ps[i] <= ps[i-1] {
				t.Fatalf("pos %d head %d: positions not ascending: %v", pos, g, ps)
			}
		}
		if int(ps[len(ps)-1]) != pos && cfg.Policy != TOVA && cfg.Policy != Knorm && cfg.Policy != Chunk && cfg.Policy != H2O || int(ps[len(ps)-1]) > pos {
			if !(cfg.Policy.budgeted() && cfg.Recent == 0) {
				t.Fatalf("pos %d head %d: newest token missing: %v", pos, g, ps)
			}
		}
		if !l.inPrompt && cfg.Policy.budgeted() && len(ps) > cfg.Budget() {
			t.Fatalf("pos %d head %d: %d tokens over budget %d", pos, g, len(ps), cfg.Budget())
		}
		if cfg.Policy == Full && len(ps) != pos+1 {
			t.Fatalf("pos %d: full cache holds %d tokens", pos, len(ps))
		}
		present := make(map[int32]bool, len(ps))
		for i, p := range ps {
			present[p] = true
			ks, _ := l.Stores(g)
			kslot, _ := l.Slots(g, i)
			ks.Read(kslot, buf)
			if !slices.Equal(buf, s.hist[p][g*cfg.Dim:(g+1)*cfg.Dim]) {
				t.Fatalf("pos %d head %d: token %d's stored key is not the key it arrived with", pos, g, p)
			}
		}
		ev := l.EvictedAt(g)
		for p := 0; p <= pos; p++ {
			switch {
			case present[int32(p)] && ev[p] != -1:
				t.Fatalf("pos %d head %d: cached token %d marked evicted at %d", pos, g, p, ev[p])
			case !present[int32(p)] && (ev[p] < int32(p) || ev[p] > int32(pos)):
				t.Fatalf("pos %d head %d: evicted token %d has eviction time %d", pos, g, p, ev[p])
			}
		}
		if cfg.keepsSinks() {
			for p := 0; p < min(cfg.Sink, pos+1); p++ {
				if !present[int32(p)] {
					t.Fatalf("pos %d head %d: sink %d evicted", pos, g, p)
				}
			}
		}
		if cfg.keepsRecent() && !l.inPrompt {
			for p := max(0, pos-cfg.Recent+1); p <= pos; p++ {
				if !present[int32(p)] {
					t.Fatalf("pos %d head %d: recent token %d evicted (window %d): %v", pos, g, p, cfg.Recent, ps)
				}
			}
		}
		if cfg.SharedDecision() && !slices.Equal(ps, l.Positions(0)) {
			t.Fatalf("pos %d: shared decision but head %d keeps %v, head 0 %v", pos, g, ps, l.Positions(0))
		}
		for i := range ps {
			r := l.Role(g, i)
			if r == Sink && int(ps[i]) >= cfg.Sink {
				t.Fatalf("pos %d head %d: token %d called a sink", pos, g, ps[i])
			}
		}
	}
}

func runPolicy(t testing.TB, cfg Config, steps int) (*Layer, *stream) {
	t.Helper()
	l, err := NewLayer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := newStream(cfg.Seed+3, cfg.Heads, cfg.KVHeads, cfg.Dim)
	out := make([]float32, cfg.Heads*cfg.Dim)
	for pos := range steps {
		s.next()
		if err := l.Step(pos, s.q, s.k, s.v, out); err != nil {
			t.Fatalf("step %d: %v", pos, err)
		}
		checkInvariants(t, l, s, pos)
	}
	return l, s
}

func TestPolicyInvariants(t *testing.T) {
	for _, p := range Policies() {
		for _, shared := range []bool{false, true} {
			for _, prompt := range []int{0, 20} {
				cfg := Config{Policy: p, Sink: 2, Recent: 5, Heavy: 4, ChunkSize: 8, DropShare: 0.3, Shared: shared,
					Seed: 11, Heads: 4, KVHeads: 2, Dim: 8, MaxTokens: 120, MaxPrompt: prompt}
				name := p.String()
				if shared {
					name += "/shared"
				}
				if prompt > 0 {
					name += "/prompt"
				}
				t.Run(name, func(t *testing.T) {
					l, _ := runPolicy(t, cfg, 120)
					switch p {
					case Chunk:
						// 15 complete chunks of 8, each keeps 8 − ⌊0.3·8⌋ = 6.
						if got := l.Len(0); got != 15*6 {
							t.Errorf("chunk keeps %d tokens, want 90", got)
						}
					case SnapKV:
						want := 120
						if prompt > 0 {
							want = cfg.Heavy + cfg.Recent + (120 - prompt)
						}
						if got := l.Len(0); got != want {
							t.Errorf("snapkv keeps %d tokens, want %d", got, want)
						}
					}
				})
			}
		}
	}
}

func TestFullAttentionIsExact(t *testing.T) {
	const heads, kvHeads, dim, steps = 4, 2, 8, 40
	l, err := NewLayer(Config{Policy: Full, Heads: heads, KVHeads: kvHeads, Dim: dim, MaxTokens: steps})
	if err != nil {
		t.Fatal(err)
	}
	s := newStream(5, heads, kvHeads, dim)
	var vals [][]float32
	out := make([]float32, heads*dim)
	for pos := range steps {
		s.next()
		vals = append(vals, slices.Clone(s.v))
		if err := l.Step(pos, s.q, s.k, s.v, out); err != nil {
			t.Fatal(err)
		}
		for qh := range heads {
			g := qh / (heads / kvHeads)
			q := s.q[qh*dim : (qh+1)*dim]
			logits := make([]float64, pos+1)
			m := math.Inf(-1)
			for p := range logits {
				var d float64
				for j := range dim {
					d += float64(q[j]) * float64(s.hist[p][g*dim+j])
				}
				logits[p] = d / math.Sqrt(dim)
				m = math.Max(m, logits[p])
			}
			var z float64
			for p := range logits {
				logits[p] = math.Exp(logits[p] - m)
				z += logits[p]
			}
			for j := range dim {
				var o float64
				for p := range logits {
					o += logits[p] / z * float64(vals[p][g*dim+j])
				}
				if d := math.Abs(o - float64(out[qh*dim+j])); d > 1e-4 {
					t.Fatalf("pos %d head %d dim %d: output %v, naive %v", pos, qh, j, out[qh*dim+j], o)
				}
			}
		}
	}
}

// TestH2OMatchesDefinition recomputes H2O from its definition in float64:
// each head accumulates the post-softmax attention (self included) its
// tokens received while cached, and keeps the recent window plus its
// top-heavy older tokens.
func TestH2OMatchesDefinition(t *testing.T) {
	const heads, kvHeads, dim, steps = 4, 2, 4, 80
	cfg := Config{Policy: H2O, Sink: 1, Recent: 4, Heavy: 3, Heads: heads, KVHeads: kvHeads, Dim: dim, MaxTokens: steps}
	l, err := NewLayer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := newStream(9, heads, kvHeads, dim)
	out := make([]float32, heads*dim)
	type tok struct {
		pos   int
		score float64
	}
	ref := make([][]tok, kvHeads)
	group := heads / kvHeads
	for pos := range steps {
		s.next()
		if err := l.Step(pos, s.q, s.k, s.v, out); err != nil {
			t.Fatal(err)
		}
		for g := range kvHeads {
			ref[g] = append(ref[g], tok{pos: pos})
			for r := range group {
				qh := g*group + r
				w := make([]float64, len(ref[g]))
				var z float64
				for i, tk := range ref[g] {
					var d float64
					for j := range dim {
						d += float64(s.q[qh*dim+j]) * float64(s.hist[tk.pos][g*dim+j])
					}
					w[i] = math.Exp(d / math.Sqrt(dim))
					z += w[i]
				}
				for i := range ref[g] {
					ref[g][i].score += w[i] / z / float64(group)
				}
			}
			for len(ref[g]) > cfg.Budget() {
				victim, best := -1, math.Inf(1)
				for i := cfg.Sink; i < len(ref[g])-cfg.Recent; i++ {
					if ref[g][i].score < best {
						victim, best = i, ref[g][i].score
					}
				}
				ref[g] = slices.Delete(ref[g], victim, victim+1)
			}
			got := l.Positions(g)
			for i, tk := range ref[g] {
				if int(got[i]) != tk.pos || math.Abs(l.Scores(g)[i]-tk.score) > 1e-4 {
					t.Fatalf("pos %d head %d: keeps %v, definition keeps %v", pos, g, got, ref[g])
				}
			}
		}
	}
}

func TestConfigErrors(t *testing.T) {
	base := Config{Policy: H2O, Sink: 4, Recent: 8, Heavy: 8, ChunkSize: 8, DropShare: 0.3, Heads: 4, KVHeads: 2, Dim: 8, MaxTokens: 100}
	for _, tc := range []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"negative sink", func(c *Config) { c.Sink = -1 }, "must not be negative"},
		{"sink fills budget", func(c *Config) { c.Recent, c.Heavy = 0, 0 }, "no room beyond"},
		{"gqa mismatch", func(c *Config) { c.KVHeads = 3 }, "evenly"},
		{"zero dim", func(c *Config) { c.Dim = 0 }, "must be positive"},
		{"no tokens", func(c *Config) { c.MaxTokens = 0 }, "max tokens"},
		{"prompt too long", func(c *Config) { c.MaxPrompt = 101 }, "max prompt"},
		{"window without recent", func(c *Config) { c.Policy, c.Recent = Window, 0 }, "recent window"},
		{"chunk size 0", func(c *Config) { c.Policy, c.ChunkSize = Chunk, 0 }, "chunk size"},
		{"drop share 1", func(c *Config) { c.Policy, c.DropShare = Chunk, 1 }, "drop share"},
		{"drop share NaN", func(c *Config) { c.Policy, c.DropShare = Chunk, math.NaN() }, "drop share"},
		{"unknown policy", func(c *Config) { c.Policy = 255 }, "unknown policy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := base
			tc.mod(&c)
			_, err := NewLayer(c)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
	if _, err := NewLayer(base); err != nil {
		t.Fatalf("base config rejected: %v", err)
	}
}

func TestStepInputErrors(t *testing.T) {
	l, _ := NewLayer(Config{Policy: Full, Heads: 2, KVHeads: 1, Dim: 2, MaxTokens: 4})
	q, k, out := make([]float32, 4), make([]float32, 2), make([]float32, 4)
	if err := l.Step(0, q, k, k, out[:3]); err == nil {
		t.Error("short output accepted")
	}
	k[1] = float32(math.NaN())
	if err := l.Step(0, q, k, k, out); err == nil || !strings.Contains(err.Error(), "NaN") {
		t.Errorf("NaN key: %v", err)
	}
	k[1] = 0
	if err := l.Step(0, q, k, k, out); err != nil {
		t.Fatal(err)
	}
	if err := l.Step(0, q, k, k, out); err == nil {
		t.Error("repeated position accepted")
	}
	for p := 1; p < 4; p++ {
		if err := l.Step(p, q, k, k, out); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Step(4, q, k, k, out); err == nil {
		t.Error("position beyond max tokens accepted")
	}
	if l.Len(0) != 4 {
		t.Errorf("a rejected step changed the cache: %d tokens", l.Len(0))
	}
}

func TestParsePolicy(t *testing.T) {
	for _, p := range Policies() {
		got, err := ParsePolicy(strings.ToUpper(p.String()))
		if err != nil || got != p {
			t.Errorf("ParsePolicy(%q) = %v, %v", p.String(), got, err)
		}
	}
	if _, err := ParsePolicy("lru"); err == nil {
		t.Error("unknown policy accepted")
	}
}

func TestResetReplaysIdentically(t *testing.T) {
	cfg := Config{Policy: Random, Sink: 1, Recent: 3, Heavy: 4, Seed: 4, Heads: 2, KVHeads: 2, Dim: 4, MaxTokens: 80}
	l, _ := runPolicy(t, cfg, 80)
	first := slices.Clone(l.EvictedAt(1))
	l.Reset()
	s := newStream(cfg.Seed+3, 2, 2, 4)
	out := make([]float32, 8)
	for pos := range 80 {
		s.next()
		if err := l.Step(pos, s.q, s.k, s.v, out); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(first, l.EvictedAt(1)) {
		t.Fatal("replay after Reset evicted differently")
	}
}

func TestStepAllocatesNothing(t *testing.T) {
	for _, p := range Policies() {
		cfg := Config{Policy: p, Sink: 2, Recent: 8, Heavy: 6, ChunkSize: 16, DropShare: 0.25, Heads: 4, KVHeads: 4, Dim: 16, MaxTokens: 4000}
		l, err := NewLayer(cfg)
		if err != nil {
			t.Fatal(err)
		}
		s := newStream(1, 4, 4, 16)
		s.next()
		out := make([]float32, 64)
		pos := 0
		allocs := testing.AllocsPerRun(500, func() {
			_ = l.Step(pos, s.q, s.k, s.v, out)
			pos++
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per step", p, allocs)
		}
	}
}

func FuzzLayer(f *testing.F) {
	f.Add(uint8(H2O), uint8(2), uint8(5), uint8(4), uint8(8), uint8(30), uint8(3), false, uint8(10))
	f.Add(uint8(Seed000), uint8(4), uint8(32), uint8(28), uint8(1), uint8(0), uint8(1), true, uint8(0))
	f.Add(uint8(Chunk), uint8(0), uint8(0), uint8(0), uint8(3), uint8(99), uint8(2), false, uint8(7))
	f.Add(uint8(SnapKV), uint8(0), uint8(3), uint8(2), uint8(0), uint8(0), uint8(2), false, uint8(12))
	f.Fuzz(func(t *testing.T, policy, sink, recent, heavy, chunk, drop, kvHeads uint8, shared bool, prompt uint8) {
		cfg := Config{Policy: Policy(policy % uint8(numPolicies+1)), Sink: int(sink % 16), Recent: int(recent % 16),
			Heavy: int(heavy % 16), ChunkSize: int(chunk % 20), DropShare: float64(drop) / 100, Shared: shared,
			Heads: 4, KVHeads: int(kvHeads%4) + 1, Dim: 4, MaxTokens: 60, MaxPrompt: int(prompt % 70), Seed: 3}
		l, err := NewLayer(cfg)
		if err != nil {
			return // a clear error is the contract; no panic reached here
		}
		s := newStream(2, cfg.Heads, cfg.KVHeads, cfg.Dim)
		out := make([]float32, cfg.Heads*cfg.Dim)
		for pos := range 60 {
			s.next()
			if err := l.Step(pos, s.q, s.k, s.v, out); err != nil {
				t.Fatalf("valid config %+v failed at %d: %v", cfg, pos, err)
			}
			checkInvariants(t, l, s, pos)
		}
	})
}
