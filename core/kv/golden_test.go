package kv

import "testing"

// The ten policies kvscope had before policies became scorers keep their
// decisions bit for bit: every head's eviction record and final cache over
// 300 tokens, per policy, shared or not, with and without a prompt, hash
// to what the code before the restructuring produced (StreamingLLM with
// Heavy 0, whose budget is the same under both rules).
func TestDecisionsUnchanged(t *testing.T) {
	want := []uint64{
		0x2424506fcea5699,
		0x2424506fcea5699,
		0x2424506fcea5699,
		0x2424506fcea5699,
		0xcfce9f1d489f32f1,
		0xe95313fbbc9179c1,
		0xcfce9f1d489f32f1,
		0xe95313fbbc9179c1,
		0xd06d2facb030720,
		0x6b1515a85b521eb9,
		0xd06d2facb030720,
		0x6b1515a85b521eb9,
		0x9f3804a8e78cca39,
		0x18d1ab9e3e03a9ed,
		0x6eb0eac4bcd5874,
		0x69bc211f08b061e8,
		0x18471d2af22e9d2c,
		0x99bcec15d7589350,
		0xa4df668dee7e8db1,
		0x4996f2ccf6dda8d5,
		0x4c23a1fa76ecf20f,
		0x37c72bba0b86ff83,
		0x3af0f28c00a1bdf5,
		0xf943cf92192fd079,
		0x1b6db568217dc047,
		0x3cc6301cceed2f99,
		0x1bad3a21b6a9bbe,
		0xf7a9542f4236d874,
		0x26a73fb02d60f673,
		0xcfe6229bdfdaa4ff,
		0x924c258693f919f4,
		0xba9e1e9d905defa8,
		0x2424506fcea5699,
		0x8d9a89c17c8a680,
		0x2424506fcea5699,
		0x8d9a89c17c8a680,
		0xf017c25b9a94d654,
		0xf017c25b9a94d654,
		0xf017c25b9a94d654,
		0xf017c25b9a94d654,
	}
	for i, c := range goldenCases() {
		if got := decisionHash(t, c); got != want[i] {
			t.Errorf("%s shared=%v prompt=%d: decisions changed (hash %#x, was %#x)", c.Policy, c.Shared, c.MaxPrompt, got, want[i])
		}
	}
}

// goldenCases are the configurations whose decisions the golden test pins.
func goldenCases() []Config {
	var cs []Config
	for p := Full; p <= Seed000; p++ {
		heavy := 9
		if p == Streaming {
			heavy = 0 // StreamingLLM's budget no longer counts Heavy
		}
		for _, shared := range []bool{false, true} {
			for _, prompt := range []int{0, 24} {
				cs = append(cs, Config{Policy: p, Sink: 3, Recent: 7, Heavy: heavy, ChunkSize: 10, DropShare: 0.3, Shared: shared,
					Seed: 21, Heads: 6, KVHeads: 3, Dim: 8, MaxTokens: 300, MaxPrompt: prompt})
			}
		}
	}
	return cs
}

// decisionHash runs cfg over 300 tokens of the test stream and hashes every
// head's eviction record and final positions (FNV-1a).
func decisionHash(t testing.TB, cfg Config) uint64 {
	l, err := NewLayer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := newStream(cfg.Seed+3, cfg.Heads, cfg.KVHeads, cfg.Dim)
	out := make([]float32, cfg.Heads*cfg.Dim)
	for pos := range 300 {
		s.next()
		if err := l.Step(pos, s.q, s.k, s.v, out); err != nil {
			t.Fatal(err)
		}
	}
	h := uint64(14695981039346656037)
	add := func(x int32) {
		for i := range 4 {
			h ^= uint64(byte(x >> (8 * i)))
			h *= 1099511628211
		}
	}
	for g := range cfg.KVHeads {
		for _, e := range l.EvictedAt(g) {
			add(e)
		}
		for _, p := range l.Positions(g) {
			add(p)
		}
	}
	return h
}
