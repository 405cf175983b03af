//go:build js && wasm

package main

import (
	"syscall/js"

	"github.com/kvscope/kvscope/core/sim"
)

// References computed off the main thread. For a long stream with the
// reference on, static/panels.js asks Web Workers (static/sweep-worker.js,
// worker.wasm) for the stream's references, from its end down
// (sim.ReferenceBlocks), and hands each block to
// window.kvscopeImportReference(Uint8Array). The page's stream takes it in
// (sim.Stream.ImportReference): the engines then measure those positions
// from the recording, in O(Heads·Budget·Dim), while the main thread
// computes the references of the first positions itself — whichever
// arrives first, the numbers are the same.

// refStreams is the page's recording holder (set by streams.newEngine);
// refPending holds blocks that arrived before it had a stream.
var (
	refStreams *streams
	refPending [][]byte
)

// maxRefPending bounds the blocks kept waiting for the page's first stream
// (a 4,096-token stream of the default shape has 64 blocks).
const maxRefPending = 256

func init() {
	js.Global().Set("kvscopeImportReference", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) < 1 || args[0].Get("byteLength").IsUndefined() {
			return false
		}
		b := make([]byte, args[0].Get("byteLength").Int())
		js.CopyBytesToGo(b, args[0])
		return importReference(b)
	}))
}

// importReference takes a worker's block into the page's stream, or keeps
// it (up to maxRefPending) until the page has a stream it belongs to. It
// reports whether the worker should go on: false when the engines had
// already decoded past the block (the worker's next blocks come lower
// still) or no more blocks can wait.
func importReference(b []byte) bool {
	if refStreams != nil && refStreams.cur != nil {
		if _, t1, _, err := refStreams.cur.ImportReference(b); err == nil {
			return t1 > refStreams.cur.Recorded()
		}
	}
	// No stream yet, or another one (the link's may come next): keep it.
	if len(refPending) >= maxRefPending {
		return false
	}
	refPending = append(refPending, b)
	return true
}

// takePending imports into s the blocks that waited for a stream, and
// keeps those of another stream.
func takePending(s *sim.Stream) {
	kept := refPending[:0]
	for _, b := range refPending {
		if _, _, _, err := s.ImportReference(b); err != nil {
			kept = append(kept, b)
		}
	}
	clear(refPending[len(kept):])
	refPending = kept
}
