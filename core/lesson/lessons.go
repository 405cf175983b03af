package lesson

import "strconv"

// end opens a synthetic lesson paused at the end of its 512-token run, so
// the numbers it claims cover the whole run.
var end = []Setting{{"mode", "synthetic"}, {"tokens", "512"}, {"at", "512"}, {"play", "0"}}

// with returns end's settings followed by s.
func with(base []Setting, s ...Setting) []Setting {
	return append(append([]Setting(nil), base...), s...)
}

// ChartBudget is the memory budget of the chart lesson: 40 KiB.
const ChartBudget = 40 << 10

var lessons = []Lesson{
	{
		N: 1, Slug: "grows", Title: "The cache grows", Mode: "synthetic",
		Settings: []Setting{{"mode", "synthetic"}, {"tokens", "512"}, {"at", "256"}, {"play", "0"},
			{"policy", "full"}, {"bits", "16"}, {"gran", "token"}, {"rank", "0"}, {"residual", "0"}},
		Highlight: "memory",
		Notice: "Every token a model reads leaves a key and a value in every layer and head, and a full cache keeps them all. " +
			"The memory bar grows with each step; its model-scale line shows what the same cache takes for a real model at a long context.",
		Action: Action{Key: "at", Value: "512", Ask: "Step the run on to its end, 512 tokens."},
		Expect: []Expect{{"bytes", Up}},
		claim:  growsClaim,
	},
	{
		N: 2, Slug: "window", Title: "A window forgets", Mode: "synthetic",
		Settings: with(end, Setting{"policy", "full"}, Setting{"sink", "0"}, Setting{"recent", "64"}, Setting{"heavy", "0"},
			Setting{"bits", "16"}, Setting{"gran", "token"}),
		Sinks: true, Highlight: "map",
		Notice: "The full cache keeps every token, so the attention over the cache is the attention over the history. " +
			"A recent window keeps only the newest tokens: cheap, and right for heads that look nearby. " +
			"But many heads park their attention on the first tokens, and a window evicts those first.",
		Action: Action{Key: "policy", Value: "window", Ask: "Set Policy to window (64 recent tokens)."},
		Expect: []Expect{{"mass", Down}, {"output_error", Up}, {"bytes", Down}},
	},
	{
		N: 3, Slug: "sinks", Title: "Sinks rescue it (StreamingLLM)", Mode: "synthetic",
		Settings: with(end, Setting{"policy", "streaming"}, Setting{"sink", "0"}, Setting{"recent", "60"}, Setting{"heavy", "0"},
			Setting{"bits", "16"}, Setting{"gran", "token"}),
		Sinks: true, Highlight: "map",
		Notice: "This is StreamingLLM with no sinks: a bare window of 60 recent tokens. " +
			"StreamingLLM's finding is that a few first tokens act as attention sinks: queries dump attention there whatever they say. " +
			"Keep them, and the window stops collapsing.",
		Action: Action{Key: "sink", Value: "4", Ask: "Set Sink tokens to 4."},
		Expect: []Expect{{"mass", Up}, {"output_error", Down}},
		claim:  sinksClaim,
	},
	{
		N: 4, Slug: "h2o", Title: "Heavy hitters (H2O)", Mode: "synthetic",
		Settings: with(end, Setting{"policy", "random"}, Setting{"sink", "4"}, Setting{"recent", "32"}, Setting{"heavy", "28"},
			Setting{"shared", "0"}, Setting{"bits", "16"}, Setting{"gran", "token"}),
		Sinks: true, Highlight: "map",
		Notice: "Beside 4 sinks and 32 recent tokens, this cache keeps 28 more tokens, picked at random. " +
			"H2O keeps instead the tokens with the most attention accumulated over the steps so far: a few tokens receive most of it. " +
			"Watch the score on each kept token while it decodes.",
		Action: Action{Key: "policy", Value: "h2o", Ask: "Set Policy to H2O."},
		Expect: []Expect{{"mass", Up}, {"output_error", Down}, {"kl", Down}},
	},
	{
		N: 5, Slug: "shared", Title: "One decision for all heads", Mode: "synthetic",
		Settings: with(end, Setting{"policy", "h2o"}, Setting{"sink", "4"}, Setting{"recent", "32"}, Setting{"heavy", "28"},
			Setting{"shared", "0"}, Setting{"bits", "16"}, Setting{"gran", "token"}),
		Highlight: "map",
		Notice: "Each head here keeps its own heavy hitters: the rows of the map differ. " +
			"Seed 000 makes one decision for all heads of a layer, from their mean score: simpler to store, one index map. " +
			"But heads look at different tokens, so the shared choice fits none of them exactly.",
		Action: Action{Key: "shared", Value: "1", Ask: "Turn on One decision for all heads."},
		Expect: []Expect{{"mass", Down}, {"output_error", Up}},
	},
	{
		N: 6, Slug: "bits", Title: "Fewer bits, more error", Mode: "synthetic",
		Settings: with(end, Setting{"policy", "h2o"}, Setting{"sink", "4"}, Setting{"recent", "32"}, Setting{"heavy", "28"},
			Setting{"shared", "0"}, Setting{"bits", "8"}, Setting{"gran", "token"}, Setting{"residual", "0"}, Setting{"rank", "0"}),
		Highlight: "fidelity",
		Notice: "Eviction chooses which tokens stay; quantization chooses how each is stored. " +
			"INT8 keeps 256 levels between each token's smallest and largest value, INT2 only 4. " +
			"The bytes shrink with the bits, and the error grows.",
		Action: Action{Key: "bits", Value: "2", Ask: "Set Bits to 2."},
		Expect: []Expect{{"key_error", Up}, {"output_error", Up}, {"bytes", Down}},
	},
	{
		N: 7, Slug: "kivi", Title: "Outlier channels (KIVI)", Mode: "synthetic",
		Settings: with(end, Setting{"outliers", "2"}, Setting{"policy", "full"}, Setting{"bits", "2"}, Setting{"gran", "token"},
			Setting{"group", "32"}, Setting{"residual", "0"}, Setting{"rank", "0"}),
		Highlight: "fidelity",
		Notice: "A few key channels carry values ten times larger than the rest. " +
			"Quantized per token, every token's range stretches to fit those outliers, and the other channels get almost no levels. " +
			"KIVI quantizes keys per channel instead (and values per token), so each channel gets its own range.",
		Action: Action{Key: "gran", Value: "kivi", Ask: "Set Granularity to kivi."},
		Expect: []Expect{{"key_error", Down}, {"output_error", Down}},
	},
	{
		N: 8, Slug: "bytes", Title: "Honest bytes", Mode: "synthetic",
		Settings: with(end, Setting{"policy", "h2o"}, Setting{"sink", "4"}, Setting{"recent", "32"}, Setting{"heavy", "28"},
			Setting{"shared", "0"}, Setting{"bits", "4"}, Setting{"gran", "token"}, Setting{"residual", "0"}, Setting{"rank", "0"}),
		Highlight: "memory",
		Notice: "The memory bar counts everything the cache stores, not only the codes: each token's scale and zero point, " +
			"the index map of which positions are kept, and the scores the policy keeps to choose. " +
			"Halving the bits halves the codes only.",
		Action: Action{Key: "bits", Value: "2", Ask: "Set Bits to 2."},
		Expect: []Expect{{"payload", Down}, {"bytes", Down}},
		claim:  bytesClaim,
	},
	{
		N: 9, Slug: "model", Title: "The real model's story changes", Mode: "model",
		Settings: []Setting{{"mode", "model"}, {"mtokens", "256"}, {"at", "256"}, {"play", "0"},
			{"policy", "window"}, {"sink", "0"}, {"recent", "64"}, {"heavy", "0"}, {"bits", "32"}, {"gran", "token"}},
		Highlight: "text",
		Notice: "A real 260K-parameter Llama now decodes the story twice: through an uncompressed cache and through this one, a window of 64 tokens. " +
			"Top-1 agreement counts the steps where both would pick the same next token. " +
			"Squeeze the window and see where the two stories part.",
		Action: Action{Key: "recent", Value: "8", Ask: "Set Recent window to 8."},
		Expect: []Expect{{"top1", Down}, {"next_kl", Up}, {"ppl", Up}},
		claim:  modelClaim,
	},
	{
		N: 10, Slug: "chart", Title: "The best setting for a memory budget", Mode: "synthetic",
		Settings: with(end, Setting{"policy", "window"}, Setting{"sink", "0"}, Setting{"recent", "64"}, Setting{"heavy", "0"},
			Setting{"bits", "8"}, Setting{"gran", "token"}, Setting{"residual", "0"}, Setting{"rank", "0"}),
		Highlight: "chart",
		Notice: "The chart runs every policy at budgets from 2 % of the history to all of it: memory across, attention mass kept up. " +
			"Your setting, a 64-token window at INT8, is marked on it. " +
			"Points further up and to the left keep more for less.",
		Action: Action{Key: "policy", Value: "h2o", Ask: "Pick, on the chart, the point that keeps the most attention mass within 40 KiB.",
			Also: []Setting{{"sink", "4"}, {"recent", "26"}, {"heavy", "25"}}},
		Expect: []Expect{{"mass", Up}},
		Budget: ChartBudget,
		claim:  chartClaim,
	},
}

