package sim

import (
	"math"
	"testing"

	"github.com/kvscope/kvscope/core/internal/testenv"
)

// runKeys runs c and returns the mean key error and the mean q·k bias
// (the Metrics of the reference steps after the first quarter).
func runKeys(t *testing.T, c Config) (kerr, bias float64) {
	t.Helper()
	e, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	e.RunTo(c.Tokens)
	if e.Err() != nil {
		t.Fatal(e.Err())
	}
	_, h := e.Metrics()
	for _, m := range h[len(h)/4:] {
		kerr += m.KErr
		bias += m.Bias
	}
	n := float64(len(h) - len(h)/4)
	return kerr / n, bias / n
}

// The Hadamard lesson (QuaRot, SpinQuant): per-token INT4 ranges are set
// by the outlier channels; rotating keys (and queries) by H/√d spreads an
// outlier over all d channels, so the range, and the error, shrink — by at
// least 3× at head dim 128 with strong outlier channels (2 channels at 30×
// the typical channel's RMS). A pair of outliers can shrink the range by at
// most about √d/2, so the gain is smaller at the page's head dim 32 and at
// the page's default outlier strength (10×): those figures are reported,
// not asserted. Without outlier channels the rotation changes little.
func TestHadamardTeachesTheLesson(t *testing.T) {
	testenv.NativeOnly(t)
	run := func(dim, outliers int, scale float64, rotate string) float64 {
		c := DefaultConfig()
		c.Policy, c.Bits, c.Granularity, c.Tokens, c.RefStride = "full", 4, "token", 300, 10
		c.Heads, c.KVHeads, c.HeadDim = 4, 4, dim
		c.OutlierChannels, c.OutlierScale, c.Rotate = outliers, scale, rotate
		k, _ := runKeys(t, c)
		return k
	}
	for _, tc := range []struct {
		dim, outliers int
		scale         float64
		atLeast       float64 // 0: reported only
		near          bool    // the rotation changes little
	}{
		{128, 2, 30, 3, false},
		{128, 2, 10, 0, false},
		{32, 2, 30, 0, false},
		{32, 2, 10, 0, false},
		{128, 0, 10, 0, true},
		{32, 0, 10, 0, true},
	} {
		plain, rot := run(tc.dim, tc.outliers, tc.scale, ""), run(tc.dim, tc.outliers, tc.scale, "hadamard")
		gain := plain / rot
		t.Logf("head dim %3d, %d outlier channels at %2.0f×: INT4 per-token key error %.4f, Hadamard-rotated %.4f (%.2f×)",
			tc.dim, tc.outliers, tc.scale, plain, rot, gain)
		if tc.atLeast > 0 && gain < tc.atLeast {
			t.Errorf("head dim %d with outliers: rotation cuts the key error %.2f×, want at least %g×", tc.dim, gain, tc.atLeast)
		}
		if tc.near && (gain < 0.8 || gain > 1.25) {
			t.Errorf("head dim %d without outliers: rotation changes the key error %.2f×, want little change", tc.dim, gain)
		}
	}
}

// The sketch lesson (TurboQuant, QJL): TurboQuant-MSE's levels are cell
// means, so its reconstruction is shorter than the key and q·k is biased
// for every draw of the rotation. TurboQuant-prod (1-bit MSE + a 1-bit QJL
// sketch of the residual) and QJL (2 sign bits per channel) are unbiased
// only in expectation over the sketch: averaged over 16 sketch seeds,
// their mean q·k bias (the engine's bias metric, logits per cached token)
// is at most a fifth of TurboQuant-MSE's at the same 2 bits, while a single
// seed's bias can be comparable to MSE's. The stream has no outlier
// channels here: with them the keys' norms, and a single sketch's error,
// grow so much that 16 seeds do not average QJL's spread away (the QJL
// paper keeps outlier channels apart for this reason).
func TestSketchesTeachUnbiasedness(t *testing.T) {
	testenv.NativeOnly(t)
	const seeds = 16
	type stat struct{ mean, maxAbs float64 }
	res := map[string]stat{}
	for _, q := range []string{"turbo", "turbo-prod", "qjl"} {
		var s stat
		for seed := range uint64(seeds) {
			c := DefaultConfig()
			c.Policy, c.Bits, c.Tokens, c.RefStride, c.OutlierChannels = "full", 2, 128, 8, 0
			c.Quant, c.SketchSeed = q, seed
			_, b := runKeys(t, c)
			s.mean += b / seeds
			s.maxAbs = max(s.maxAbs, math.Abs(b))
		}
		res[q] = s
		t.Logf("%-10s 2 bits: mean q·k bias over %d sketch seeds %+.4f; largest single-seed |bias| %.4f", q, seeds, s.mean, s.maxAbs)
	}
	mse := math.Abs(res["turbo"].mean)
	if mse < 0.2 {
		t.Fatalf("TurboQuant-MSE's bias %.4f is too small to teach anything", mse)
	}
	for _, q := range []string{"turbo-prod", "qjl"} {
		if m := math.Abs(res[q].mean); m > mse/5 {
			t.Errorf("%s: mean bias over %d seeds %.4f, want at most a fifth of TurboQuant-MSE's %.4f", q, seeds, m, mse)
		}
		if res[q].maxAbs < mse/2 {
			t.Errorf("%s: every single seed's bias is below %.4f; the lesson needs single draws to be visibly biased", q, mse/2)
		}
	}
}

// Dense-and-sparse outliers (KVQuant): keeping the largest values of each
// key in FP16 with their indices takes the outlier channels out of the
// per-token range, so INT3 per-token key error falls several times on the
// default stream (two outlier channels, 2 of 32 values kept per token).
// Sink-aware precision keeps the first tokens exact whatever the bits.
func TestOutliersAndSinksTeachTheLesson(t *testing.T) {
	base := DefaultConfig()
	base.Policy, base.Bits, base.Granularity, base.Tokens, base.RefStride = "full", 3, "token", 256, 8
	plain, _ := runKeys(t, base)
	c := base
	c.OutliersFP16 = 0.06
	kept, _ := runKeys(t, c)
	t.Logf("INT3 per-token key error %.4f, with 6%% of values in FP16 %.4f (%.2f×)", plain, kept, plain/kept)
	if kept > plain/2 {
		t.Errorf("FP16 outliers cut the key error only %.2f×", plain/kept)
	}
	c = base
	c.SinkFP16 = 4
	e, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	e.RunTo(64)
	s := e.Snapshot(0)
	for g := range c.KVHeads {
		for p := range 8 {
			cell := s.Cells[g*s.Step+p]
			if want := p < 4; (cell.Storage == Full) != want || (cell.KErr > 1e-3) == want {
				t.Fatalf("head %d position %d: storage %v, key error %g (sinks: %v)", g, p, cell.Storage, cell.KErr, want)
			}
		}
	}
	if it := e.StorageItems(); it.Sinks != int64(2*c.Layers*c.KVHeads*4*c.HeadDim*2) {
		t.Errorf("FP16 sinks hold %d bytes, want %d", it.Sinks, 2*c.Layers*c.KVHeads*4*c.HeadDim*2)
	}
}
