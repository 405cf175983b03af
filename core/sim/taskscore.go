package sim

import (
	"fmt"
	"math"

	"github.com/kvscope/kvscope/core/kv"
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
	c, err := taskBudget(cfg, t, budget)
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
// budget for a history of cfg.Tokens tokens (cfg.Prompt of them the
// prompt), with up to cfg.Sink sinks: the sweep's rule (SplitBudget), so
// that a task's budget and a sweep's budget mean the same configuration. A
// policy without a budget (full, quest) is returned unchanged, whatever the
// budget. It returns an error for an unknown policy or, for a policy with a
// budget, a budget below 1.
func WithBudget(cfg Config, budget int) (Config, error) {
	if _, err := kv.ParsePolicy(cfg.Policy); err != nil {
		return cfg, fmt.Errorf("sim: %w", err)
	}
	c, ok := cfg.SplitBudget(budget, cfg.Sink)
	if ok && budget < 1 {
		return cfg, fmt.Errorf("sim: budget %d: want at least 1 token", budget)
	}
	return c, nil
}

// taskBudget is WithBudget for task t: the budget of t's history, t.Context
// of it the prompt.
func taskBudget(cfg Config, t *Task, budget int) (Config, error) {
	cfg.Tokens, cfg.Prompt = len(t.Tokens), t.Context
	return WithBudget(cfg, budget)
}
