package store

import (
	"math"

	"github.com/kvscope/kvscope/core/quant"
)

// This file holds the codebook and sketch quantizers: TurboQuant-MSE
// (modeTurbo), TurboQuant-prod (modeTurbo with a sketch of the residual)
// and QJL (modeQJL). See Quantizer for the rules. The random rotation Π of
// the Turbo quantizers is the store's projection matrix (mat): tokens are
// rotated by project and queries in Dots, like a low-rank basis of full
// rank, and everything below works in the rotated coordinates.

// initCodebook sets up the codebook and sketch modes in New: levels,
// random matrices drawn from Seed, and the per-slot arrays.
func (s *Store) initCodebook() error {
	cfg, sd, capacity := s.cfg, s.sdim, s.capacity
	sketch := cfg.Quantizer != Turbo
	switch cfg.Quantizer {
	case Turbo, TurboProd:
		s.mode, s.cbBits = modeTurbo, cfg.Bits
		if cfg.Quantizer == TurboProd {
			s.cbBits--
			s.m = sd
		}
		levels, err := quant.LloydMax(s.cbBits)
		if err != nil {
			return err
		}
		// Coordinates of a rotated unit vector are close to N(0, 1/d):
		// the N(0, 1) levels, held in FP16, scaled by 1/√d.
		inv := 1 / math.Sqrt(float64(sd))
		s.cb = make([]float32, len(levels))
		for i, l := range levels {
			s.cb[i] = float32(float64(quant.RoundFP16(float32(l))) * inv)
		}
		s.cbThr = make([]float32, len(levels)-1)
		for i := range s.cbThr {
			s.cbThr[i] = (s.cb[i] + s.cb[i+1]) / 2
		}
		rot, err := quant.RandomOrthogonal(cfg.Seed, sd)
		if err != nil {
			return err
		}
		for i, v := range rot {
			rot[i] = quant.RoundFP16(v)
		}
		s.rot, s.mat = rot, rot
		s.rowBytes = packedBits(sd, s.cbBits)
		s.codes = make([]byte, capacity*s.rowBytes)
		s.cbuf = make([]uint8, sd)
	case QJL:
		s.mode, s.m = modeQJL, cfg.Bits*sd
	}
	s.norm = make([]float32, capacity)
	if sketch {
		g, err := quant.Gaussian(cfg.Seed, s.m, sd)
		if err != nil {
			return err
		}
		for i, v := range g {
			g[i] = quant.RoundFP16(v)
		}
		s.sk = g
		s.skBytes = (s.m + 7) / 8
		s.signs = make([]byte, capacity*s.skBytes)
		s.sq = make([]float32, s.m)
		s.rbuf = make([]float32, sd)
		if cfg.Quantizer == TurboProd {
			s.rnorm = make([]float32, capacity)
		}
	}
	return nil
}

// packedBits is ⌈n·bits/8⌉ for 1 ≤ bits ≤ 8.
func packedBits(n, bits int) int { return (n*bits + 7) / 8 }

// packAny packs codes of 1 to 8 bits as quant.Pack does (1-bit codes,
// which quant does not take, bit i of the stream being code i).
func packAny(dst []byte, codes []uint8, bits int) {
	if bits > 1 {
		quant.Pack(dst, codes, bits)
		return
	}
	dst = dst[:packedBits(len(codes), 1)]
	clear(dst)
	for i, c := range codes {
		dst[i>>3] |= (c & 1) << (i & 7)
	}
}

// unpackAny is the inverse of packAny.
func unpackAny(dst []uint8, src []byte, bits int) {
	if bits > 1 {
		quant.Unpack(dst, src, bits)
		return
	}
	for i := range dst {
		dst[i] = src[i>>3] >> (i & 7) & 1
	}
}

// fp16Norm returns ‖c‖ rounded to FP16 (clamped to quant.MaxFP16).
func fp16Norm(c []float32) float32 {
	var n2 float64
	for _, v := range c {
		n2 += float64(v) * float64(v)
	}
	return quant.RoundFP16(float32(min(math.Sqrt(n2), quant.MaxFP16)))
}

