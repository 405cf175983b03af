package model

import (
	"fmt"
	"math"
)

// Rope is a rotary position embedding: pair i of every head of Dim
// values turns by the angle pos·Base^(−2i/Dim)/Factors[i]. Adjacent pairs
// (x[2i], x[2i+1]) turn unless Neox is set, which turns (x[i],
// x[i+Dim/2]) as GPT-NeoX, Qwen and Gemma do. Factors is nil or holds
// Dim/2 values (Llama 3's frequency factors).
type Rope struct {
	Dim     int
	Base    float32
	Neox    bool
	Factors []float32
}

// angle returns pair i's angle per position, in float64.
func (r Rope) angle(i int) float64 {
	a := math.Pow(float64(r.Base), -float64(2*i)/float64(r.Dim))
	if r.Factors != nil {
		a /= float64(r.Factors[i])
	}
	return a
}

// Apply rotates x in place to position pos. x holds one or more heads of
// r.Dim values. Rotating by pos and then by −pos restores x up to
// rounding. It allocates nothing; see RopeTable for a precomputed one.
//
// Apply panics if r.Dim is not positive and even or len(x) is not a
// multiple of it (programmer errors).
func (r Rope) Apply(x []float32, pos int) {
	r.check(x)
	for i := range r.Dim / 2 {
		s, c := math.Sincos(float64(pos) * r.angle(i))
		r.turn(x, i, float32(c), float32(s))
	}
}

func (r Rope) check(x []float32) {
	if r.Dim <= 0 || r.Dim%2 != 0 || len(x)%r.Dim != 0 {
		panic(fmt.Sprintf("model: RoPE: len(x) %d, head dim %d: want an even head dim dividing len(x)", len(x), r.Dim))
	}
}

// turn rotates pair i of every head of x by the angle whose cosine and
// sine are c and s.
func (r Rope) turn(x []float32, i int, c, s float32) {
	j, k := 2*i, 2*i+1
	if r.Neox {
		j, k = i, i+r.Dim/2
	}
	for h := 0; h < len(x); h += r.Dim {
		a, b := x[h+j], x[h+k]
		x[h+j] = a*c - b*s
		x[h+k] = a*s + b*c
	}
}

// RoPE rotates x in place to absolute position pos with a Llama rotary
// embedding: adjacent pairs, base base, heads of headDim values (see Rope).
func RoPE(x []float32, pos, headDim int, base float32) {
	Rope{Dim: headDim, Base: base}.Apply(x, pos)
}

// RopeTable is a Rope with the cosines and sines of positions [0, n)
// computed once; Apply beyond them computes them as Rope.Apply does, with
// the same result.
type RopeTable struct {
	Rope
	n        int
	cos, sin []float32 // [pos][Dim/2]
}

// NewRopeTable returns r's table for positions [0, n).
func NewRopeTable(r Rope, n int) *RopeTable {
	half := r.Dim / 2
	t := &RopeTable{Rope: r, n: n, cos: make([]float32, n*half), sin: make([]float32, n*half)}
	for i := range half {
		a := r.angle(i)
		for p := range n {
			s, c := math.Sincos(float64(p) * a)
			t.cos[p*half+i], t.sin[p*half+i] = float32(c), float32(s)
		}
	}
	return t
}

// Apply rotates x in place to position pos (see Rope.Apply).
func (t *RopeTable) Apply(x []float32, pos int) {
	if pos < 0 || pos >= t.n {
		t.Rope.Apply(x, pos)
		return
	}
	t.check(x)
	half := t.Dim / 2
	cs, sn := t.cos[pos*half:(pos+1)*half], t.sin[pos*half:(pos+1)*half]
	for i := range cs {
		t.turn(x, i, cs[i], sn[i])
	}
}

// RopeTables returns one table per layer of c for positions [0, n),
// layers with the same rotary embedding (the same base: Config.Rope
// differs between layers in nothing else) sharing one table.
func RopeTables(c Config, n int) []*RopeTable {
	ts := make([]*RopeTable, c.Layers)
	for l := range ts {
		r := c.Rope(l)
		for _, t := range ts[:l] {
			if t.Base == r.Base {
				ts[l] = t
				break
			}
		}
		if ts[l] == nil {
			ts[l] = NewRopeTable(r, n)
		}
	}
	return ts
}

// KVHead returns the key/value head that query head h reads under grouped-query
// attention with the given head counts: h / (heads/kvHeads). heads must be a
// positive multiple of kvHeads.
func KVHead(h, heads, kvHeads int) int {
	return h / (heads / kvHeads)
}
