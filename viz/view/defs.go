package view

import (
	"strings"
	"sync"

	"github.com/kvscope/kvscope/core/sim"
)

// Definition explains one figure the page shows: what it is called, how
// it is computed in the page's own terms, which way is better, and what
// it tells a learner.
type Definition struct {
	Name    string
	Formula string
	Better  string // "lower is better", "higher is better", or what to read
	Meaning string // one plain sentence
}

// Text is the definition as the page's popover shows it, one part a line.
func (d Definition) Text() string {
	return d.Name + "\n" + d.Formula + "\n" + d.Better + ".\n" + d.Meaning
}

// Definitions returns every figure's definition by the key the page marks
// it with (data-def): the page's own figures and controls, each fidelity
// measure's (sim.Measures, by its key) and the quantizer menu's (from
// every quantizer's QuantizerDef, registered ones included). Every figure
// on the page has one; a test checks it. The map is shared; do not modify
// it.
func Definitions() map[string]Definition {
	fillDefs.Do(func() {
		defs = make(map[string]Definition, len(pageDefs)+len(sim.Measures)+1)
		for k, d := range pageDefs {
			defs[k] = d
		}
		for _, m := range sim.Measures {
			defs[m.Key] = Definition{m.Title, m.Formula, m.Better, m.Meaning}
		}
		var qs []string
		for _, o := range Menu("quant") {
			qs = append(qs, o.Label+": "+o.Title)
		}
		defs["ctl-quant"] = Definition{"quantizer", strings.Join(qs, "; "),
			"Codebooks need no per-group scales; sketches make q·k unbiased on average",
			"How the numbers are rounded matters as much as how many bits they get."}
	})
	return defs
}

var (
	fillDefs sync.Once
	defs     map[string]Definition
)

// Terms are phrases of the page's prose that have a definition, by the
// Definitions key that explains them: wherever the page writes one
// (MarkTerms), the reader can hover or focus it for its definition.
var Terms = map[string]string{"seed 000": "seed000"}

// A Span is a piece of prose: plain text, or a term (Def is its
// definition's key).
type Span struct{ Text, Def string }

// MarkTerms splits text into spans, marking every occurrence of a Term
// whatever its case ("Seed 000" too); text without one is one plain span.
func MarkTerms(text string) []Span {
	var out []Span
	lower := strings.ToLower(text)
	for len(text) > 0 {
		at, term := -1, ""
		for t := range Terms {
			if i := strings.Index(lower, t); i >= 0 && (at < 0 || i < at || (i == at && len(t) > len(term))) {
				at, term = i, t
			}
		}
		if at < 0 {
			out = append(out, Span{Text: text})
			break
		}
		if at > 0 {
			out = append(out, Span{Text: text[:at]})
		}
		out = append(out, Span{Text: text[at : at+len(term)], Def: Terms[term]})
		text, lower = text[at+len(term):], lower[at+len(term):]
	}
	return out
}

