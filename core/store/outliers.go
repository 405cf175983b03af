package store

import "github.com/kvscope/kvscope/core/quant"

// This file holds the dense-and-sparse split (KVQuant): the nout values of
// largest magnitude of each sealed token, in stored coordinates, are kept
// exactly in FP16 with their indices; the rest are quantized with ranges
// that leave them out. The codes at the outliers' positions stay (they are
// clamped), and every reader corrects them: Read overwrites them, Dots
// adds q_i·(value − decoded), WeightedSum adds w·(value − decoded).

// takeOutliers picks the nout values of c (a token's stored coordinates)
// largest in magnitude, ties to the lower index, stores them for slot and
// marks them in outOn. It costs O(nout·sdim).
func (s *Store) takeOutliers(slot int, c []float32) {
	idx := s.outIdx[slot*s.nout : (slot+1)*s.nout]
	val := s.outVal[slot*s.nout : (slot+1)*s.nout]
	clear(s.outOn)
	for k := range idx {
		best, bm := 0, float32(-1)
		for j, v := range c {
			if v < 0 {
				v = -v
			}
			if v > bm && !s.outOn[j] {
				best, bm = j, v
			}
		}
		s.outOn[best] = true
		idx[k] = uint16(best)
		val[k] = quant.RoundFP16(c[best])
	}
}

// inlierRange returns the minimum and maximum of the values of grp
// (stored coordinates off, off+1, …) that are not outliers; 0, 0 if all are.
func (s *Store) inlierRange(grp []float32, off int) (lo, hi float32) {
	first := true
	for j, v := range grp {
		if s.outOn[off+j] {
			continue
		}
		if first {
			lo, hi, first = v, v, false
			continue
		}
		if v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	return lo, hi
}

// putOutliers writes slot's outliers over dst (stored coordinates).
func (s *Store) putOutliers(slot int, dst []float32) {
	for k, j := range s.outIdx[slot*s.nout : (slot+1)*s.nout] {
		dst[j] = s.outVal[slot*s.nout+k]
	}
}

// cacheDeltas sets slot's outDelta, value − decoded at each outlier, once
// its codes are stored: derived from the stored bytes (like the store's
// other precomputed tables, not counted as memory), it spares Dots and
// WeightedSum decoding the outliers' codes again. It must run right after
// the codec's Encode of slot (outlierCodec).
func (s *Store) cacheDeltas(slot int) {
	for k, j := range s.outIdx[slot*s.nout : (slot+1)*s.nout] {
		s.outDelta[slot*s.nout+k] = s.outVal[slot*s.nout+k] - s.outc.decodedAt(slot, int(j))
	}
}

// outlierDot returns Σ over slot's outliers of qs_j·(value − decoded).
func (s *Store) outlierDot(qs []float32, slot int) float32 {
	var t float32
	d := s.outDelta[slot*s.nout : (slot+1)*s.nout]
	for k, j := range s.outIdx[slot*s.nout : (slot+1)*s.nout] {
		t += qs[j] * d[k]
	}
	return t
}

// addOutliers adds w·(value − decoded) at slot's outliers to acc.
func (s *Store) addOutliers(acc []float32, w float32, slot int) {
	d := s.outDelta[slot*s.nout : (slot+1)*s.nout]
	for k, j := range s.outIdx[slot*s.nout : (slot+1)*s.nout] {
		acc[j] += w * d[k]
	}
}

// allocOptions allocates the outlier arrays in New.
func (s *Store) allocOptions() {
	s.nout = s.cfg.outlierCount(s.sdim)
	if s.nout > 0 {
		s.outIdx = make([]uint16, s.capacity*s.nout)
		s.outVal = make([]float32, s.capacity*s.nout)
		s.outDelta = make([]float32, s.capacity*s.nout)
		s.outOn = make([]bool, s.sdim)
	}
}

// optionMemory adds the bytes of the sinks and the outliers to m.
func (s *Store) optionMemory(m *Items) {
	m.Sinks += int64(s.nsink * s.dim * 2)
	if s.nout > 0 {
		ib := 1
		if s.sdim > 256 {
			ib = 2
		}
		m.Outliers += int64(s.sealed * s.nout * 2)
		m.OutlierIndex += int64(s.sealed * s.nout * ib)
	}
}
