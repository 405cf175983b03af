package quant_test

import (
	"fmt"

	"github.com/kvscope/kvscope/core/quant"
)

// Quantizing a key to 4 bits: the range [−1, 2] is cut into 15 steps of
// 3/15 = 0.2, rounded up to the FP16 value 0.20007324 so that the 4 bytes of
// stored parameters are exactly what reconstruction uses; no element moves
// by more than scale/2.
func Example() {
	x := []float32{-1, -0.3, 0, 0.25, 0.9, 2}
	p, err := quant.FitSlice(x, 4)
	if err != nil {
		panic(err)
	}
	codes := make([]uint8, len(x))
	quant.Quantize(codes, x, p, 4)
	xhat := make([]float32, len(x))
	quant.Dequantize(xhat, codes, p)
	packed := quant.Pack(make([]byte, quant.PackedLen(len(codes), 4)), codes, 4)

	fmt.Printf("scale %g, min %g\n", p.Scale, p.Min)
	fmt.Println("codes ", codes)
	fmt.Printf("packed % x (%d bytes for %d values)\n", packed, len(packed), len(x))
	fmt.Printf("x̂      %.3f\n", xhat)
	fmt.Printf("max error %.5f ≤ bound %.5f\n", quant.MaxAbsError(x, xhat), p.MaxError())
	// Output:
	// scale 0.20007324, min -1
	// codes  [0 3 5 6 9 15]
	// packed 30 65 f9 (3 bytes for 6 values)
	// x̂      [-1.000 -0.400 0.000 0.200 0.801 2.001]
	// max error 0.09978 ≤ bound 0.10004
}

// Sub-byte codes are packed densely: eight 3-bit codes take three bytes, and
// a code may straddle two bytes.
func ExamplePack() {
	codes := []uint8{1, 2, 3, 4, 5, 6, 7, 0}
	packed := quant.Pack(make([]byte, quant.PackedLen(len(codes), 3)), codes, 3)
	fmt.Printf("%08b\n", packed)
	back := make([]uint8, len(codes))
	quant.Unpack(back, packed, 3)
	fmt.Println(back)
	// Output:
	// [11010001 01011000 00011111]
	// [1 2 3 4 5 6 7 0]
}

// Calibration fixes the range before decoding; a 1% clip on each tail keeps
// one outlier from stretching the steps of every other value.
func ExampleCalibrateTensor() {
	samples := make([]float32, 100)
	for i := range samples {
		samples[i] = float32(i%10) / 10 // 0, 0.1, …, 0.9
	}
	samples[99] = 50 // an outlier
	plain, _ := quant.CalibrateTensor(samples, 0)
	clipped, _ := quant.CalibrateTensor(samples, 0.01)
	p1, _ := plain.Params(4)
	p2, _ := clipped.Params(4)
	fmt.Printf("plain   [%g, %g] scale %.3f\n", plain.Lo[0], plain.Hi[0], p1[0].Scale)
	fmt.Printf("clipped [%g, %g] scale %.3f\n", clipped.Lo[0], clipped.Hi[0], p2[0].Scale)
	// Output:
	// plain   [0, 50] scale 3.334
	// clipped [0, 0.9] scale 0.060
}
