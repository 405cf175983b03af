package store

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/quant"
)

// reference reconstructs tokens[:n] appended in order with no eviction,
// straight from the definitions, independently of the Store's bookkeeping.
func reference(cfg Config, tokens [][]float32) (xhat [][]float32, kinds []Kind) {
	dim := len(tokens[0])
	n := len(tokens)
	var basis []float32
	sd := dim
	if cfg.Basis != nil {
		basis = fp16Vec(cfg.Basis)
		sd = len(basis) / dim
	}
	online := cfg.Bits <= 8 && cfg.Granularity == PerChannel && cfg.Calib == nil
	residual := cfg.Residual > 0 || online
	sealed := n
	if residual {
		sealed = max(0, n-cfg.Residual)
		if online {
			sealed -= sealed % cfg.GroupSize
		}
	}
	src := make([][]float32, n) // what compression sees, in stored coordinates
	for t, x := range tokens {
		if residual {
			x = fp16Vec(x)
		}
		c := x
		if basis != nil {
			c = make([]float32, sd)
			for r := range c {
				var d float32
				for k := range dim {
					d += basis[r*dim+k] * x[k]
				}
				c[r] = d
			}
		}
		src[t] = c
	}
	chat := make([][]float32, sealed)
	for t := range sealed {
		c := src[t]
		h := make([]float32, sd)
		switch {
		case cfg.Bits == 32:
			copy(h, c)
		case cfg.Bits == 16:
			h = fp16Vec(c)
		case cfg.Calib != nil:
			ps, _ := cfg.Calib.Params(cfg.Bits)
			for j, v := range c {
				p := ps[j%len(ps)]
				h[j] = p.Value(p.Code(v, cfg.Bits))
			}
		case online:
			b := t / cfg.GroupSize * cfg.GroupSize
			for j, v := range c {
				col := make([]float32, cfg.GroupSize)
				for k := range col {
					col[k] = src[b+k][j]
				}
				p, _ := quant.FitSlice(col, cfg.Bits)
				h[j] = p.Value(p.Code(v, cfg.Bits))
			}
		default:
			g := sd
			if cfg.Granularity == PerGroup {
				g = cfg.GroupSize
			}
			for lo := 0; lo < sd; lo += g {
				p, _ := quant.FitSlice(c[lo:lo+g], cfg.Bits)
				for j := lo; j < lo+g; j++ {
					h[j] = p.Value(p.Code(c[j], cfg.Bits))
				}
			}
		}
		chat[t] = h
	}
	for t := range n {
		if t >= sealed {
			xhat = append(xhat, fp16Vec(tokens[t]))
			kinds = append(kinds, Full)
			continue
		}
		x := chat[t]
		k := Quantized
		if cfg.Bits >= 16 {
			k = Full
		}
		if basis != nil {
			x = make([]float32, dim)
			for r, c := range chat[t] {
				for i := range dim {
					x[i] += c * basis[r*dim+i]
				}
			}
			k = LowRank
		}
		xhat = append(xhat, x)
		kinds = append(kinds, k)
	}
	return xhat, kinds
}

// configs returns a named set of configurations covering every mode for
// vectors of dim 12 (stored dim 4 with a basis), built from samples for the
// calibrated ones.
func configs(r *rand.Rand) []struct {
	name string
	cfg  Config
} {
	const dim, rank = 12, 4
	basis := orthonormal(r, rank, dim)
	var samples, coefs []float32
	for range 64 {
		x := keyLike(r, dim)
		samples = append(samples, x...)
		for k := range rank {
			coefs = append(coefs, float32(dot64(basis[k*dim:(k+1)*dim], x)))
		}
	}
	calT, _ := quant.CalibrateTensor(samples, 0.01)
	calC, _ := quant.CalibrateChannels(samples, dim, 0)
	calRC, _ := quant.CalibrateChannels(coefs, rank, 0)
	var out []struct {
		name string
		cfg  Config
	}
	add := func(name string, c Config) {
		out = append(out, struct {
			name string
			cfg  Config
		}{name, c})
	}
	for _, bits := range []int{32, 16} {
		add(fmt.Sprintf("b%d", bits), Config{Bits: bits})
		add(fmt.Sprintf("b%d/rank%d", bits, rank), Config{Bits: bits, Basis: basis})
		add(fmt.Sprintf("b%d/rank%d/res2", bits, rank), Config{Bits: bits, Basis: basis, Residual: 2})
	}
	for _, bits := range []int{8, 4, 3, 2} {
		for _, res := range []int{0, 2} {
			p := fmt.Sprintf("b%d/res%d/", bits, res)
			add(p+"token", Config{Bits: bits, Residual: res})
			add(p+"group2", Config{Bits: bits, Granularity: PerGroup, GroupSize: 2, Residual: res})
			add(p+"group3", Config{Bits: bits, Granularity: PerGroup, GroupSize: 3, Residual: res})
			add(p+"channel-online3", Config{Bits: bits, Granularity: PerChannel, GroupSize: 3, Residual: res})
			add(p+"channel-calib", Config{Bits: bits, Granularity: PerChannel, Calib: calC, Residual: res})
			add(p+"tensor-calib", Config{Bits: bits, Granularity: PerTensor, Calib: calT, Residual: res})
			add(p+"rank/token", Config{Bits: bits, Basis: basis, Residual: res})
			add(p+"rank/group2", Config{Bits: bits, Granularity: PerGroup, GroupSize: 2, Basis: basis, Residual: res})
			add(p+"rank/channel-online3", Config{Bits: bits, Granularity: PerChannel, GroupSize: 3, Basis: basis, Residual: res})
			add(p+"rank/channel-calib", Config{Bits: bits, Granularity: PerChannel, Calib: calRC, Basis: basis, Residual: res})
		}
	}
	return out
}

