package sim

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/model"
)

func buildTask(t *testing.T, m *model.Model, spec TaskSpec) *Task {
	t.Helper()
	tk, err := BuildTask(m.Tokenizer, m.Config.ContextLength, spec)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// Each task puts its needle, question and scored tokens where it says,
// the same way for the same seed, and a control differs only in the
// needle.
func TestBuildTask(t *testing.T) {
	m := loadModel(t)
	tok := m.Tokenizer
	for _, kind := range TaskKinds {
		for _, depth := range []float64{0, 0.3, 1} {
			spec := TaskSpec{Kind: kind, Seed: 7, Length: 200, Depth: depth}
			a := buildTask(t, m, spec)
			if b := buildTask(t, m, spec); !reflect.DeepEqual(a, b) {
				t.Fatalf("%s: the same spec built different instances", kind)
			}
			spec.Seed = 8
			if c := buildTask(t, m, spec); slices.Equal(a.Tokens, c.Tokens) {
				t.Fatalf("%s: seeds 7 and 8 built the same tokens", kind)
			}
			n := len(a.Tokens)
			if n > 200 || n < 150 || a.Tokens[0] != tok.BOS {
				t.Fatalf("%s: %d tokens for a length of 200, first %d", kind, n, a.Tokens[0])
			}
			if a.Scored[len(a.Scored)-1] != n-1 || a.Scored[0] != a.Context || len(a.Scored) != n-a.Context {
				t.Fatalf("%s: scored %v of %d tokens, context %d", kind, a.Scored, n, a.Context)
			}
			needle := a.Tokens[a.Needle[0]:a.Needle[1]]
			answer := a.Tokens[a.Scored[0]:]
			switch kind {
			case TaskCopy:
				if len(needle) != DefaultSpan || !slices.Equal(needle[1:], answer) || a.Tokens[a.Context-1] != needle[0] {
					t.Fatalf("copy: the second copy %v is not the first %v", a.Tokens[a.Context-1:], needle)
				}
				for _, id := range needle {
					if tok.Type(id) != model.TokenNormal {
						t.Fatalf("copy: token %d (%q) is not a normal piece", id, tok.Piece(id))
					}
				}
			case TaskName, TaskMagic:
				if got := strings.TrimSpace(tok.Decode(answer)); got != a.Answer {
					t.Fatalf("%s: scored tokens read %q, answer %q", kind, got, a.Answer)
				}
				if !strings.Contains(tok.Decode(needle), " "+a.Answer+".") {
					t.Fatalf("%s: needle %q lacks %q", kind, tok.Decode(needle), a.Answer)
				}
				if len(answer) < 2 && kind == TaskName {
					t.Fatalf("name %q is %d token(s), want several", a.Answer, len(answer))
				}
				if strings.Count(tok.Decode(a.Tokens), a.Answer) != 2 {
					t.Fatalf("%s: %q appears other than twice in %q", kind, a.Answer, tok.Decode(a.Tokens))
				}
			}
			// Depth 0 puts the needle right after BOS, depth 1 right before the question.
			switch depth {
			case 0:
				if a.Needle[0] != 1 {
					t.Fatalf("%s depth 0: needle at %d", kind, a.Needle[0])
				}
			case 1:
				q, want := a.Context-a.Needle[1], 1 // copy: the second copy's first token
				switch kind {
				case TaskName:
					want = len(tok.Encode(nameCue, false, false))
				case TaskMagic:
					want = len(tok.Encode(magicQuestion, false, false))
				}
				if q != want {
					t.Fatalf("%s depth 1: %d tokens between the needle and the answer", kind, q)
				}
			}
			// The control holds another needle and everything else the same.
			spec.Seed, spec.Control = 7, true
			c := buildTask(t, m, spec)
			cn := c.Tokens[c.Needle[0]:c.Needle[1]]
			if slices.Equal(cn, needle) || !slices.Equal(c.Tokens[:c.Needle[0]], a.Tokens[:a.Needle[0]]) ||
				!slices.Equal(c.Tokens[c.Needle[1]:], a.Tokens[a.Needle[1]:]) || c.Answer != a.Answer {
				t.Fatalf("%s: control differs beyond the needle", kind)
			}
		}
	}
	for _, w := range append(append([]string{}, magicWords...), nameHeads...) {
		for _, f := range append(append([]string{}, filler...), magicQuestion, nameCue) {
			if strings.Contains(strings.ToLower(f), strings.ToLower(w)) {
				t.Errorf("%q occurs in %q", w, f)
			}
		}
	}
	for _, spec := range []TaskSpec{
		{Kind: "nope", Length: 100},
		{Kind: TaskCopy, Length: 100, Depth: 1.5},
		{Kind: TaskCopy, Length: 100, Depth: math.NaN()},
		{Kind: TaskCopy, Length: 513},
		{Kind: TaskCopy, Length: 40, Span: 32},
		{Kind: TaskCopy, Length: 100, Span: 1},
		{Kind: TaskMagic, Length: 10},
	} {
		if _, err := BuildTask(tok, m.Config.ContextLength, spec); err == nil {
			t.Errorf("%+v accepted", spec)
		}
	}
}

// directScore recomputes a task's score from scratch: every prefix's
// logits from a fresh uncompressed run, log-softmax in float64.
func directScore(t *testing.T, m *model.Model, tk *Task) (sum float64, top1 int) {
	t.Helper()
	fc, err := model.NewFullCache(m.Config, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := m.NewRunner(fc)
	for i := 0; i < len(tk.Tokens)-1; i++ {
		logits, err := r.Forward(tk.Tokens[i])
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(tk.Scored, i+1) {
			continue
		}
		var z float64
		for _, v := range logits {
			z += math.Exp(float64(v))
		}
		sum += float64(logits[tk.Tokens[i+1]]) - math.Log(z)
		if model.Argmax(logits) == tk.Tokens[i+1] {
			top1++
		}
	}
	return sum, top1
}

// The full cache's score is the sum of the teacher-forced log-probabilities
// of the scored tokens, averaged; so is a "full" policy's through the
// compressed cache with float32 storage.
func TestScoreTaskIsTeacherForcedLogProb(t *testing.T) {
	m := loadModel(t)
	for _, kind := range TaskKinds {
		tk := buildTask(t, m, TaskSpec{Kind: kind, Seed: 3, Length: 128, Depth: 0.5})
		fc, err := model.NewFullCache(m.Config, 0)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ScoreTask(m, fc, tk)
		if err != nil {
			t.Fatal(err)
		}
		sum, top1 := directScore(t, m, tk)
		n := float64(len(tk.Scored))
		if math.Abs(got.LogProb-sum/n) > 1e-4 || got.Top1 != float64(top1)/n || got.Tokens != len(tk.Scored) {
			t.Fatalf("%s: score %+v, direct mean log-prob %v, top-1 %v", kind, got, sum/n, float64(top1)/n)
		}
		cfg := DefaultConfig()
		cfg.Policy, cfg.Bits = "full", 32
		same, err := RunTask(m, cfg, tk, 0, false)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(same.LogProb-got.LogProb) > 1e-4 || same.Top1 != got.Top1 {
			t.Fatalf("%s: full policy %+v, full cache %+v", kind, same, got)
		}
		t.Logf("%s, 128 tokens, full cache: %.3f nats/token, top-1 %.2f, mean rank %.1f over %d tokens", kind, got.LogProb, got.Top1, got.Rank, got.Tokens)
	}
}

// Evicting the first copy (a window shorter than the distance between the
// copies) leaves the copy score at the level of a model that never saw the
// first copy (the control instance: another random sequence in its place,
// the unigram level). stories260K cannot copy random tokens at all, so its
// full cache is at that level too (reported); the name task, which it can
// partly do, loses when its needle is evicted.
func TestEvictingTheNeedle(t *testing.T) {
	m := loadModel(t)
	window := DefaultConfig()
	window.Policy, window.Bits = "window", 32
	for _, kind := range []string{TaskCopy, TaskName} {
		var full, evicted, control float64
		const seeds = 4
		for seed := range uint64(seeds) {
			spec := TaskSpec{Kind: kind, Seed: seed, Length: 160, Depth: 0.2}
			tk := buildTask(t, m, spec)
			fc, _ := model.NewFullCache(m.Config, 0)
			f, err := ScoreTask(m, fc, tk)
			if err != nil {
				t.Fatal(err)
			}
			budget := 16
			if tk.Context-tk.Needle[1] <= budget {
				t.Fatalf("%s: the needle is within the %d-token window", kind, budget)
			}
			w, err := RunTask(m, window, tk, budget, false)
			if err != nil {
				t.Fatal(err)
			}
			spec.Control = true
			c, err := ScoreTask(m, fc, buildTask(t, m, spec))
			if err != nil {
				t.Fatal(err)
			}
			full += f.LogProb / seeds
			evicted += w.LogProb / seeds
			control += c.LogProb / seeds
		}
		t.Logf("%s: full cache %.3f, 16-token window (needle evicted) %.3f, control (no needle) %.3f nats/token", kind, full, evicted, control)
		if math.Abs(evicted-control) > 0.6 {
			t.Errorf("%s: with the needle evicted the score %.3f is not near the no-needle level %.3f", kind, evicted, control)
		}
		if kind == TaskName && full < evicted+0.3 {
			t.Errorf("name: evicting the introduction cost only %.3f nats/token (full %.3f)", full-evicted, full)
		}
	}
}

// WithBudget gives each policy the budget it is asked for, split as the
// sweep splits it (TestBudgetSplitIsOneRule) with the configuration's
// sinks.
func TestWithBudget(t *testing.T) {
	base := DefaultConfig() // sink 4, recent 32, heavy 28; 512 tokens, prompt 16
	for _, tc := range []struct {
		policy              string
		budget              int
		sink, recent, heavy int
		drop                float64
		err                 bool
	}{
		{"window", 16, 0, 16, 0, 0, false},
		{"streaming", 16, 4, 12, 0, 0, false},
		{"streaming", 3, 1, 2, 0, 0, false},
		{"h2o", 64, 4, 30, 30, 0, false},
		{"h2o", 34, 4, 15, 15, 0, false},
		{"tova", 8, 4, 2, 2, 0, false},
		{"snapkv", 256, 0, 4, 4, 0, false},
		{"duo", 40, 4, 36, 0, 0, false},
		{"chunk", 128, 0, 0, 0, 0.75, false},
		{"full", 5, 4, 32, 28, 0.3, false}, // unchanged
		{"full", 0, 4, 32, 28, 0.3, false},
		{"h2o", 0, 0, 0, 0, 0, true},
		{"lru", 8, 0, 0, 0, 0, true},
	} {
		c := base
		c.Policy = tc.policy
		got, err := WithBudget(c, tc.budget)
		if (err != nil) != tc.err {
			t.Fatalf("%s %d: err %v", tc.policy, tc.budget, err)
		}
		if err == nil && (got.Sink != tc.sink || got.Recent != tc.recent || got.Heavy != tc.heavy || got.DropShare != tc.drop) {
			t.Errorf("%s %d: sink %d recent %d heavy %d drop %v, want %d %d %d %v", tc.policy, tc.budget,
				got.Sink, got.Recent, got.Heavy, got.DropShare, tc.sink, tc.recent, tc.heavy, tc.drop)
		}
	}
}
