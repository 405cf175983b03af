package model

import "github.com/kvscope/kvscope/core/model/gguf"

// PlannedBytes returns the bytes the weights of a model loaded from f with
// opts will hold in memory (what Weights.Bytes then reports), from the
// tensor descriptions alone, before any tensor is read or allocated:
// every tensor of f as the loader keeps it — a Q8_0 or Q4_0 matrix kept
// in its blocks with opts.KeepQuantized (32 or 16 bytes of quants and a
// float32 scale per block of 32 values), any other tensor widened to
// float32. A file with tensors the llama loader does not read is counted
// whole, so the figure errs on the high side. It costs O(tensors).
func PlannedBytes(f *gguf.File, opts Options) int64 {
	var n int64
	for i := range f.Tensors {
		t := &f.Tensors[i]
		e := int64(t.NumElements())
		switch {
		case opts.KeepQuantized && len(t.Dims) == 2 && t.Type == gguf.TypeQ8_0:
			n += e + 4*(e/32)
		case opts.KeepQuantized && len(t.Dims) == 2 && t.Type == gguf.TypeQ4_0:
			n += e/2 + 4*(e/32)
		default:
			n += 4 * e
		}
	}
	return n
}
