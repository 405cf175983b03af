package model

import "fmt"

// GenerateOptions controls Generate. The zero value asks for no tokens.
type GenerateOptions struct {
	MaxTokens   int     // number of tokens to generate at most
	Temperature float32 // ≤ 0: greedy
	Seed        uint64  // sampling seed (ignored when greedy)
	IgnoreEOS   bool    // keep going after EOS instead of stopping
}

// Generate resets the runner, feeds prompt (usually starting with BOS) and then
// generates up to opts.MaxTokens tokens, each fed back in. It stops after EOS
// (which is included in the result) unless opts.IgnoreEOS. It returns the
// generated tokens, not the prompt. It returns an error for an empty prompt or
// when Forward fails (e.g. the cache is full), along with the tokens generated so
// far.
func (r *Runner) Generate(prompt []int, opts GenerateOptions) ([]int, error) {
	if len(prompt) == 0 {
		return nil, fmt.Errorf("model: generate: empty prompt (start with BOS)")
	}
	r.Reset()
	var logits []float32
	var err error
	for _, t := range prompt {
		if logits, err = r.Forward(t); err != nil {
			return nil, err
		}
	}
	s := NewSampler(opts.Temperature, opts.Seed)
	out := make([]int, 0, max(opts.MaxTokens, 0))
	for len(out) < opts.MaxTokens {
		next := s.Sample(logits)
		out = append(out, next)
		if next == r.m.Tokenizer.EOS && !opts.IgnoreEOS {
			break
		}
		if len(out) == opts.MaxTokens {
			break
		}
		if logits, err = r.Forward(next); err != nil {
			return out, err
		}
	}
	return out, nil
}
