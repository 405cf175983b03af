package sim

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/kvscope/kvscope/core/model"
)

// promptCase is a configuration a ModelRun reads referenceText's 62
// tokens with: a cache that keeps everything exactly, policies that evict
// after the prompt (H2O on the scores the prompt left) and during it
// (Seed000), quantized storage with calibrated per-channel ranges, and
// keys re-positioned within the cache (StreamingLLM).
type promptCase struct {
	name  string
	mod   func(*Config)
	repos bool
}

var promptCases = []promptCase{
	{"full-fp32", func(c *Config) { c.Policy, c.Bits = "full", 32 }, false},
	{"h2o16-int8-channel", func(c *Config) {
		c.Policy, c.Sink, c.Recent, c.Heavy, c.Bits, c.Granularity = "h2o", 1, 8, 7, 8, "channel"
	}, false},
	{"seed000-int8-channel", func(c *Config) {
		c.Policy, c.Sink, c.Recent, c.Heavy, c.Shared, c.Bits, c.Granularity = "seed000", 2, 8, 6, true, 8, "channel"
	}, false},
	{"window16-repos", func(c *Config) { c.Policy, c.Sink, c.Recent, c.Heavy, c.Bits = "window", 0, 16, 0, 32 }, true},
	{"streaming-repos-int8-channel", func(c *Config) {
		c.Policy, c.Sink, c.Recent, c.Heavy, c.Bits, c.Granularity = "streaming", 4, 12, 0, 8, "channel"
	}, true},
}

const promptRunTokens = 100

// newPromptRun opens tc's run of referenceText, reading prompt chunks of
// chunk tokens, through Forward token by token when viaForward.
func newPromptRun(t *testing.T, m *model.Model, tc promptCase, chunk int, viaForward bool) *ModelRun {
	t.Helper()
	cfg := DefaultConfig()
	cfg.GroupSize = 8
	tc.mod(&cfg)
	r, err := NewModelRun(m, cfg, referenceText, promptRunTokens, tc.repos)
	if err != nil {
		t.Fatal(err)
	}
	r.chunk, r.viaForward = chunk, viaForward
	return r
}

