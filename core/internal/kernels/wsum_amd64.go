//go:build amd64 && !purego

package kernels

import "unsafe"

// wsumSSE2 sets out[i] = Σ_t att[t]·vals[t·stride+i] for every i below n,
// weightedSumGo's order bit for bit, sixteen outputs per pass over the
// rows (wsum_amd64.s). It reads count ≥ 1 weights and the rows' values
// and writes n values of out; the caller has checked that they exist.
//
//go:noescape
func wsumSSE2(out, att, vals *float32, count, n, stride int)

func hostWeightedSumF32(out, att, vals []float32, stride int) {
	wsumSSE2(unsafe.SliceData(out), unsafe.SliceData(att), unsafe.SliceData(vals), len(att), len(out), stride)
}
