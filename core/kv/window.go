package kv

import "errors"

// Window (sliding-window attention, as in Longformer's local band and
// Mistral's sliding window) keeps the Recent newest tokens and nothing
// else: the oldest token goes first. Once the first tokens leave,
// attention that sank into them has nowhere to go (the failure
// StreamingLLM fixes). Reads: Recent (at least 1). Budget: Recent.
func init() {
	define(Window, &policyDef{
		name: "window", params: ParamRecent, budgeted: true, recent: true,
		validate: func(c Config) error {
			if c.Recent < 1 {
				return errors.New("kv: window policy needs a recent window of at least 1 token")
			}
			return nil
		},
		keep:   positionKeep,
		victim: oldest,
	})
}

// positionKeep ranks by position: the newest keeps (an allocator that
// compares heads sees a first-in, first-out order).
func positionKeep(_ *Layer, h *head, i int) float64 { return float64(h.pos[i]) }

// oldest is the first candidate: first in, first out.
func oldest(_ *Layer, _, lo, _ int) int { return lo }