// stepTo steps r until it has fed pos tokens (or ends).
func stepTo(t *testing.T, r *ModelRun, pos int) {
	t.Helper()
	for r.Pos() < pos && r.Step() {
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
}

// near reports whether a and b agree within tol, relative to the larger
// magnitude above 1 (both NaN or the same infinity agree).
func near(a, b, tol float64) bool {
	if a == b || math.IsNaN(a) && math.IsNaN(b) {
		return true
	}
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func closeMetrics(a, b Metrics, tol float64) bool {
	x := [...]float64{a.KErr, a.VErr, a.OutErr, a.Mass, a.KL, a.Bias, a.KMax, a.VMax}
	y := [...]float64{b.KErr, b.VErr, b.OutErr, b.Mass, b.KL, b.Bias, b.KMax, b.VMax}
	for i := range x {
		if !near(x[i], y[i], tol) {
			return false
		}
	}
	return true
}

// sameRuns reports how runs a and b differ at their current positions
// ("" when they agree): texts, tokens and pieces exactly; the metrics'
// history, the next-token KL history and the sink metric within tol; and
// every layer's compressed cache — which tokens it holds and how (roles,
// evictions, storage kinds) exactly, the policy's scores, attention and
// storage errors within tol — and memory.
func sameRuns(a, b *ModelRun, tol float64) string {
	if a.Pos() != b.Pos() {
		return fmt.Sprintf("positions %d and %d", a.Pos(), b.Pos())
	}
	af, ac := a.Texts()
	bf, bc := b.Texts()
	if af != bf || ac != bc {
		return fmt.Sprintf("texts\n%q / %q\n%q / %q", af, ac, bf, bc)
	}
	at, atc := a.Tokens()
	bt, btc := b.Tokens()
	if !slices.Equal(at, bt) || !slices.Equal(atc, btc) || !slices.Equal(a.pieces, b.pieces) {
		return "tokens"
	}
	if len(a.history) != a.Pos() || len(b.history) != b.Pos() {
		return fmt.Sprintf("%d and %d history entries for %d positions", len(a.history), len(b.history), a.Pos())
	}
	for i := range a.history {
		if !closeMetrics(a.history[i], b.history[i], tol) {
			return fmt.Sprintf("metrics at position %d: %+v and %+v", i, a.history[i], b.history[i])
		}
	}
	if !slices.EqualFunc(a.kls, b.kls, func(x, y float64) bool { return near(x, y, tol) }) {
		return fmt.Sprintf("KL histories %v and %v", a.kls, b.kls)
	}
	if a.agree != b.agree || a.steps != b.steps {
		return fmt.Sprintf("agreement %d of %d and %d of %d", a.agree, a.steps, b.agree, b.steps)
	}
	as, bs := a.Sinks(), b.Sinks()
	if as.Tokens != bs.Tokens || !slices.EqualFunc(as.Importance, bs.Importance, func(x, y float64) bool { return near(x, y, tol) }) {
		return "sinks"
	}
	for l := range a.cfg.Layers {
		sa := a.Snapshot(l)
		cells, mem := slices.Clone(sa.Cells), sa.Mem
		sb := b.Snapshot(l)
		if mem != sb.Mem {
			return fmt.Sprintf("memory %+v and %+v", mem, sb.Mem)
		}
		for i, x := range cells {
			y := sb.Cells[i]
			if x.Role != y.Role || x.EvictedAt != y.EvictedAt || x.Storage != y.Storage || x.Attended != y.Attended ||
				!near(float64(x.Score), float64(y.Score), tol) || !near(float64(x.Attn), float64(y.Attn), tol) ||
				!near(float64(x.AttnFull), float64(y.AttnFull), tol) || !near(float64(x.KErr), float64(y.KErr), tol) {
				return fmt.Sprintf("layer %d cell %d: %+v and %+v", l, i, x, y)
			}
		}
	}
	return ""
}

// Reading the prompt in one batched pass (Runner.Prefill) leaves the
// compressed cache as feeding the same prompt through the tee token by
// token (Runner.Forward) does — the same tokens held the same way, the
// same scores up to float rounding — and the run continues the same.
func TestModelRunPromptPrefillMatchesForward(t *testing.T) {
	m := loadModel(t)
	last := len(m.Tokenizer.Prompt(referenceText)) - 1
	for _, tc := range promptCases {
		t.Run(tc.name, func(t *testing.T) {
			batched, forward := newPromptRun(t, m, tc, PromptChunk, false), newPromptRun(t, m, tc, PromptChunk, true)
			for _, pos := range []int{last, last + 1, promptRunTokens} {
				stepTo(t, batched, pos)
				stepTo(t, forward, pos)
				if d := sameRuns(batched, forward, 1e-4); d != "" {
					t.Fatalf("at position %d, Prefill and Forward differ: %s", pos, d)
				}
			}
		})
	}
}

// A run's texts, metrics and compressed cache do not depend on how its
// prompt is split into chunks.
func TestModelRunPromptChunkSizes(t *testing.T) {
	m := loadModel(t)
	for _, tc := range promptCases {
		t.Run(tc.name, func(t *testing.T) {
			want := newPromptRun(t, m, tc, PromptChunk, false)
			stepTo(t, want, promptRunTokens)
			for _, chunk := range []int{1, 7, 61, 1000} {
				r := newPromptRun(t, m, tc, chunk, false)
				stepTo(t, r, promptRunTokens)
				if d := sameRuns(r, want, 1e-4); d != "" {
					t.Fatalf("chunks of %d and of %d differ: %s", chunk, PromptChunk, d)
				}
			}
		})
	}
}

// A step in the prompt feeds a chunk: Pos advances by up to the chunk
// size (StepTo: no further than its goal) until the prompt's last token,
// which a step feeds alone, as every later one. Each fed position has its
// history entry, token, piece and sink query; next-token measures start
// at the prompt's last token.
func TestModelRunPromptStepsByChunk(t *testing.T) {
	m := loadModel(t)
	n := len(m.Tokenizer.Prompt(referenceText)) // 62
	for _, tc := range []struct {
		chunk, goal int // goal for StepTo; 0 for Step
		want        []int
	}{
		{PromptChunk, 0, []int{n - 1, n, n + 1}},
		{7, 0, []int{7, 14, 21, 28, 35, 42, 49, 56, n - 1, n, n + 1}},
		{PromptChunk, 10, []int{10, 11, 12}}, // past the goal, a token a step
		{PromptChunk, -5, []int{1, 2, 3}},    // a goal behind: a token a step
		{1, 0, []int{1, 2, 3}},
	} {
		t.Run(fmt.Sprintf("chunk%d-goal%d", tc.chunk, tc.goal), func(t *testing.T) {
			r := newPromptRun(t, m, promptCases[1], tc.chunk, false)
			for _, want := range tc.want {
				var ok bool
				if tc.goal != 0 {
					ok = r.StepTo(tc.goal)
				} else {
					ok = r.Step()
				}
				if !ok {
					t.Fatal(r.Err())
				}
				pos := r.Pos()
				if pos != want {
					t.Fatalf("at %d, want %d", pos, want)
				}
				s := r.Snapshot(0)
				full, comp := r.Tokens()
				if s.Step != pos || len(s.History) != pos || len(s.Tokens) != pos || len(full) != pos || len(comp) != pos || s.Sinks.Tokens != pos {
					t.Fatalf("at %d: step %d, %d history entries, %d pieces, %d and %d tokens, %d sink queries",
						pos, s.Step, len(s.History), len(s.Tokens), len(full), len(comp), s.Sinks.Tokens)
				}
				if kls := max(0, pos-(n-1)); len(s.Text.KLHistory) != kls || r.steps != kls {
					t.Fatalf("at %d: %d KL entries over %d steps, want %d", pos, len(s.Text.KLHistory), r.steps, kls)
				}
				if s.Metrics != s.History[pos-1] {
					t.Fatalf("at %d: metrics %+v, last history entry %+v", pos, s.Metrics, s.History[pos-1])
				}
			}
		})
	}
}

// keyRecorder is an uncompressed cache that records every key and value
// it is given (before RoPE): [layer][position][kvDim].
type keyRecorder struct {
	*model.FullCache
	k, v [][][]float32
}

func (c *keyRecorder) Attend(l, pos int, q, k, v, out []float32) error {
	for len(c.k) <= l {
		c.k, c.v = append(c.k, nil), append(c.v, nil)
	}
	c.k[l] = append(c.k[l], slices.Clone(k))
	c.v[l] = append(c.v[l], slices.Clone(v))
	return c.FullCache.Attend(l, pos, q, k, v, out)
}

// The compressed cache holds the reference's own prompt keys and values
// (its originals, before storage: rotated to their positions, or not when
// re-positioned), and its measures compare the reference's queries: a
// cache that keeps everything exactly measures no error at any prompt
// position, and continues the reference's text. The sink metric counts
// every query, chunked or not.
func TestModelRunPromptHoldsReferenceKeys(t *testing.T) {
	m := loadModel(t)
	mc := m.Config
	toks := m.Tokenizer.Prompt(referenceText)
	n := len(toks) - 1
	fc, err := model.NewFullCache(mc, n)
	if err != nil {
		t.Fatal(err)
	}
	rec := &keyRecorder{FullCache: fc}
	ref := m.NewRunner(rec)
	for _, tok := range toks[:n] {
		if _, err := ref.Forward(tok); err != nil {
			t.Fatal(err)
		}
	}
	rope := model.RopeTables(mc, n)
	for _, tc := range []promptCase{promptCases[0], promptCases[1], {"full-fp32-repos", promptCases[0].mod, true}} {
		t.Run(tc.name, func(t *testing.T) {
			r := newPromptRun(t, m, tc, PromptChunk, false)
			stepTo(t, r, n)
			c := r.cache.c
			d := mc.HeadDim
			for l, layer := range c.layers {
				for g := range mc.KVHeads {
					for i, p := range layer.Positions(g) {
						want := slices.Clone(rec.k[l][p])
						if !tc.repos {
							rope[l].Apply(want, int(p))
						}
						ks, vs := layer.Slots(g, i)
						gotK, gotV := c.orig(c.origK, l, g, ks), c.orig(c.origV, l, g, vs)
						for j := range d {
							if !near(float64(gotK[j]), float64(want[g*d+j]), 1e-5) || !near(float64(gotV[j]), float64(rec.v[l][p][g*d+j]), 1e-5) {
								t.Fatalf("layer %d head %d position %d: key %v value %v, the reference's %v %v",
									l, g, p, gotK, gotV, want[g*d:(g+1)*d], rec.v[l][p][g*d:(g+1)*d])
							}
						}
					}
				}
			}
			if tc.name == promptCases[1].name {
				return // lossy: the keys above are all there is to check
			}
			for p, h := range r.history {
				if !tc.repos && (h.OutErr > 1e-5 || h.Mass < 1-1e-5 || h.KErr > 1e-6) || tc.repos && h != (Metrics{}) {
					t.Fatalf("an exact cache measured at prompt position %d: %+v", p, h)
				}
			}
			stepTo(t, r, promptRunTokens)
			full, comp := r.Texts()
			s := r.Snapshot(0)
			if full != comp || s.Text.Diverge != -1 || s.Text.Agreement != 1 || s.Text.MeanKL > 1e-6 {
				t.Fatalf("an exact cache parted from the reference: %+v", *s.Text)
			}
			// The sink metric counts the chunked queries as it counts the rest.
			_, ids := r.Tokens()
			want, err := ModelSinks(m, ids)
			if err != nil {
				t.Fatal(err)
			}
			got := r.Sinks()
			if got.Tokens != want.Tokens || !slices.EqualFunc(got.Importance, want.Importance, func(x, y float64) bool { return near(x, y, 1e-5) }) {
				t.Fatalf("sinks over %d queries %v, measured alone over %d %v", got.Tokens, got.Importance, want.Tokens, want.Importance)
			}
		})
	}
}
