package kv

// Streaming is StreamingLLM (Xiao et al., "Efficient Streaming Language
// Models with Attention Sinks", ICLR 2024): it keeps the first Sink tokens,
// the attention sinks, and the Recent newest; the oldest token after the
// sinks goes first. Reads: Sink, Recent. Budget: Sink + Recent (Heavy is
// not read: a comparison at equal memory gives the window Sink + Recent).
func init() {
	define(Streaming, &policyDef{
		name: "streaming", params: ParamSink | ParamRecent, budgeted: true, sinks: true, recent: true,
		keep: positionKeep, victim: oldest,
	})
}
