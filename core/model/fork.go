package model

import "fmt"

// CopyFrom makes fc hold src's first n positions of every layer — their
// rotated keys and their values — as if the same n tokens had been fed to
// both, so a runner can continue from a shared history without feeding it
// again (see Runner.Seek). fc's attention weights are not copied. It costs
// O(Layers·n·KVDim) and allocates nothing. It returns an error if the
// configurations differ, src holds fewer than n positions in a layer, or n
// exceeds fc's capacity.
func (fc *FullCache) CopyFrom(src *FullCache, n int) error {
	if !fc.cfg.Equal(src.cfg) {
		return fmt.Errorf("model: full cache: copy between configurations %+v and %+v", src.cfg, fc.cfg)
	}
	if n < 0 || n > fc.capacity {
		return fmt.Errorf("model: full cache: copy of %d positions into a capacity of %d", n, fc.capacity)
	}
	for l, have := range src.n {
		if have < n {
			return fmt.Errorf("model: full cache: copy of %d positions from a layer %d holding %d", n, l, have)
		}
	}
	kvDim := fc.cfg.KVDim()
	for l := range fc.n {
		d, s := l*fc.capacity*kvDim, l*src.capacity*kvDim
		copy(fc.keys[d:d+n*kvDim], src.keys[s:s+n*kvDim])
		copy(fc.values[d:d+n*kvDim], src.values[s:s+n*kvDim])
		fc.n[l] = n
	}
	return nil
}

// Seek sets the position of the next Forward to pos without feeding
// tokens, for a runner whose cache already holds positions 0…pos−1 (filled
// by FullCache.CopyFrom, or by another runner's passes through it); the
// logits are cleared. It returns an error for a negative pos.
func (r *Runner) Seek(pos int) error {
	if pos < 0 {
		return fmt.Errorf("model: seek to position %d", pos)
	}
	r.pos = pos
	clear(r.logits)
	return nil
}
