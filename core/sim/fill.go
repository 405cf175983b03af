package sim

// Memory returns what the compressed cache holds now, itemized, summed
// over layers and heads.
func (e *Engine) Memory() Memory { return e.c.memory() }

// FullBytes is the FP16 size of the uncompressed history so far: 2 bytes ×
// (K, V) × layers × kv heads × head dim × tokens.
func (e *Engine) FullBytes() int64 {
	return 2 * 2 * int64(e.cfg.Layers*e.cfg.KVHeads*e.cfg.HeadDim) * int64(e.pos)
}

// EvictBytes is the FP16 size of the tokens the policy keeps, before
// their storage is compressed.
func (e *Engine) EvictBytes() int64 { return e.c.evictBytes() }

// Metrics returns the metrics of the last reference step and one entry per
// reference step so far (nil when the reference is off).
func (e *Engine) Metrics() (last Metrics, history []Metrics) { return e.last, e.history }

// Snapshot fills the engine's snapshot with layer's state after the last
// step and returns it. The snapshot is reused by the next call. Filling
// costs O(KVHeads·(Pos + Budget·Dim)), plus O(Heads·Pos·Dim) unless the
// last step computed the layer's reference over the whole history (a
// reference step of a stream's first run): cells carry the reference
// attention (AttnFull) whenever the reference is on (RefStride > 0); the
// metrics are those of the last reference step.
func (e *Engine) Snapshot(layer int) *Snapshot {
	s := &e.snap
	var ref func(int) []float32
	kept := e.refW != nil && e.pos > 0 && e.stream.row(e.pos-1, layer, 0) != nil
	if e.refW != nil && e.pos > 0 && e.rowsAt[layer] != e.pos-1 && !kept {
		// Compute the shown layer's reference attention for the last step
		// on demand, so cells always carry it.
		rows := e.refW[layer*e.cfg.Heads*e.cfg.Tokens : (layer+1)*e.cfg.Heads*e.cfg.Tokens]
		e.stream.reference(e.pos-1, layer, rows, e.cfg.Tokens)
		e.rowsAt[layer] = e.pos - 1
	}
	switch {
	case kept:
		ref = func(qh int) []float32 { return e.stream.row(e.pos-1, layer, qh) }
	case e.refW != nil && e.pos > 0:
		ref = func(qh int) []float32 {
			i := (layer*e.cfg.Heads + qh) * e.cfg.Tokens
			return e.refW[i : i+e.cfg.Tokens]
		}
	}
	e.c.fill(s, layer, e.pos, ref)
	s.Prompt = e.cfg.Prompt
	s.Mem = e.c.memory()
	s.FullBytes = e.FullBytes()
	s.EvictBytes = e.c.evictBytes()
	s.Metrics = e.last
	s.History = e.history
	s.Sinks = e.Sinks()
	s.Tokens = nil
	return s
}
