package sim

import (
	"math"
	"time"
)

// Role is what a token position is to one head's cache at a given step.
type Role uint8

// Roles, in drawing order. The zero value is Future: a position not yet decoded.
const (
	Future   Role = iota // not decoded yet
	Evicted              // was cached, has been evicted (see Cell.EvictedAt)
	Sink                 // an attention sink, kept unconditionally
	Heavy                // a heavy hitter, kept for its accumulated attention
	Recent               // inside the recent window
	Kept                 // kept by a policy that names no role (full, knorm, chunk, random, tova, snapkv)
	Windowed             // left the model's own sliding window (a local layer of Gemma 3): the architecture evicted it, not the policy
)

// String returns the role's name as the page shows it.
func (r Role) String() string {
	switch r {
	case Future:
		return "future"
	case Evicted:
		return "evicted"
	case Sink:
		return "sink"
	case Heavy:
		return "heavy hitter"
	case Recent:
		return "recent"
	case Kept:
		return "kept"
	case Windowed:
		return "outside the model's window"
	}
	return "unknown"
}

// Key returns the role's one-word name, as the page's legend and text
// view carry it in data-role attributes: future, evicted, sink, heavy,
// recent, kept or windowed.
func (r Role) Key() string {
	switch r {
	case Heavy:
		return "heavy"
	case Windowed:
		return "windowed"
	case Future, Evicted, Sink, Recent, Kept:
		return r.String()
	}
	return "unknown"
}

// Held reports whether a token in this role is in the cache.
func (r Role) Held() bool { return r == Sink || r == Heavy || r == Recent || r == Kept }

// NumRoles is the number of roles: Role values run from 0 to NumRoles−1.
const NumRoles = int(Windowed) + 1

// Storage says how a cached token's key is held (under KIVI its value,
// quantized per token, may already be compressed while the key waits for
// its block).
type Storage uint8

// Storage kinds. The zero value, NotStored, is used for evicted and future positions.
const (
	NotStored Storage = iota
	Full              // float32 or FP16, uncompressed (including a quantizer's FP16 residual window)
	Quantized         // integer codes with scale and zero point
	LowRank           // rank-r coefficients (possibly quantized)
)

// Cell is one (head, position) of a snapshot.
type Cell struct {
	Role      Role
	Storage   Storage
	Attended  bool    // a query head of this kv head read the token at this step: every cached token, except under Quest, only its selected pages
	EvictedAt int32   // step at which the token left the cache; -1 while cached or future
	Score     float32 // the policy's accumulated score (0 for policies without one)
	Attn      float32 // attention the current query gives this token through the compressed cache
	AttnFull  float32 // attention the current query gives it over the uncompressed history
	KErr      float32 // relative L2 error of the stored key, ‖k − k̂‖/‖k‖ (0 when stored exactly)
}

// Memory itemizes the bytes a cache really holds.
type Memory struct {
	Payload  int64 // quantized codes (packed) or stored floats of compressed tokens
	Meta     int64 // scales and zero points
	Residual int64 // FP16 residual window and other uncompressed tokens
	Factors  int64 // low-rank bases
	Index    int64 // original positions / index maps of kept tokens
	Scores   int64 // the policy's per-token state: accumulated scores or key norms
	Holes    int64 // bytes held by evicted tokens inside blocks that cannot yet be freed
}

// Total is the sum of every item.
func (m Memory) Total() int64 {
	return m.Payload + m.Meta + m.Residual + m.Factors + m.Index + m.Scores + m.Holes
}

// Metrics are the fidelity measures of one step, averaged over heads.
type Metrics struct {
	KErr   float64 // relative Frobenius error of the stored keys
	VErr   float64 // relative Frobenius error of the stored values
	OutErr float64 // ‖o − ô‖/‖o‖ of the attention output against the uncompressed cache
	Mass   float64 // attention mass (under full attention) on tokens still cached
	KL     float64 // KL(compressed ‖ full) attention over the cached tokens, in nats (finite although evicted tokens get no compressed attention)
	Bias   float64 // mean signed error of q·k/√d over cached tokens caused by storage, in logits
	KMax   float64 // largest |k − k̂| over a head's cached keys, averaged over heads
	VMax   float64 // largest |v − v̂| over a head's cached values, averaged over heads
}