// growsClaim: the full cache's bytes per token.
func growsClaim(l *Lesson, before, after Numbers) string {
	s := "From " + Format("step", float64(before.Step)) + " to " + Format("step", float64(after.Step)) +
		", " + change("bytes", float64(before.Bytes), float64(after.Bytes))
	if d := after.Step - before.Step; d > 0 && after.Bytes > before.Bytes {
		s += ": " + Format("bytes", float64(after.Bytes-before.Bytes)/float64(d)) + " more for every token"
	}
	return s + "."
}

// sinksClaim adds the sinks' share of the budget.
func sinksClaim(l *Lesson, before, after Numbers) string {
	return "With " + l.Action.Value + " sink tokens beside the recent window, " + changes(l.Expect, before, after) + "."
}

// bytesClaim compares the codes' change with the total's.
func bytesClaim(l *Lesson, before, after Numbers) string {
	s := change("payload", float64(before.Payload), float64(after.Payload)) + ", but " +
		change("bytes", float64(before.Bytes), float64(after.Bytes))
	if after.Bytes > 0 {
		s += ": the bookkeeping (scales, zero points, index map, scores), " + Format("overhead", float64(after.Overhead)) +
			", is now " + Format("mass", float64(after.Overhead)/float64(after.Bytes)) + " of what the cache stores"
	}
	return s + "."
}

// modelClaim adds where the texts part.
func modelClaim(l *Lesson, before, after Numbers) string {
	es := l.Expect
	if before.PPL == 0 || after.PPL == 0 {
		es = es[:2] // perplexity not measured
	}
	s := changes(es, before, after)
	if after.Diverge >= 0 {
		s += "; the two stories part at token " + strconv.Itoa(after.Diverge)
	} else {
		s += "; the two stories still agree"
	}
	return s + "."
}

// chartClaim judges the learner's pick against the budget.
func chartClaim(l *Lesson, before, after Numbers) string {
	within := "within"
	if after.Bytes > l.Budget {
		within = "over"
	}
	return "Your pick stores " + Format("bytes", float64(after.Bytes)) + ", " + within + " the " + Format("bytes", float64(l.Budget)) +
		" budget, and keeps " + Format("mass", after.Mass) + " of the attention mass; the window you started from stored " +
		Format("bytes", float64(before.Bytes)) + " and kept " + Format("mass", before.Mass) + "."
}
