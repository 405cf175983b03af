//go:build js && wasm

package main

import (
	"fmt"

	"github.com/kvscope/kvscope/core/model/bench"
)

// benchRequest asks for core/model/bench's measurement of the loaded
// model: Warm untimed sittings, then Reps timed ones (bench.Warm and
// bench.Reps when 0).
type benchRequest struct {
	ID   int `json:"id"`
	Warm int `json:"warm"`
	Reps int `json:"reps"`
}

// benchRun is one timed run as the reply carries it.
type benchRun struct {
	Tokens int     `json:"tokens"`
	MS     float64 `json:"ms"`
	IDs    []int   `json:"ids,omitempty"`
}

// bench runs one kvscope decoder (bench.Measure: a model.Runner with a
// model.FullCache, greedy) on the loaded model in this worker, as the
// page would run it, and posts
//
//	{"type":"bench","id":n,"kernels":path,"start":s,"prompt":[{tokens, ms}…],"decode":[{tokens, ms, ids}…]}
//
// with the timed sittings' prompt runs (one Prefill of bench.Prompt) and
// decode runs (bench.DecodeTokens greedy steps after the s tokens of
// bench.Start, ids the greedy tokens), in order.
func (w *worker) bench(r benchRequest) error {
	if w.model == nil {
		return fmt.Errorf("the bench needs a model (loadModel)")
	}
	if r.Warm == 0 && r.Reps == 0 {
		r.Warm, r.Reps = bench.Warm, bench.Reps
	}
	pr, dr, err := bench.Measure(w.model, r.Warm, r.Reps)
	if err != nil {
		return err
	}
	conv := func(rs []bench.Result, prompt bool) []benchRun {
		out := make([]benchRun, len(rs))
		for i, x := range rs {
			if prompt {
				out[i] = benchRun{Tokens: x.Prompt, MS: float64(x.PromptTime.Microseconds()) / 1000}
			} else {
				out[i] = benchRun{Tokens: x.Decode, MS: float64(x.DecodeTime.Microseconds()) / 1000, IDs: x.Tokens}
			}
		}
		return out
	}
	w.post(map[string]any{"type": "bench", "id": r.ID, "kernels": pr[0].KernelPath, "start": len(bench.Start(w.model)), "prompt": conv(pr, true), "decode": conv(dr, false)})
	return nil
}
