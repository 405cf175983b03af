package trace

import (
	"archive/zip"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strings"
)

// Write validates t (see Validate) and writes it to w as an uncompressed
// .npz archive, as np.savez does: q.npy, k.npy and v.npy, little-endian
// float32 in C order, shaped [T, H, D] when t has one layer and
// [L, T, H, D] otherwise. np.load and Read read it back unchanged.
func Write(w io.Writer, t *Trace) error {
	if err := t.Validate(); err != nil {
		return err
	}
	z := zip.NewWriter(w)
	buf := make([]byte, 0, 32<<10)
	for _, a := range []struct {
		name  string
		x     []float32
		heads int
	}{{"q.npy", t.Q, t.QHeads}, {"k.npy", t.K, t.KVHeads}, {"v.npy", t.V, t.KVHeads}} {
		f, err := z.CreateHeader(&zip.FileHeader{Name: a.name, Method: zip.Store})
		if err != nil {
			return fmt.Errorf("trace: %s: %w", a.name, err)
		}
		shape := []int{t.Layers, t.Tokens, a.heads, t.Dim}
		if t.Layers == 1 {
			shape = shape[1:]
		}
		buf = appendNPYHeader(buf[:0], shape)
		for _, v := range a.x {
			if len(buf)+4 > cap(buf) {
				if _, err := f.Write(buf); err != nil {
					return fmt.Errorf("trace: %s: %w", a.name, err)
				}
				buf = buf[:0]
			}
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
		}
		if _, err := f.Write(buf); err != nil {
			return fmt.Errorf("trace: %s: %w", a.name, err)
		}
	}
	if err := z.Close(); err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	return nil
}

// appendNPYHeader appends an .npy version 1.0 header for a float32 C-order
// array of the given shape (at least two dimensions), padded with spaces so
// the data starts at a multiple of 64 bytes, as NumPy pads it.
func appendNPYHeader(b []byte, shape []int) []byte {
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = fmt.Sprint(d)
	}
	dict := "{'descr': '<f4', 'fortran_order': False, 'shape': (" + strings.Join(dims, ", ") + "), }"
	n := len(npyMagic) + 4 + len(dict) + 1 // magic, version, length, dict, newline
	pad := (64 - n%64) % 64
	b = append(b, npyMagic...)
	b = append(b, 1, 0)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(dict)+pad+1))
	b = append(b, dict...)
	b = append(b, strings.Repeat(" ", pad)...)
	return append(b, '\n')
}