// TestReadMatchesReference appends tokens with no eviction and checks every
// reconstruction and kind against the reference built from the definitions.
func TestReadMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	const dim, n = 12, 10
	tokens := make([][]float32, n)
	for i := range tokens {
		tokens[i] = keyLike(r, dim)
	}
	for _, tc := range configs(r) {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(tc.cfg, dim, n)
			if err != nil {
				t.Fatal(err)
			}
			for i, x := range tokens {
				slot, err := s.Append(x)
				if err != nil {
					t.Fatal(err)
				}
				if slot != i {
					t.Fatalf("token %d got slot %d, want %d (fresh store fills slots in order)", i, slot, i)
				}
			}
			want, kinds := reference(tc.cfg, tokens)
			got := make([]float32, dim)
			for i := range tokens {
				s.Read(i, got)
				if k := s.Kind(i); k != kinds[i] {
					t.Errorf("token %d: kind %v, want %v", i, k, kinds[i])
				}
				for j := range got {
					if d := math.Abs(float64(got[j] - want[i][j])); d > 1e-5*(1+math.Abs(float64(want[i][j]))) {
						t.Fatalf("token %d channel %d: Read %g, reference %g", i, j, got[j], want[i][j])
					}
				}
			}
		})
	}
}

// TestErrorBound checks the scale/2 bound through the store: per-token codes
// of tokens stored without a residual reconstruct within half a step.
func TestErrorBound(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	const dim = 128
	for _, bits := range []int{8, 4, 3, 2} {
		s, err := New(Config{Bits: bits}, dim, 1)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]float32, dim)
		for range 50 {
			x := keyLike(r, dim)
			slot, err := s.Append(x)
			if err != nil {
				t.Fatal(err)
			}
			s.Read(slot, got)
			p, _ := quant.FitSlice(x, bits)
			if e := quant.MaxAbsError(x, got); e > float64(p.MaxError())*(1+1e-6) {
				t.Fatalf("%d bits: max error %g > scale/2 = %g", bits, e, p.MaxError())
			}
			if err := s.Evict(slot); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestAppendErrors(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(-1))
	tests := []struct {
		name string
		cfg  Config
		x    []float32
		want string
	}{
		{"short", Config{Bits: 8}, []float32{1, 2}, "2 values, want 3"},
		{"NaN", Config{Bits: 8}, []float32{1, nan, 2}, "Append of NaN"},
		{"Inf float32", Config{Bits: 32}, []float32{1, inf, 2}, "Append of -Inf"},
		{"beyond FP16", Config{Bits: 4}, []float32{1, 7e4, 2}, "beyond FP16"},
		{"beyond FP16 residual", Config{Bits: 16}, []float32{-1e5, 0, 0}, "beyond FP16"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(tt.cfg, 3, 2)
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.Append(tt.x)
			if err == nil || !strings.HasPrefix(err.Error(), "store: ") || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
			if s.Len() != 0 || s.Memory() != (Memory{}) {
				t.Fatalf("failed Append changed the store: Len %d, Memory %+v", s.Len(), s.Memory())
			}
		})
	}
	// float32 storage takes values beyond FP16.
	s, _ := New(Config{Bits: 32}, 1, 1)
	if _, err := s.Append([]float32{1e6}); err != nil {
		t.Errorf("float32 store rejected 1e6: %v", err)
	}
	if _, err := s.Append([]float32{1}); err == nil || !strings.Contains(err.Error(), "full (capacity 1)") {
		t.Errorf("Append to a full store: error %v", err)
	}
}

func TestEvictErrors(t *testing.T) {
	s, _ := New(Config{Bits: 4}, 2, 2)
	slot, _ := s.Append([]float32{1, 2})
	for _, bad := range []int{-1, 2, 1 - slot} {
		if err := s.Evict(bad); err == nil {
			t.Errorf("Evict(%d) returned no error", bad)
		}
	}
	if err := s.Evict(slot); err != nil {
		t.Fatal(err)
	}
	if err := s.Evict(slot); err == nil {
		t.Error("second Evict of the same slot returned no error")
	}
	if s.Kind(slot) != Empty || s.Len() != 0 {
		t.Errorf("after Evict: kind %v, Len %d", s.Kind(slot), s.Len())
	}
}

