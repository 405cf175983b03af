package store

import (
	"math/rand/v2"
	"testing"

	"github.com/kvscope/kvscope/core/quant"
)

// TestMemory checks the itemized bytes of small stores against hand
// arithmetic. Every case uses dim 8 and appends tokens to slots 0, 1, 2, …
// in order, then evicts the listed slots.
func TestMemory(t *testing.T) {
	const dim = 8
	r := rand.New(rand.NewPCG(21, 22))
	basis := orthonormal(r, 2, dim) // Rank 2: Factors = 2×8 values × 2 bytes = 32
	calT := &quant.Calibration{Lo: []float32{-3}, Hi: []float32{3}}
	calC := &quant.Calibration{Lo: make([]float32, dim), Hi: make([]float32, dim)}
	for i := range calC.Lo {
		calC.Lo[i], calC.Hi[i] = -3, 3
	}
	tests := []struct {
		name    string
		cfg     Config
		appends int
		evict   []int
		want    Memory
	}{
		{"float32", Config{Bits: 32}, 3, nil,
			Memory{Payload: 3 * 8 * 4}}, // 96
		{"fp16", Config{Bits: 16}, 3, []int{1},
			Memory{Payload: 2 * 8 * 2}}, // 32
		{"token 8-bit", Config{Bits: 8}, 3, nil,
			Memory{Payload: 3 * 8, Meta: 3 * 4}}, // 24 code bytes, one (scale, zero) per token
		{"token 4-bit", Config{Bits: 4}, 3, nil,
			Memory{Payload: 3 * 4, Meta: 3 * 4}}, // 8 × 4 bits = 4 bytes per token
		{"token 3-bit", Config{Bits: 3}, 3, nil,
			Memory{Payload: 3 * 3, Meta: 3 * 4}}, // 8 × 3 bits = 24 bits = 3 bytes
		{"token 2-bit evicted", Config{Bits: 2}, 3, []int{0, 2},
			Memory{Payload: 1 * 2, Meta: 1 * 4}}, // evicted tokens free codes and params at once
		{"group 4 of 2-bit", Config{Bits: 2, Granularity: PerGroup, GroupSize: 4}, 3, nil,
			Memory{Payload: 3 * 2, Meta: 3 * 2 * 4}}, // 2 groups per token
		{"group 2 of 3-bit", Config{Bits: 3, Granularity: PerGroup, GroupSize: 2}, 1, nil,
			Memory{Payload: 3, Meta: 4 * 4}}, // 4 groups; 24 bits of codes
		{"tensor calibrated", Config{Bits: 8, Granularity: PerTensor, Calib: calT}, 3, nil,
			Memory{Payload: 3 * 8, Meta: 4}}, // one pair for the whole store
		{"tensor calibrated empty", Config{Bits: 8, Granularity: PerTensor, Calib: calT}, 0, nil,
			Memory{Meta: 4}}, // the calibration is held even with no tokens
		{"channel calibrated", Config{Bits: 4, Granularity: PerChannel, Calib: calC}, 3, []int{1},
			Memory{Payload: 2 * 4, Meta: 8 * 4}}, // one pair per channel, once
		{"token residual", Config{Bits: 4, Residual: 2}, 3, nil,
			Memory{Payload: 1 * 4, Meta: 1 * 4, Residual: 2 * 8 * 2}}, // 2 newest in FP16: 32
		{"kivi keys", Config{Bits: 2, Granularity: PerChannel, GroupSize: 2}, 5, nil,
			// 2 sealed blocks of 2 tokens (2 bytes each), 1 open token in FP16.
			Memory{Payload: 4 * 2, Meta: 2 * 8 * 4, Residual: 1 * 8 * 2}},
		{"kivi keys hole", Config{Bits: 2, Granularity: PerChannel, GroupSize: 2}, 5, []int{2},
			// Slot 2 leaves block {2,3}: its 2 code bytes stay as a hole.
			Memory{Payload: 3 * 2, Meta: 2 * 8 * 4, Residual: 16, Holes: 2}},
		{"kivi keys block freed", Config{Bits: 2, Granularity: PerChannel, GroupSize: 2}, 5, []int{2, 3},
			// Block {2,3} is empty: its codes and its 8 pairs are released.
			Memory{Payload: 2 * 2, Meta: 1 * 8 * 4, Residual: 16}},
		{"kivi keys residual", Config{Bits: 2, Granularity: PerChannel, GroupSize: 2, Residual: 2}, 5, nil,
			// The newest 2 stay in FP16; of the 3 older, one block of 2 is sealed and 1 waits.
			Memory{Payload: 2 * 2, Meta: 8 * 4, Residual: 3 * 8 * 2}},
		{"low rank float32", Config{Bits: 32, Basis: basis}, 3, nil,
			Memory{Payload: 3 * 2 * 4, Factors: 32}}, // 2 float32 coefficients per token
		{"low rank fp16 residual", Config{Bits: 16, Basis: basis, Residual: 1}, 3, nil,
			Memory{Payload: 2 * 2 * 2, Residual: 1 * 8 * 2, Factors: 32}},
		{"low rank 4-bit", Config{Bits: 4, Basis: basis}, 3, nil,
			Memory{Payload: 3 * 1, Meta: 3 * 4, Factors: 32}}, // 2 × 4 bits = 1 byte per token
		{"low rank empty", Config{Bits: 4, Basis: basis}, 0, nil,
			Memory{Factors: 32}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(tt.cfg, dim, 8)
			if err != nil {
				t.Fatal(err)
			}
			for range tt.appends {
				if _, err := s.Append(keyLike(r, dim)); err != nil {
					t.Fatal(err)
				}
			}
			for _, slot := range tt.evict {
				if err := s.Evict(slot); err != nil {
					t.Fatal(err)
				}
			}
			if got := s.Memory(); got != tt.want {
				t.Errorf("Memory = %+v, want %+v", got, tt.want)
			}
			if s.Len() != tt.appends-len(tt.evict) {
				t.Errorf("Len = %d, want %d", s.Len(), tt.appends-len(tt.evict))
			}
		})
	}
}

func TestMemoryTotalAdd(t *testing.T) {
	a := Memory{Payload: 1, Meta: 2, Residual: 3, Factors: 4, Holes: 5}
	b := Memory{Payload: 10, Meta: 20, Residual: 30, Factors: 40, Holes: 50}
	if got := a.Total(); got != 15 {
		t.Errorf("Total = %d, want 15", got)
	}
	if got := a.Add(b); got != (Memory{11, 22, 33, 44, 55}) {
		t.Errorf("Add = %+v", got)
	}
}
