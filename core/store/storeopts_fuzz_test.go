package store

import "testing"

// The parsers accept exactly the names they print and refuse the rest.
func FuzzParseOptions(f *testing.F) {
	for _, s := range append([]string{"", "none", "hadamard", "x"}, Quantizers...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if q, err := ParseQuantizer(s); err == nil {
			if s != "" && q.String() != s || s == "" && q != Uniform {
				t.Fatalf("ParseQuantizer(%q) = %v", s, q)
			}
		}
		if r, err := ParseRotation(s); err == nil {
			if s != "" && r.String() != s || s == "" && r != NoRotation {
				t.Fatalf("ParseRotation(%q) = %v", s, r)
			}
		}
	})
}

// For any sequence of tokens, a store with every option holds Dots equal
// to q·Read (the estimators are linear in q) and counts its bytes
// consistently.
func FuzzOptionsDotsMatchRead(f *testing.F) {
	f.Add(uint8(0), uint8(3), []byte("kvscope"))
	f.Add(uint8(7), uint8(2), []byte{0, 255, 128, 64, 1, 2, 3})
	f.Fuzz(func(t *testing.T, pick, bits uint8, data []byte) {
		const dim = 12
		cfgs := optionConfigs(dim)
		cfg := cfgs[int(pick)%len(cfgs)]
		s, err := New(cfg, dim, 6)
		if err != nil {
			t.Fatal(err)
		}
		x := make([]float32, dim)
		for i, b := range data {
			x[i%dim] = float32(int(b)-128) / 8
			if i%dim == dim-1 {
				if s.Len() == s.Cap() {
					_ = s.Evict(0)
					if s.Kind(0) != Empty {
						t.Fatal("evicted slot still held")
					}
				}
				if _, err := s.Append(x); err != nil {
					t.Fatal(err)
				}
			}
		}
		for i := range x {
			x[i] = float32(i%5) - 2
		}
		checkDots(t, s, x)
		if it := s.Items(); it.Total() != s.Memory().Total() || it.Total() < 0 {
			t.Fatalf("items %+v, memory %+v", it, s.Memory())
		}
	})
}
