package trace

import (
	"archive/zip"
	"bytes"
	"testing"
)

// FuzzRead holds Read to its contract on arbitrary bytes: no panic, memory
// bounded by what the archive holds, and any trace it accepts valid and
// unchanged by a Write/Read round trip.
func FuzzRead(f *testing.F) {
	for _, tr := range []*Trace{testTrace(1, 3, 2, 2, 4), testTrace(2, 2, 4, 1, 2)} {
		var b bytes.Buffer
		if err := Write(&b, tr); err != nil {
			f.Fatal(err)
		}
		valid := b.Bytes()
		f.Add(valid)
		f.Add(valid[:len(valid)/2])
		for _, at := range []int{8, 40, 70, 100, len(valid) - 30} {
			flipped := bytes.Clone(valid)
			flipped[at] ^= 0x5a
			f.Add(flipped)
		}
	}
	shape := []int{2, 2, 3}
	f64 := f64bytes([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Add(npz(f, zip.Deflate,
		file{"q.npy", npyFile(1, dict("<f8", false, shape...), f64)},
		file{"k.npy", npyFile(2, dict("<f8", false, shape...), f64)},
		file{"v.npy", npyFile(3, dict("<f8", false, shape...), f64)}))
	f.Add(npz(f, zip.Store, declared([]int{1 << 10, 1 << 6, 1 << 6}, []int{1 << 10, 1 << 6, 1 << 6})...))

	f.Fuzz(func(t *testing.T, data []byte) {
		var tr *Trace
		var err error
		n := allocated(func() { tr, err = read(t, data) })
		// Deflate expands at most about 1032 times; allow that plus slack.
		if limit := uint64(16<<20 + 4200*len(data)); n > limit {
			t.Fatalf("Read of %d bytes allocated %d bytes", len(data), n)
		}
		if err != nil {
			return
		}
		if err := tr.Validate(); err != nil {
			t.Fatalf("Read accepted an invalid trace: %v", err)
		}
		var b bytes.Buffer
		if err := Write(&b, tr); err != nil {
			t.Fatalf("Write of a trace Read accepted: %v", err)
		}
		back, err := read(t, b.Bytes())
		if err != nil {
			t.Fatalf("Read of Write's output: %v", err)
		}
		if !equalTraces(back, tr) {
			t.Fatal("round trip changed the trace")
		}
	})
}