// nearest returns the code of the level nearest to u: the number of
// midpoints below u.
func (s *Store) nearest(u float32) uint8 {
	lo, hi := 0, len(s.cbThr)
	for lo < hi {
		mid := (lo + hi) / 2
		if u > s.cbThr[mid] {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return uint8(lo)
}

// compressCodebook codes c, a token's stored (rotated) coordinates, into
// slot.
func (s *Store) compressCodebook(slot int, c []float32) {
	n := fp16Norm(c)
	s.norm[slot] = n
	r := c
	if s.mode == modeTurbo {
		var inv float32
		if n > 0 {
			inv = 1 / n
		}
		for j, v := range c {
			s.cbuf[j] = s.nearest(v * inv)
		}
		packAny(s.codeRow(slot), s.cbuf, s.cbBits)
		if s.sk == nil {
			return
		}
		r = s.rbuf
		for j, v := range c {
			r[j] = v - n*s.cb[s.cbuf[j]]
		}
		s.rnorm[slot] = fp16Norm(r)
	}
	// The sketch: bit i is set when (S·r)_i ≥ 0.
	sd := s.sdim
	row := s.signs[slot*s.skBytes : (slot+1)*s.skBytes]
	clear(row)
	for i := range s.m {
		if dot4(s.sk[i*sd:(i+1)*sd], r) >= 0 {
			row[i>>3] |= 1 << (i & 7)
		}
	}
}

// sketchNorm returns √(π/2)/m times the norm the sketch of slot stands
// for: ‖r‖ (TurboProd) or ‖x‖ (QJL).
func (s *Store) sketchNorm(slot int) float32 {
	n := s.norm[slot]
	if s.rnorm != nil {
		n = s.rnorm[slot]
	}
	return float32(quant.QJLScale(s.m)) * n
}

// decodeCodebook sets dst (sdim values) to the stored coordinates of a
// sealed slot: ‖x‖·ĉ, plus √(π/2)/m·‖r‖·Sᵀ·sign(S·r) with a sketch.
func (s *Store) decodeCodebook(slot int, dst []float32) {
	if s.mode == modeTurbo {
		unpackAny(s.cbuf, s.codeRow(slot), s.cbBits)
		n := s.norm[slot]
		for j, c := range s.cbuf {
			dst[j] = n * s.cb[c]
		}
	} else {
		clear(dst)
	}
	if s.sk != nil {
		s.addSigns(dst, slot, s.sketchNorm(slot))
	}
}

// addSigns adds a·Sᵀ·sign(S·r) of slot's sketch to dst (sdim values).
func (s *Store) addSigns(dst []float32, slot int, a float32) {
	sd := s.sdim
	row := s.signs[slot*s.skBytes : (slot+1)*s.skBytes]
	for i := range s.m {
		w := -a
		if row[i>>3]>>(i&7)&1 != 0 {
			w = a
		}
		for k, v := range s.sk[i*sd : (i+1)*sd] {
			dst[k] += w * v
		}
	}
}

// prepareSketch computes S·qs and its sum once per Dots call.
func (s *Store) prepareSketch(qs []float32) {
	if s.sk == nil {
		return
	}
	sd := s.sdim
	var sum float32
	for i := range s.m {
		d := dot4(s.sk[i*sd:(i+1)*sd], qs)
		s.sq[i] = d
		sum += d
	}
	s.sqSum = sum
}

// dotCodebook returns qs·x̂ for a sealed slot in stored coordinates:
// ‖x‖·Σ qs_j·ĉ_j, plus, with a sketch, √(π/2)/m·‖r‖·Σ_i ±(S·qs)_i =
// √(π/2)/m·‖r‖·(2·Σ_{i: sign +} (S·qs)_i − Σ_i (S·qs)_i).
func (s *Store) dotCodebook(qs []float32, slot int) float32 {
	var t float32
	if s.mode == modeTurbo {
		t = dotLevels(qs[:s.sdim], s.codeRow(slot), s.cbBits, s.cb) * s.norm[slot]
	}
	if s.sk != nil {
		t += s.sketchNorm(slot) * (2*s.signDot(slot) - s.sqSum)
	}
	return t
}

// signDot returns Σ (S·qs)_i over the rows i whose sign bit is set in
// slot's sketch: eight rows per byte, each multiplied by its bit (0 or 1),
// without a branch per bit.
func (s *Store) signDot(slot int) float32 {
	row := s.signs[slot*s.skBytes : (slot+1)*s.skBytes]
	sq := s.sq
	var p0, p1 float32
	b := 0
	for ; (b+1)*8 <= len(sq); b++ {
		v, q := row[b], sq[b*8:b*8+8:b*8+8]
		p0 += q[0]*codeF32[v&1] + q[1]*codeF32[v>>1&1] + q[2]*codeF32[v>>2&1] + q[3]*codeF32[v>>3&1]
		p1 += q[4]*codeF32[v>>4&1] + q[5]*codeF32[v>>5&1] + q[6]*codeF32[v>>6&1] + q[7]*codeF32[v>>7]
	}
	for i := b * 8; i < len(sq); i++ {
		p0 += sq[i] * codeF32[row[i>>3]>>(i&7)&1]
	}
	return p0 + p1
}

// addCodebook adds w·x̂ of a sealed slot to acc (stored coordinates); the
// sketch part goes into the m-value accumulator s.sq, taken through Sᵀ
// once by addSketch.
func (s *Store) addCodebook(acc []float32, w float32, slot int) {
	if s.mode == modeTurbo {
		addLevels(acc[:s.sdim], w*s.norm[slot], s.codeRow(slot), s.cbBits, s.cb)
	}
	if s.sk != nil {
		a := w * s.sketchNorm(slot)
		row := s.signs[slot*s.skBytes : (slot+1)*s.skBytes]
		for i := range s.sq {
			if row[i>>3]>>(i&7)&1 != 0 {
				s.sq[i] += a
			} else {
				s.sq[i] -= a
			}
		}
	}
}

// addSketch adds Sᵀ·s.sq to acc (stored coordinates).
func (s *Store) addSketch(acc []float32) {
	sd := s.sdim
	for i, a := range s.sq {
		if a == 0 {
			continue
		}
		for k, v := range s.sk[i*sd : (i+1)*sd] {
			acc[k] += a * v
		}
	}
}

// dot4 returns Σ a_i·b_i (len(b) ≥ len(a)) in four partial sums, so that
// the additions need not wait on each other: the random matrices' rows are
// dotted d or m times per token and query.
func dot4(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		a4, b4 := a[i:i+4:i+4], b[i:i+4:i+4]
		s0 += a4[0] * b4[0]
		s1 += a4[1] * b4[1]
		s2 += a4[2] * b4[2]
		s3 += a4[3] * b4[3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// rotate sets c = Π·x for the random rotation (sdim = dim), clamping to
// ±quant.MaxFP16 as project does for FP16-held coordinates.
func (s *Store) rotate(c, x []float32) {
	d := s.dim
	for r := range c {
		c[r] = max(-quant.MaxFP16, min(quant.MaxFP16, dot4(s.rot[r*d:(r+1)*d], x)))
	}
}

// dotLevels returns Σ q_i·cb[c_i] over the len(q) codes of the given width
// (1 to 8 bits) packed in row as packAny packs them, decoding them on the
// way: no pass to unpack them into a buffer. cb has 2^bits entries.
func dotLevels(q []float32, row []byte, bits int, cb []float32) float32 {
	var s0, s1 float32
	switch bits {
	case 2:
		cb = cb[:4]
		i := 0
		for ; i+4 <= len(q); i += 4 {
			b := row[i/4]
			s0 += q[i]*cb[b&3] + q[i+1]*cb[b>>2&3]
			s1 += q[i+2]*cb[b>>4&3] + q[i+3]*cb[b>>6]
		}
		for ; i < len(q); i++ {
			s0 += q[i] * cb[row[i/4]>>(2*(i%4))&3]
		}
		return s0 + s1
	case 4:
		cb = cb[:16]
		i := 0
		for ; i+2 <= len(q); i += 2 {
			b := row[i/2]
			s0 += q[i] * cb[b&15]
			s1 += q[i+1] * cb[b>>4]
		}
		if i < len(q) {
			s0 += q[i] * cb[row[i/2]&15]
		}
		return s0 + s1
	}
	mask := uint32(1)<<bits - 1
	var buf uint32
	nb, j := 0, 0
	for i, x := range q {
		if nb < bits {
			buf |= uint32(row[j]) << nb
			j++
			nb += 8
		}
		c := cb[buf&mask]
		buf >>= bits
		nb -= bits
		if i&1 == 0 {
			s0 += x * c
		} else {
			s1 += x * c
		}
	}
	return s0 + s1
}

// addLevels adds a·cb[c_i] to acc[i] for the len(acc) codes packed in row,
// decoding them on the way (see dotLevels).
func addLevels(acc []float32, a float32, row []byte, bits int, cb []float32) {
	switch bits {
	case 2:
		cb = cb[:4]
		i := 0
		for ; i+4 <= len(acc); i += 4 {
			b := row[i/4]
			acc[i] += a * cb[b&3]
			acc[i+1] += a * cb[b>>2&3]
			acc[i+2] += a * cb[b>>4&3]
			acc[i+3] += a * cb[b>>6]
		}
		for ; i < len(acc); i++ {
			acc[i] += a * cb[row[i/4]>>(2*(i%4))&3]
		}
		return
	case 4:
		cb = cb[:16]
		i := 0
		for ; i+2 <= len(acc); i += 2 {
			b := row[i/2]
			acc[i] += a * cb[b&15]
			acc[i+1] += a * cb[b>>4]
		}
		if i < len(acc) {
			acc[i] += a * cb[row[i/2]&15]
		}
		return
	}
	mask := uint32(1)<<bits - 1
	var buf uint32
	nb, j := 0, 0
	for i := range acc {
		if nb < bits {
			buf |= uint32(row[j]) << nb
			j++
			nb += 8
		}
		acc[i] += a * cb[buf&mask]
		buf >>= bits
		nb -= bits
	}
}
