package store

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/quant"
)

// optionConfigs are the configurations of the rotation, codebook, sketch,
// outlier and sink options, alone and combined with the uniform layouts.
func optionConfigs(dim int) []Config {
	cal := placeholderCalibration(dim)
	basis := make([]float32, 4*dim)
	for i := range 4 {
		basis[i*dim+i*2] = 1
	}
	var out []Config
	for _, bits := range []int{8, 4, 3, 2} {
		out = append(out,
			Config{Bits: bits, Rotate: Hadamard},
			Config{Bits: bits, Rotate: Hadamard, Residual: 2},
			Config{Bits: bits, Rotate: Hadamard, Granularity: PerGroup, GroupSize: 4},
			Config{Bits: bits, Rotate: Hadamard, Granularity: PerChannel, GroupSize: 3},
			Config{Bits: bits, Rotate: Hadamard, Granularity: PerChannel, Calib: cal},
			Config{Bits: bits, Rotate: Hadamard, Basis: basis},
			Config{Bits: bits, Quantizer: Turbo, Seed: 3},
			Config{Bits: bits, Quantizer: TurboProd, Seed: 3, Residual: 2},
			Config{Bits: bits, Quantizer: QJL, Seed: 3},
			Config{Bits: bits, Quantizer: Turbo, Rotate: Hadamard, Sinks: 2},
			Config{Bits: bits, Outliers: 0.1},
			Config{Bits: bits, Outliers: 0.1, Granularity: PerGroup, GroupSize: 4, Rotate: Hadamard},
			Config{Bits: bits, Outliers: 0.2, Granularity: PerChannel, Calib: cal, Sinks: 1},
			Config{Bits: bits, Sinks: 2},
			Config{Bits: bits, Sinks: 2, Granularity: PerChannel, GroupSize: 3, Residual: 1},
		)
	}
	out = append(out, Config{Bits: 16, Rotate: Hadamard}, Config{Bits: 32, Rotate: Hadamard}, Config{Bits: 16, Basis: basis, Sinks: 2})
	return out
}

func name(c Config) string {
	s := fmt.Sprintf("b%d/%v/%v/%v/res%d/out%g/sinks%d", c.Bits, c.Quantizer, c.Rotate, c.Granularity, c.Residual, c.Outliers, c.Sinks)
	if c.Calib != nil {
		s += "/calib"
	}
	if c.Basis != nil {
		s += "/basis"
	}
	return s
}

// Every option keeps the store's contracts: Dots is q·Read, WeightedSum is
// the weighted sum of Reads, through churn with evictions, and the steady
// state allocates nothing. Dimensions 16 (one Hadamard block) and 12
// (blocks of 8 and 4) are both covered.
func TestOptionsKeepContracts(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	for _, dim := range []int{16, 12} {
		r := rand.New(rand.NewPCG(uint64(dim), 5))
		for _, cfg := range optionConfigs(dim) {
			t.Run(fmt.Sprintf("d%d/%s", dim, name(cfg)), func(t *testing.T) {
				s, err := New(cfg, dim, 9)
				if err != nil {
					t.Fatal(err)
				}
				churn(t, r, s, 40)
				var live []int
				for i := range s.Cap() {
					if s.Kind(i) != Empty {
						live = append(live, i)
					}
				}
				w := make([]float32, len(live))
				for i := range w {
					w[i] = r.Float32()
				}
				got, want, row := make([]float32, dim), make([]float64, dim), make([]float32, dim)
				s.WeightedSum(w, live, got)
				for i, slot := range live {
					s.Read(slot, row)
					for j, v := range row {
						want[j] += float64(w[i]) * float64(v)
					}
				}
				for j := range got {
					if d := math.Abs(float64(got[j]) - want[j]); d > 1e-3*(1+math.Abs(want[j])) {
						t.Fatalf("dim %d: WeightedSum %v, read-and-sum %v", j, got[j], want[j])
					}
				}
				if err := s.Evict(live[len(live)-1]); err != nil {
					t.Fatal(err)
				}
				live, w = live[:len(live)-1], w[:len(w)-1]
				q := keyLike(r, dim)
				dst := make([]float32, len(live))
				x := keyLike(r, dim)
				if n := testing.AllocsPerRun(20, func() {
					s.WeightedSum(w, live, got)
					s.Dots(q, live, dst)
					s.Read(live[0], row)
					slot, err := s.Append(x)
					if err != nil {
						panic(err)
					}
					if err := s.Evict(slot); err != nil {
						panic(err)
					}
				}); n != 0 {
					t.Errorf("%v allocations per step", n)
				}
			})
		}
	}
}

