package sim

import (
	"fmt"

	"github.com/kvscope/kvscope/core/model"
)

// TaskCell is one measurement of a TaskSweep: a policy and storage at a
// budget, on the task instance at a depth, with the full cache's score on
// the same instance as the reference.
type TaskCell struct {
	Task   string  // the task kind
	Policy string  // the eviction policy
	Budget int     // tokens kept per head (WithBudget); for policy full, the instance's length
	Bits   int     // storage bits
	Depth  float64 // the needle's depth
	Score  TaskScore
	Full   TaskScore // the uncompressed cache's score on the same instance
	Done   bool      // measured (cells fill in order)
}

// TaskSweep measures a task over a list of cells, one cell (or a few
// tokens of one, see SetChunk) per call to Next, so that a page can fill a
// heatmap progressively without freezing and stop whenever it likes: the
// sweep holds no goroutine and nothing to release. Each cell equals the
// single run RunTask(m, cfg with the cell's policy, the cell's task
// instance, the cell's budget, reposition). The task instance of each
// depth and its full-cache score are computed once, before the depth's
// first cell. A sweep is deterministic and not safe for concurrent use.
type TaskSweep struct {
	m     *model.Model
	base  Config
	spec  TaskSpec
	repos bool
	chunk int

	cells  []TaskCell
	next   int // index of the cell being measured
	depths map[float64]*taskDepth
	cal    *ModelCalibration // the storage's calibration (every cell shares the storage)
	calSet bool
	eval   *taskEval // the evaluation in progress (full reference first, then the cell)
	inFull bool      // eval is the depth's full-cache reference
	err    error
}

type taskDepth struct {
	task     *Task
	full     TaskScore
	measured bool
}

// NewTaskHeatmap plans the needle-in-a-haystack figure for cfg's policy
// and storage: a row per depth, a column per budget (cell i is depth
// i/len(budgets), budget i%len(budgets)). spec chooses the task, seed and
// length; its Depth is replaced by each depth. It returns an error for an
// empty or invalid list, or a task that cannot be built.
func NewTaskHeatmap(m *model.Model, cfg Config, spec TaskSpec, depths []float64, budgets []int, reposition bool) (*TaskSweep, error) {
	if len(depths) == 0 || len(budgets) == 0 {
		return nil, fmt.Errorf("sim: a heatmap needs depths and budgets")
	}
	return newTaskGrid(m, cfg, spec, reposition, len(depths), budgets, func(r int) (string, float64) {
		return cfg.Policy, depths[r]
	})
}

// NewTaskCurves plans kvpress's figure for one instance (spec, at
// spec.Depth): the score against budget for each policy, with cfg's other
// settings (cell i is policy i/len(budgets), budget i%len(budgets)). It
// returns an error for an empty or invalid list, or a task that cannot be
// built.
func NewTaskCurves(m *model.Model, cfg Config, spec TaskSpec, policies []string, budgets []int, reposition bool) (*TaskSweep, error) {
	if len(policies) == 0 || len(budgets) == 0 {
		return nil, fmt.Errorf("sim: curves need policies and budgets")
	}
	return newTaskGrid(m, cfg, spec, reposition, len(policies), budgets, func(r int) (string, float64) {
		return policies[r], spec.Depth
	})
}

