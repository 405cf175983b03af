package model

import (
	"fmt"
	"math"

	"github.com/kvscope/kvscope/core/internal/kernels"
)

// Cache stores keys and values and computes attention for one layer at a time.
// The Runner calls Attend once per layer per token, layers in order, positions
// increasing from 0.
type Cache interface {
	// Attend stores the new token's key k and value v ([kvHeads*headDim], *before*
	// RoPE) at absolute position pos for layer l, then writes the attention output
	// for query q ([heads*headDim], before RoPE) into out ([heads*headDim]).
	// Implementations apply RoPE themselves (model.RoPE) so a cache can re-position
	// keys (StreamingLLM rotates by index within the cache). Implementations may
	// modify q but not k or v, and must not retain q, k, v or out.
	Attend(l, pos int, q, k, v, out []float32) error
	// Reset forgets every stored token.
	Reset()
}

// FullCache is the uncompressed reference Cache: it keeps every key (rotated to
// its absolute position) and value in float32 and attends over all of them.
// Its memory is 2·Layers·capacity·KVDim float32s plus Layers·Heads·capacity for
// the attention weights; Attend costs O(pos·Dim) and allocates nothing.
type FullCache struct {
	cfg      Config
	capacity int
	keys     []float32 // (layer, capacity, kvDim), rotated
	values   []float32 // (layer, capacity, kvDim)
	att      []float32 // (layer, heads, capacity) softmax weights of the last Attend
	n        []int     // (layer) positions stored
	rope     []*RopeTable
}

// maxRopeTable is the most positions a cache's RoPE table holds; beyond
// them angles are computed as they are needed.
const maxRopeTable = 1 << 13

// maxCacheFloats caps a FullCache's key (and value) storage at 256 MiB each.
const maxCacheFloats = 1 << 26

// NewFullCache returns an empty FullCache for models of configuration c holding
// up to capacity positions (c.ContextLength when capacity ≤ 0). It returns an
// error if c is invalid or the storage would exceed 2^26 floats per array.
func NewFullCache(c Config, capacity int) (*FullCache, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if capacity <= 0 {
		capacity = c.ContextLength
	}
	if capacity > maxCacheFloats/c.Layers/max(c.KVDim(), c.Heads) {
		return nil, fmt.Errorf("model: full cache of %d positions × %d layers too large", capacity, c.Layers)
	}
	return &FullCache{
		cfg:      c,
		capacity: capacity,
		keys:     make([]float32, c.Layers*capacity*c.KVDim()),
		values:   make([]float32, c.Layers*capacity*c.KVDim()),
		att:      make([]float32, c.Layers*c.Heads*capacity),
		n:        make([]int, c.Layers),
		rope:     RopeTables(c, min(capacity, maxRopeTable)),
	}, nil
}

// Capacity returns the number of positions the cache can hold.
func (fc *FullCache) Capacity() int { return fc.capacity }

// Len returns the number of positions stored for layer l.
func (fc *FullCache) Len(l int) int { return fc.n[l] }

// Reset forgets every stored token; it keeps the storage.
func (fc *FullCache) Reset() {
	clear(fc.n)
}

// Attend implements Cache. Positions must arrive in order: pos must equal the
// number of positions already stored for layer l, and be below the capacity;
// otherwise it returns an error and stores nothing. q is rotated in place.
func (fc *FullCache) Attend(l, pos int, q, k, v, out []float32) error {
	c := fc.cfg
	kvDim := c.KVDim()
	if l < 0 || l >= c.Layers {
		return fmt.Errorf("model: full cache: layer %d out of range [0, %d)", l, c.Layers)
	}
	if pos != fc.n[l] {
		return fmt.Errorf("model: full cache: layer %d position %d, want %d (positions arrive in order)", l, pos, fc.n[l])
	}
	if pos >= fc.capacity {
		return fmt.Errorf("model: full cache: position %d beyond capacity %d", pos, fc.capacity)
	}
	if qd := c.QDim(); len(q) != qd || len(out) != qd || len(k) != kvDim || len(v) != kvDim {
		return fmt.Errorf("model: full cache: lengths q %d k %d v %d out %d, want %d %d %d %d", len(q), len(k), len(v), len(out), qd, kvDim, kvDim, qd)
	}
	base := l * fc.capacity * kvDim
	kd := fc.keys[base+pos*kvDim : base+(pos+1)*kvDim]
	copy(kd, k)
	fc.rope[l].Apply(kd, pos)
	copy(fc.values[base+pos*kvDim:], v)
	fc.rope[l].Apply(q, pos)
	fc.n[l] = pos + 1
	// A local layer (Config.Window) attends to its last w positions only;
	// the weights of the earlier ones are 0.
	from := 0
	if w := c.Window(l); w > 0 {
		from = max(0, pos+1-w)
	}

	// Scores: q·k/√headDim, with the scale folded into q once. Query heads of one
	// group read the same key rows.
	scale := float32(1 / math.Sqrt(float64(c.HeadDim)))
	for i := range q {
		q[i] *= scale
	}
	hd := c.HeadDim
	group := c.Heads / c.KVHeads
	for h := 0; h < c.Heads; h++ {
		qh := q[h*hd : (h+1)*hd]
		ko := base + (h/group)*hd
		row := fc.att[(l*c.Heads+h)*fc.capacity:][:pos+1]
		clear(row[:from])
		att := row[from:]
		kernels.ScoresF32(att, qh, fc.keys[ko+from*kvDim:], kvDim)
		Softmax(att)
		kernels.WeightedSumF32(out[h*hd:(h+1)*hd], att, fc.values[ko+from*kvDim:], kvDim)
	}
	return nil
}

// Attention returns the softmax attention weights that query head h of layer l
// gave to positions 0…pos at the last Attend of that layer (length pos+1; empty
// before any; 0 before a local layer's window). The slice is owned by the cache and overwritten by the next
// Attend of layer l.
func (fc *FullCache) Attention(l, h int) []float32 {
	return fc.att[(l*fc.cfg.Heads+h)*fc.capacity:][:fc.n[l]]
}
