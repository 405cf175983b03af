package synth

import (
	"math"
	"strings"
	"testing"
)

// run returns n positions of c produced by Next, flat.
func run(t *testing.T, c Config, n int) (q, k, v []float32) {
	t.Helper()
	g, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	q = make([]float32, n*g.QLen())
	k = make([]float32, n*g.KVLen())
	v = make([]float32, n*g.KVLen())
	for i := range n {
		if pos := g.Next(q[i*g.QLen():], k[i*g.KVLen():], v[i*g.KVLen():]); pos != i {
			t.Fatalf("Next returned position %d, want %d", pos, i)
		}
	}
	return q, k, v
}

// firstDiff returns the first index where a and b differ bitwise, or −1.
func firstDiff(a, b []float32) int {
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return i
		}
	}
	return -1
}

func gqaConfig() Config {
	c := DefaultConfig()
	c.Layers, c.Heads, c.KVHeads, c.HeadDim = 2, 8, 2, 16
	return c
}

func TestDeterministic(t *testing.T) {
	const n = 300
	c := gqaConfig()
	q1, k1, v1 := run(t, c, n)
	q2, k2, v2 := run(t, c, n)
	for name, pair := range map[string][2][]float32{"q": {q1, q2}, "k": {k1, k2}, "v": {v1, v2}} {
		if i := firstDiff(pair[0], pair[1]); i >= 0 {
			t.Errorf("%s differs between two runs of the same Config at float %d", name, i)
		}
	}
	c.Seed++
	q3, k3, v3 := run(t, c, n)
	if firstDiff(q1, q3) < 0 || firstDiff(k1, k3) < 0 || firstDiff(v1, v3) < 0 {
		t.Error("a different seed gives the same stream")
	}
}

func TestResetReplays(t *testing.T) {
	c := gqaConfig()
	const n = 200
	q1, k1, v1 := run(t, c, n)
	g, _ := New(c)
	scratchQ := make([]float32, g.QLen())
	scratchKV := make([]float32, g.KVLen())
	for range 77 {
		g.Next(scratchQ, scratchKV, scratchKV)
	}
	g.Reset()
	if g.Pos() != 0 {
		t.Fatalf("Pos after Reset = %d, want 0", g.Pos())
	}
	q := make([]float32, n*g.QLen())
	k := make([]float32, n*g.KVLen())
	v := make([]float32, n*g.KVLen())
	if first := g.Fill(q, k, v, n); first != 0 {
		t.Errorf("Fill returned first position %d, want 0", first)
	}
	if g.Pos() != n {
		t.Errorf("Pos after Fill = %d, want %d", g.Pos(), n)
	}
	if firstDiff(q, q1) >= 0 || firstDiff(k, k1) >= 0 || firstDiff(v, v1) >= 0 {
		t.Error("Reset then Fill does not replay the stream of Next from a new Generator")
	}
}

func TestNextAllocatesNothing(t *testing.T) {
	g, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	q := make([]float32, g.QLen())
	k := make([]float32, g.KVLen())
	v := make([]float32, g.KVLen())
	if allocs := testing.AllocsPerRun(500, func() { g.Next(q, k, v) }); allocs != 0 {
		t.Errorf("Next allocates %.1f times per call, want 0", allocs)
	}
}

func TestOutputsFinite(t *testing.T) {
	cases := []func(*Config){
		func(c *Config) {},
		func(c *Config) { c.TailDF = 2.01 },
		func(c *Config) { c.SinkStrength, c.HeavyStrength, c.Locality = MaxStrength, MaxStrength, MaxStrength },
		func(c *Config) { c.OutlierChannels, c.OutlierScale = 8, MaxOutlierScale },
		func(c *Config) { c.RetrievalShare, c.HeadDim = 1, MinHeadDim },
		func(c *Config) {
			c.SinkStrength, c.HeavyStrength, c.Locality, c.RetrievalShare, c.OutlierScale, c.TailDF = 0, 0, 0, 0, 0, 0
		},
	}
	for i, set := range cases {
		c := DefaultConfig()
		set(&c)
		q, k, v := run(t, c, 400)
		for name, xs := range map[string][]float32{"q": q, "k": k, "v": v} {
			for j, x := range xs {
				if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
					t.Fatalf("case %d: %s[%d] = %v", i, name, j, x)
				}
			}
		}
	}
}

