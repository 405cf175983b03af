package sim

import (
	"fmt"
	"math"
	"strings"

	"github.com/kvscope/kvscope/core/model"
)

// TaskScore is how well a model predicts a task's scored tokens under
// teacher forcing.
type TaskScore struct {
	LogProb float64 // mean log-probability of the scored tokens, nats per token: the task's score (0 is perfect)
	Top1    float64 // share of scored tokens that are the model's most likely next token
	Rank    float64 // mean rank of the scored tokens among the vocabulary (0: most likely)
	Tokens  int     // tokens scored
}

// taskEval teacher-forces one task through a runner a few tokens at a
// time, so that a caller can spread the work over frames.
type taskEval struct {
	r                    *model.Runner
	t                    *Task
	pos                  int // tokens fed
	next                 int // index in t.Scored of the next scored position
	sum, top1, rankTotal float64
}

func newTaskEval(m *model.Model, c model.Cache, t *Task) *taskEval {
	return &taskEval{r: m.NewRunner(c), t: t}
}

// advance feeds up to n more tokens (n ≤ 0: all) and reports whether the
// task is done. A scored position i is scored from the logits after
// feeding Tokens[i-1].
func (e *taskEval) advance(n int) (bool, error) {
	last := e.t.Scored[len(e.t.Scored)-1] // the last token is only predicted, never fed
	for fed := 0; e.pos < last && (n <= 0 || fed < n); fed++ {
		logits, err := e.r.Forward(e.t.Tokens[e.pos])
		if err != nil {
			return false, err
		}
		e.pos++
		if e.next < len(e.t.Scored) && e.t.Scored[e.next] == e.pos {
			lp, rank := logProbRank(logits, e.t.Tokens[e.pos])
			e.sum += lp
			e.rankTotal += float64(rank)
			if rank == 0 {
				e.top1++
			}
			e.next++
		}
	}
	return e.pos >= last, nil
}

func (e *taskEval) score() TaskScore {
	n := float64(len(e.t.Scored))
	return TaskScore{LogProb: e.sum / n, Top1: e.top1 / n, Rank: e.rankTotal / n, Tokens: len(e.t.Scored)}
}

// logProbRank returns log softmax(logits)[target], in float64, and the
// number of tokens with a larger logit (ties rank in the target's favour).
func logProbRank(logits []float32, target int) (float64, int) {
	mx := logits[0]
	for _, v := range logits[1:] {
		mx = max(mx, v)
	}
	var z float64
	rank := 0
	lt := logits[target]
	for _, v := range logits {
		z += math.Exp(float64(v - mx))
		if v > lt {
			rank++
		}
	}
	return float64(lt-mx) - math.Log(z), rank
}

// ScoreTask teacher-forces t through m with keys and values in c (reset
// first) and returns the score of t's scored tokens. It returns an error
// when the model fails (e.g. the cache is too small for the task).
func ScoreTask(m *model.Model, c model.Cache, t *Task) (TaskScore, error) {
	if len(t.Scored) == 0 {
		return TaskScore{}, fmt.Errorf("sim: task has no scored tokens")
	}
	e := newTaskEval(m, c, t)
	if _, err := e.advance(0); err != nil {
		return TaskScore{}, err
	}
	return e.score(), nil
}

// TaskCache returns cfg's compressed cache for t: it holds t's tokens,
// with t.Context tokens as the prompt, which the policy compresses at
// once when it ends (kvpress compresses the context without the question
// the same way), then evicts step by step while the question and answer
// are read. cal is CalibrateModel's result for cfg (nil when cfg's storage
// needs none).
func TaskCache(m *model.Model, cfg Config, t *Task, reposition bool, cal *ModelCalibration) (*ModelCache, error) {
	return NewModelCache(m.Config, cfg, len(t.Tokens), t.Context, reposition, cal)
}

// RunTask scores t under cfg's policy and storage with a budget of budget
// tokens per head (see WithBudget; policy "full" ignores it): CalibrateModel
// when the storage needs it, TaskCache, then ScoreTask.
func RunTask(m *model.Model, cfg Config, t *Task, budget int, reposition bool) (TaskScore, error) {
	c, err := WithBudget(cfg, budget)
	if err != nil {
		return TaskScore{}, err
	}
	cal, err := CalibrateModel(m, c, reposition)
	if err != nil {
		return TaskScore{}, err
	}
	mc, err := TaskCache(m, c, t, reposition, cal)
	if err != nil {
		return TaskScore{}, err
	}
	return ScoreTask(m, mc, t)
}

// WithBudget returns cfg with its policy's token budget per head set to
// budget:
//
//   - full: unchanged (no budget);
//   - window: Recent = budget;
//   - streaming: Sink = min(Sink, budget−1) (at least 1 if Sink > 0), Recent the rest;
//   - snapkv: an observation window Recent = min(Recent, budget/2) (at least 1), Heavy the rest;
//   - any other budgeted policy (h2o, tova, knorm, random, seed000, …): Sink =
//     min(Sink, budget−1), and the rest split between Recent and Heavy in
//     cfg's proportion (all Recent when both are 0).
//
// It returns an error for a budget below 1 or the chunk policy, which has
// no token budget.
func WithBudget(cfg Config, budget int) (Config, error) {
	p := strings.ToLower(cfg.Policy)
	if p == "full" {
		return cfg, nil
	}
	if budget < 1 {
		return cfg, fmt.Errorf("sim: budget %d: want at least 1 token", budget)
	}
	switch p {
	case "chunk":
		return cfg, fmt.Errorf("sim: the chunk policy has no token budget")
	case "window":
		cfg.Sink, cfg.Recent, cfg.Heavy = 0, budget, 0
	case "snapkv":
		cfg.Recent = max(1, min(cfg.Recent, budget/2))
		cfg.Heavy = budget - cfg.Recent
	default:
		cfg.Sink = min(cfg.Sink, budget-1)
		rest := budget - cfg.Sink
		switch {
		case p == "streaming" || cfg.Recent+cfg.Heavy == 0:
			cfg.Recent, cfg.Heavy = rest, 0
		default:
			heavy := int(math.Round(float64(rest) * float64(cfg.Heavy) / float64(cfg.Recent+cfg.Heavy)))
			cfg.Recent, cfg.Heavy = rest-heavy, heavy
		}
	}
	return cfg, nil
}
