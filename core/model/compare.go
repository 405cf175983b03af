package model

import (
	"fmt"
	"math"

	"github.com/kvscope/kvscope/core/internal/fastmath"
)

// KLDivergence returns KL(P‖Q) in nats, where P = softmax(ref) and Q =
// softmax(test): Σ P·(log P − log Q), computed stably in float64 without
// allocating. It is 0 for identical logits and never negative (up to rounding,
// which it clamps). It panics if the lengths differ or are zero.
func KLDivergence(ref, test []float32) float64 {
	if len(ref) != len(test) || len(ref) == 0 {
		panic(fmt.Sprintf("model: KLDivergence: lengths %d and %d", len(ref), len(test)))
	}
	lp, lq := fastmath.LogSumExp(ref), fastmath.LogSumExp(test)
	var kl float64
	for i := range ref {
		a := float64(ref[i]) - lp
		b := float64(test[i]) - lq
		kl += math.Exp(a) * (a - b)
	}
	return max(kl, 0)
}

// StepStats compares the next-token distributions of two caches after one token.
type StepStats struct {
	Pos     int     // position of the token fed
	Token   int     // the token fed
	KL      float64 // KL(reference ‖ test) of the next-token distributions, nats
	RefTop  int     // reference's most likely next token
	TestTop int     // test's most likely next token
}

// Comparer runs a reference and a test cache side by side on the same tokens
// (teacher forcing), so their next-token distributions can be compared at every
// position.
type Comparer struct {
	Ref, Test *Runner
}

// NewComparer returns a Comparer whose two runners use ref and test (both reset).
func (m *Model) NewComparer(ref, test Cache) *Comparer {
	return &Comparer{Ref: m.NewRunner(ref), Test: m.NewRunner(test)}
}

// Feed feeds token to both runners and compares their next-token logits. It
// returns the first runner's error, if any. It allocates nothing in steady state
// (when the caches do not).
func (c *Comparer) Feed(token int) (StepStats, error) {
	st := StepStats{Pos: c.Ref.Pos(), Token: token}
	a, err := c.Ref.Forward(token)
	if err != nil {
		return st, err
	}
	b, err := c.Test.Forward(token)
	if err != nil {
		return st, err
	}
	st.KL = KLDivergence(a, b)
	st.RefTop, st.TestTop = Argmax(a), Argmax(b)
	return st, nil
}

// Comparison summarises a Compare run.
type Comparison struct {
	Prompt    []int
	Generated []int       // the reference's greedy continuation
	Steps     []StepStats // one per token fed: the prompt, then Generated but the last
	MeanKL    float64     // mean of Steps[i].KL
	MaxKL     float64
	// Top1Agreement is the fraction of Steps where RefTop == TestTop.
	Top1Agreement float64
	// Diverge is the index in Generated of the first token that greedy decoding
	// with the test cache would have chosen differently — the point where the two
	// greedy texts part — or -1 if they never do within Generated.
	Diverge int
}

// Compare feeds prompt to both caches, then lets the reference decode greedily
// for steps tokens while the test cache is fed the same tokens, and reports the
// per-step KL divergence, top-1 agreement and the first divergence of the greedy
// texts. Up to the divergence, the test cache's own greedy text equals the
// reference's, so Diverge is exact. Both caches are reset first. It returns an
// error for an empty prompt, negative steps, or when a runner fails.
func (m *Model) Compare(ref, test Cache, prompt []int, steps int) (*Comparison, error) {
	if len(prompt) == 0 {
		return nil, fmt.Errorf("model: compare: empty prompt (start with BOS)")
	}
	if steps < 0 {
		return nil, fmt.Errorf("model: compare: negative steps %d", steps)
	}
	c := m.NewComparer(ref, test)
	res := &Comparison{Prompt: prompt, Diverge: -1}
	res.Steps = make([]StepStats, 0, len(prompt)+steps)
	var st StepStats
	var err error
	for _, t := range prompt {
		if st, err = c.Feed(t); err != nil {
			return nil, err
		}
		res.Steps = append(res.Steps, st)
	}
	for g := 0; g < steps; g++ {
		if st.RefTop != st.TestTop && res.Diverge < 0 {
			res.Diverge = g
		}
		res.Generated = append(res.Generated, st.RefTop)
		if g == steps-1 {
			break
		}
		if st, err = c.Feed(st.RefTop); err != nil {
			return nil, err
		}
		res.Steps = append(res.Steps, st)
	}
	agree := 0
	for _, s := range res.Steps {
		res.MeanKL += s.KL
		res.MaxKL = max(res.MaxKL, s.KL)
		if s.RefTop == s.TestTop {
			agree++
		}
	}
	res.MeanKL /= float64(len(res.Steps))
	res.Top1Agreement = float64(agree) / float64(len(res.Steps))
	return res, nil
}

// Perplexity returns exp of the mean negative log-likelihood of tokens[1:], each
// predicted from the tokens before it (teacher forcing) with keys and values in
// c, which is reset first. It returns an error for fewer than two tokens or when
// Forward fails.
func (m *Model) Perplexity(c Cache, tokens []int) (float64, error) {
	if len(tokens) < 2 {
		return 0, fmt.Errorf("model: perplexity needs at least 2 tokens, got %d", len(tokens))
	}
	r := m.NewRunner(c)
	var nll float64
	for i, t := range tokens[:len(tokens)-1] {
		logits, err := r.Forward(t)
		if err != nil {
			return 0, err
		}
		next := tokens[i+1]
		if next < 0 || next >= len(logits) {
			return 0, fmt.Errorf("model: token %d out of range [0, %d)", next, len(logits))
		}
		nll += fastmath.LogSumExp(logits) - float64(logits[next])
	}
	return math.Exp(nll / float64(len(tokens)-1)), nil
}
