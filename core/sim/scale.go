package sim

import "github.com/kvscope/kvscope/core/kv"

// A Model is the shape of a real model's KV cache, for projecting a run's
// compression to model scale.
type Model struct {
	Name    string
	Layers  int
	KVHeads int
	HeadDim int
}

// Models are the presets the page and the command line project onto.
var Models = []Model{
	{"Llama-2-7B", 32, 32, 128},
	{"Llama-3-8B", 32, 8, 128}, // grouped-query attention: 32 query heads share 8 kv heads
	{"Mistral-7B", 32, 8, 128},
}

// FP16Bytes is the uncompressed FP16 cache of m at the given history
// length: 2 (K, V) × layers × kv heads × head dim × 2 bytes × tokens.
func (m Model) FP16Bytes(tokens int) int64 {
	return 2 * int64(m.Layers*m.KVHeads*m.HeadDim) * 2 * int64(tokens)
}

// Project estimates what e's configuration would hold for model m at the
// given history length: the tokens its policy keeps at that length, times
// the bytes per cached element the run measured (payload, scales and zero
// points, residual, factors and holes, all included), plus a 4-byte index
// entry per kept token and head. It returns 0 before the first step.
func (e *Engine) Project(m Model, tokens int) int64 {
	cached := e.EvictBytes() / 2 // cached elements (K and V), over layers and heads
	if cached == 0 {
		return 0
	}
	mem := e.Memory()
	// Per cached element: payload, scales, residual and holes. The low-rank
	// bases are a fixed cost per store, projected separately below.
	perElem := float64(mem.Total()-mem.Index-mem.Scores-mem.Factors) / float64(cached)
	kc, _ := e.cfg.kv()
	kept := tokens
	switch kc.Policy {
	case kv.Duo:
		kept = e.duoKept(tokens)
	case kv.Full, kv.SnapKV, kv.Quest: // Quest evicts nothing
		if kc.Policy == kv.SnapKV {
			kept = min(tokens, kc.Recent+kc.Heavy+max(0, tokens-e.cfg.Prompt))
		}
	case kv.Chunk:
		full := tokens / kc.ChunkSize
		kept = tokens - full*int(kc.DropShare*float64(kc.ChunkSize))
	default:
		kept = min(tokens, kc.Budget())
	}
	elems := 2 * int64(m.Layers*m.KVHeads*m.HeadDim) * int64(kept)
	index := int64(0)
	if kc.Policy != kv.Full && kc.Policy != kv.Quest {
		heads := m.KVHeads
		if kc.Shared && kc.Policy != kv.SnapKV || kc.Policy == kv.Seed000 {
			heads = 1 // one shared index map per layer
		}
		index = 4 * int64(kept) * int64(m.Layers*heads)
	}
	// The policy's per-token state, at the same bytes per kept token and head.
	var scores int64
	if n := e.EvictBytes() / int64(2*2*e.cfg.HeadDim); n > 0 && mem.Scores > 0 {
		perTokHead := float64(mem.Scores) / float64(n)
		scores = int64(perTokHead * float64(int64(kept)*int64(m.Layers*m.KVHeads)))
	}
	factors := int64(0)
	if e.cfg.Rank > 0 {
		// The same share of each head's dimensions, an FP16 basis per K and V store.
		rank := (e.cfg.Rank*m.HeadDim + e.cfg.HeadDim - 1) / e.cfg.HeadDim
		factors = 2 * int64(m.Layers*m.KVHeads) * int64(rank*m.HeadDim) * 2
	}
	return int64(perElem*float64(elems)) + index + scores + factors
}