// relErr appends n key-like tokens of dim values (a per-token offset and
// an outlier channel) and returns the mean ‖x − x̂‖²/‖x‖².
func relErr(t *testing.T, cfg Config, dim, n int, seed uint64) float64 {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	s, err := New(cfg, dim, n)
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	xhat := make([]float32, dim)
	for range n {
		x := keyLike(r, dim)
		slot, err := s.Append(x)
		if err != nil {
			t.Fatal(err)
		}
		s.Read(slot, xhat)
		e := quant.RelFrobenius(x, xhat)
		sum += e * e
	}
	return sum / float64(n)
}

// The Hadamard rotation spreads the outlier channel of key-like vectors
// over all channels, so per-token INT4 ranges shrink and the error falls,
// while dot products are kept (TestOptionsKeepContracts).
func TestHadamardCutsOutlierError(t *testing.T) {
	for _, dim := range []int{32, 64, 48} {
		plain := relErr(t, Config{Bits: 4}, dim, 200, 7)
		rot := relErr(t, Config{Bits: 4, Rotate: Hadamard}, dim, 200, 7)
		t.Logf("dim %d: INT4 per-token relative MSE %.5f, rotated %.5f (%.1f×)", dim, plain, rot, plain/rot)
		if rot > plain/1.5 {
			t.Errorf("dim %d: rotation error %.5f not clearly below %.5f", dim, rot, plain)
		}
	}
}

// TurboQuant-MSE's error on vectors of any shape is close to the Lloyd–Max
// distortion of the Gaussian at its width (0.1175 at 2 bits, 0.03454 at 3,
// 0.009497 at 4): the random rotation makes every coordinate near-Gaussian,
// with no scale or zero point.
func TestTurboMatchesLloydMaxDistortion(t *testing.T) {
	want := map[int]float64{2: 0.1175, 3: 0.03454, 4: 0.009497}
	for bits, d := range want {
		got := relErr(t, Config{Bits: bits, Quantizer: Turbo, Seed: 1}, 64, 300, 3)
		t.Logf("%d bits: relative MSE %.5f, Lloyd–Max %.5f", bits, got, d)
		if math.Abs(got-d) > 0.2*d {
			t.Errorf("%d bits: relative MSE %.5f, want about %.5f", bits, got, d)
		}
	}
}

// The random matrices follow the seed: the same seed stores the same
// bytes, another seed others.
func TestRandomQuantizersFollowSeed(t *testing.T) {
	for _, qz := range []Quantizer{Turbo, TurboProd, QJL} {
		read := func(seed uint64) []float32 {
			s, err := New(Config{Bits: 3, Quantizer: qz, Seed: seed}, 16, 2)
			if err != nil {
				t.Fatal(err)
			}
			slot, _ := s.Append(keyLike(rand.New(rand.NewPCG(1, 1)), 16))
			x := make([]float32, 16)
			s.Read(slot, x)
			return x
		}
		a, b, c := read(4), read(4), read(5)
		if quant.MaxAbsError(a, b) != 0 || quant.MaxAbsError(a, c) == 0 {
			t.Errorf("%v: same seed differs or another seed agrees", qz)
		}
	}
}

// The sketch estimators are unbiased over the sketch: averaged over many
// seeds, TurboProd's and QJL's q·x̂ approach q·x, while TurboQuant-MSE's
// stays shrunk (its levels are cell means, so x̂ is shorter than x on
// average by about the distortion).
func TestSketchesAreUnbiased(t *testing.T) {
	const dim, seeds, bits = 32, 200, 2
	r := rand.New(rand.NewPCG(9, 9))
	x := keyLike(r, dim)
	q := make([]float32, dim)
	for i := range q {
		q[i] = x[i] + float32(r.NormFloat64()) // correlated with x
	}
	qx := dot64(q, x)
	mean := map[Quantizer]float64{}
	for _, qz := range []Quantizer{Turbo, TurboProd, QJL} {
		for seed := range uint64(seeds) {
			s, err := New(Config{Bits: bits, Quantizer: qz, Seed: seed}, dim, 1)
			if err != nil {
				t.Fatal(err)
			}
			slot, _ := s.Append(x)
			d := make([]float32, 1)
			s.Dots(q, []int{slot}, d)
			mean[qz] += float64(d[0]) / seeds
		}
		t.Logf("%v: mean q·x̂ %.3f over %d seeds, q·x %.3f (relative bias %+.4f)", qz, mean[qz], seeds, qx, mean[qz]/qx-1)
	}
	if b := mean[Turbo]/qx - 1; b > -0.05 {
		t.Errorf("TurboQuant-MSE relative bias %+.4f, want a clear shrinkage", b)
	}
	for _, qz := range []Quantizer{TurboProd, QJL} {
		if b := mean[qz]/qx - 1; math.Abs(b) > 0.03 {
			t.Errorf("%v relative bias %+.4f over %d seeds, want about 0", qz, b, seeds)
		}
	}
}