// pageDefs are the definitions of the page's own figures and controls.
var pageDefs = map[string]Definition{
	"seed000": {"seed 000",
		"the combined cache of the Language AI Handbook's section “KV Cache Compression › Combining Techniques”, the text kvscope started from: sink tokens, H2O's heavy hitters and a recent window, with one decision shared by all heads of a layer",
		"A reference point: the policy “sinks + H2O + recent” runs it exactly",
		"Where the page's ideas come together: each one alone is a lesson, seed 000 is all of them at once."},
	"meankl": {"next-token KL " + sim.OverTheRun,
		"the next-token KL averaged over every decoded step so far",
		"Lower is better",
		"A steadier summary of how far the compressed cache's predictions drift."},
	"ratio": {"memory ratio",
		"bytes of the FP16 history (keys and values of every token, every layer and KV head, 2 bytes each) ÷ bytes the compressed cache really stores",
		"Higher saves more; below 1× the cache is larger than plain FP16",
		"What the whole choice saves, counting every byte the cache keeps, not only the codes."},
	"kept": {"tokens kept per head",
		"positions a KV head still caches, averaged over heads, against the tokens decoded so far",
		"Fewer saves memory; each evicted token is attention the query can no longer pay",
		"The eviction budget at work."},
	"mem-full": {"FP16 history",
		"tokens × layers × KV heads × head dim × 2 (keys and values) × 2 bytes",
		"The baseline that the other bars are measured against",
		"What an uncompressed FP16 cache would hold for this run."},
	"mem-evict": {"after eviction",
		"the tokens eviction keeps, still at 2 bytes per number",
		"Shorter saves more",
		"What eviction alone saves, before storage does anything."},
	"mem-stored": {"stored",
		"every byte the compressed cache holds: payload + scales and zero points + FP16 residual + low-rank factors + index + policy scores + holes",
		"Shorter saves more",
		"The honest total: the slices show where the bytes go."},
	"seg-payload": {"payload",
		"the kept keys and values themselves: b-bit codes (bits ÷ 8 bytes per number), FP16 or float32 numbers, or low-rank coefficients",
		"The part fewer bits shrink",
		"The data the cache exists to hold."},
	"seg-scales": {"scales + zero points",
		"one FP16 scale and one FP16 zero point per quantization group (a token, a channel, a group of channels, or the whole tensor)",
		"Smaller groups fit better but cost more of these",
		"Quantization is not free: every group needs its own range, and at 2 bits these can outweigh the codes."},
	"seg-residual": {"FP16 residual",
		"the newest tokens kept in FP16 until a block of them is quantized (KIVI's residual window)",
		"A small price for exact recent tokens",
		"The tokens the next queries read most stay exact."},
	"seg-lowrank": {"low-rank factors",
		"the shared basis of rank r per head: r × head dim numbers, stored in FP16",
		"Paid once per head, then each token costs only r numbers",
		"Low rank trades per-token bytes for a shared basis."},
	"seg-index": {"index",
		"the original position of each kept token: 4 bytes per token and KV head (once per layer when all heads share one decision)",
		"Needed whenever tokens are evicted out of order",
		"An evicted cache must remember where each survivor came from."},
	"seg-scores": {"policy scores",
		"what the policy keeps per cached token to decide the next eviction: H2O's accumulated attention (8 bytes), key norms (4 bytes)",
		"Part of the policy's price",
		"Smart eviction needs its own memory."},
	"seg-holes": {"holes",
		"bytes of evicted tokens that cannot be freed yet (a block or chunk still holds other live tokens)",
		"Lower is better",
		"Evicting a token does not always free its memory at once."},
	"scale": {"at model scale",
		"this run's bytes per kept number × the chosen model's layers × KV heads × head dim, at the chosen context; a fixed budget stays fixed, a share stays a share",
		"An extrapolation, not a measurement",
		"What the same choice would mean for a real model's cache."},
	"ctl-sink": {"sink tokens",
		"the first n positions, never evicted by the policies that keep sinks (StreamingLLM, H2O, TOVA, key norm, random, seed 000)",
		"More costs memory; 4 is usually enough",
		"Many heads park spare attention on the first tokens; keep them and the softmax has somewhere to put it."},
	"ctl-recent": {"recent window",
		"the newest n tokens, always kept (for a window policy, all it keeps; for SnapKV, the observation window)",
		"Larger keeps more local context at a linear cost",
		"Attention is mostly local: the newest tokens are the ones the next query reads most."},
	"ctl-heavy": {"heavy hitters",
		"the n tokens with the highest score beyond sinks and window: accumulated attention (H2O, seed 000), this step's attention (TOVA), low key norm (key norm), chance (random)",
		"More keeps more of what was important earlier",
		"A few tokens collect most of the attention over time; this budget keeps them."},
	"ctl-chunk": {"chunk size",
		"positions per chunk for the chunk policy: each completed chunk drops its lowest-key-norm share",
		"Smaller chunks decide more locally",
		"Chunking shrinks memory by a constant factor instead of to a fixed budget."},
	"ctl-drop": {"drop share",
		"share of each completed chunk dropped (the lowest key norms go first)",
		"Higher saves more and loses more",
		"Memory falls to (1 − share) of the history."},
	"ctl-residual": {"FP16 residual",
		"the newest n tokens stay in FP16 until a block of them is quantized together",
		"Larger keeps more recent tokens exact at 2 bytes per number",
		"KIVI's trick: the tokens read most are never quantized."},
	"ctl-rank": {"rank",
		"each kept key and value is stored as r coefficients on a per-head basis found by SVD; 0 turns it off",
		"Higher is more exact; each token costs r numbers instead of head dim",
		"Keys live near a low-dimensional subspace, until r is too small."},
	"strip": {"the lower band of each cell",
		"the cell's role colour dimmed by its stored key's error ‖k − k̂‖/‖k‖, on a log scale from 0.1% (full brightness) to 50% and beyond (darkest)",
		"Bright is exact; dark means storage bent the key",
		"How each token is stored: FP16, INT8, INT4 and INT2 runs darken the band more and more, token by token."},
	"overview": {"the whole run",
		"every position of the run in one row, each column coloured by the most telling role among its heads (sink, heavy hitter, recent, kept, evicted); the frame marks the part the map shows",
		"Click or drag in it to move the map there",
		"The map keeps tokens at least 4 px wide to stay readable; the strip keeps the whole run, sinks included, in sight."},
	"ctl-alloc": {"budget split",
		"uniform: every head keeps the same number of tokens; AdaKV: each head keeps its top 20% of a share, the rest of the layer's budget goes to the best scores of any head; PyramidKV: lower layers keep more, falling linearly to the last, same total",
		"Same memory, spent where the scores say it matters",
		"Heads differ: some spread attention widely, some look at a few tokens; an even split wastes budget on the second kind."},
	"ctl-merge": {"merge evicted values",
		"an evicted token's value is added to its kept neighbours, weighted by the attention it had (CaM), instead of dropped",
		"Keeps some of what eviction would lose, at no extra memory",
		"Dropping is not the only choice: what a token contributed can be folded into the survivors."},
	"ctl-vweight": {"weigh scores by value size",
		"the policy's attention score of each token × ‖v‖ (CriticalKV): a token whose value is tiny changes the output little even when attended",
		"Ranks tokens by what they add to the output, not only by attention",
		"Attention says where the query looks; the value says what it gets there."},
	"ctl-pages": {"pages read per query (Quest)",
		"Quest keeps every token in pages of 16 with each channel's min and max key; a query reads only the k pages whose bound Σ max(q·max, q·min) is highest, plus the newest",
		"More pages read more and miss less; memory is the same either way",
		"Selection saves attention work, not memory."},
	"ctl-rotate": {"rotation",
		"keys (and the query at attention time) multiplied by the normalised Walsh–Hadamard matrix H/√d before quantizing; q·k is unchanged because H is orthogonal",
		"Spreads an outlier channel over all channels, so per-token ranges fit",
		"QuaRot's and SpinQuant's trick: rotate the outliers away, then quantize."},
	"ctl-outfp16": {"outliers kept in FP16",
		"the largest share of each token's numbers kept exactly in FP16 with their indices (KVQuant's dense-and-sparse), the rest quantized",
		"1% is the usual share; each outlier costs its value and its index",
		"A few huge numbers ruin a quantization range; keep them aside."},
	"ctl-sinkfp16": {"first tokens kept in FP16",
		"the first n tokens stored in FP16 whatever the bits (sink-aware precision)",
		"Cheap: only n tokens; protects the tokens every query attends to",
		"Quantizing the sink bends every later softmax."},
	"budgets": {"budget per head",
		"the most tokens each KV head (column) of each layer (row) may keep after this step; the darker, the fewer",
		"Even under a uniform split; uneven under AdaKV, PyramidKV and DuoAttention (R marks a retrieval head that keeps everything)",
		"Where the memory goes, head by head."},
	"sinkmetric": {"sink heads",
		"per query head and layer, the attention position 0 receives averaged over the queries that see it (Gu et al., ICLR 2025); a head is a sink head when it exceeds 0.3",
		"Many sink heads: keep the first tokens (StreamingLLM); none: the first tokens matter little",
		"Whether this model or stream has sinks at all, measured, before expecting the StreamingLLM lesson."},
	"breaks": {"what compression breaks",
		"a story built from a seed hides a needle (a name, a magic word, or a random token sequence to copy) at a depth of the text; the cache is compressed when the context ends, then the answer is read teacher-forced: the cell is its mean log-probability, nats per token",
		"Closer to the full cache's score is better; 0 is a perfect answer",
		"A squeezed cache forgets what it evicted: the needle-in-a-haystack figure, on a model small enough to run here."},
}
