package sim

import (
	"math"

	"github.com/kvscope/kvscope/core/kv"
	"github.com/kvscope/kvscope/core/store"
)

// Memory returns what the compressed cache holds now, itemized, summed
// over layers and heads.
func (e *Engine) Memory() Memory {
	var m Memory
	for _, layer := range e.layers {
		for g := range e.cfg.KVHeads {
			ks, vs := layer.Stores(g)
			for _, s := range []kv.Store{ks, vs} {
				if st, ok := s.(*store.Store); ok {
					sm := st.Memory()
					m.Payload += sm.Payload
					m.Meta += sm.Meta
					m.Residual += sm.Residual
					m.Factors += sm.Factors
					m.Holes += sm.Holes
				}
			}
		}
		m.Index += layer.IndexBytes()
	}
	return m
}

// FullBytes is the FP16 size of the uncompressed history so far: 2 bytes ×
// (K, V) × layers × kv heads × head dim × tokens.
func (e *Engine) FullBytes() int64 {
	return 2 * 2 * int64(e.cfg.Layers*e.cfg.KVHeads*e.cfg.HeadDim) * int64(e.pos)
}

// EvictBytes is the FP16 size of the tokens the policy keeps, before
// their storage is compressed.
func (e *Engine) EvictBytes() int64 {
	var n int64
	for _, layer := range e.layers {
		for g := range e.cfg.KVHeads {
			n += int64(layer.Len(g))
		}
	}
	return 2 * 2 * int64(e.cfg.HeadDim) * n
}

// Metrics returns the metrics of the last reference step and one entry per
// reference step so far (nil when the reference is off).
func (e *Engine) Metrics() (last Metrics, history []Metrics) { return e.last, e.history }

var roleOf = [...]Role{kv.Kept: Kept, kv.Sink: Sink, kv.Recent: Recent, kv.Heavy: Heavy}

var storageOf = [...]Storage{store.Empty: NotStored, store.Full: Full, store.Quantized: Quantized, store.LowRank: LowRank}

// Snapshot fills the engine's snapshot with layer's state after the last
// step and returns it. The snapshot is reused by the next call. Filling
// costs O(KVHeads·(Pos + Budget·Dim)).
func (e *Engine) Snapshot(layer int) *Snapshot {
	cfg := &e.cfg
	s := &e.snap
	l := e.layers[layer]
	d := cfg.HeadDim
	group := cfg.Heads / cfg.KVHeads
	s.Step, s.Prompt, s.Layer, s.Layers, s.Heads = e.pos, cfg.Prompt, layer, cfg.Layers, cfg.KVHeads
	n := cfg.KVHeads * e.pos
	if cap(s.Cells) < n {
		s.Cells = make([]Cell, n, max(n, 2*cap(s.Cells)))
	}
	s.Cells = s.Cells[:n]
	haveRef := e.refAt >= 0 && e.refAt == e.pos-1
	for g := range cfg.KVHeads {
		row := s.Cells[g*e.pos : (g+1)*e.pos]
		ev := l.EvictedAt(g)
		for p := range row {
			c := Cell{Role: Evicted, EvictedAt: ev[p]}
			if haveRef {
				var a float32
				for qh := g * group; qh < (g+1)*group; qh++ {
					a += e.refW[(layer*cfg.Heads+qh)*cfg.Tokens+p]
				}
				c.AttnFull = a / float32(group)
			}
			row[p] = c
		}
		ks, _ := l.Stores(g)
		st, _ := ks.(*store.Store)
		base := (layer*cfg.KVHeads + g) * e.caps[layer]
		scores, attn := l.Scores(g), l.Attention(g)
		for i, p := range l.Positions(g) {
			c := &row[p]
			c.Role = roleOf[l.Role(g, i)]
			c.EvictedAt = -1
			c.Score = float32(scores[i])
			c.Attn = attn[i]
			kslot, _ := l.Slots(g, i)
			c.Storage = Full
			if st != nil {
				c.Storage = storageOf[st.Kind(kslot)]
			}
			orig := e.origK[(base+kslot)*d : (base+kslot+1)*d]
			ks.Read(kslot, e.kbuf)
			c.KErr = float32(ratio(sqdiff(orig, e.kbuf), sqnorm(orig)))
		}
	}
	s.Mem = e.Memory()
	s.FullBytes = e.FullBytes()
	s.EvictBytes = e.EvictBytes()
	s.Metrics = e.last
	s.History = e.history
	s.Tokens = nil
	if math.IsNaN(s.Metrics.KL) {
		s.Metrics.KL = 0
	}
	return s
}
