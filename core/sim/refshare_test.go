package sim

import (
	"fmt"
	"reflect"
	"testing"
)

// Every position is in exactly one helper's blocks, blocks have at most
// ReferenceBlock positions, and each part starts at the costly end.
func TestReferenceBlocksCoverTheStream(t *testing.T) {
	for _, tc := range []struct{ tokens, parts int }{{1, 1}, {64, 2}, {65, 2}, {200, 3}, {4096, 2}, {100, 7}} {
		seen := make([]int, tc.tokens)
		for part := range tc.parts {
			bs := ReferenceBlocks(tc.tokens, part, tc.parts)
			for i, b := range bs {
				if b[0] < 0 || b[1] > tc.tokens || b[0] >= b[1] || b[1]-b[0] > ReferenceBlock {
					t.Fatalf("tokens %d, part %d of %d: block %v", tc.tokens, part, tc.parts, b)
				}
				if i > 0 && b[1] > bs[i-1][0] {
					t.Fatalf("tokens %d, part %d: block %v does not come below %v", tc.tokens, part, b, bs[i-1])
				}
				for p := b[0]; p < b[1]; p++ {
					seen[p]++
				}
			}
		}
		for p, n := range seen {
			if n != 1 {
				t.Fatalf("tokens %d, %d parts: position %d in %d blocks", tc.tokens, tc.parts, p, n)
			}
		}
	}
	if ReferenceBlocks(10, 2, 2) != nil || ReferenceBlocks(10, 0, 0) != nil {
		t.Fatal("a part outside [0, parts) gets blocks")
	}
}

// A run over a stream whose references were computed by helpers, in
// parts, and imported as bytes is the run of a private engine: snapshots
// (reference attention included) and metric history, bit for bit. Both
// kinds of stream are covered: one short enough to keep its reference
// rows, one too long to.
func TestImportedReferenceIsTheSameRun(t *testing.T) {
	short := DefaultConfig()
	short.Layers, short.Heads, short.KVHeads, short.HeadDim, short.Tokens = 2, 4, 2, 16, 150
	long := short
	long.Layers, long.Tokens = 1, 1500
	long.Heads, long.KVHeads = 8, 8
	if rowFloats(long.Tokens, long.Layers, long.Heads) <= maxRowFloats {
		t.Fatalf("the long stream keeps its rows (%d values)", rowFloats(long.Tokens, long.Layers, long.Heads))
	}
	for _, cfg := range []Config{short, long} {
		t.Run(fmt.Sprintf("tokens=%d", cfg.Tokens), func(t *testing.T) {
			const parts = 2
			s, err := NewStream(cfg)
			if err != nil {
				t.Fatal(err)
			}
			imported := 0
			for part := range parts {
				h, err := NewStream(cfg) // a helper's own recording
				if err != nil {
					t.Fatal(err)
				}
				for i, b := range ReferenceBlocks(cfg.Tokens, part, parts) {
					if i%3 == 2 {
						continue // the run computes these itself
					}
					if err := h.ComputeReference(b[0], b[1]); err != nil {
						t.Fatal(err)
					}
					bs, err := h.ExportReference(b[0], b[1])
					if err != nil {
						t.Fatal(err)
					}
					t0, t1, n, err := s.ImportReference(bs)
					if err != nil || t0 != b[0] || t1 != b[1] || n != b[1]-b[0] {
						t.Fatalf("import of %v: [%d, %d), %d new, %v", b, t0, t1, n, err)
					}
					imported += n
					if _, _, n, _ := s.ImportReference(bs); n != 0 {
						t.Fatalf("importing %v again taught %d positions", b, n)
					}
				}
			}
			if imported == 0 || s.Recorded() != 0 {
				t.Fatalf("imported %d positions; the stream recorded %d", imported, s.Recorded())
			}
			private, shared, want, got := privateAndShared(t, cfg, s)
			if len(want.history) != cfg.Tokens || !reflect.DeepEqual(want, got) {
				t.Fatal("the run over imported references differs from the private one")
			}
			if a, b := private.Snapshot(0), shared.Snapshot(0); !reflect.DeepEqual(a.Cells, b.Cells) {
				t.Fatal("the last snapshots differ")
			}
		})
	}
}

// Blocks from another stream, of another shape or damaged are refused and
// change nothing.
func TestImportReferenceRefusesOtherBlocks(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Tokens = 100
	h, _ := NewStream(cfg)
	if err := h.ComputeReference(36, 100); err != nil {
		t.Fatal(err)
	}
	if _, err := h.ExportReference(0, 100); err == nil {
		t.Fatal("exported references it has not computed")
	}
	good, err := h.ExportReference(36, 100)
	if err != nil {
		t.Fatal(err)
	}
	other := cfg
	other.Seed++
	shape := cfg
	shape.HeadDim = 16
	fewer := cfg
	fewer.Tokens = 50
	for name, c := range map[string]Config{"seed": other, "shape": shape, "capacity": fewer} {
		s, _ := NewStream(c)
		if _, _, _, err := s.ImportReference(good); err == nil || s.Known(0, c.Tokens) || s.known(40, 0) {
			t.Errorf("%s: imported a block of another stream (err %v)", name, err)
		}
	}
	s, _ := NewStream(cfg)
	for name, b := range map[string][]byte{
		"empty": nil, "magic": append([]byte("XXXX"), good[4:]...), "truncated": good[:len(good)-1],
		"header": good[:20], "longer": append(append([]byte(nil), good...), 0, 0, 0, 0),
	} {
		if _, _, _, err := s.ImportReference(b); err == nil || s.known(40, 0) {
			t.Errorf("%s: a damaged block was imported (err %v)", name, err)
		}
	}
	if _, _, n, err := s.ImportReference(good); err != nil || n != 64 || !s.Known(36, 100) {
		t.Fatalf("the good block: %d new, %v", n, err)
	}
}

// FuzzImportReference: any bytes are refused or imported, never a panic.
func FuzzImportReference(f *testing.F) {
	cfg := DefaultConfig()
	cfg.Tokens = 64
	h, err := NewStream(cfg)
	if err != nil {
		f.Fatal(err)
	}
	if err := h.ComputeReference(0, 8); err != nil {
		f.Fatal(err)
	}
	good, err := h.ExportReference(2, 5)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte("KVR1"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, _ := NewStream(cfg)
		t0, t1, n, err := s.ImportReference(b)
		if err == nil && (t0 > t1 || n > t1-t0 || !s.Known(t0, t1)) {
			t.Fatalf("imported [%d, %d) with %d new but not known", t0, t1, n)
		}
	})
}
