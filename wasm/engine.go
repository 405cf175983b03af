//go:build js && wasm

package main

import "github.com/kvscope/kvscope/core/sim"

// engine is what the page needs from a simulation: core/sim's synthetic
// decoder today; a real model decoding in the page can implement it too
// (its Snapshot fills Tokens for the hover text).
type engine interface {
	Step() bool                       // decode one token; false when the run is complete
	Snapshot(layer int) *sim.Snapshot // the engine's reusable snapshot of a layer
	Pos() int                         // tokens in the history
	Config() sim.Config
}

// newEngine builds the engine of a configuration; a mode switch (synthetic
// stream or real model) would choose here.
var newEngine = func(c sim.Config) (engine, error) { return sim.New(c) }
