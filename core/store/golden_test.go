package store

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kvscope/kvscope/core/quant"
)

// goldenStores are the storage layouts whose exact output goldenSums pins:
// every codec, the fast kernels (8-bit and 2-bit per token, online
// per-channel blocks), and the options over them, at a head dimension of
// 8 (the fast kernels' test size) and 24 (neither a power of two nor a
// whole number of bytes at 3 bits).
func goldenStores(dim int) map[string]Config {
	r := rand.New(rand.NewPCG(11, uint64(dim)))
	lo, hi := make([]float32, dim), make([]float32, dim)
	for j := range dim {
		lo[j], hi[j] = -2-float32(j)/8, 9+float32(j)/4
	}
	chanCal := &quant.Calibration{Lo: lo, Hi: hi}
	tensorCal := &quant.Calibration{Lo: []float32{-4}, Hi: []float32{10}}
	basis := orthonormal(r, dim/2, dim)
	return map[string]Config{
		"f32":             {Bits: 32},
		"f16":             {Bits: 16},
		"f16/basis":       {Bits: 16, Basis: basis, Residual: 3},
		"b8/token":        {Bits: 8},
		"b4/token":        {Bits: 4},
		"b3/token":        {Bits: 3},
		"b2/token":        {Bits: 2},
		"b3/group":        {Bits: 3, Granularity: PerGroup, GroupSize: 4},
		"b4/group/res":    {Bits: 4, Granularity: PerGroup, GroupSize: 8, Residual: 5},
		"b8/channel":      {Bits: 8, Granularity: PerChannel, Calib: chanCal},
		"b3/channel":      {Bits: 3, Granularity: PerChannel, Calib: chanCal},
		"b4/tensor":       {Bits: 4, Granularity: PerTensor, Calib: tensorCal},
		"b8/tensor/res":   {Bits: 8, Granularity: PerTensor, Calib: tensorCal, Residual: 4},
		"b2/kivi-keys":    {Bits: 2, Granularity: PerChannel, GroupSize: 4, Residual: 3},
		"b4/block":        {Bits: 4, Granularity: PerChannel, GroupSize: 5},
		"b4/block/basis":  {Bits: 4, Granularity: PerChannel, GroupSize: 4, Basis: basis},
		"b3/token/basis":  {Bits: 3, Basis: basis},
		"b4/hadamard":     {Bits: 4, Rotate: Hadamard},
		"b2/kivi/had":     {Bits: 2, Granularity: PerChannel, GroupSize: 4, Residual: 2, Rotate: Hadamard},
		"b8/channel/had":  {Bits: 8, Granularity: PerChannel, Calib: chanCal, Rotate: Hadamard},
		"b3/turbo":        {Bits: 3, Quantizer: Turbo, Seed: 5},
		"b2/turbo":        {Bits: 2, Quantizer: Turbo, Seed: 6, Residual: 2},
		"b4/turbo":        {Bits: 4, Quantizer: Turbo, Seed: 7, Sinks: 2},
		"b3/turbo-prod":   {Bits: 3, Quantizer: TurboProd, Seed: 8},
		"b2/turbo-prod":   {Bits: 2, Quantizer: TurboProd, Seed: 9, Rotate: Hadamard},
		"b3/qjl":          {Bits: 3, Quantizer: QJL, Seed: 10},
		"b2/qjl/res":      {Bits: 2, Quantizer: QJL, Seed: 11, Residual: 3},
		"b4/outliers":     {Bits: 4, Outliers: 0.2},
		"b3/group/out":    {Bits: 3, Granularity: PerGroup, GroupSize: 4, Outliers: 0.1},
		"b4/channel/out":  {Bits: 4, Granularity: PerChannel, Calib: chanCal, Outliers: 0.15},
		"b8/outliers/had": {Bits: 8, Outliers: 0.1, Rotate: Hadamard, Sinks: 1},
		"b2/sinks":        {Bits: 2, Sinks: 3},
		"b8/sinks/res":    {Bits: 8, Sinks: 2, Residual: 3},
	}
}

// goldenSum runs one store through appends and evictions and hashes every
// bit it returns: Read of every live slot, Dots and WeightedSum over the
// live slots after each step, Kind, Len and Items.
func goldenSum(t *testing.T, cfg Config, dim int) string {
	const capacity, steps = 24, 60
	s, err := New(cfg, dim, capacity)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(21, uint64(dim)))
	h := fnv.New64a()
	var b [8]byte
	put := func(v uint64) { binary.LittleEndian.PutUint64(b[:], v); h.Write(b[:]) }
	putf := func(x []float32) {
		for _, v := range x {
			put(uint64(math.Float32bits(v)))
		}
	}
	var live []int
	x, out := make([]float32, dim), make([]float32, dim)
	dst, w := make([]float32, capacity), make([]float32, capacity)
	for step := range steps {
		if len(live) == capacity || (len(live) > 4 && r.IntN(3) == 0) {
			i := 4 + r.IntN(len(live)-4)
			if step%7 == 0 {
				i = r.IntN(len(live))
			}
			if err := s.Evict(live[i]); err != nil {
				t.Fatal(err)
			}
			live = append(live[:i], live[i+1:]...)
		}
		copy(x, keyLike(r, dim))
		slot, err := s.Append(x)
		if err != nil {
			t.Fatal(err)
		}
		live = append(live, slot)
		for _, sl := range live {
			s.Read(sl, out)
			putf(out)
			put(uint64(s.Kind(sl)))
		}
		q := keyLike(r, dim)
		s.Dots(q, live, dst[:len(live)])
		putf(dst[:len(live)])
		for i := range live {
			w[i] = float32(r.Float64())
		}
		s.WeightedSum(w[:len(live)], live, out)
		putf(out)
		it := s.Items()
		for _, v := range []int64{it.Payload, it.Meta, it.Residual, it.Factors, it.Holes, it.Norms, it.Sketch,
			it.Codebook, it.Rotation, it.Outliers, it.OutlierIndex, it.Sinks, int64(s.Len())} {
			put(uint64(v))
		}
	}
	return fmt.Sprintf("%016x", h.Sum64())
}