// TestHeadKinds checks the share of retrieval heads per layer and that only
// retrieval heads copy, from old, non-sink positions of their own kv head.
func TestHeadKinds(t *testing.T) {
	for _, share := range []float64{0, 0.25, 0.5, 1} {
		c := gqaConfig()
		c.Layers, c.RetrievalShare = 3, share
		g, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		for l := range c.Layers {
			n := 0
			for h := range c.Heads {
				if g.HeadKind(l, h) == Retrieval {
					n++
				}
			}
			if want := int(math.Round(share * float64(c.Heads))); n != want {
				t.Errorf("share %g layer %d: %d retrieval heads, want %d", share, l, n, want)
			}
		}
		q := make([]float32, g.QLen())
		k := make([]float32, g.KVLen())
		v := make([]float32, g.KVLen())
		copies := 0
		for range 600 {
			t0 := g.Next(q, k, v)
			for l := range c.Layers {
				for h := range c.Heads {
					src := g.Target(l, h)
					if src < 0 {
						continue
					}
					copies++
					if g.HeadKind(l, h) != Retrieval {
						t.Fatalf("%v head (%d, %d) copied position %d", g.HeadKind(l, h), l, h, src)
					}
					if src < sinkCount || src > t0-retrievalGap {
						t.Fatalf("head (%d, %d) at %d copied position %d, want %d..%d", l, h, t0, src, sinkCount, t0-retrievalGap)
					}
				}
			}
		}
		if (share > 0) != (copies > 0) {
			t.Errorf("share %g: %d copies in 600 positions", share, copies)
		}
	}
	for k, want := range map[HeadKind]string{Mixed: "mixed", Local: "local", Sink: "sink", Retrieval: "retrieval", 9: "unknown"} {
		if got := k.String(); got != want {
			t.Errorf("HeadKind(%d).String() = %q, want %q", k, got, want)
		}
	}
}

// TestSinkKinds checks that sink heads are most common in the middle layers.
func TestSinkKinds(t *testing.T) {
	c := DefaultConfig()
	c.Layers, c.Heads, c.KVHeads, c.RetrievalShare = 9, 16, 16, 0
	g, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	count := func(l int) (n int) {
		for h := range c.Heads {
			if g.HeadKind(l, h) == Sink {
				n++
			}
		}
		return n
	}
	first, middle, last := count(0), count(4), count(8)
	t.Logf("sink heads: first layer %d, middle %d, last %d of %d", first, middle, last, c.Heads)
	if middle <= first || middle <= last {
		t.Errorf("sink heads: first %d, middle %d, last %d; want most in the middle", first, middle, last)
	}
}

func TestPanics(t *testing.T) {
	g, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	q := make([]float32, g.QLen())
	k := make([]float32, g.KVLen())
	cases := map[string]func(){
		"Next short q":      func() { g.Next(q[:1], k, k) },
		"Next short v":      func() { g.Next(q, k, k[:3]) },
		"Fill short":        func() { g.Fill(q, k, k, 2) },
		"Fill negative":     func() { g.Fill(q, k, k, -1) },
		"HeadKind layer":    func() { g.HeadKind(1, 0) },
		"Target head":       func() { g.Target(0, 8) },
		"Target negative":   func() { g.Target(-1, 0) },
		"HeadKind negative": func() { g.HeadKind(0, -1) },
	}
	for name, f := range cases {
		func() {
			defer func() {
				r := recover()
				if r == nil {
					t.Errorf("%s: no panic", name)
				} else if s, ok := r.(string); !ok || !strings.HasPrefix(s, "synth: ") {
					t.Errorf("%s: panic %v, want a message prefixed \"synth: \"", name, r)
				}
			}()
			f()
		}()
	}
	if g.Pos() != 0 {
		t.Errorf("Pos after refused calls = %d, want 0", g.Pos())
	}
}

// benchConfigs are the page's default stream and seed 000's shape.
var benchConfigs = []struct {
	name string
	set  func(*Config)
}{
	{"page_8x32", func(*Config) {}},
	{"seed000_32x128", func(c *Config) { c.Heads, c.KVHeads, c.HeadDim = 32, 32, 128 }},
	{"seed000_32x128_gaussian", func(c *Config) { c.Heads, c.KVHeads, c.HeadDim, c.TailDF = 32, 32, 128, 0 }},
}

func BenchmarkNext(b *testing.B) {
	for _, bc := range benchConfigs {
		b.Run(bc.name, func(b *testing.B) {
			c := DefaultConfig()
			bc.set(&c)
			g, err := New(c)
			if err != nil {
				b.Fatal(err)
			}
			q := make([]float32, g.QLen())
			k := make([]float32, g.KVLen())
			v := make([]float32, g.KVLen())
			b.ReportAllocs()
			for b.Loop() {
				g.Next(q, k, v)
			}
		})
	}
}
