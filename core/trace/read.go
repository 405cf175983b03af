package trace

import (
	"archive/zip"
	"fmt"
	"io"
	"os"
)

// Open reads the trace in the .npz file at path; see Read.
func Open(path string) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	return Read(f, st.Size())
}

// entry is one of the q, k, v arrays while it is read.
type entry struct {
	name string
	file *zip.File
	rc   io.ReadCloser
	h    npyHeader
}

// Read parses an .npz archive of size bytes (zip, stored or deflated, as
// np.savez and np.savez_compressed write) holding q.npy, k.npy and v.npy;
// other entries are ignored. Each array must be little-endian float32 or
// float64 in C order, shaped [T, H, D] (read as one layer) or [L, T, H, D];
// k and v must have the same shape, with T and D (and L) equal to q's and a
// head count that divides q's. float64 data is converted to float32.
//
// Read checks all three headers, and that the trace holds at most
// MaxElements numbers, before reading any data; it then reads each array
// through a limit, growing its buffers only as bytes arrive, so an archive
// that declares more than it holds costs no more memory than its contents.
// It returns an error, prefixed "trace: " and naming the array, for a
// damaged archive or array, a missing or repeated entry, an unsupported
// dtype or layout, inconsistent shapes, data shorter or longer than its
// shape, and NaN or ±Inf.
func Read(r io.ReaderAt, size int64) (*Trace, error) {
	z, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("trace: not an .npz (zip) archive: %w", err)
	}
	entries := []*entry{{name: "q.npy"}, {name: "k.npy"}, {name: "v.npy"}}
	for _, f := range z.File {
		for _, e := range entries {
			if f.Name == e.name {
				if e.file != nil {
					return nil, fmt.Errorf("trace: %s appears twice in the archive", e.name)
				}
				e.file = f
			}
		}
	}
	defer func() {
		for _, e := range entries {
			if e.rc != nil {
				e.rc.Close()
			}
		}
	}()
	for _, e := range entries {
		if e.file == nil {
			return nil, fmt.Errorf("trace: archive has no %s (save with np.savez(path, q=..., k=..., v=...))", e.name)
		}
		if e.rc, err = e.file.Open(); err != nil {
			return nil, fmt.Errorf("trace: %s: %w", e.name, err)
		}
		if e.h, err = readNPYHeader(e.rc); err != nil {
			return nil, fmt.Errorf("trace: %s: %w", e.name, err)
		}
	}
	t, err := shapeOf(entries[0].h.shape, entries[1].h.shape, entries[2].h.shape)
	if err != nil {
		return nil, err
	}
	nq, _ := product(t.Layers, t.Tokens, t.QHeads, t.Dim)
	nkv, _ := product(t.Layers, t.Tokens, t.KVHeads, t.Dim)
	for i, dst := range []*[]float32{&t.Q, &t.K, &t.V} {
		count := nkv
		if i == 0 {
			count = nq
		}
		e := entries[i]
		if *dst, err = readData(e.rc, e.h, count); err != nil {
			return nil, fmt.Errorf("trace: %s: %w", e.name, err)
		}
	}
	return t, nil
}

// shapeOf checks the shapes of q, k and v against each other and
// MaxElements and returns a Trace with its dimensions set.
func shapeOf(q, k, v []int) (*Trace, error) {
	if len(q) != 3 && len(q) != 4 {
		return nil, fmt.Errorf("trace: q.npy shape %v; want [T, H, D] or [L, T, H, D]", q)
	}
	if len(k) != len(q) || len(v) != len(q) {
		return nil, fmt.Errorf("trace: shapes q %v, k %v, v %v have different numbers of dimensions", q, k, v)
	}
	for _, s := range [][]int{q, k, v} {
		for _, d := range s {
			if d == 0 {
				return nil, fmt.Errorf("trace: shapes q %v, k %v, v %v; want every dimension positive", q, k, v)
			}
		}
	}
	if len(q) == 3 {
		q, k, v = append([]int{1}, q...), append([]int{1}, k...), append([]int{1}, v...)
	}
	if k[0] != v[0] || k[1] != v[1] || k[2] != v[2] || k[3] != v[3] {
		return nil, fmt.Errorf("trace: k shape %v and v shape %v differ", k, v)
	}
	if q[0] != k[0] || q[1] != k[1] || q[3] != k[3] {
		return nil, fmt.Errorf("trace: q shape %v and k shape %v differ in layers, tokens or head dimension", q, k)
	}
	if q[2]%k[2] != 0 {
		return nil, fmt.Errorf("trace: %d query heads is not a multiple of %d key/value heads", q[2], k[2])
	}
	t := &Trace{Layers: q[0], Tokens: q[1], QHeads: q[2], KVHeads: k[2], Dim: q[3]}
	nq, okq := product(q...)
	nkv, okkv := product(k...)
	if !okq || !okkv || nq > MaxElements-2*nkv {
		return nil, fmt.Errorf("trace: shapes q %v, k %v, v %v hold more than %d numbers", q, k, v, MaxElements)
	}
	return t, nil
}
