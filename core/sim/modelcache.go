package sim

import (
	"fmt"

	"github.com/kvscope/kvscope/core/internal/fastmath"
	"github.com/kvscope/kvscope/core/kv"
	"github.com/kvscope/kvscope/core/model"
)

// ModelCache is a model.Cache whose keys and values live in kvscope's
// compressed cache: one kv.Layer per model layer, with cfg's policy and
// storage, fed the model's real attention weights. By default keys are
// rotated to their absolute position before they are stored (as most
// caches do); with Reposition, keys are stored before RoPE and rotated at
// every step by their index within the cache, as StreamingLLM does, so a
// cache holding positions [0 1 2 3 6 7 8] decoding token 9 uses positions
// 0–7.
type ModelCache struct {
	mc         model.Config
	cfg        Config
	c          *caches
	reposition bool
	kbuf       []float32          // one token's rotated key (kvDim)
	rot        []*model.RopeTable // per layer: RoPE's cos/sin table
	ref        *tapCache          // the reference the metrics compare with; nil for none
	sum        Metrics            // metrics summed over the layers of the current token
}

// NewModelCache returns a compressed cache for model configuration mc
// holding at most maxTokens positions, with prompt tokens prefilled before
// the policy starts evicting. cfg supplies the policy and storage; its
// stream fields are taken from mc. cal (from CalibrateModel, or nil)
// supplies the ranges and bases that channel and tensor granularity and
// low rank need.
func NewModelCache(mc model.Config, cfg Config, maxTokens, prompt int, reposition bool, cal *ModelCalibration) (*ModelCache, error) {
	if err := mc.Validate(); err != nil {
		return nil, err
	}
	cfg.Layers, cfg.Heads, cfg.KVHeads, cfg.HeadDim = mc.Layers, mc.Heads, mc.KVHeads, mc.HeadDim
	cfg.Tokens, cfg.Prompt = maxTokens, min(prompt, maxTokens)
	if err := cfg.validateCache(); err != nil {
		return nil, err
	}
	if p, _ := kv.ParsePolicy(cfg.Policy); reposition && p.Describe().KeysAsStored {
		// Re-positioned keys are rotated by their index among the slots
		// attention reads: a policy reading the keys as stored (Quest's
		// page bounds, KeyDiff's mean key) would read them unrotated.
		return nil, fmt.Errorf("sim: %s cannot re-position keys within the cache", p)
	}
	if cfg.needsCalibration() && (cal == nil || len(cal.c.kcal)+len(cal.c.kb) == 0 || cal.reposition != reposition) {
		return nil, fmt.Errorf("sim: %s storage needs a calibration of this model (CalibrateModel)", cfg.Granularity)
	}
	mcache := &ModelCache{mc: mc, cfg: cfg, reposition: reposition, kbuf: make([]float32, mc.KVDim()),
		rot: model.RopeTables(mc, maxTokens)}
	var wrap func(int, kv.Store) kv.Store
	if reposition {
		wrap = func(l int, s kv.Store) kv.Store { return newReposStore(s, mcache.rot[l], mc.HeadDim) }
	}
	var c calibration
	if cal != nil {
		c = cal.c
	}
	var err error
	if mcache.c, err = newCaches(cfg, c, wrap, mc.Window); err != nil {
		return nil, err
	}
	return mcache, nil
}

// Attend implements model.Cache.
func (m *ModelCache) Attend(l, pos int, q, k, v, out []float32) error {
	if l < 0 || l >= len(m.c.layers) {
		return fmt.Errorf("sim: model cache: layer %d out of range", l)
	}
	if pos >= m.cfg.Tokens {
		return fmt.Errorf("sim: model cache: position %d beyond its %d tokens", pos, m.cfg.Tokens)
	}
	key := k
	if !m.reposition {
		copy(m.kbuf, k)
		m.rot[l].Apply(m.kbuf, pos)
		m.rot[l].Apply(q, pos)
		key = m.kbuf
	}
	if err := m.c.step(l, pos, m.cfg.Prompt, q, key, v, out); err != nil {
		return err
	}
	if m.ref != nil && !m.reposition {
		full := m.ref.full
		m.sum = m.sum.add(m.c.measure(l, q, out, m.ref.out[l], func(qh int) []float32 { return full.Attention(l, qh) }))
	}
	return nil
}

// Reset implements model.Cache.
func (m *ModelCache) Reset() {
	m.c.reset()
	m.sum = Metrics{}
}

// Memory returns what the compressed cache holds, itemized.
func (m *ModelCache) Memory() Memory { return m.c.memory() }

// reposStore holds keys before RoPE and rotates them by their index in
// the cache when attention reads them (StreamingLLM). The slots kv passes
// to Dots are in cache order, so index i is the i-th cached token, and the
// query sits at the last index.
type reposStore struct {
	kv.Store
	rot    *model.RopeTable
	qr, kr []float32
}

func newReposStore(s kv.Store, rot *model.RopeTable, dim int) *reposStore {
	return &reposStore{Store: s, rot: rot, qr: make([]float32, dim), kr: make([]float32, dim)}
}

// Unwrap returns the store holding the keys.
func (r *reposStore) Unwrap() kv.Store { return r.Store }

// Dots writes (R(n−1)·q)·(R(i)·k̂_i) for the n slots, i their cache index.
func (r *reposStore) Dots(q []float32, slots []int, dst []float32) {
	copy(r.qr, q)
	r.rot.Apply(r.qr, len(slots)-1)
	for i, s := range slots {
		r.Store.Read(s, r.kr)
		r.rot.Apply(r.kr, i)
		dst[i] = fastmath.Dot(r.qr, r.kr)
	}
}
