package store

import (
	"math"
	"math/rand/v2"
	"testing"
)

// checkDots fails t unless Dots over every live slot equals Read-then-dot
// within float32 accumulation error.
func checkDots(t *testing.T, s *Store, q []float32) {
	t.Helper()
	var slots []int
	for i := range s.Cap() {
		if s.Kind(i) != Empty {
			slots = append(slots, i)
		}
	}
	got := make([]float32, len(slots))
	s.Dots(q, slots, got)
	xhat := make([]float32, s.Dim())
	for i, slot := range slots {
		s.Read(slot, xhat)
		want := dot64(q, xhat)
		// The folded form sums terms up to a few times |x̂|∞ (zero point and
		// scale·code), and a low-rank query ‖B·q‖₁ ≤ √dim·‖q‖₁.
		tol := 1e-5*norm1(q)*(4*normInf(xhat)+1)*math.Sqrt(float64(s.Dim())) + 1e-6
		if math.Abs(float64(got[i])-want) > tol {
			t.Fatalf("slot %d (%v): Dots %g, Read·q %g (tolerance %g)", slot, s.Kind(slot), got[i], want, tol)
		}
	}
}

// churn appends n tokens, evicting a random live token whenever the store is
// full and sometimes at random, checking Dots along the way.
func churn(t *testing.T, r *rand.Rand, s *Store, n int) {
	t.Helper()
	var live []int
	q := make([]float32, s.Dim())
	for step := range n {
		if len(live) == s.Cap() || (len(live) > 0 && r.IntN(4) == 0) {
			k := r.IntN(len(live))
			if err := s.Evict(live[k]); err != nil {
				t.Fatal(err)
			}
			live = append(live[:k], live[k+1:]...)
		}
		slot, err := s.Append(keyLike(r, s.Dim()))
		if err != nil {
			t.Fatal(err)
		}
		live = append(live, slot)
		if s.Len() != len(live) {
			t.Fatalf("Len %d, want %d", s.Len(), len(live))
		}
		if step%5 == 4 {
			for i := range q {
				q[i] = float32(r.NormFloat64())
			}
			checkDots(t, s, q)
		}
	}
}

// TestDotsMatchRead holds the integer-domain Dots equal to
// dequantize-then-dot for every granularity, width, rank and residual.
func TestDotsMatchRead(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, tc := range configs(r) {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(tc.cfg, 12, 9)
			if err != nil {
				t.Fatal(err)
			}
			churn(t, r, s, 60)
		})
	}
}

// TestDotsCatchesWrongFold checks that the tolerance of checkDots is tight
// enough to notice a missing zero-point term.
func TestDotsCatchesWrongFold(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	s, _ := New(Config{Bits: 4}, 12, 4)
	slot, _ := s.Append(keyLike(r, 12))
	q := keyLike(r, 12)
	got := make([]float32, 1)
	s.Dots(q, []int{slot}, got)
	xhat := make([]float32, 12)
	s.Read(slot, xhat)
	tc := s.codec.(*tokenCodec)
	p := tc.par[slot]
	wrong := float64(got[0]) - float64(p.Min)*float64(tc.qsum[0])
	tol := 1e-5*norm1(q)*(4*normInf(xhat)+1)*math.Sqrt(12) + 1e-6
	if math.Abs(wrong-dot64(q, xhat)) <= tol {
		t.Fatalf("a dot without the zero-point term (%g vs %g) passes the tolerance %g", wrong, dot64(q, xhat), tol)
	}
}

// FuzzDots runs random churn on a fuzzed configuration.
func FuzzDots(f *testing.F) {
	f.Add(uint8(4), uint8(0), uint8(2), uint8(0), uint8(0), uint64(1))
	f.Add(uint8(2), uint8(2), uint8(3), uint8(2), uint8(3), uint64(2))
	f.Add(uint8(3), uint8(1), uint8(3), uint8(1), uint8(2), uint64(3))
	f.Add(uint8(16), uint8(0), uint8(0), uint8(1), uint8(4), uint64(4))
	f.Fuzz(func(t *testing.T, bits, gran, group, res, rank uint8, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 35))
		const dim = 12
		widths := []int{32, 16, 8, 4, 3, 2, 5, 6, 7}
		cfg := Config{
			Bits:        widths[int(bits)%len(widths)],
			Granularity: Granularity(gran % 3), // token, group, channel (online)
			GroupSize:   1 + int(group)%4,
			Residual:    int(res) % 4,
		}
		if rk := int(rank) % 5; rk > 0 {
			cfg.Basis = orthonormal(r, rk, dim)
		}
		s, err := New(cfg, dim, 1+r.IntN(10))
		if err != nil {
			return // e.g. a group size that does not divide the stored dimension
		}
		churn(t, r, s, 40)
	})
}
