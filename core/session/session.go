// Package session is a real-model decoding session as the page runs it
// off its main thread: a decode worker holds the model and a Session,
// the page sends it settings, a goal and the layer it shows, and the
// Session steps its run towards the goal and encodes frames — one
// layer's snapshot, the texts and the stepping time — that the page's
// Receiver turns back into the sim.Snapshot it draws.
//
// The page never waits for a step: it sets a goal and draws whatever
// frame arrived last. The numbers are the run's own, bit for bit, so a
// run gives the same figures whichever worker decodes it (see
// TestFramesRebuildTheRun).
package session

import (
	"errors"
	"fmt"
	"time"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/sim"
)

// Settings are what a real-model run is built from: the configuration
// (policy, budgets, storage; the model sets the shape), the prompt (a
// document), a question about it and whether the cache is compressed after
// the question rather than before (sim.NewDocumentRun), the run's length
// in tokens (prompt included) and whether kept keys are re-rotated to
// their new positions. They travel as JSON.
type Settings struct {
	Config    sim.Config `json:"config"`
	Text      string     `json:"text"`
	Question  string     `json:"question,omitempty"`
	After     bool       `json:"after,omitempty"`
	MaxTokens int        `json:"maxTokens"`
	Repos     bool       `json:"repos"`
}

// Session decodes one run of a model at a time. It is not safe for
// concurrent use: a worker calls it from one goroutine.
type Session struct {
	m     *model.Model
	run   *sim.ModelRun
	id    int
	goal  int
	layer int
	ended bool
	steps int // positions fed since the last frame
	nanos int64
	had   sent
	buf   []byte
}

// New returns a session of model m, with no run open.
func New(m *model.Model) (*Session, error) {
	if m == nil {
		return nil, errors.New("session: no model")
	}
	return &Session{m: m}, nil
}

// Model returns the session's model.
func (s *Session) Model() *model.Model { return s.m }

// Open builds the run of set, identified by id in its frames, to be
// decoded up to goal tokens and shown at layer. The run open before is
// dropped, whether or not this one builds: an error leaves no run open.
func (s *Session) Open(id int, set Settings, goal, layer int) error {
	s.run, s.ended, s.had, s.steps, s.nanos = nil, false, sent{}, 0, 0
	if err := s.checkLayer(layer); err != nil {
		return err
	}
	run, err := sim.NewDocumentRun(s.m, set.Config, set.Text, set.Question, set.After, set.MaxTokens, set.Repos)
	if err != nil {
		return err
	}
	s.run, s.id, s.goal, s.layer = run, id, goal, layer
	return nil
}

func (s *Session) checkLayer(layer int) error {
	if n := s.m.Config.Layers; layer < 0 || layer >= n {
		return fmt.Errorf("session: layer %d of a %d-layer model", layer, n)
	}
	return nil
}

// ID returns the open run's id (0 with none open).
func (s *Session) ID() int {
	if s.run == nil {
		return 0
	}
	return s.id
}

// SetGoal sets how many tokens run id is to reach. It reports false, and
// changes nothing, when id is not the open run (a message about a run the
// page has since replaced).
func (s *Session) SetGoal(id, goal int) bool {
	if s.run == nil || id != s.id {
		return false
	}
	s.goal = goal
	return true
}

// SetLayer sets the layer run id's frames show. It reports false when id
// is not the open run, and an error for a layer the model lacks.
func (s *Session) SetLayer(id, layer int) (bool, error) {
	if s.run == nil || id != s.id {
		return false, nil
	}
	if err := s.checkLayer(layer); err != nil {
		return true, err
	}
	s.layer = layer
	return true, nil
}

// Pos returns the tokens the open run has fed (0 with none open).
func (s *Session) Pos() int {
	if s.run == nil {
		return 0
	}
	return s.run.Pos()
}

// Pending reports whether the open run has steps to take: it is short of
// its goal and has not ended.
func (s *Session) Pending() bool {
	return s.run != nil && !s.ended && s.run.Pos() < s.goal
}

// Step takes one step of the open run when it is pending, timing it: one
// token, or a chunk of the prompt that ends no later than the goal
// (sim.ModelRun.StepTo). It reports whether a step was taken; a run that
// completes or fails ends, and its next frame says so.
func (s *Session) Step() bool {
	if !s.Pending() {
		return false
	}
	pos := s.run.Pos()
	t0 := time.Now()
	ok := s.run.StepTo(s.goal)
	s.nanos += time.Since(t0).Nanoseconds()
	if !ok {
		s.ended = true
		return false
	}
	s.steps += s.run.Pos() - pos
	return true
}

// Frame encodes the open run's state at its layer: the snapshot, the
// texts' new parts since the previous frame, and the positions fed since
// then with the time they took. The returned slice is reused by the next call. With no run open
// it returns nil.
func (s *Session) Frame() []byte {
	if s.run == nil {
		return nil
	}
	snap := s.run.Snapshot(s.layer)
	full, _ := s.run.Tokens()
	s.buf = encode(s.buf[:0], s.id, s.ended, s.run.Err(), s.steps, s.nanos, snap, full, &s.had)
	s.steps, s.nanos = 0, 0
	return s.buf
}

// Resend makes the next frame carry the growing parts whole, for a
// receiver that has lost them (see Receiver.Receive's error).
func (s *Session) Resend() { s.had = sent{} }
