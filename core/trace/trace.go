package trace

import (
	"fmt"
	"math"
)

// MaxElements caps the numbers a trace may hold, q, k and v together
// (1 GiB of float32). Read rejects larger archives before reading their data.
const MaxElements = 1 << 28

// Trace is a recorded attention stream: for every layer and token, the
// query of each query head and the key and value of each key/value head.
// The slices are flat in C order, [Layers][Tokens][QHeads][Dim] for Q and
// [Layers][Tokens][KVHeads][Dim] for K and V.
type Trace struct {
	Layers, Tokens, QHeads, KVHeads, Dim int
	Q, K, V                              []float32
}

// Group returns how many query heads share each key/value head,
// QHeads / KVHeads (1 without grouped-query attention).
func (t *Trace) Group() int { return t.QHeads / t.KVHeads }

// KVHead returns the key/value head that query head h reads, h / Group().
func (t *Trace) KVHead(h int) int { return h / t.Group() }

// QAt returns the query of head h at token tok of layer l, a Dim-long
// subslice of Q (capacity-limited, so appending to it cannot overwrite the
// trace). It panics if an index is out of range.
func (t *Trace) QAt(l, tok, h int) []float32 { return t.at(t.Q, "QAt", l, tok, h, t.QHeads) }

// KAt returns the key of key/value head h at token tok of layer l, a
// Dim-long subslice of K. It panics if an index is out of range.
func (t *Trace) KAt(l, tok, h int) []float32 { return t.at(t.K, "KAt", l, tok, h, t.KVHeads) }

// VAt returns the value of key/value head h at token tok of layer l, a
// Dim-long subslice of V. It panics if an index is out of range.
func (t *Trace) VAt(l, tok, h int) []float32 { return t.at(t.V, "VAt", l, tok, h, t.KVHeads) }

func (t *Trace) at(x []float32, name string, l, tok, h, heads int) []float32 {
	if uint(l) >= uint(t.Layers) || uint(tok) >= uint(t.Tokens) || uint(h) >= uint(heads) {
		panic(fmt.Sprintf("trace: %s(%d, %d, %d) out of range [%d, %d, %d]", name, l, tok, h, t.Layers, t.Tokens, heads))
	}
	i := ((l*t.Tokens+tok)*heads + h) * t.Dim
	return x[i : i+t.Dim : i+t.Dim]
}

// Validate returns an error unless every dimension is positive, QHeads is a
// multiple of KVHeads, the slices have the lengths the dimensions give,
// the total is at most MaxElements, and every number is finite.
func (t *Trace) Validate() error {
	if t.Layers <= 0 || t.Tokens <= 0 || t.QHeads <= 0 || t.KVHeads <= 0 || t.Dim <= 0 {
		return fmt.Errorf("trace: dimensions layers %d, tokens %d, q heads %d, kv heads %d, dim %d; want all positive",
			t.Layers, t.Tokens, t.QHeads, t.KVHeads, t.Dim)
	}
	if t.QHeads%t.KVHeads != 0 {
		return fmt.Errorf("trace: %d query heads is not a multiple of %d key/value heads", t.QHeads, t.KVHeads)
	}
	nq, okq := product(t.Layers, t.Tokens, t.QHeads, t.Dim)
	nkv, okkv := product(t.Layers, t.Tokens, t.KVHeads, t.Dim)
	if !okq || !okkv || nq > MaxElements-2*nkv {
		return fmt.Errorf("trace: %d×%d×%d×%d queries and keys/values exceed %d numbers",
			t.Layers, t.Tokens, t.QHeads, t.Dim, MaxElements)
	}
	for _, a := range []struct {
		name string
		x    []float32
		want int
	}{{"Q", t.Q, nq}, {"K", t.K, nkv}, {"V", t.V, nkv}} {
		if len(a.x) != a.want {
			return fmt.Errorf("trace: %s has %d numbers; the dimensions need %d", a.name, len(a.x), a.want)
		}
		for i, v := range a.x {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return fmt.Errorf("trace: %s[%d] is %v", a.name, i, v)
			}
		}
	}
	return nil
}

// product returns the product of dims, each ≥ 0, and false if it exceeds
// MaxElements.
func product(dims ...int) (int, bool) {
	p := 1
	for _, d := range dims {
		if d != 0 && p > MaxElements/d {
			return 0, false
		}
		p *= d
	}
	return p, true
}