// Dense-and-sparse: the largest entries of each token come back exactly
// (FP16), and leaving them out of the range cuts the error of the rest.
func TestOutliersKeptExact(t *testing.T) {
	const dim = 32
	r := rand.New(rand.NewPCG(2, 2))
	for _, cfg := range []Config{{Bits: 4, Outliers: 0.05}, {Bits: 3, Outliers: 0.05, Granularity: PerGroup, GroupSize: 8}} {
		s, err := New(cfg, dim, 4)
		if err != nil {
			t.Fatal(err)
		}
		x := keyLike(r, dim)
		x[7] = -30
		slot, _ := s.Append(x)
		xhat := make([]float32, dim)
		s.Read(slot, xhat)
		if xhat[7] != -30 || xhat[1] != quant.RoundFP16(x[1]) {
			t.Errorf("%s: outliers read back %g and %g, want -30 and %g", name(cfg), xhat[7], xhat[1], quant.RoundFP16(x[1]))
		}
		if n := cfg.outlierCount(dim); n != 2 {
			t.Errorf("outlierCount = %d, want ⌈0.05·32⌉ = 2", n)
		}
		plain := cfg
		plain.Outliers = 0
		if with, without := relErr(t, cfg, dim, 100, 4), relErr(t, plain, dim, 100, 4); with > without/2 {
			t.Errorf("%s: error %.5f with outliers, %.5f without", name(cfg), with, without)
		}
	}
}

// Sink-aware precision: the first Sinks tokens appended stay FP16 whatever
// the bits, later ones are quantized, and Reset starts the count again.
func TestSinksStayFP16(t *testing.T) {
	const dim = 8
	r := rand.New(rand.NewPCG(6, 6))
	s, err := New(Config{Bits: 2, Sinks: 2}, dim, 6)
	if err != nil {
		t.Fatal(err)
	}
	if s.UndoableAppend() {
		t.Error("a store with sinks reports undoable appends")
	}
	for round := range 2 {
		var xs [][]float32
		var slots []int
		for range 4 {
			x := keyLike(r, dim)
			slot, err := s.Append(x)
			if err != nil {
				t.Fatal(err)
			}
			xs, slots = append(xs, x), append(slots, slot)
		}
		xhat := make([]float32, dim)
		for i, slot := range slots {
			s.Read(slot, xhat)
			exact := quant.MaxAbsError(fp16Vec(xs[i]), xhat) == 0
			if want := i < 2; s.Kind(slot) != map[bool]Kind{true: Full, false: Quantized}[want] || exact != want {
				t.Errorf("round %d token %d: kind %v, exact %v", round, i, s.Kind(slot), exact)
			}
		}
		if it := s.Items(); it.Sinks != 2*dim*2 {
			t.Errorf("round %d: Sinks %d bytes, want %d", round, it.Sinks, 2*dim*2)
		}
		if err := s.Evict(slots[0]); err != nil {
			t.Fatal(err)
		}
		if it := s.Items(); it.Sinks != dim*2 {
			t.Errorf("after evicting a sink: %d bytes, want %d", it.Sinks, dim*2)
		}
		slot, _ := s.Append(keyLike(r, dim))
		if s.Kind(slot) != Quantized {
			t.Error("a token appended after a sink left became a sink")
		}
		s.Reset()
	}
}

