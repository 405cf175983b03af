package sim

import "math"

// A Model is the shape of a real model's KV cache, for projecting a run's
// compression to model scale.
type Model struct {
	Key     string // the page's link value
	Name    string // shown
	Layers  int
	KVHeads int
	HeadDim int
}

// Models are the presets the page and the command line project onto.
var Models = []Model{
	{Key: "llama2-7b", Name: "Llama-2-7B", Layers: 32, KVHeads: 32, HeadDim: 128},
	{Key: "llama3-8b", Name: "Llama-3-8B", Layers: 32, KVHeads: 8, HeadDim: 128}, // grouped-query attention: 32 query heads share 8 kv heads
	{Key: "mistral-7b", Name: "Mistral-7B", Layers: 32, KVHeads: 8, HeadDim: 128},
}

// FP16Bytes is the uncompressed FP16 cache of m at the given history
// length: 2 (K, V) × layers × kv heads × head dim × 2 bytes × tokens.
func (m Model) FP16Bytes(tokens int) int64 {
	return 2 * int64(m.Layers*m.KVHeads*m.HeadDim) * 2 * int64(tokens)
}

// A Projection is a run's compression carried to a real model's KV cache
// at a history length: the tokens the policy keeps there and what they
// cost at the bytes per element the run measured (Engine.ProjectTo,
// Config.ProjectSnapshot).
type Projection struct {
	Model   Model
	Tokens  int     // the history length projected to
	Kept    float64 // tokens a kv head keeps at that history, the mean over heads (kv.Config.Held)
	Full    int64   // FP16 bytes of the uncompressed cache: Model.FP16Bytes(Tokens)
	Evicted int64   // FP16 bytes of the kept tokens
	// Stored is everything the configuration would hold: the kept tokens at
	// the bytes per cached element the run measured (payload, scales and
	// zero points, residual and holes, all included), plus Index, Scores
	// and Tables. It is 0 before the run's first step.
	Stored int64
	Index  int64 // the index maps: 4 bytes per entry, the entries kv.Config.Held counts
	Scores int64 // the policy's state, at the run's bytes per kept token and deciding head
	// Tables is what each key and value store holds once, per layer and
	// kv head: a low-rank basis over the run's share of each head's
	// dimensions, and the quantizers' codebooks and random matrices at the
	// model's head dimension (store.Config.Tables).
	Tables int64
}

// measured is what a projection reads of a run: the FP16 bytes of the
// tokens kept, the bytes held, and DuoAttention's share of retrieval heads
// (negative before its heads are classified, or for other policies).
type measured struct {
	evict     int64
	mem       Memory
	retrieval float64
}

// Project is ProjectTo(m, tokens).Stored: what e's configuration would
// hold for model m at a history of tokens. It returns 0 before the first
// step.
func (e *Engine) Project(m Model, tokens int) int64 { return e.ProjectTo(m, tokens).Stored }

// ProjectTo carries e's run, as it stands, to model m at a history of
// tokens (see Projection). It costs O(Layers·KVHeads).
func (e *Engine) ProjectTo(m Model, tokens int) Projection {
	share := -1.0
	var ret, all int
	for _, layer := range e.c.layers {
		r := layer.RetrievalHeads()
		if r == nil {
			all = 0
			break
		}
		for _, x := range r {
			all++
			if x {
				ret++
			}
		}
	}
	if all > 0 {
		share = float64(ret) / float64(all)
	}
	return e.cfg.project(measured{e.EvictBytes(), e.Memory(), share}, m, tokens)
}

// ProjectSnapshot carries the run of c that s is a snapshot of to model m
// at a history of tokens, as ProjectTo carries the engine: what the page
// shows beside its memory bars. It allocates nothing.
func (c Config) ProjectSnapshot(s *Snapshot, m Model, tokens int) Projection {
	share := -1.0
	if len(s.Retrieval) > 0 {
		ret := 0
		for _, x := range s.Retrieval {
			if x {
				ret++
			}
		}
		share = float64(ret) / float64(len(s.Retrieval))
	}
	return c.project(measured{s.EvictBytes, s.Mem, share}, m, tokens)
}

// project is the one model-scale projection: the policy says what a layer
// holds at tokens (kv.Config.Held), the run what each cached element, kept
// token and store costs.
func (c Config) project(r measured, m Model, tokens int) Projection {
	p := Projection{Model: m, Tokens: tokens, Full: m.FP16Bytes(tokens)}
	kc, err := c.kv()
	if err != nil {
		return p
	}
	kc.KVHeads = m.KVHeads // the model's heads share (or not) its index maps
	kept, index := kc.Held(tokens, r.retrieval)
	heads := float64(m.Layers * m.KVHeads)
	elems := 2 * float64(m.HeadDim) * kept * heads // cached elements (K and V)
	p.Kept, p.Evicted = kept, int64(math.Round(2*elems))
	cached := r.evict / 2 // the run's cached elements, over layers and heads
	if cached == 0 {
		return p
	}
	// Per cached element: payload, scales, residual and holes. The tables
	// are a fixed cost per store, projected separately below.
	mem := r.mem
	perElem := float64(mem.Total()-mem.Index-mem.Scores-mem.Factors) / float64(cached)
	p.Index = int64(math.Round(4 * index * heads))
	// The policy's per-token state, at the same bytes per kept token and
	// deciding head: one per head, or one per layer shared by its heads.
	if n := r.evict / int64(2*2*c.HeadDim); n > 0 && mem.Scores > 0 {
		perTokHead := float64(mem.Scores) / float64(n)
		units := kept * heads
		if kc.SharedDecision() {
			units *= float64(c.KVHeads) / float64(m.KVHeads)
		}
		p.Scores = int64(perTokHead * units)
	}
	if c.Rank > 0 {
		// The same share of each head's dimensions, an FP16 basis per K and V store.
		rank := (c.Rank*m.HeadDim + c.HeadDim - 1) / c.HeadDim
		p.Tables = 2 * int64(m.Layers*m.KVHeads) * int64(rank*m.HeadDim) * 2
	}
	p.Tables += int64(m.Layers*m.KVHeads) * c.storeTables(m.HeadDim)
	p.Stored = int64(perElem*elems) + p.Index + p.Scores + p.Tables
	return p
}
