package quant

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// dotTol is the float32 accumulation tolerance of a dot product over q and
// codes below 2^bits.
func dotTol(q []float32, bits int) float64 {
	var s float64
	for _, v := range q {
		s += math.Abs(float64(v))
	}
	return 1e-6*s*float64(int(1)<<bits) + 1e-12
}

func TestDotPacked(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for bits := MinBits; bits <= MaxBits; bits++ {
		for _, n := range []int{0, 1, 3, 4, 5, 7, 8, 9, 17, 128} {
			t.Run(fmt.Sprintf("b%d/n%d", bits, n), func(t *testing.T) {
				q := make([]float32, n)
				codes := make([]uint8, n)
				var want float64
				for i := range q {
					q[i] = float32(r.NormFloat64())
					codes[i] = uint8(r.IntN(1 << bits))
					want += float64(q[i]) * float64(codes[i])
				}
				packed := Pack(make([]byte, PackedLen(n, bits)), codes, bits)
				got := DotPacked(q, packed, bits)
				if math.Abs(float64(got)-want) > dotTol(q, bits) {
					t.Errorf("DotPacked = %g, want %g", got, want)
				}
				if ref := DotCodes(q, codes); math.Abs(float64(ref)-want) > dotTol(q, bits) {
					t.Errorf("DotCodes = %g, want %g", ref, want)
				}
			})
		}
	}
}

// FuzzDotPacked holds the packed kernels equal to the unpacked reference.
func FuzzDotPacked(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9}, uint8(3), int64(1))
	f.Add([]byte{255, 0, 17}, uint8(2), int64(2))
	f.Fuzz(func(t *testing.T, raw []byte, b uint8, seed int64) {
		bits := MinBits + int(b)%(MaxBits-MinBits+1)
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		codes := make([]uint8, len(raw))
		q := make([]float32, len(raw))
		for i, c := range raw {
			codes[i] = c & (1<<bits - 1)
			q[i] = float32(r.NormFloat64())
		}
		packed := Pack(make([]byte, PackedLen(len(codes), bits)), codes, bits)
		got, want := DotPacked(q, packed, bits), DotCodes(q, codes)
		if math.Abs(float64(got)-float64(want)) > dotTol(q, bits) {
			t.Fatalf("%d bits: DotPacked = %g, DotCodes = %g", bits, got, want)
		}
	})
}

// TestKernelsAllocateNothing: the packed kernels decode on the way, at the
// widths with kernels of their own and at those read through codes alike.
func TestKernelsAllocateNothing(t *testing.T) {
	const n = 37
	q, acc, back := make([]float32, n), make([]float32, n), make([]uint8, n)
	row := make([]byte, n)
	for bits := MinBits; bits <= MaxBits; bits++ {
		cb := make([]float32, 1<<bits)
		if a := testing.AllocsPerRun(10, func() {
			DotPacked(q, row, bits)
			DotLevels(q, row, bits, cb)
			AddLevels(acc, 1, row, bits, cb)
			Unpack(back, row, bits)
		}); a != 0 {
			t.Errorf("%d bits: %v allocations per run, want 0", bits, a)
		}
	}
}