// Every byte the options hold is counted, item by item, and Memory folds
// the items without losing any.
func TestItemsByteCounts(t *testing.T) {
	const dim, n = 32, 5
	cal := placeholderCalibration(dim)
	for _, tc := range []struct {
		cfg  Config
		want Items
	}{
		// Hadamard holds nothing beyond the uniform layout: 16 code bytes + 4 param bytes per token.
		{Config{Bits: 4, Rotate: Hadamard}, Items{Payload: n * 16, Meta: n * 4}},
		// Turbo 3 bits: 12 code bytes + FP16 norm per token; 8 FP16 levels; 32×32 FP16 rotation.
		{Config{Bits: 3, Quantizer: Turbo}, Items{Payload: n * 12, Norms: n * 2, Codebook: 8 * 2, Rotation: dim * dim * 2}},
		// TurboProd 3 bits: 2-bit codes (8 bytes) + 32 sign bits (4 bytes) + two norms; 4 levels; Π and S (32×32 each).
		{Config{Bits: 3, Quantizer: TurboProd}, Items{Payload: n * 8, Sketch: n * 4, Norms: n * 4, Codebook: 4 * 2, Rotation: 2 * dim * dim * 2}},
		// QJL 2 bits: m = 64 sign bits (8 bytes) + a norm per token; S is 64×32.
		{Config{Bits: 2, Quantizer: QJL}, Items{Sketch: n * 8, Norms: n * 2, Rotation: 64 * dim * 2}},
		// Outliers 5%: 2 FP16 values + 2 one-byte indices per token.
		{Config{Bits: 4, Outliers: 0.05}, Items{Payload: n * 16, Meta: n * 4, Outliers: n * 2 * 2, OutlierIndex: n * 2}},
		{Config{Bits: 8, Granularity: PerChannel, Calib: cal, Outliers: 0.03}, Items{Payload: n * 32, Meta: dim * 4, Outliers: n * 2, OutlierIndex: n}},
		// Two FP16 sinks, three quantized tokens.
		{Config{Bits: 2, Sinks: 2}, Items{Payload: 3 * 8, Meta: 3 * 4, Sinks: 2 * dim * 2}},
	} {
		s, err := New(tc.cfg, dim, n)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(1, 2))
		for range n {
			if _, err := s.Append(keyLike(r, dim)); err != nil {
				t.Fatal(err)
			}
		}
		got := s.Items()
		if got != tc.want {
			t.Errorf("%s: items %+v, want %+v", name(tc.cfg), got, tc.want)
		}
		if m := s.Memory(); m.Total() != got.Total() || m != got.Memory() {
			t.Errorf("%s: Memory %+v does not fold items %+v", name(tc.cfg), m, got)
		}
	}
	a := Items{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	if a.Total() != 78 || a.Add(a) != (Items{2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24}) {
		t.Errorf("Items Total %d, Add %+v", a.Total(), a.Add(a))
	}
	if m := a.Memory(); m != (Memory{Payload: 1 + 7, Meta: 2 + 6 + 10 + 11, Residual: 3 + 12, Factors: 4 + 8 + 9, Holes: 5}) {
		t.Errorf("Items.Memory = %+v", m)
	}
}

func TestOptionsValidate(t *testing.T) {
	cal := placeholderCalibration(8)
	basis := make([]float32, 8*8)
	for i := range 8 {
		basis[i*8+i] = 1
	}
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Bits: 4, Rotate: 7}, "unknown rotation"},
		{Config{Bits: 4, Quantizer: 9}, "unknown quantizer"},
		{Config{Bits: 16, Quantizer: Turbo}, "needs Bits ≤ 8"},
		{Config{Bits: 4, Quantizer: Turbo, Basis: basis}, "low-rank"},
		{Config{Bits: 4, Quantizer: QJL, Granularity: PerChannel, Calib: cal}, "Calib must be nil"},
		{Config{Bits: 4, Outliers: -0.1}, "Outliers"},
		{Config{Bits: 4, Outliers: math.NaN()}, "Outliers"},
		{Config{Bits: 4, Outliers: 0.6}, "Outliers"},
		{Config{Bits: 16, Outliers: 0.1}, "keeps nothing apart"},
		{Config{Bits: 4, Outliers: 0.1, Quantizer: Turbo}, "uniform only"},
		{Config{Bits: 4, Outliers: 0.1, Granularity: PerChannel, GroupSize: 4}, "online per-channel"},
		{Config{Bits: 4, Sinks: -1}, "Sinks"},
		{Config{Bits: 32, Sinks: 2}, "compresses nothing"},
	} {
		err := tc.cfg.Validate(8)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one containing %q", tc.cfg, err, tc.want)
		}
		if _, err := New(tc.cfg, 8, 4); err == nil {
			t.Errorf("%+v: New accepted it", tc.cfg)
		}
	}
	if err := (Config{Bits: 8, Quantizer: QJL}).Validate(1024); err == nil {
		t.Error("a QJL sketch of 8192 rows was accepted")
	}
	for _, s := range Quantizers {
		q, err := ParseQuantizer(s)
		if err != nil || q.String() != s {
			t.Errorf("ParseQuantizer(%q) = %v, %v", s, q, err)
		}
	}
	for _, s := range []string{"none", "hadamard"} {
		r, err := ParseRotation(s)
		if err != nil || r.String() != s {
			t.Errorf("ParseRotation(%q) = %v, %v", s, r, err)
		}
	}
	if _, err := ParseQuantizer("nvfp4"); err == nil {
		t.Error("ParseQuantizer accepted nvfp4")
	}
	if _, err := ParseRotation("spin"); err == nil {
		t.Error("ParseRotation accepted spin")
	}
}
