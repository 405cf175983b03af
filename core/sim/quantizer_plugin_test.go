package sim

import (
	"math"
	"slices"
	"testing"

	"github.com/kvscope/kvscope/core/quant"
	"github.com/kvscope/kvscope/core/store"
)

// levelsCodec is a quantizer defined in this file only, to show that one
// file plugs a quantizer in: each stored coordinate is coded, one byte
// each, as the nearest of 2^Bits levels spread evenly over ±1 times the
// token's largest magnitude, which is kept in FP16 (Meta, 2 bytes); each
// store holds the levels in FP16 (Codebook) and an FP16 gain per
// coordinate (Rotation; all ones here, where a real codec would learn
// them).
type levelsCodec struct {
	store.CodecDefaults
	sd     int
	levels []float32
	codes  []uint8   // capacity×sd
	scale  []float32 // capacity
}

var levelsQuantizer = func() store.Quantizer {
	q, err := store.Register(store.QuantizerDef{
		Name: "levels-test", Label: "even levels (test)", Help: "2^bits even levels over ±max|x| (a test's quantizer)",
		Tables: func(c store.Config, stored int) store.Items {
			return store.Items{Codebook: 2 << c.Bits, Rotation: int64(2 * stored)}
		},
		New: func(c store.Config, stored, capacity int) (store.Codec, error) {
			n := 1 << c.Bits
			l := &levelsCodec{sd: stored, levels: make([]float32, n), codes: make([]uint8, capacity*stored), scale: make([]float32, capacity)}
			for i := range n {
				l.levels[i] = quant.RoundFP16(float32(-1 + 2*float64(i)/float64(n-1)))
			}
			return l, nil
		},
	})
	if err != nil {
		panic(err)
	}
	return q
}()

func (l *levelsCodec) Encode(slot int, x []float32) {
	var m float32
	for _, v := range x {
		m = max(m, float32(math.Abs(float64(v))))
	}
	m = quant.RoundFP16(m)
	l.scale[slot] = m
	top := float64(len(l.levels) - 1)
	for j, v := range x {
		c := 0.0
		if m > 0 {
			c = math.Round((float64(v/m) + 1) / 2 * top)
		}
		l.codes[slot*l.sd+j] = uint8(max(0, min(top, c)))
	}
}

func (l *levelsCodec) Decode(slot int, dst []float32) {
	for j, c := range l.codes[slot*l.sd : (slot+1)*l.sd] {
		dst[j] = l.scale[slot] * l.levels[c]
	}
}

func (l *levelsCodec) Dot(qs []float32, slot int) float32 {
	var t float32
	for j, c := range l.codes[slot*l.sd : (slot+1)*l.sd] {
		t += qs[j] * l.levels[c]
	}
	return l.scale[slot] * t
}

func (l *levelsCodec) Add(acc []float32, w float32, slot int) {
	a := w * l.scale[slot]
	for j, c := range l.codes[slot*l.sd : (slot+1)*l.sd] {
		acc[j] += a * l.levels[c]
	}
}

func (l *levelsCodec) Items(sealed int) store.Items {
	return store.Items{Payload: int64(sealed * l.sd), Meta: int64(sealed * 2)}
}

// A quantizer registered from one file is listed with the others, runs in
// the simulator without allocating, and is counted by the stores and by
// the model-scale projection (its tables at the model's head dimension)
// like the built-in ones.
func TestQuantizerPlugsIn(t *testing.T) {
	if !slices.Contains(store.Quantizers, "levels-test") {
		t.Fatalf("store.Quantizers %v does not list the registered quantizer", store.Quantizers)
	}
	if q, err := store.ParseQuantizer("levels-test"); err != nil || q != levelsQuantizer || q.String() != "levels-test" {
		t.Fatalf("ParseQuantizer: %v, %v", q, err)
	}
	c := DefaultConfig()
	c.Quant, c.Bits, c.Layers, c.Tokens, c.RefStride = "levels-test", 4, 2, 300, 4
	e, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	e.RunTo(200)
	if a := testing.AllocsPerRun(50, func() { e.Step() }); a != 0 {
		t.Errorf("a step allocates %v times", a)
	}
	e.RunTo(c.Tokens)
	stores := int64(2 * c.Layers * c.KVHeads)
	it := e.StorageItems()
	if want := stores * (2 << c.Bits); it.Codebook != want || it.Rotation != stores*2*int64(c.HeadDim) {
		t.Errorf("the stores hold codebooks %d and gains %d, want %d and %d", it.Codebook, it.Rotation, want, stores*2*int64(c.HeadDim))
	}
	if last, _ := e.Metrics(); !(last.KErr > 0 && last.KErr < 0.5) {
		t.Errorf("key error %v: the codec does not reconstruct", last.KErr)
	}
	m := Models[0]
	p := e.ProjectTo(m, 4096)
	if want := int64(m.Layers*m.KVHeads) * 2 * (2<<c.Bits + 2*int64(m.HeadDim)); p.Tables != want {
		t.Errorf("projected tables %d bytes, want %d: a key and a value store per layer and head at head dim %d", p.Tables, want, m.HeadDim)
	}
	if p.Stored <= p.Tables+p.Index {
		t.Errorf("projection %+v holds no tokens", p)
	}
	for _, bad := range []store.QuantizerDef{
		{Name: "levels-test", New: func(store.Config, int, int) (store.Codec, error) { return nil, nil }},
		{Name: "Upper", New: func(store.Config, int, int) (store.Codec, error) { return nil, nil }},
		{Name: "no-new"},
	} {
		if _, err := store.Register(bad); err == nil {
			t.Errorf("Register(%q) accepted", bad.Name)
		}
	}
}
