package store

import (
	"github.com/kvscope/kvscope/core/internal/fastmath"
	"github.com/kvscope/kvscope/core/quant"
)

// sketch is a 1-bit QJL sketch (arXiv 2406.03482) of one vector per slot:
// the signs of S·r for an m×sd Gaussian matrix S drawn from a seed,
// ⌈m/8⌉ bytes per token. With the vector's norm, q·r is estimated as
// √(π/2)/m·‖r‖·⟨S·q, sign(S·r)⟩, without bias over S. TurboProd sketches
// its residual (turbo.go), QJL the vector itself (qjl.go).
type sketch struct {
	sd, m int
	mat   []float32 // m×sd Gaussian matrix, FP16-rounded
	bytes int       // bytes of one token's signs, ⌈m/8⌉
	signs []byte    // capacity×bytes
	sq    []float32 // m: S·qs of the current Dots call; accumulator of WeightedSum
	sqSum float32   // Σ sq of the current Dots call
}

func newSketch(seed uint64, m, sd, capacity int) (*sketch, error) {
	g, err := quant.Gaussian(seed, m, sd)
	if err != nil {
		return nil, err
	}
	for i, v := range g {
		g[i] = quant.RoundFP16(v)
	}
	k := &sketch{sd: sd, m: m, mat: g, bytes: (m + 7) / 8, sq: make([]float32, m)}
	k.signs = make([]byte, capacity*k.bytes)
	return k, nil
}

func (k *sketch) row(slot int) []byte { return k.signs[slot*k.bytes : (slot+1)*k.bytes] }

// encode sets slot's sign bits: bit i is set when (S·r)_i ≥ 0.
func (k *sketch) encode(slot int, r []float32) {
	sd := k.sd
	row := k.row(slot)
	clear(row)
	for i := range k.m {
		if fastmath.Dot4(k.mat[i*sd:(i+1)*sd], r) >= 0 {
			row[i>>3] |= 1 << (i & 7)
		}
	}
}

// addSigns adds a·Sᵀ·sign(S·r) of slot's sketch to dst (sd values).
func (k *sketch) addSigns(dst []float32, slot int, a float32) {
	sd := k.sd
	row := k.row(slot)
	for i := range k.m {
		w := -a
		if row[i>>3]>>(i&7)&1 != 0 {
			w = a
		}
		for j, v := range k.mat[i*sd : (i+1)*sd] {
			dst[j] += w * v
		}
	}
}

// prepare computes S·qs and its sum once per Dots call.
func (k *sketch) prepare(qs []float32) {
	sd := k.sd
	var sum float32
	for i := range k.m {
		d := fastmath.Dot4(k.mat[i*sd:(i+1)*sd], qs)
		k.sq[i] = d
		sum += d
	}
	k.sqSum = sum
}

// signDot returns Σ (S·qs)_i over the rows i whose sign bit is set in
// slot's sketch: eight rows per byte, each multiplied by its bit (0 or 1),
// without a branch per bit.
func (k *sketch) signDot(slot int) float32 {
	row := k.row(slot)
	sq := k.sq
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

// begin clears the accumulator of a WeightedSum call.
func (k *sketch) begin() { clear(k.sq) }

// add adds ±a to the accumulator for each of slot's signs.
func (k *sketch) add(slot int, a float32) {
	row := k.row(slot)
	for i := range k.sq {
		if row[i>>3]>>(i&7)&1 != 0 {
			k.sq[i] += a
		} else {
			k.sq[i] -= a
		}
	}
}

// end adds Sᵀ·accumulator to acc (sd values).
func (k *sketch) end(acc []float32) {
	sd := k.sd
	for i, a := range k.sq {
		if a == 0 {
			continue
		}
		for j, v := range k.mat[i*sd : (i+1)*sd] {
			acc[j] += a * v
		}
	}
}
