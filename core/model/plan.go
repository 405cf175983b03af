package model

import "github.com/kvscope/kvscope/core/model/gguf"

// PlannedBytes returns the bytes the weights of a model loaded from f with
// opts will hold in memory (what Weights.Bytes then reports), from the
// tensor descriptions alone, before any tensor is read or allocated:
// every tensor of f as the loader keeps it — a matrix in its stored
// bytes with opts.KeepQuantized (keptAsStored), any other tensor widened
// to float32. A file with tensors the loader does not read is counted
// whole, so the figure errs on the high side. It costs O(tensors).
func PlannedBytes(f *gguf.File, opts Options) int64 {
	var n int64
	for i := range f.Tensors {
		t := &f.Tensors[i]
		if keptAsStored(t, opts.KeepQuantized) {
			n += int64(t.NumBytes())
		} else {
			n += 4 * int64(t.NumElements())
		}
	}
	return n
}

// PlannedAlloc returns the bytes the loader allocates for the weights of
// a model loaded from the bytes of f (LoadBytes, NewLoaderBytes) with
// opts: the tensors it widens to float32. Matrices kept as stored alias
// the file and cost nothing beyond it. Like PlannedBytes it reads only the
// tensor descriptions.
func PlannedAlloc(f *gguf.File, opts Options) int64 {
	var n int64
	for i := range f.Tensors {
		if t := &f.Tensors[i]; !keptAsStored(t, opts.KeepQuantized) {
			n += 4 * int64(t.NumElements())
		}
	}
	return n
}
