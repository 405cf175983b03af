package trace

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"
)

// npyFile builds an .npy file by hand: format version major.0, the given
// header dictionary (padded to 64 bytes and ended with a newline) and data.
func npyFile(major byte, dict string, data []byte) []byte {
	var b bytes.Buffer
	b.WriteString(npyMagic)
	b.Write([]byte{major, 0})
	lenBytes := 2
	if major >= 2 {
		lenBytes = 4
	}
	n := len(npyMagic) + 2 + lenBytes + len(dict) + 1
	pad := (64 - n%64) % 64
	hl := len(dict) + pad + 1
	if major >= 2 {
		binary.Write(&b, binary.LittleEndian, uint32(hl))
	} else {
		binary.Write(&b, binary.LittleEndian, uint16(hl))
	}
	b.WriteString(dict + strings.Repeat(" ", pad) + "\n")
	b.Write(data)
	return b.Bytes()
}

// dict returns the header dictionary NumPy writes for descr and shape.
func dict(descr string, fortran bool, shape ...int) string {
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = fmt.Sprint(d)
	}
	tuple := "(" + strings.Join(dims, ", ") + ")"
	if len(shape) == 1 {
		tuple = fmt.Sprintf("(%d,)", shape[0])
	}
	f := "False"
	if fortran {
		f = "True"
	}
	return fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr, f, tuple)
}

func f32bytes(xs []float32) []byte {
	b := make([]byte, 0, 4*len(xs))
	for _, v := range xs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

func f64bytes(xs []float64) []byte {
	b := make([]byte, 0, 8*len(xs))
	for _, v := range xs {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

// file is one entry of a hand-built archive.
type file struct {
	name string
	data []byte
}

// npz builds a zip archive of files with the given method (zip.Store or
// zip.Deflate).
func npz(t testing.TB, method uint16, files ...file) []byte {
	t.Helper()
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	for _, f := range files {
		w, err := z.CreateHeader(&zip.FileHeader{Name: f.name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(f.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// ramp returns n float32 values start, start+1, … scaled by 1/8.
func ramp(n int, start float32) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = (start + float32(i)) / 8
	}
	return x
}

// testTrace returns a trace with distinct values everywhere.
func testTrace(layers, tokens, qHeads, kvHeads, dim int) *Trace {
	nq := layers * tokens * qHeads * dim
	nkv := layers * tokens * kvHeads * dim
	return &Trace{Layers: layers, Tokens: tokens, QHeads: qHeads, KVHeads: kvHeads, Dim: dim,
		Q: ramp(nq, 0), K: ramp(nkv, -1000), V: ramp(nkv, 5000)}
}

// qkv returns the three entries of an archive of float32 arrays of the
// given shapes filled with ramps.
func qkv(qShape, kShape, vShape []int) []file {
	mk := func(name string, shape []int) file {
		n := 1
		for _, d := range shape {
			n *= d
		}
		return file{name, npyFile(1, dict("<f4", false, shape...), f32bytes(ramp(n, 1)))}
	}
	return []file{mk("q.npy", qShape), mk("k.npy", kShape), mk("v.npy", vShape)}
}

func nan() float64 { return math.NaN() }
func inf() float64 { return math.Inf(1) }
