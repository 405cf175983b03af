package sim

import (
	"context"
	"fmt"

	"github.com/kvscope/kvscope/core/internal/fastmath"
	"github.com/kvscope/kvscope/core/kv"
	"github.com/kvscope/kvscope/core/model"
)

// ModelSweep runs every configuration of g with a real model: each one a
// ModelRun of prompt for maxTokens positions (as the page's real-model
// mode and kvscope -model do), reduced to a row with, beside bytes and
// the attention measures, top-1 agreement, next-token KL and the
// perplexity of the uncompressed continuation under the compressed cache
// (Perplexity's numbers). Budgets are shares of maxTokens; the prompt's
// length (BOS included) is the configurations' Prompt. With reposition
// the attention measures are not taken (zero): the compressed cache holds
// its keys at other positions than the reference's. fn receives each row
// as it completes; ctx stops the sweep between steps. Deterministic.
func ModelSweep(ctx context.Context, m *model.Model, base Config, prompt string, maxTokens int, reposition bool, g Grid, fn func(Row) error) error {
	ps, err := ModelPoints(m, base, prompt, maxTokens, g)
	if err != nil {
		return err
	}
	return ModelSweepPoints(ctx, m, ps, nil, prompt, maxTokens, reposition, fn)
}

// ModelPoints returns the grid's configurations for a real-model sweep
// (see ModelSweep): base with the model's shape, maxTokens tokens and the
// prompt's length.
func ModelPoints(m *model.Model, base Config, prompt string, maxTokens int, g Grid) ([]Point, error) {
	mc := m.Config
	if maxTokens < 2 || maxTokens > mc.ContextLength {
		return nil, fmt.Errorf("sim: model sweep of %d tokens: want 2 to %d (the model's context)", maxTokens, mc.ContextLength)
	}
	base.Layers, base.Heads, base.KVHeads, base.HeadDim = mc.Layers, mc.Heads, mc.KVHeads, mc.HeadDim
	base.Tokens = maxTokens
	base.Prompt = min(len(m.Tokenizer.Prompt(prompt)), maxTokens)
	if base.RefStride < 1 {
		base.RefStride = 1
	}
	return g.Points(base)
}

