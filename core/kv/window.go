package kv

// Window (sliding-window attention, as in Longformer's local band and
// Mistral's sliding window) keeps the Recent newest tokens and nothing
// else: the oldest token goes first. Once the first tokens leave,
// attention that sank into them has nowhere to go (the failure
// StreamingLLM fixes).
func init() {
	define(Window, &policyDef{
		desc: Description{
			Name: "window", Label: "window only", Title: "Window", Color: "#e69f00",
			Landmark: true,
			Short:    "keeps the -recent newest tokens and nothing else",
			Help:     "Keeps only the most recent tokens. Cheap and simple — but once the first tokens leave, attention that used to rest on them has nowhere to go and the model degrades. Watch the attention mass drop.",
			Paper:    "Beltagy et al., Longformer (2020); Mistral's sliding window",
			Reads:    []Setting{{Param: ParamRecent, Min: 1, Budget: true}, {Param: ParamAlloc}, {Param: ParamMerge}},
		},
		budgeted: true, recent: true,
		keep:   positionKeep,
		victim: oldest,
	})
}

// positionKeep ranks by position: the newest keeps (an allocator that
// compares heads sees a first-in, first-out order).
func positionKeep(_ *Layer, h *head, i int) float64 { return float64(h.pos[i]) }

// oldest is the first candidate: first in, first out.
func oldest(_ *Layer, _, lo, _ int) int { return lo }
