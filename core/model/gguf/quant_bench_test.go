package gguf_test

import "testing"

// BenchmarkDot times Codec.Dot of one stored row of 4,096 values (16
// K-quant super-blocks) with a float32 vector, per type; it reports values
// per nanosecond.
func BenchmarkDot(b *testing.B) {
	const n = 4096
	x := gaussian(n, 1)
	for _, tc := range decodable {
		c := codec(b, tc.typ)
		row := make([]byte, tc.typ.RowBytes(n))
		c.Quantize(row, gaussian(n, 2))
		b.Run(tc.typ.String(), func(b *testing.B) {
			var s float32
			for b.Loop() {
				s += c.Dot(row, x)
			}
			b.ReportMetric(float64(n)*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "values/ns")
			sink = s
		})
	}
}

// BenchmarkDequantize times dequantizing the same row.
func BenchmarkDequantize(b *testing.B) {
	const n = 4096
	y := make([]float32, n)
	for _, tc := range decodable {
		c := codec(b, tc.typ)
		row := make([]byte, tc.typ.RowBytes(n))
		c.Quantize(row, gaussian(n, 2))
		b.Run(tc.typ.String(), func(b *testing.B) {
			for b.Loop() {
				c.Dequantize(y, row)
			}
			b.ReportMetric(float64(n)*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "values/ns")
		})
	}
}

var sink float32
