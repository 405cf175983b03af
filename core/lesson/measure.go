package lesson

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/sim"
)

// Numbers are what the page measured of one state, as claims use them:
// the fidelity averaged over the reference steps so far (the run's mean,
// as the sweep's rows, and the page's fidelity column headed
// sim.OverTheRun), the memory at the step shown, and in real-model mode
// the next-token comparison over the run.
type Numbers struct {
	Step                         int     // tokens in the history
	Mass, OutErr, KL, KErr, VErr float64 // means over the reference steps so far
	Bytes                        int64   // everything stored (sim.Memory.Total)
	Payload                      int64   // codes or floats of the tokens (payload and FP16 residual)
	Overhead                     int64   // everything else: scales and zero points, index map, policy scores, low-rank factors, holes
	FullBytes                    int64   // the FP16 history

	// Real-model mode.
	Top1    float64 // share of steps whose most likely next tokens agree
	NextKL  float64 // mean next-token KL(full ‖ compressed), nats
	Diverge int     // first position where the texts part; -1 while they agree
	PPL     float64 // perplexity of the uncompressed text under the compressed cache, when measured (0: not)
}

// Get returns the measure named metric (the names Expect and Format use):
// mass, output_error, kl, key_error, value_error, bytes, payload,
// overhead, step, top1, next_kl, ppl. Unknown names give NaN.
func (n Numbers) Get(metric string) float64 {
	switch metric {
	case "mass":
		return n.Mass
	case "output_error":
		return n.OutErr
	case "kl":
		return n.KL
	case "key_error":
		return n.KErr
	case "value_error":
		return n.VErr
	case "bytes":
		return float64(n.Bytes)
	case "payload":
		return float64(n.Payload)
	case "overhead":
		return float64(n.Overhead)
	case "step":
		return float64(n.Step)
	case "top1":
		return n.Top1
	case "next_kl":
		return n.NextKL
	case "ppl":
		return n.PPL
	}
	return nan
}

var nan = math.NaN()

// FromSnapshot reads the numbers of the state a snapshot shows: the mean
// of its metrics history, its memory, and its text comparison (real
// model). PPL stays 0: the caller sets it when it measures perplexity.
func FromSnapshot(s *sim.Snapshot) Numbers {
	m := sim.MeanMetrics(s.History)
	n := Numbers{Step: s.Step, Mass: m.Mass, OutErr: m.OutErr, KL: m.KL, KErr: m.KErr, VErr: m.VErr,
		Bytes: s.Mem.Total(), Payload: s.Mem.Payload + s.Mem.Residual, FullBytes: s.FullBytes, Diverge: -1}
	n.Overhead = n.Bytes - n.Payload
	if t := s.Text; t != nil {
		n.Top1, n.NextKL, n.Diverge = t.Agreement, t.MeanKL, t.Diverge
	}
	return n
}

// Config applies settings (link keys, as the page writes them) to base.
// Keys the simulator does not use (the page's mode, step, playing, text…)
// are skipped; a value that does not parse is an error. The result is
// validated.
func Config(base sim.Config, settings []Setting) (sim.Config, error) {
	c := base
	for _, s := range settings {
		var err error
		atoi := func(p *int) { *p, err = strconv.Atoi(s.Value) }
		switch s.Key {
		case "policy":
			c.Policy = s.Value
		case "gran":
			c.Granularity = s.Value
		case "sink":
			atoi(&c.Sink)
		case "recent":
			atoi(&c.Recent)
		case "heavy":
			atoi(&c.Heavy)
		case "bits":
			atoi(&c.Bits)
		case "group":
			atoi(&c.GroupSize)
		case "residual":
			atoi(&c.Residual)
		case "rank":
			atoi(&c.Rank)
		case "chunk":
			atoi(&c.ChunkSize)
		case "tokens":
			atoi(&c.Tokens)
		case "outliers":
			atoi(&c.OutlierChannels)
		case "ref":
			atoi(&c.RefStride)
		case "seed":
			c.Seed, err = strconv.ParseUint(s.Value, 10, 64)
		case "drop":
			c.DropShare, err = strconv.ParseFloat(s.Value, 64)
		case "shared":
			switch strings.ToLower(s.Value) {
			case "1", "true":
				c.Shared = true
			case "0", "false":
				c.Shared = false
			default:
				err = fmt.Errorf("not 1 or 0")
			}
		}
		if err != nil {
			return c, fmt.Errorf("lesson: setting %s=%q: %v", s.Key, s.Value, err)
		}
	}
	return c, c.Validate()
}

// setting returns the value of key in settings, or def.
func setting(settings []Setting, key, def string) string {
	for _, s := range settings {
		if s.Key == key {
			return s.Value
		}
	}
	return def
}

// Model run defaults, as the page's real-model mode opens.
const (
	DefaultPrompt      = "Once upon a time"
	DefaultModelTokens = 256
)

// Measure runs settings over base as the page would (the synthetic stream,
// or with model m in real-model mode the text for mtokens positions, to
// the step "at", or to the end when at is 0 or absent) and returns its
// numbers. In real-model mode PPL is the perplexity of the uncompressed
// continuation, as decoded, under the compressed cache
// (sim.ModelRun.Perplexity, as the command line scores it).
func Measure(base sim.Config, settings []Setting, m *model.Model) (Numbers, error) {
	return measure(base, settings, m, nil)
}

// measure is Measure reading the synthetic stream from s when s matches it
// (the same numbers, with the reference computed once for runs that share
// s).
func measure(base sim.Config, settings []Setting, m *model.Model, s *sim.Stream) (Numbers, error) {
	c, err := Config(base, settings)
	if err != nil {
		return Numbers{}, err
	}
	at, err := strconv.Atoi(setting(settings, "at", "0"))
	if err != nil || at < 0 {
		return Numbers{}, fmt.Errorf("lesson: at=%q is not a step", setting(settings, "at", ""))
	}
	if setting(settings, "mode", "synthetic") != "model" {
		if s != nil && !s.Matches(c) {
			s = nil
		}
		e, err := sim.NewShared(c, s)
		if err != nil {
			return Numbers{}, err
		}
		if at == 0 || at > c.Tokens {
			at = c.Tokens
		}
		e.RunTo(at)
		if e.Err() != nil {
			return Numbers{}, e.Err()
		}
		return FromSnapshot(e.Snapshot(0)), nil
	}
	if m == nil {
		return Numbers{}, fmt.Errorf("lesson: real-model mode needs a model")
	}
	n, err := strconv.Atoi(setting(settings, "mtokens", strconv.Itoa(DefaultModelTokens)))
	if err != nil {
		return Numbers{}, fmt.Errorf("lesson: mtokens: %v", err)
	}
	prompt := setting(settings, "text", DefaultPrompt)
	r, err := sim.NewModelRun(m, c, prompt, n, false)
	if err != nil {
		return Numbers{}, err
	}
	goal := n
	if at > 0 {
		goal = at
	}
	for r.Pos() < goal && r.StepTo(goal) {
	}
	if r.Err() != nil {
		return Numbers{}, r.Err()
	}
	snap := r.Snapshot(0)
	out := FromSnapshot(snap)
	if _, out.PPL, err = r.Perplexity(); err != nil {
		return Numbers{}, err
	}
	return out, nil
}
