package kv

import "fmt"

// DuoFactor is how many times the layer's mean a head's attention share
// outside its sinks and recent window must be for DuoAttention to call it
// a retrieval head.
const DuoFactor = 1.5

// Duo is DuoAttention (Xiao et al., "DuoAttention: Efficient Long-Context
// LLM Inference with Retrieval and Streaming Heads", arXiv 2410.10819;
// kvpress duo_attention_press.py), a per-head policy: retrieval heads keep
// the full cache, streaming heads keep the first Sink tokens and the Recent
// newest (StreamingLLM).
//
// The paper learns which heads are which on passkey data. Here heads are
// classified on the fly from their own attention: until the history is
// longer than Sink + Recent + Heavy tokens (Heavy is the observation
// span) nothing is evicted, and each step adds up, per key/value head, the
// attention its query heads pay to tokens outside the sinks and the recent
// window — what a streaming head would lose. At the first step beyond the
// span, heads whose mean lost share exceeds DuoFactor times the mean over
// the layer's heads become retrieval heads, the others streaming heads,
// and the streaming heads drop to Sink + Recent at once. The bar is
// relative because the share itself grows with the span for every head
// (more of the history lies outside the windows); what marks a retrieval
// head is losing more than its neighbours. The decision then stands (a streaming head has lost
// what it would need to be judged again).
//
// Memory is not bounded by a budget: a retrieval head grows with the
// history. State: one class byte per head
// (the running shares are scratch); only streaming heads need an index map
// (and every head before the classification, as eviction may follow).
func init() {
	define(Duo, &policyDef{
		desc: Description{
			Name: "duo", Label: "DuoAttention", Color: "#117733",
			Short: "retrieval heads keep every token, streaming heads sinks + a recent window",
			Help:  "Heads differ: a few retrieval heads look far back and keep the whole cache; the rest are streaming heads that need only sinks and a recent window. kvscope tells them apart on the fly from how much attention each head pays outside its sinks and window.",
			Paper: "Xiao et al., DuoAttention: Efficient Long-Context LLM Inference with Retrieval and Streaming Heads, arXiv 2410.10819",
			Reads: []Setting{
				{Param: ParamSink, Budget: true, Means: "the streaming heads' sinks"},
				{Param: ParamRecent, Min: 1, Budget: true, Means: "the streaming heads' window"},
				{Param: ParamHeavy, Means: "heads are classified after sink + recent + heavy tokens"},
			},
		},
		sinks: true, recent: true, neverShared: true,
		keeps: func(c Config) string {
			return fmt.Sprintf("streaming heads keep %d sinks + %d recent, retrieval heads every token (told apart after %d tokens)", c.Sink, c.Recent, c.Sink+c.Recent+c.Heavy)
		},
		setup: func(l *Layer) {
			l.state = &duoState{lost: make([]float64, len(l.heads)), retrieval: make([]bool, len(l.heads))}
		},
		reset: func(l *Layer) {
			st := l.state.(*duoState)
			clear(st.lost)
			clear(st.retrieval)
			st.steps, st.decided = 0, false
		},
		observe: func(l *Layer, _ []float32, _ int) {
			st := l.state.(*duoState)
			if st.decided {
				return
			}
			for g := range l.heads {
				h := &l.heads[g]
				lo, hi := l.sinkCount(h), len(h.pos)-l.recentCount(h)
				var s float64
				for _, a := range h.attn[lo:hi] {
					s += float64(a)
				}
				st.lost[g] += s
			}
			st.steps++
		},
		evict:      func(l *Layer, pos int) { l.duoEvict(pos) },
		endPrompt:  func(l *Layer) { l.duoEvict(l.last) },
		keep:       positionKeep,
		extraBytes: func(l *Layer) int64 { return int64(len(l.heads)) },
		held: func(c Config, n int, retrieval float64) (float64, float64) {
			if retrieval < 0 {
				return float64(n), float64(n) // not classified: every head full, each indexed
			}
			stream := float64(min(n, c.Sink+c.Recent))
			return retrieval*float64(n) + (1-retrieval)*stream, (1 - retrieval) * stream
		},
		// A retrieval head, like a full cache, needs no index map.
		indexedHead: func(l *Layer, g int) bool { r := l.RetrievalHeads(); return r == nil || !r[g] },
	})
}

// duoState is DuoAttention's classification.
type duoState struct {
	lost      []float64 // per head: attention outside the windows, summed over steps
	steps     int
	decided   bool
	retrieval []bool // per head, once decided
}

// duoEvict classifies the heads once the history passes the observation
// span, then keeps streaming heads at Sink + Recent.
func (l *Layer) duoEvict(at int) {
	st := l.state.(*duoState)
	c := &l.cfg
	if !st.decided {
		if len(l.heads[0].pos) <= c.Sink+c.Recent+c.Heavy {
			return
		}
		st.decided = true
		var mean float64
		for _, s := range st.lost {
			mean += s / float64(len(st.lost))
		}
		for g, s := range st.lost {
			st.retrieval[g] = s > DuoFactor*mean
		}
	}
	for g := range l.heads {
		if st.retrieval[g] {
			continue
		}
		h := &l.heads[g]
		for len(h.pos) > c.Sink+c.Recent {
			lo, hi := l.candidates(h)
			if hi <= lo {
				break
			}
			l.remove(h, lo, at)
		}
	}
}

// RetrievalHeads returns, for a Duo layer whose heads are classified, which
// key/value heads are retrieval heads (full cache), and nil otherwise
// (another policy, or Duo before the observation span is over). The slice
// is the layer's own.
func (l *Layer) RetrievalHeads() []bool {
	if st, ok := l.state.(*duoState); ok && st.decided {
		return st.retrieval
	}
	return nil
}

// HeadShares returns, for a Duo layer, each head's mean share of attention
// outside its sinks and recent window over the observation span so far
// (what classifies it), or nil for other policies.
func (l *Layer) HeadShares(dst []float64) []float64 {
	st, ok := l.state.(*duoState)
	if !ok {
		return nil
	}
	dst = dst[:0]
	for _, s := range st.lost {
		dst = append(dst, s/float64(max(1, st.steps)))
	}
	return dst
}
