//go:build js && wasm

package main

import "github.com/kvscope/kvscope/core/sim"

// engine is what the page needs from a simulation: core/sim's synthetic
// decoder, or a *sim.ModelRun decoding a real model in real-model mode
// (its Snapshot fills Tokens and Text; see applyModel).
type engine interface {
	Step() bool                       // decode one token; false when the run is complete
	Snapshot(layer int) *sim.Snapshot // the engine's reusable snapshot of a layer
	Pos() int                         // tokens in the history
	Config() sim.Config
}

// isModelEngine reports whether e decodes a real model.
func isModelEngine(e engine) bool {
	switch e.(type) {
	case *sim.ModelRun, *remoteRun:
		return true
	}
	return false
}

// streams holds the page's recording of the synthetic stream: every engine
// of the same stream settings shares it, so a replay after a compression
// setting changes, and the comparison's second side, neither generate the
// stream again nor recompute the reference over the uncompressed history
// (see sim.Stream).
type streams struct{ cur *sim.Stream }

// newEngine builds the synthetic stream's engine of a configuration,
// sharing the recording when one matches; otherwise the recording is
// dropped and, with the reference on, a new one made.
func (st *streams) newEngine(c sim.Config) (engine, error) {
	if st.cur == nil || !st.cur.Matches(c) {
		st.cur = nil // let the old recording go before a new one is allocated
		if c.RefStride == 0 {
			return sim.New(c)
		}
		s, err := sim.NewStream(c)
		if err != nil {
			return nil, err
		}
		st.cur = s
		refStreams = st
		takePending(s) // references workers computed before the stream existed (refimport.go)
	}
	return sim.NewShared(c, st.cur)
}
