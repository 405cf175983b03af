//go:build js && wasm

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"syscall/js"
	"time"

	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/viz/view"
)

// minShared is the shortest stream whose references the page asks its
// workers for: below it the page computes them faster than a worker starts.
const minShared = 1024

// referenceRequest asks a worker for its part of a stream's references
// (sim.ReferenceBlocks), the stream being side A's of a page link.
type referenceRequest struct {
	ID    int    `json:"id"`
	Link  string `json:"link"`  // the page's settings (hash or query), as view.Decode reads them
	Part  int    `json:"part"`  // this worker's part, 0 ≤ Part < Parts
	Parts int    `json:"parts"` // workers sharing the stream
}

// reference computes the request's blocks, from the costly end down, and
// posts each as {type:'refblock', id, t0, t1, data: ArrayBuffer} (the
// bytes of sim.Stream.ExportReference, transferred), then {type:'done',
// id, blocks, ms}. A link without the reference, in real-model mode or
// of a stream shorter than minShared has no blocks.
func (w *worker) reference(ctx context.Context, r referenceRequest) error {
	t0 := time.Now()
	w.yield = t0
	if r.Parts < 1 || r.Part < 0 || r.Part >= r.Parts {
		return fmt.Errorf("reference request: part %d of %d", r.Part, r.Parts)
	}
	st, _ := view.Decode(r.Link)
	cfg := st.A
	n := 0
	if !st.ModelMode() && cfg.RefStride > 0 && cfg.Tokens >= minShared {
		s, err := sim.NewStream(cfg)
		if err != nil {
			return err
		}
		for _, b := range sim.ReferenceBlocks(cfg.Tokens, r.Part, r.Parts) {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := s.ComputeReference(b[0], b[1]); err != nil {
				return err
			}
			bs, err := s.ExportReference(b[0], b[1])
			if err != nil {
				return err
			}
			head, _ := json.Marshal(map[string]any{"type": "refblock", "id": r.ID, "t0": b[0], "t1": b[1]})
			arr := js.Global().Get("Uint8Array").New(len(bs))
			js.CopyBytesToJS(arr, bs)
			js.Global().Call("kvscopePostBlock", string(head), arr)
			n++
			w.pause()
		}
	}
	w.post(map[string]any{"type": "done", "id": r.ID, "blocks": n, "ms": time.Since(t0).Milliseconds()})
	return nil
}
