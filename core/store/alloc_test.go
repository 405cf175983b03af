package store

import (
	"math/rand/v2"
	"testing"
)

// TestSteadyStateAllocs checks that Append, Evict, Read and Dots allocate
// nothing once a store is running, in every mode.
func TestSteadyStateAllocs(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	r := rand.New(rand.NewPCG(41, 42))
	const dim, capacity = 12, 8
	xs := make([][]float32, 16)
	for i := range xs {
		xs[i] = keyLike(r, dim)
	}
	q := keyLike(r, dim)
	for _, tc := range configs(r) {
		s, err := New(tc.cfg, dim, capacity)
		if err != nil {
			t.Fatal(err)
		}
		ring := make([]int, 0, capacity)
		for _, x := range xs[:capacity-1] {
			slot, _ := s.Append(x)
			ring = append(ring, slot)
		}
		slots := make([]int, capacity)
		dst := make([]float32, capacity)
		xhat := make([]float32, dim)
		i := 0
		allocs := testing.AllocsPerRun(50, func() {
			slot, err := s.Append(xs[i%len(xs)])
			if err != nil {
				panic(err)
			}
			ring = append(ring, slot)
			copy(slots, ring)
			s.Dots(q, slots[:len(ring)], dst[:len(ring)])
			s.Read(ring[0], xhat)
			if err := s.Evict(ring[i%len(ring)]); err != nil {
				panic(err)
			}
			ring = append(ring[:i%len(ring)], ring[i%len(ring)+1:]...)
			i++
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per step, want 0", tc.name, allocs)
		}
	}
}
