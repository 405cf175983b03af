package store

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestLowBitMatchesGeneral holds the KIVI kernels — dotsChannel for
// online per-channel keys at every width, weightedTok2 for 2-bit per-token
// values — bit for bit equal to the general paths they shortcut, with
// sealed, residual and evicted tokens mixed (holes in blocks included) and
// dims that do and do not divide by four.
func TestLowBitMatchesGeneral(t *testing.T) {
	type layout struct {
		cfg  Config
		flag func(*Store) *bool
	}
	var cases []layout
	for _, bits := range []int{2, 3, 4, 8} {
		for _, gr := range [][2]int{{4, 0}, {8, 5}, {3, 2}} {
			cases = append(cases, layout{Config{Bits: bits, Granularity: PerChannel, GroupSize: gr[0], Residual: gr[1]},
				func(s *Store) *bool { return &s.codec.(*channelCodec).chanDots }})
		}
	}
	for _, res := range []int{0, 3} {
		cases = append(cases, layout{Config{Bits: 2, Residual: res}, func(s *Store) *bool { return &s.codec.(*tokenCodec).tok2 }})
	}
	r := rand.New(rand.NewPCG(2, 2))
	for _, tc := range cases {
		for _, dim := range []int{8, 7, 5, 13, 2} {
			name := fmt.Sprintf("%v/b%d/g%d/r%d/dim%d", tc.cfg.Granularity, tc.cfg.Bits, tc.cfg.GroupSize, tc.cfg.Residual, dim)
			t.Run(name, func(t *testing.T) {
				s, err := New(tc.cfg, dim, 24)
				if err != nil {
					t.Fatal(err)
				}
				flag := tc.flag(s)
				if !*flag {
					t.Fatal("config does not take the kernel")
				}
				churnMatches(t, s, flag, r, dim)
				if s.Memory().Payload == 0 {
					t.Fatal("no token was ever sealed: the kernels' sealed path went untested")
				}
			})
		}
	}
}

// TestLowBitPanics: the KIVI kernels refuse free slots as the general
// paths do.
func TestLowBitPanics(t *testing.T) {
	keys, err := New(Config{Bits: 2, Granularity: PerChannel, GroupSize: 2}, 4, 4)
	if err != nil {
		t.Fatal(err)
	}
	values, err := New(Config{Bits: 2}, 4, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Store{keys, values} {
		for range 2 {
			if _, err := s.Append([]float32{1, 2, 3, 4}); err != nil {
				t.Fatal(err)
			}
		}
	}
	free := 3 // slots are handed out from 0
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"Dots", func() { keys.Dots(make([]float32, 4), []int{0, free}, make([]float32, 2)) }},
		{"WeightedSum", func() { values.WeightedSum([]float32{1, 1}, []int{1, free}, make([]float32, 4)) }},
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
