//go:build !js

package main

import (
	"testing"

	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/viz/view"
)

// Two workers asked for the references of a link's stream post their
// blocks from the end down, and together the blocks make the page's
// stream know every position; a link below minShared gets none.
func TestWorkerComputesReferenceBlocks(t *testing.T) {
	const link = "#tokens=1024&at=1024&play=0&ref=1&seed=7"
	st, _ := view.Decode(link)
	s, err := sim.NewStream(st.A)
	if err != nil {
		t.Fatal(err)
	}
	for part := range 2 {
		rs := runWorker(t, `[{"type":"reference","id":3,"link":"`+link+`","part":`+string(rune('0'+part))+`,"parts":2,"await":"done"}]`)
		want := sim.ReferenceBlocks(st.A.Tokens, part, 2)
		var got [][2]int
		for _, r := range rs {
			switch r.Type {
			case "refblock":
				t0, t1, n, err := s.ImportReference(r.Data)
				if err != nil || r.ID != 3 || t0 != r.T0 || t1 != r.T1 || n != t1-t0 {
					t.Fatalf("block [%d, %d) of id %d: imported [%d, %d), %d new, %v", r.T0, r.T1, r.ID, t0, t1, n, err)
				}
				got = append(got, [2]int{r.T0, r.T1})
			case "done":
				if r.Blocks != len(want) {
					t.Fatalf("done after %d blocks, want %d", r.Blocks, len(want))
				}
			}
		}
		if len(got) != len(want) {
			t.Fatalf("part %d: blocks %v, want %v", part, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("part %d: blocks %v, want %v", part, got, want)
			}
		}
	}
	if !s.Known(0, st.A.Tokens) {
		t.Fatal("the two parts left positions without a reference")
	}
	rs := runWorker(t, `[{"type":"reference","id":4,"link":"#tokens=512","part":0,"parts":2,"await":"done"}]`)
	if last := rs[len(rs)-1]; last.Type != "done" || last.Blocks != 0 {
		t.Fatalf("a 512-token link: %+v", last)
	}
}
