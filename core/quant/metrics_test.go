package quant

import (
	"math"
	"testing"
)

func TestMetrics(t *testing.T) {
	tests := []struct {
		name            string
		x, xhat         []float32
		rel, maxAbs, db float64
	}{
		// ‖x‖ = 5, ‖x − x̂‖ = ‖(0.3, 0.4)‖ = 0.5: 0.1 relative, SNR 10·log10(25/0.25) = 20 dB.
		{"3-4-5", []float32{3, 4}, []float32{2.7, 4.4}, 0.1, 0.4, 20},
		{"exact", []float32{1, -2}, []float32{1, -2}, 0, 0, math.Inf(1)},
		{"zero both", []float32{0, 0}, []float32{0, 0}, 0, 0, math.Inf(1)},
		{"zero signal", []float32{0}, []float32{1}, math.Inf(1), 1, math.Inf(-1)},
	}
	const eps = 1e-6
	for _, tt := range tests {
		rel, ma, db := RelFrobenius(tt.x, tt.xhat), MaxAbsError(tt.x, tt.xhat), SNR(tt.x, tt.xhat)
		if !near(rel, tt.rel, eps) || !near(ma, tt.maxAbs, eps) || !near(db, tt.db, eps) {
			t.Errorf("%s: rel %g, max %g, SNR %g; want %g, %g, %g", tt.name, rel, ma, db, tt.rel, tt.maxAbs, tt.db)
		}
	}
}

func near(a, b, eps float64) bool {
	if math.IsInf(b, 0) || math.IsNaN(b) {
		return a == b
	}
	return math.Abs(a-b) <= eps
}