// KSNR is the keys' signal-to-noise ratio in dB, −20·log10(KErr); +Inf
// when keys are stored exactly.
func (m Metrics) KSNR() float64 { return snr(m.KErr) }

// VSNR is the values' signal-to-noise ratio in dB, −20·log10(VErr).
func (m Metrics) VSNR() float64 { return snr(m.VErr) }

func snr(rel float64) float64 {
	if rel <= 0 {
		return math.Inf(1)
	}
	return -20 * math.Log10(rel)
}

// Snapshot is everything a viewer needs to draw one step of one layer
// without recomputing anything. A Snapshot is reused between steps: a
// viewer that keeps one must copy it.
type Snapshot struct {
	Step   int // tokens in the history: positions 0..Step-1 exist
	Prompt int // prompt (prefill) length
	Layer  int // the layer shown
	Layers int
	Heads  int    // key/value heads of the layer
	Cells  []Cell // Heads × Step, row-major: Cells[h*Step+p]

	Mem        Memory // what the compressed cache holds (all layers, all heads)
	FullBytes  int64  // FP16 bytes of the uncompressed history (all layers, all heads)
	EvictBytes int64  // FP16 bytes of the tokens eviction keeps, before storage compression

	// Budgets is, per layer and kv head (Layers × Heads, row-major), the
	// most tokens the head keeps after this step (see kv.Layer.HeadBudget):
	// equal under the uniform allocator, per layer under PyramidKV, per head
	// under AdaKV and DuoAttention.
	Budgets []int
	// Retrieval is, under DuoAttention once heads are classified, which kv
	// heads of each layer (Layers × Heads) keep the full cache; nil otherwise.
	Retrieval []bool
	// Attended is the mean number of tokens a query head of the shown layer
	// attended at this step: the cached tokens, or Quest's selected pages.
	Attended float64

	Metrics Metrics   // this step
	History []Metrics // one per reference step so far (sparklines)
	Sinks   *Sinks    // the sink metric (Gu et al.) over the steps so far; nil without a reference

	Tokens []string     // real-model mode: the text of each position; nil for synthetic streams
	Text   *TextCompare // real-model mode: the two continuations; nil for synthetic streams
}

// TextCompare sets the real model's two continuations side by side: with
// the uncompressed cache and with the compressed one. Next-token measures
// compare, at each position of the compressed text from the prompt's last
// token on, the uncompressed cache's prediction with the compressed
// cache's (teacher forcing). The prompt's earlier positions are read in
// chunks that predict nothing (see ModelRun): they have no next-token
// measures.
type TextCompare struct {
	Full       string    // prompt + continuation with the uncompressed cache
	Compressed string    // prompt + continuation with the compressed cache
	Diverge    int       // first position where the two texts' tokens differ; -1 while they agree
	NextKL     float64   // KL(full ‖ compressed) of the next-token distributions at the last measured step, nats; 0 before any
	MeanKL     float64   // mean of NextKL over the measured steps so far (KLHistory); 0 before any
	Agreement  float64   // share of the measured steps whose most likely next tokens agree; 0 before any
	KLHistory  []float64 // NextKL per measured step: entry i is position Prompt−1+i's; nil before any
	// ZipFed and ZipTime are what KVzip's reconstruction pass cost (the
	// positions it fed, in addition to the run's own), once it has run;
	// zero for every other policy.
	ZipFed  int
	ZipTime time.Duration
}

// Cell returns the cell of head h at position p.
// It panics if h or p is out of range, like an index expression.
func (s *Snapshot) Cell(h, p int) *Cell { return &s.Cells[h*s.Step+p] }
