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

// newEngine builds the synthetic stream's engine of a configuration.
var newEngine = func(c sim.Config) (engine, error) { return sim.New(c) }