// ModelSweepPoints runs the points ps (from ModelPoints; only, if not nil,
// picks which) with model m and calls fn with each row.
func ModelSweepPoints(ctx context.Context, m *model.Model, ps []Point, only []int, prompt string, maxTokens int, reposition bool, fn func(Row) error) error {
	if only == nil {
		only = make([]int, len(ps))
		for i := range only {
			only[i] = i
		}
	}
	var ref modelText
	done := map[Config]Row{} // points of the same configuration run once
	for _, i := range only {
		if i < 0 || i >= len(ps) {
			return fmt.Errorf("sim: sweep index %d out of range [0, %d)", i, len(ps))
		}
		r, ok := done[ps[i].Config]
		if ok {
			r.Index, r.Budget = i, ps[i].Budget
		} else {
			var err error
			if r, err = modelRow(ctx, m, i, ps[i], prompt, maxTokens, reposition, &ref); err != nil {
				return err
			}
			done[ps[i].Config] = r
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

// modelText is the uncompressed continuation every row of a model sweep
// shares, and its perplexity under an uncompressed cache: computed with
// the first row, as Perplexity computes them.
type modelText struct {
	done bool
	text string
	toks []int
	ppl  float64
}

// modelRow runs one configuration with the model (see ModelSweep).
func modelRow(ctx context.Context, m *model.Model, i int, p Point, prompt string, maxTokens int, reposition bool, ref *modelText) (Row, error) {
	r, err := NewModelRun(m, p.Config, prompt, maxTokens, reposition)
	if err != nil {
		return Row{}, err
	}
	if err := runToEnd(ctx, r, 32); err != nil {
		return Row{}, err
	}
	s := r.Snapshot(0)
	row := measuredRow(i, p, s.Mem, s.FullBytes, s.History)
	row.Top1, row.NextKL = s.Text.Agreement, s.Text.MeanKL
	if !ref.done || ref.text != s.Text.Full {
		toks := m.Tokenizer.Prompt(s.Text.Full)
		if len(toks) < 2 || len(toks) > m.Config.ContextLength {
			return Row{}, fmt.Errorf("sim: perplexity needs 1 to %d tokens of text, got %d", m.Config.ContextLength-1, len(toks)-1)
		}
		fc, err := model.NewFullCache(m.Config, len(toks))
		if err != nil {
			return Row{}, err
		}
		ppl, err := m.Perplexity(fc, toks)
		if err != nil {
			return Row{}, err
		}
		*ref = modelText{done: true, text: s.Text.Full, toks: toks, ppl: ppl}
	}
	row.PPLFull = ref.ppl
	cal, err := CalibrateModel(m, p.Config, reposition)
	if err != nil {
		return Row{}, err
	}
	mcache, err := NewModelCache(m.Config, p.Config, len(ref.toks), 1, reposition, cal)
	if err != nil {
		return Row{}, err
	}
	if row.PPL, err = m.Perplexity(mcache, ref.toks); err != nil {
		return Row{}, err
	}
	return row, nil
}

// A Curve is one cache's teacher-forced negative log-likelihood along a
// text: NLL[i] is −log p(token i+1 | tokens 0..i), in nats (its running
// mean is the log-perplexity the attention-sinks figure plots).
type Curve struct {
	Label  string // "full", "window" or "sinks + window"
	Config Config // the cache's policy and budget (the model's shape)
	NLL    []float64
}

// SinkFigure is the attention-sinks work's figure for a real model:
// the model's uncompressed greedy continuation of prompt to maxTokens
// positions, then, teacher-forced on it, the per-position log-likelihood
// under the uncompressed cache, a window of budget tokens, and sink
// sinks plus a window of budget − sink tokens (StreamingLLM): the same
// total budget (Grid.Config's split), every token stored exactly (float32,
// so the curves differ by eviction alone; base supplies the rest, such as
// Shared). It returns the text's tokens (BOS first) and the three curves.
func SinkFigure(m *model.Model, base Config, prompt string, maxTokens, budget, sink int, reposition bool) ([]int, []Curve, error) {
	mc := m.Config
	if maxTokens < 2 || maxTokens > mc.ContextLength {
		return nil, nil, fmt.Errorf("sim: sinks figure of %d tokens: want 2 to %d (the model's context)", maxTokens, mc.ContextLength)
	}
	if budget < 2 || budget > maxTokens || sink < 1 || sink >= budget {
		return nil, nil, fmt.Errorf("sim: sinks figure: want 2 ≤ budget (%d) ≤ tokens (%d) and 1 ≤ sink (%d) < budget", budget, maxTokens, sink)
	}
	toks := m.Tokenizer.Prompt(prompt)
	if len(toks) >= maxTokens {
		return nil, nil, fmt.Errorf("sim: prompt of %d tokens leaves no room in %d", len(toks), maxTokens)
	}
	fc, err := model.NewFullCache(mc, maxTokens)
	if err != nil {
		return nil, nil, err
	}
	gen, err := m.NewRunner(fc).Generate(toks, model.GenerateOptions{MaxTokens: maxTokens - len(toks), IgnoreEOS: true})
	if err != nil {
		return nil, nil, err
	}
	text := append(append([]int(nil), toks...), gen...)
	text = text[:min(len(text), maxTokens)]
	base.Layers, base.Heads, base.KVHeads, base.HeadDim = mc.Layers, mc.Heads, mc.KVHeads, mc.HeadDim
	base.Tokens, base.Prompt = len(text), 1
	base.Bits, base.Rank, base.Residual = 32, 0, 0
	g := Grid{Sink: sink}
	full := base
	full.Policy = "full"
	window, _ := g.Config(base, "window", budget)
	sinks, _ := g.Config(base, "streaming", budget)
	curves := []Curve{{Label: "full", Config: full}, {Label: "window", Config: window}, {Label: "sinks + window", Config: sinks}}
	for i := range curves {
		if curves[i].NLL, err = TeacherNLL(m, curves[i].Config, text, reposition); err != nil {
			return nil, nil, err
		}
	}
	return text, curves, nil
}

// TeacherNLL feeds tokens (BOS first) to m through cfg's compressed cache
// (calibrated as CalibrateModel does; policy full keeps everything) and
// returns −log p(tokens[i+1] | tokens[..i]) for each position i, in nats.
// Its mean is the log of Perplexity's compressed figure (up to rounding).
func TeacherNLL(m *model.Model, cfg Config, tokens []int, reposition bool) ([]float64, error) {
	if len(tokens) < 2 || len(tokens) > m.Config.ContextLength {
		return nil, fmt.Errorf("sim: teacher forcing needs 2 to %d tokens, got %d", m.Config.ContextLength, len(tokens))
	}
	cal, err := CalibrateModel(m, cfg, reposition)
	if err != nil {
		return nil, err
	}
	c, err := NewModelCache(m.Config, cfg, len(tokens), 1, reposition, cal)
	if err != nil {
		return nil, err
	}
	r := m.NewRunner(c)
	nll := make([]float64, len(tokens)-1)
	for i, t := range tokens[:len(tokens)-1] {
		logits, err := r.Forward(t)
		if err != nil {
			return nil, err
		}
		next := tokens[i+1]
		if next < 0 || next >= len(logits) {
			return nil, fmt.Errorf("sim: token %d out of range [0, %d)", next, len(logits))
		}
		nll[i] = fastmath.LogSumExp(logits) - float64(logits[next])
	}
	return nll, nil
}

// ModelChartPolicies returns the policies a real model's chart compares:
// those whose description is a Landmark (kv.Description), in kv.Policies'
// order. Each point of a real model's chart decodes its text three times
// (see ModelSweep), so the chart runs fewer points than the synthetic
// stream's.
func ModelChartPolicies() []string {
	var names []string
	for _, p := range kv.Policies() {
		if d := p.Describe(); d.Landmark {
			names = append(names, d.Name)
		}
	}
	return names
}

// ModelChartGrid is a real model's chart for a text of tokens positions:
// ModelChartPolicies at an eighth, a quarter and half of the text (at
// least 4 tokens each), with DefaultSweepSink sinks. At the whole text
// every policy keeps everything, which each row's PPLFull already shows.
func ModelChartGrid(tokens int) Grid {
	var bs []int
	for _, d := range []int{8, 4, 2} {
		b := max(4, tokens/d)
		if len(bs) == 0 || b > bs[len(bs)-1] {
			bs = append(bs, b)
		}
	}
	return Grid{Policies: ModelChartPolicies(), Budgets: bs, Sink: DefaultSweepSink}
}

// ModelChartTokens chooses the text length of a real model's chart: the
// longest of maxTokens, 192, 128, 96, 64, 48 and 32 (none above
// maxTokens) whose work fits target seconds, for a model decoding rate
// ModelRun steps a second in each of workers workers. A point costs about four forward
// passes a position (the run's three decoders and the teacher-forced
// perplexity), a ModelRun step three. With rate unknown (0) it is
// maxTokens.
func ModelChartTokens(maxTokens int, rate float64, workers int, target float64) int {
	points := len(ModelChartPolicies()) * 3
	perWorker := float64((points + max(1, workers) - 1) / max(1, workers))
	best := maxTokens
	for _, n := range []int{maxTokens, 192, 128, 96, 64, 48, 32} {
		if n > maxTokens {
			continue
		}
		best = n
		if rate <= 0 || perWorker*float64(n)*4/3/rate <= target {
			return n
		}
	}
	return best
}
