package sim

import (
	"time"

	"github.com/kvscope/kvscope/core/model"
)

// ZipRequest is the reconstruction request KVzip puts after the context
// before the model repeats it (Kim et al.'s first chunk; kvpress's
// KVzipPress).
const ZipRequest = "\n\nRepeat the previous context exactly."

// zip is KVzip's scoring pass, run once when the cache reaches zipAt
// positions: a copy of the uncompressed cache holding the context is fed
// the reconstruction request (in the model's chat turn when it has one:
// the request closes the user's turn and the assistant repeats) and then
// the context itself, teacher-forced, in batched chunks. Each context
// token's score in a kv head is the largest attention any of those
// queries gives it through the head's query heads, over the whole cache —
// one chunk, as Kim et al. score a context of up to 2,000 tokens; longer
// contexts they score chunk by chunk. Every layer of the compressed cache
// then compresses by those scores (kv.Layer.Zip). Nothing of the pass
// stays in any cache the run decodes with.
func (r *ModelRun) zip() error {
	t0 := time.Now()
	m, n := r.m, r.zipAt
	tk := m.Tokenizer
	ctx := r.prompt[:n]
	if tk.AddBOS() && len(ctx) > 0 && ctx[0] == tk.BOS {
		ctx = ctx[1:]
	}
	_, close := tk.Chat.Turn()
	input := tk.Encode(ZipRequest, false, false)
	input = append(input, tk.EncodeSpecial(close, false, false)...)
	input = append(input, ctx...)
	mc := m.Config
	full, err := model.NewFullCache(mc, n+len(input))
	if err != nil {
		return err
	}
	sc := &zipScorer{full: full, n: n, group: mc.Heads / mc.KVHeads, heads: mc.Heads, best: make([][]float32, mc.Layers)}
	for l := range sc.best {
		sc.best[l] = make([]float32, mc.KVHeads*n)
	}
	run := m.NewRunner(sc) // a new runner empties its cache: copy the context after
	if err := full.CopyFrom(r.tap.full, n); err != nil {
		return err
	}
	if err := run.Seek(n); err != nil {
		return err
	}
	for i := 0; i < len(input); i += PromptChunk {
		if _, err := run.Prefill(input[i:min(len(input), i+PromptChunk)]); err != nil {
			return err
		}
	}
	for l, layer := range r.cache.c.layers {
		scores := make([][]float32, mc.KVHeads)
		for g := range scores {
			ps := layer.Positions(g)
			scores[g] = make([]float32, len(ps))
			for i, p := range ps {
				scores[g][i] = sc.best[l][g*n+int(p)]
			}
		}
		if err := layer.Zip(scores); err != nil {
			return err
		}
	}
	r.zipped, r.zipFed, r.zipNanos = true, len(input), time.Since(t0).Nanoseconds()
	return nil
}

// ZipCost returns what KVzip's reconstruction pass cost the run: the
// positions it fed and the time it took (zero before it ran, and for
// every other policy).
func (r *ModelRun) ZipCost() (positions int, d time.Duration) {
	return r.zipFed, time.Duration(r.zipNanos)
}

// zipScorer is the uncompressed cache of KVzip's scoring pass: it attends
// as a FullCache does and keeps, for each layer, kv head and context
// position (below n), the largest attention weight any query head of the
// kv head gave it.
type zipScorer struct {
	full         *model.FullCache
	n            int
	group, heads int
	best         [][]float32 // [layer][kv head·n + position]
}

func (z *zipScorer) Attend(l, pos int, q, k, v, out []float32) error {
	if err := z.full.Attend(l, pos, q, k, v, out); err != nil {
		return err
	}
	for qh := range z.heads {
		w := z.full.Attention(l, qh)
		g := qh / z.group
		b := z.best[l][g*z.n : (g+1)*z.n]
		for p := range b[:min(len(b), len(w))] {
			b[p] = max(b[p], w[p])
		}
	}
	return nil
}

func (z *zipScorer) Reset() { z.full.Reset() }