func TestPanics(t *testing.T) {
	s, _ := New(Config{Bits: 4}, 2, 2)
	slot, _ := s.Append([]float32{1, 2})
	tests := []struct {
		name string
		f    func()
	}{
		{"Read short dst", func() { s.Read(slot, make([]float32, 1)) }},
		{"Read free", func() { s.Read(1-slot, make([]float32, 2)) }},
		{"Dots short q", func() { s.Dots([]float32{1}, []int{slot}, make([]float32, 1)) }},
		{"Dots dst", func() { s.Dots([]float32{1, 1}, []int{slot}, nil) }},
		{"Dots free", func() { s.Dots([]float32{1, 1}, []int{1 - slot}, make([]float32, 1)) }},
		{"Kind range", func() { s.Kind(5) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			tt.f()
		})
	}
}

// TestResidualWindow follows KIVI values: per-token 4-bit codes behind a
// sliding FP16 window of 2 tokens.
func TestResidualWindow(t *testing.T) {
	s, _ := New(Config{Bits: 4, Residual: 2}, 4, 8)
	x := []float32{0.1, 0.2, 0.3, 0.4}
	kinds := func() string { return kindsOf(s, 5) }
	steps := []struct {
		op   string // "a" append, "eN" evict slot N
		want string // kinds of slots 0..4: e(mpty) f(ull) q(uantized)
	}{
		{"a", "feeee"},
		{"a", "ffeee"},
		{"a", "qffee"}, // token 0 leaves the window
		{"e2", "qfeee"},
		{"a", "qffee"}, // slot 2 is reused; the window holds 1 and 2
		{"a", "qqffe"},
		{"e0", "eqffe"},
	}
	for i, st := range steps {
		if st.op == "a" {
			if _, err := s.Append(x); err != nil {
				t.Fatal(err)
			}
		} else if err := s.Evict(int(st.op[1] - '0')); err != nil {
			t.Fatal(err)
		}
		if got := kinds(); got != st.want {
			t.Fatalf("step %d (%s): kinds %s, want %s", i, st.op, got, st.want)
		}
	}
}

// TestChannelBlocks follows KIVI keys: per-channel blocks of 2 tokens with
// no residual window; eviction inside a sealed block leaves a hole.
func TestChannelBlocks(t *testing.T) {
	s, _ := New(Config{Bits: 2, Granularity: PerChannel, GroupSize: 2}, 4, 8)
	x := []float32{1, 2, 3, 4}
	kinds := func() string { return kindsOf(s, 5) }
	// Sealed token: 4 values × 2 bits = 1 byte; a block's params: 4 channels × 4 bytes = 16.
	steps := []struct {
		op                   string
		want                 string
		payload, meta, holes int64
	}{
		{"a", "feeee", 0, 0, 0},   // the open block waits in FP16
		{"a", "qqeee", 2, 16, 0},  // block {0,1} sealed
		{"a", "qqfee", 2, 16, 0},  //
		{"e2", "qqeee", 2, 16, 0}, // a residual token leaves at once
		{"e0", "eqeee", 1, 16, 1}, // a hole in block {0,1}
		{"a", "fqeee", 1, 16, 1},  // slot 0 reused by a residual token
		{"a", "qqqee", 3, 32, 1},  // block {0,2} sealed; the hole stays
		{"e1", "qeqee", 2, 16, 0}, // the first block is empty: its hole and params are freed
	}
	// Free slots are reused last-freed first: step 5 appends into slot 0, step 6 into slot 2.
	for i, st := range steps {
		if st.op == "a" {
			if _, err := s.Append(x); err != nil {
				t.Fatal(err)
			}
		} else if err := s.Evict(int(st.op[1] - '0')); err != nil {
			t.Fatal(err)
		}
		m := s.Memory()
		if got := kinds(); got != st.want || m.Payload != st.payload || m.Meta != st.meta || m.Holes != st.holes {
			t.Fatalf("step %d (%s): kinds %s payload %d meta %d holes %d; want %s %d %d %d",
				i, st.op, got, m.Payload, m.Meta, m.Holes, st.want, st.payload, st.meta, st.holes)
		}
	}
}

func TestReset(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for _, tc := range configs(r) {
		s, err := New(tc.cfg, 12, 6)
		if err != nil {
			t.Fatal(err)
		}
		empty := s.Memory()
		for range 6 {
			if _, err := s.Append(keyLike(r, 12)); err != nil {
				t.Fatal(err)
			}
		}
		s.Reset()
		if s.Len() != 0 || s.Memory() != empty || s.Kind(0) != Empty {
			t.Fatalf("%s: after Reset Len %d Memory %+v (want %+v)", tc.name, s.Len(), s.Memory(), empty)
		}
		if slot, err := s.Append(keyLike(r, 12)); err != nil || slot != 0 {
			t.Fatalf("%s: Append after Reset = %d, %v", tc.name, slot, err)
		}
	}
}

// kindsOf spells the kinds of slots 0..n-1 by their first letters:
// e(mpty), f(ull), q(uantized), l(ow rank).
func kindsOf(s *Store, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%c", s.Kind(i).String()[0])
	}
	return b.String()
}
