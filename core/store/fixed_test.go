package store

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/quant"
)

// fixedCalibs are calibrations for the direct (calibrated, no residual, no
// basis) Append path: per channel and per tensor, one whose top level lies
// at the FP16 limit (so every value is range-checked explicitly), and one
// with a constant channel (Scale 0).
func fixedCalibs(dim int) map[string]*quant.Calibration {
	lo, hi := make([]float32, dim), make([]float32, dim)
	for j := range dim {
		lo[j], hi[j] = -1-float32(j)/4, 1+float32(j)/8
	}
	edge := &quant.Calibration{Lo: []float32{-quant.MaxFP16}, Hi: []float32{quant.MaxFP16}}
	flat := &quant.Calibration{Lo: slicesOf(dim, -2), Hi: slicesOf(dim, 2)}
	flat.Lo[3], flat.Hi[3] = 0.5, 0.5
	return map[string]*quant.Calibration{
		"channel": {Lo: lo, Hi: hi},
		"tensor":  {Lo: []float32{-3}, Hi: []float32{2}},
		"edge":    edge,
		"flat":    flat,
	}
}

func slicesOf(n int, v float32) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// TestFixedDirectMatchesCode holds the direct calibrated path to
// quant.Params.Code value by value: values inside the levels, on and next to
// half levels, and far outside (clamped).
func TestFixedDirectMatchesCode(t *testing.T) {
	const dim = 13 // not a multiple of 4: the tail is coded one by one
	r := rand.New(rand.NewPCG(5, 6))
	for name, cal := range fixedCalibs(dim) {
		for _, bits := range []int{2, 3, 4, 8} {
			t.Run(fmt.Sprintf("%s/b%d", name, bits), func(t *testing.T) {
				gran := PerChannel
				if cal.Channels() == 1 {
					gran = PerTensor
				}
				s, err := New(Config{Bits: bits, Granularity: gran, Calib: cal}, dim, 64)
				if err != nil {
					t.Fatal(err)
				}
				ps, _ := cal.Params(bits)
				x, got := make([]float32, dim), make([]float32, dim)
				for trial := range 64 {
					for j := range x {
						p := ps[j%len(ps)]
						switch k := float32(r.IntN(1<<bits+4) - 2); trial % 4 {
						case 0: // anywhere around the range, clamping included
							x[j] = p.Min + float32(r.Float64()*1.4-0.2)*float32(int(1)<<bits)*max(p.Scale, 1e-3)
						case 1: // half levels
							x[j] = p.Min + (k+0.5)*p.Scale
						case 2: // next to half levels
							x[j] = math.Nextafter32(p.Min+(k+0.5)*p.Scale, float32(r.NormFloat64())*1e9)
						default: // far outside
							x[j] = float32(r.NormFloat64() * 1e4)
						}
						x[j] = max(-quant.MaxFP16, min(quant.MaxFP16, x[j]))
					}
					slot, err := s.Append(x)
					if err != nil {
						t.Fatal(err)
					}
					s.Read(slot, got)
					for j, v := range x {
						p := ps[j%len(ps)]
						if want := p.Value(p.Code(v, bits)); got[j] != want {
							t.Fatalf("trial %d channel %d: x = %v reads %v, Code gives %v", trial, j, v, got[j], want)
						}
					}
				}
			})
		}
	}
}

// TestFixedDirectErrors checks that the direct path reports the first bad
// value wherever it sits (among coded values, right after a clamped one,
// in the tail) and that a rejected Append changes nothing: not the length,
// not the memory, not the slot the next Append takes.
func TestFixedDirectErrors(t *testing.T) {
	const dim = 11
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	for name, cal := range fixedCalibs(dim) {
		gran := PerChannel
		if cal.Channels() == 1 {
			gran = PerTensor
		}
		for _, bits := range []int{3, 8} {
			for _, tc := range []struct {
				at   int
				bad  float32
				want string
			}{
				{0, nan, "Append of NaN"},
				{2, -inf, "Append of -Inf"},
				{5, 7e4, "beyond FP16"},
				{9, -1e30, "beyond FP16"},
				{dim - 1, inf, "Append of +Inf"},
			} {
				t.Run(fmt.Sprintf("%s/b%d/at%d", name, bits, tc.at), func(t *testing.T) {
					s, err := New(Config{Bits: bits, Granularity: gran, Calib: cal}, dim, 3)
					if err != nil {
						t.Fatal(err)
					}
					ok := slicesOf(dim, 0.25)
					first, _ := s.Append(ok)
					mem := s.Memory()
					x := slicesOf(dim, 0.25)
					x[max(0, tc.at-1)] = 1e3 // a clamped value just before the bad one
					x[tc.at] = tc.bad
					x[min(dim-1, tc.at+1)] = nan // a later bad value must not be the one reported
					if tc.at == dim-1 {
						x[tc.at] = tc.bad
					}
					_, err = s.Append(x)
					if err == nil || !strings.HasPrefix(err.Error(), "store: ") || !strings.Contains(err.Error(), tc.want) {
						t.Fatalf("error %v, want one containing %q", err, tc.want)
					}
					if s.Len() != 1 || s.Memory() != mem {
						t.Fatalf("failed Append changed the store: Len %d, Memory %+v (was %+v)", s.Len(), s.Memory(), mem)
					}
					// The slot the failed Append wrote into is still free and
					// holds what the next Append stores.
					slot, err := s.Append(ok)
					if err != nil || slot == first {
						t.Fatalf("Append after a failure: slot %d (first %d), %v", slot, first, err)
					}
					got := make([]float32, dim)
					s.Read(slot, got)
					want := make([]float32, dim)
					s.Read(first, want)
					for j := range got {
						if got[j] != want[j] {
							t.Fatalf("channel %d reads %v after a failed Append, want %v", j, got[j], want[j])
						}
					}
				})
			}
		}
	}
}
