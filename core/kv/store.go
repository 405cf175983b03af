package kv

import "github.com/kvscope/kvscope/core/internal/fastmath"

// Store holds one head's keys or values in slots. *store.Store implements
// it; the zero configuration of a Layer uses an exact float32 store.
type Store interface {
	// Append stores x (len Dim) as the newest token and returns its slot.
	Append(x []float32) (slot int, err error)
	// Evict frees a slot returned by Append.
	Evict(slot int) error
	// Read writes the stored (reconstructed) vector of slot into dst.
	Read(slot int, dst []float32)
	// Dots writes q·x̂ for each slot into dst.
	Dots(q []float32, slots []int, dst []float32)
	// WeightedSum sets dst to Σ w[i]·x̂[slots[i]].
	WeightedSum(w []float32, slots []int, dst []float32)
	// Reset empties the store.
	Reset()
}

// A StoreMaker makes the store of kv head g for vectors of dim elements
// holding at most capacity live tokens.
type StoreMaker func(g, dim, capacity int) (Store, error)

// exact is a float32 store: what an uncompressed cache holds.
type exact struct {
	dim  int
	data []float32 // capacity × dim
	free []int     // free slots, a stack
}

func newExact(dim, capacity int) (Store, error) {
	e := &exact{dim: dim, data: make([]float32, dim*capacity), free: make([]int, 0, capacity)}
	e.Reset()
	return e, nil
}

// Fixed reports that a stored vector never changes until it is evicted.
func (e *exact) Fixed() bool { return true }

func (e *exact) Append(x []float32) (int, error) {
	if len(e.free) == 0 {
		return 0, errFull
	}
	s := e.free[len(e.free)-1]
	e.free = e.free[:len(e.free)-1]
	copy(e.data[s*e.dim:(s+1)*e.dim], x)
	return s, nil
}

func (e *exact) Evict(slot int) error {
	e.free = append(e.free, slot)
	return nil
}

func (e *exact) Read(slot int, dst []float32) { copy(dst, e.data[slot*e.dim:(slot+1)*e.dim]) }

func (e *exact) Dots(q []float32, slots []int, dst []float32) {
	for i, s := range slots {
		dst[i] = fastmath.Dot(q, e.data[s*e.dim:(s+1)*e.dim])
	}
}

func (e *exact) WeightedSum(w []float32, slots []int, dst []float32) {
	clear(dst)
	for i, s := range slots {
		wi := w[i]
		for j, v := range e.data[s*e.dim : (s+1)*e.dim] {
			dst[j] += wi * v
		}
	}
}

func (e *exact) Reset() {
	n := len(e.data) / e.dim
	e.free = e.free[:0]
	for s := n - 1; s >= 0; s-- {
		e.free = append(e.free, s)
	}
}