// newTaskGrid plans rows·len(budgets) cells, row by row: row r's cells run
// the policy at the depth row(r) gives at each budget in turn. It returns
// the first cell's error: a task that cannot be built at a depth, or a
// configuration that is not valid.
func newTaskGrid(m *model.Model, cfg Config, spec TaskSpec, reposition bool, rows int, budgets []int, row func(r int) (policy string, depth float64)) (*TaskSweep, error) {
	s := &TaskSweep{m: m, base: cfg, spec: spec, repos: reposition, depths: map[float64]*taskDepth{}}
	for r := range rows {
		policy, depth := row(r)
		if err := s.addDepth(depth); err != nil {
			return nil, err
		}
		for _, b := range budgets {
			if err := s.add(policy, b, depth); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

// addDepth builds the task instance at depth d, once per depth.
func (s *TaskSweep) addDepth(d float64) error {
	if _, ok := s.depths[d]; ok {
		return nil
	}
	spec := s.spec
	spec.Depth = d
	t, err := BuildTask(s.m.Tokenizer, s.m.Config.ContextLength, spec)
	if err != nil {
		return err
	}
	s.depths[d] = &taskDepth{task: t}
	return nil
}

// add plans a cell after checking that its configuration is valid.
func (s *TaskSweep) add(policy string, budget int, depth float64) error {
	cfg := s.base
	cfg.Policy = policy
	t := s.depths[depth].task
	c, err := taskBudget(cfg, t, budget)
	if err != nil {
		return err
	}
	mc := s.m.Config
	c.Layers, c.Heads, c.KVHeads, c.HeadDim = mc.Layers, mc.Heads, mc.KVHeads, mc.HeadDim
	c.Tokens, c.Prompt = len(t.Tokens), t.Context
	if err := c.validateCache(); err != nil {
		return err
	}
	if _, set := cfg.SplitBudget(budget, cfg.Sink); !set {
		budget = len(t.Tokens) // no budget to set (full, quest): it holds the history
	}
	s.cells = append(s.cells, TaskCell{Task: s.spec.Kind, Policy: policy, Budget: budget, Bits: cfg.Bits, Depth: depth})
	return nil
}

// SetChunk makes each Next feed at most n tokens (n ≤ 0: a whole cell per
// call, the default). With stories260K in WebAssembly, a few hundred
// tokens take a few tens of milliseconds.
func (s *TaskSweep) SetChunk(n int) { s.chunk = n }

// Len returns the number of cells planned.
func (s *TaskSweep) Len() int { return len(s.cells) }

// Done returns the number of cells measured.
func (s *TaskSweep) Done() int { return s.next }

// Cells returns every planned cell; those with Done set are measured. The
// slice is the sweep's own and is updated by Next.
func (s *TaskSweep) Cells() []TaskCell { return s.cells }

// Task returns the task instance at depth (nil if the sweep has none).
func (s *TaskSweep) Task(depth float64) *Task {
	if d, ok := s.depths[depth]; ok {
		return d.task
	}
	return nil
}

// Err returns the error that stopped the sweep, if any.
func (s *TaskSweep) Err() error { return s.err }

// Next does the next piece of work: a whole cell, or SetChunk's tokens of
// it (first the depth's full-cache reference when it is not measured yet).
// It returns false when every cell is measured or after an error (see
// Err).
func (s *TaskSweep) Next() bool {
	if s.err != nil || s.next >= len(s.cells) {
		return false
	}
	if err := s.work(); err != nil {
		s.err = fmt.Errorf("sim: task sweep, cell %d: %w", s.next, err)
		s.eval = nil
		return false
	}
	return s.next < len(s.cells)
}

func (s *TaskSweep) work() error {
	cell := &s.cells[s.next]
	d := s.depths[cell.Depth]
	if s.eval == nil {
		if !d.measured {
			fc, err := model.NewFullCache(s.m.Config, len(d.task.Tokens))
			if err != nil {
				return err
			}
			s.eval, s.inFull = newTaskEval(s.m, fc, d.task), true
		} else {
			cfg := s.base
			cfg.Policy = cell.Policy
			c, err := taskBudget(cfg, d.task, cell.Budget)
			if err != nil {
				return err
			}
			if !s.calSet {
				if s.cal, err = CalibrateModel(s.m, c, s.repos); err != nil {
					return err
				}
				s.calSet = true
			}
			mc, err := TaskCache(s.m, c, d.task, s.repos, s.cal)
			if err != nil {
				return err
			}
			s.eval, s.inFull = newTaskEval(s.m, mc, d.task), false
		}
	}
	done, err := s.eval.advance(s.chunk)
	if err != nil || !done {
		return err
	}
	score := s.eval.score()
	s.eval = nil
	if s.inFull {
		d.full, d.measured = score, true
		if s.chunk <= 0 {
			return s.work() // a whole cell per call: go on to the cell itself
		}
		return nil
	}
	cell.Score, cell.Full, cell.Done = score, d.full, true
	s.next++
	return nil
}
