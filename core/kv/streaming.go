package kv

// Streaming is StreamingLLM (Xiao et al., "Efficient Streaming Language
// Models with Attention Sinks", ICLR 2024): it keeps the first Sink tokens,
// the attention sinks, and the Recent newest; the oldest token after the
// sinks goes first. Heavy is not read: a comparison at equal memory gives
// the window Sink + Recent.
func init() {
	define(Streaming, &policyDef{
		desc: Description{
			Name: "streaming", Label: "StreamingLLM", Title: "StreamingLLM (sinks + window)", Color: "#56b4e9",
			Landmark: true,
			Short:    "keeps the first -sink tokens (attention sinks) and the -recent newest",
			Help:     "Keeps the first few tokens as attention sinks plus a recent window. Models learn to park surplus attention on the first tokens; keeping them (four is enough) keeps the softmax stable for arbitrarily long streams.",
			Paper:    "Xiao et al., Efficient Streaming Language Models with Attention Sinks, ICLR 2024",
			Reads:    []Setting{{Param: ParamSink, Budget: true}, {Param: ParamRecent, Budget: true}, {Param: ParamAlloc}, {Param: ParamMerge}},
		},
		budgeted: true, sinks: true, recent: true,
		keep: positionKeep, victim: oldest,
	})
}
