package store

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestTok8MatchesGeneral holds the 8-bit per-token kernels (dotsTok8,
// weightedTok8) bit for bit equal to the general paths they shortcut, with
// sealed and residual tokens mixed, odd and even slot counts and dims that
// do and do not divide by four.
func TestTok8MatchesGeneral(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for _, tc := range []struct {
		name          string
		dim, residual int
	}{{"dim32", 32, 0}, {"dim8/residual3", 8, 3}, {"dim7", 7, 0}, {"dim5/residual2", 5, 2}} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(Config{Bits: 8, Residual: tc.residual}, tc.dim, 24)
			if err != nil {
				t.Fatal(err)
			}
			if !s.codec.(*tokenCodec).tok8 {
				t.Fatal("config does not take the tok8 layout")
			}
			churnMatches(t, s, &s.codec.(*tokenCodec).tok8, r, tc.dim)
		})
	}
}

// churnMatches appends and evicts tokens in s for 80 steps and, at each,
// holds Dots and WeightedSum with the fast kernel (*fast true) bit for bit
// equal to the general path (*fast false).
func churnMatches(t *testing.T, s *Store, fast *bool, r *rand.Rand, dim int) {
	t.Helper()
	var live []int
	q := make([]float32, dim)
	for step := range 80 {
		if len(live) == s.Cap() || (len(live) > 0 && r.IntN(3) == 0) {
			k := r.IntN(len(live))
			if err := s.Evict(live[k]); err != nil {
				t.Fatal(err)
			}
			live = append(live[:k], live[k+1:]...)
		}
		slot, err := s.Append(keyLike(r, dim))
		if err != nil {
			t.Fatal(err)
		}
		live = append(live, slot)
		for i := range q {
			q[i] = float32(r.NormFloat64())
		}
		w := make([]float32, len(live))
		for i := range w {
			w[i] = r.Float32()
		}
		got, want := make([]float32, len(live)), make([]float32, len(live))
		s.Dots(q, live, got)
		*fast = false
		s.Dots(q, live, want)
		*fast = true
		same(t, step, "Dots", got, want)
		gotW, wantW := make([]float32, dim), make([]float32, dim)
		s.WeightedSum(w, live, gotW)
		*fast = false
		s.WeightedSum(w, live, wantW)
		*fast = true
		same(t, step, "WeightedSum", gotW, wantW)
	}
}

func same(t *testing.T, step int, what string, got, want []float32) {
	t.Helper()
	for i := range got {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("step %d: %s[%d] = %v by the fast kernel, %v by the general path", step, what, i, got[i], want[i])
		}
	}
}

// TestTok8Panics: the tok8 kernels refuse free slots as the general paths do.
func TestTok8Panics(t *testing.T) {
	s, err := New(Config{Bits: 8}, 4, 3)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := s.Append([]float32{1, 2, 3, 4})
	b, _ := s.Append([]float32{4, 3, 2, 1})
	free := 3 - a - b
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"Dots", func() { s.Dots(make([]float32, 4), []int{a, free}, make([]float32, 2)) }},
		{"WeightedSum pair", func() { s.WeightedSum([]float32{1, 1}, []int{free, b}, make([]float32, 4)) }},
		{"WeightedSum last", func() { s.WeightedSum([]float32{1, 1, 1}, []int{a, b, free}, make([]float32, 4)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			tc.f()
		})
	}
}
