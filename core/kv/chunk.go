package kv

import "fmt"

// Chunk (seed 004) splits the history into chunks of ChunkSize positions
// and, when a chunk is complete, drops the DropShare of its keys with the
// lowest L2 norm, per head or shared. It has no token budget: memory
// falls by DropShare. State: one float32 norm per cached token and head.
func init() {
	define(Chunk, &policyDef{
		desc: Description{
			Name: "chunk", Label: "chunks", Color: "#cc79a7",
			Short: "drops the lowest-key-norm share of every complete chunk (no token budget)",
			Help:  "Splits the cache into fixed chunks and drops a share of each (here by key norm), keeping an index so kept tokens remember their original positions. Memory shrinks by a constant factor rather than to a fixed budget.",
			Paper: "kvscope's seed 004",
			Reads: []Setting{{Param: ParamChunk, Min: 1}, {Param: ParamDrop, Min: 0, Max: 0.95}, {Param: ParamShared}},
		},
		keyNorms: true, stateBytes: 4,
		keeps: func(c Config) string {
			return fmt.Sprintf("each head drops %.3g%% of every chunk of %d tokens", 100*c.DropShare, c.ChunkSize)
		},
		held: func(c Config, n int, _ float64) (float64, float64) {
			size := max(c.ChunkSize, 1)
			t := float64(n - n/size*int(c.DropShare*float64(size)))
			return t, c.heldIndex(t)
		},
		setBudget: func(c *Config, budget, _ int) bool {
			c.DropShare = min(0.95, 1-float64(budget)/float64(c.MaxTokens))
			return true
		},
		keep: func(_ *Layer, h *head, i int) float64 { return float64(h.norm[i]) },
		endPrompt: func(l *Layer) {
			for end := l.cfg.ChunkSize; end <= l.promptEnd; end += l.cfg.ChunkSize {
				l.dropChunk(end-l.cfg.ChunkSize, end, l.last)
			}
		},
		evict: func(l *Layer, pos int) {
			if (pos+1)%l.cfg.ChunkSize == 0 {
				l.dropChunk(pos+1-l.cfg.ChunkSize, pos+1, pos)
			}
		},
	})
}

// dropChunk drops DropShare of the tokens in positions [start, end) with
// the lowest key norm, per head or shared.
func (l *Layer) dropChunk(start, end, at int) {
	if l.cfg.SharedDecision() {
		a, b := span(&l.heads[0], start, end)
		for n := int(l.cfg.DropShare * float64(b-a)); n > 0; n-- {
			i, _ := l.lowest(-1, a, b)
			for g := range l.heads {
				l.remove(&l.heads[g], i, at)
			}
			b--
		}
		return
	}
	for g := range l.heads {
		h := &l.heads[g]
		a, b := span(h, start, end)
		for n := int(l.cfg.DropShare * float64(b-a)); n > 0; n-- {
			i, _ := l.lowest(g, a, b)
			l.remove(h, i, at)
			b--
		}
	}
}