// goldenSums pins every bit the golden stores return (see goldenSum):
// refactoring the codecs must leave them as they are.
var goldenSums = map[string]string{
	"b2/kivi-keys/d24":    "06c144e52f758f1c",
	"b2/kivi-keys/d8":     "6e23eb7fdd37d669",
	"b2/kivi/had/d24":     "98a3dbf5122a3b5a",
	"b2/kivi/had/d8":      "c56a24d8e1c6574f",
	"b2/qjl/res/d24":      "11302d3c4337b19a",
	"b2/qjl/res/d8":       "8eb0850ab1312aea",
	"b2/sinks/d24":        "e13c92745530f225",
	"b2/sinks/d8":         "397c084335ea596d",
	"b2/token/d24":        "e32d1d905832426f",
	"b2/token/d8":         "ffde92a386552329",
	"b2/turbo-prod/d24":   "403530b606f9f318",
	"b2/turbo-prod/d8":    "b868f7832c3bad25",
	"b2/turbo/d24":        "1ed00348ae719d35",
	"b2/turbo/d8":         "d426e37103c8a3b2",
	"b3/channel/d24":      "16b39afa633eb368",
	"b3/channel/d8":       "9280a7c646ca79d6",
	"b3/group/d24":        "85c4344cbb8c1b4c",
	"b3/group/d8":         "3e8f50d47e7c98dd",
	"b3/group/out/d24":    "e3867a228254364e",
	"b3/group/out/d8":     "fde66378705379dc",
	"b3/qjl/d24":          "e59a11668e51fc13",
	"b3/qjl/d8":           "ebd35d894980805b",
	"b3/token/basis/d24":  "7e7170e97c2f4a95",
	"b3/token/basis/d8":   "170a14bcce3cee77",
	"b3/token/d24":        "921893dfd8ee5a36",
	"b3/token/d8":         "021d47c2126eb835",
	"b3/turbo-prod/d24":   "d8768fa97e972a0a",
	"b3/turbo-prod/d8":    "10d46c91ab433111",
	"b3/turbo/d24":        "bbf101b1bd2662ac",
	"b3/turbo/d8":         "cbb69ebec68c46d3",
	"b4/block/basis/d24":  "ed89c3995d73d76a",
	"b4/block/basis/d8":   "adc66a66832951ed",
	"b4/block/d24":        "d1eae483ab60c2b8",
	"b4/block/d8":         "a7583643cd0201b9",
	"b4/channel/out/d24":  "2850e32a26fa7d82",
	"b4/channel/out/d8":   "015cecd8887ae6fa",
	"b4/group/res/d24":    "68c1e73ce955e702",
	"b4/group/res/d8":     "384b37a0ad82df44",
	"b4/hadamard/d24":     "e48e2736578e0d46",
	"b4/hadamard/d8":      "f7116e345acfb86b",
	"b4/outliers/d24":     "5b1603d00d145f6d",
	"b4/outliers/d8":      "8483d6842f6780b5",
	"b4/tensor/d24":       "6f37dda22a89739f",
	"b4/tensor/d8":        "bf6353d0608b1d12",
	"b4/token/d24":        "e6b286442baeb255",
	"b4/token/d8":         "f27e8b4cdf234527",
	"b4/turbo/d24":        "44ebb3e82b5e0090",
	"b4/turbo/d8":         "372707ce2bef3403",
	"b8/channel/d24":      "8565bf42a86a557e",
	"b8/channel/d8":       "6814db70763116bd",
	"b8/channel/had/d24":  "3f13ddde72bd47b6",
	"b8/channel/had/d8":   "a70a5a49cf4a6103",
	"b8/outliers/had/d24": "dc4d7d591676b894",
	"b8/outliers/had/d8":  "743ca2c1b433f9c8",
	"b8/sinks/res/d24":    "954e4e0f0121cf38",
	"b8/sinks/res/d8":     "dd7c7f1c9cce1e67",
	"b8/tensor/res/d24":   "ea5d8dbd893a9bf5",
	"b8/tensor/res/d8":    "1f897fe5cf270ff1",
	"b8/token/d24":        "1cd4711e0c797a22",
	"b8/token/d8":         "cded4db26da80167",
	"f16/basis/d24":       "6ec058b6ebe159c2",
	"f16/basis/d8":        "44bc038d8ea42826",
	"f16/d24":             "4fbe7d3d774932ac",
	"f16/d8":              "cba1939c5fbea202",
	"f32/d24":             "e02d65a9c7cad5aa",
	"f32/d8":              "07258be710c07856",
}

func TestGoldenStores(t *testing.T) {
	for _, dim := range []int{8, 24} {
		for name, cfg := range goldenStores(dim) {
			key := fmt.Sprintf("%s/d%d", name, dim)
			got := goldenSum(t, cfg, dim)
			if want, ok := goldenSums[key]; !ok || got != want {
				t.Errorf("%q: %q, want %q", key, got, want)
			}
		}
	}
}
