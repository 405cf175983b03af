package trace

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func read(t testing.TB, data []byte) (*Trace, error) {
	t.Helper()
	return Read(bytes.NewReader(data), int64(len(data)))
}

func equalTraces(a, b *Trace) bool {
	return a.Layers == b.Layers && a.Tokens == b.Tokens && a.QHeads == b.QHeads && a.KVHeads == b.KVHeads &&
		a.Dim == b.Dim && slices.Equal(a.Q, b.Q) && slices.Equal(a.K, b.K) && slices.Equal(a.V, b.V)
}

func TestWriteReadRoundTrip(t *testing.T) {
	tests := []struct {
		name                                 string
		layers, tokens, qHeads, kvHeads, dim int
		wantQShape                           string
	}{
		{"one layer is 3-D", 1, 7, 4, 4, 8, "(7, 4, 8)"},
		{"layers are 4-D", 3, 5, 4, 4, 6, "(3, 5, 4, 6)"},
		{"grouped-query", 2, 9, 8, 2, 4, "(2, 9, 8, 4)"},
		{"multi-query", 1, 4, 6, 1, 3, "(4, 6, 3)"},
		{"one of everything", 1, 1, 1, 1, 1, "(1, 1, 1)"},
		{"over a write chunk", 2, 300, 4, 2, 16, "(2, 300, 4, 16)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := testTrace(tc.layers, tc.tokens, tc.qHeads, tc.kvHeads, tc.dim)
			var b bytes.Buffer
			if err := Write(&b, want); err != nil {
				t.Fatal(err)
			}
			// The archive is what np.savez writes: stored entries whose data
			// starts at a multiple of 64 bytes.
			z, err := zip.NewReader(bytes.NewReader(b.Bytes()), int64(b.Len()))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range z.File {
				rc, err := f.Open()
				if err != nil {
					t.Fatal(err)
				}
				var pre [10]byte
				rc.Read(pre[:])
				rc.Close()
				if hl := 10 + int(binary.LittleEndian.Uint16(pre[8:])); f.Method != zip.Store || hl%64 != 0 {
					t.Errorf("%s: method %d, data offset %d; want stored, multiple of 64", f.Name, f.Method, hl)
				}
			}
			if !bytes.Contains(b.Bytes(), []byte("'shape': "+tc.wantQShape)) {
				t.Errorf("archive does not declare q shape %s", tc.wantQShape)
			}
			got, err := read(t, b.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if !equalTraces(got, want) {
				t.Errorf("read back %+v; want %+v", got, want)
			}
		})
	}
}

func TestWriteInvalid(t *testing.T) {
	tr := testTrace(1, 2, 2, 2, 2)
	tr.K[0] = float32(nan())
	var b bytes.Buffer
	if err := Write(&b, tr); err == nil || !strings.Contains(err.Error(), "NaN") {
		t.Errorf("Write of a NaN trace: %v; want a NaN error", err)
	}
	if b.Len() != 0 {
		t.Errorf("Write of an invalid trace wrote %d bytes", b.Len())
	}
}

func TestOpen(t *testing.T) {
	want := testTrace(2, 3, 2, 1, 4)
	path := filepath.Join(t.TempDir(), "trace.npz")
	var b bytes.Buffer
	if err := Write(&b, want); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if !equalTraces(got, want) {
		t.Errorf("Open read %+v; want %+v", got, want)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "missing.npz")); err == nil || !strings.HasPrefix(err.Error(), "trace: ") {
		t.Errorf("Open of a missing file: %v; want a trace error", err)
	}
}

// Archives NumPy can write that Write does not: float64, format versions
// 2.0 and 3.0, deflated entries (np.savez_compressed), 4-D single layer,
// extra entries, list shapes and odd spacing in the header.
func TestReadVariants(t *testing.T) {
	const T, H, D = 3, 2, 4
	n := T * H * D
	q64 := make([]float64, n)
	for i := range q64 {
		q64[i] = float64(i)/4 - 1.5
	}
	q32 := make([]float32, n)
	for i, v := range q64 {
		q32[i] = float32(v)
	}
	kv := f32bytes(ramp(n, 1))
	tests := []struct {
		name   string
		method uint16
		files  []file
		layers int
	}{
		{"float64", zip.Store, []file{{"q.npy", npyFile(1, dict("<f8", false, T, H, D), f64bytes(q64))}}, 1},
		{"version 2.0", zip.Store, []file{{"q.npy", npyFile(2, dict("<f4", false, T, H, D), f32bytes(q32))}}, 1},
		{"version 3.0", zip.Store, []file{{"q.npy", npyFile(3, dict("<f4", false, T, H, D), f32bytes(q32))}}, 1},
		{"deflated", zip.Deflate, []file{{"q.npy", npyFile(1, dict("<f4", false, T, H, D), f32bytes(q32))}}, 1},
		{"deflated float64", zip.Deflate, []file{{"q.npy", npyFile(1, dict("<f8", false, T, H, D), f64bytes(q64))}}, 1},
		{"double quotes, list shape, no trailing comma", zip.Store,
			[]file{{"q.npy", npyFile(1, `{"shape": [3,2,4],"fortran_order":False,  "descr":"<f4"}`, f32bytes(q32))}}, 1},
		{"extra entry", zip.Store, []file{{"notes.txt", []byte("hello")}, {"q.npy", npyFile(1, dict("<f4", false, T, H, D), f32bytes(q32))}}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files := append(tc.files,
				file{"k.npy", npyFile(1, dict("<f4", false, T, H, D), kv)},
				file{"v.npy", npyFile(1, dict("<f4", false, T, H, D), kv)})
			got, err := read(t, npz(t, tc.method, files...))
			if err != nil {
				t.Fatal(err)
			}
			if got.Layers != tc.layers || got.Tokens != T || got.QHeads != H || got.KVHeads != H || got.Dim != D {
				t.Fatalf("dims %+v; want %d×%d×%d×%d", got, tc.layers, T, H, D)
			}
			if !slices.Equal(got.Q, q32) || !slices.Equal(got.K, ramp(n, 1)) || !slices.Equal(got.V, ramp(n, 1)) {
				t.Errorf("data %v / %v; want %v / %v", got.Q, got.K, q32, ramp(n, 1))
			}
		})
	}
}

func TestReadShapes(t *testing.T) {
	tests := []struct {
		name                                 string
		q, k, v                              []int
		layers, tokens, qHeads, kvHeads, dim int
		err                                  string
	}{
		{"3-D", []int{5, 4, 8}, []int{5, 4, 8}, []int{5, 4, 8}, 1, 5, 4, 4, 8, ""},
		{"4-D", []int{2, 5, 4, 8}, []int{2, 5, 4, 8}, []int{2, 5, 4, 8}, 2, 5, 4, 4, 8, ""},
		{"4-D one layer", []int{1, 5, 4, 8}, []int{1, 5, 4, 8}, []int{1, 5, 4, 8}, 1, 5, 4, 4, 8, ""},
		{"GQA 8 over 2", []int{3, 8, 4}, []int{3, 2, 4}, []int{3, 2, 4}, 1, 3, 8, 2, 4, ""},
		{"GQA 6 over 4", []int{3, 6, 4}, []int{3, 4, 4}, []int{3, 4, 4}, 0, 0, 0, 0, 0, "not a multiple"},
		{"more kv heads than q", []int{3, 2, 4}, []int{3, 4, 4}, []int{3, 4, 4}, 0, 0, 0, 0, 0, "not a multiple"},
		{"k and v differ", []int{3, 4, 4}, []int{3, 2, 4}, []int{3, 4, 4}, 0, 0, 0, 0, 0, "k shape [1 3 2 4] and v shape"},
		{"tokens differ", []int{3, 4, 4}, []int{2, 4, 4}, []int{2, 4, 4}, 0, 0, 0, 0, 0, "differ in layers, tokens"},
		{"dims differ", []int{3, 4, 4}, []int{3, 4, 2}, []int{3, 4, 2}, 0, 0, 0, 0, 0, "differ in layers, tokens"},
		{"layers differ", []int{2, 3, 4, 4}, []int{1, 3, 4, 4}, []int{1, 3, 4, 4}, 0, 0, 0, 0, 0, "differ in layers, tokens"},
		{"3-D against 4-D", []int{3, 4, 4}, []int{1, 3, 4, 4}, []int{1, 3, 4, 4}, 0, 0, 0, 0, 0, "numbers of dimensions"},
		{"2-D", []int{3, 16}, []int{3, 16}, []int{3, 16}, 0, 0, 0, 0, 0, "want [T, H, D]"},
		{"5-D", []int{1, 1, 3, 4, 4}, []int{1, 1, 3, 4, 4}, []int{1, 1, 3, 4, 4}, 0, 0, 0, 0, 0, "want [T, H, D]"},
		{"zero tokens", []int{0, 4, 4}, []int{0, 4, 4}, []int{0, 4, 4}, 0, 0, 0, 0, 0, "positive"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := read(t, npz(t, zip.Store, qkv(tc.q, tc.k, tc.v)...))
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), "trace: ") || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v; want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Layers != tc.layers || got.Tokens != tc.tokens || got.QHeads != tc.qHeads || got.KVHeads != tc.kvHeads || got.Dim != tc.dim {
				t.Errorf("dims L%d T%d Hq%d Hkv%d D%d; want L%d T%d Hq%d Hkv%d D%d", got.Layers, got.Tokens, got.QHeads,
					got.KVHeads, got.Dim, tc.layers, tc.tokens, tc.qHeads, tc.kvHeads, tc.dim)
			}
			if err := got.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}

// declared returns q, k and v entries that declare the given shapes but
// hold only 64 bytes of data each.
func declared(qShape, kvShape []int) []file {
	data := f32bytes(ramp(16, 1))
	return []file{
		{"q.npy", npyFile(1, dict("<f4", false, qShape...), data)},
		{"k.npy", npyFile(1, dict("<f4", false, kvShape...), data)},
		{"v.npy", npyFile(1, dict("<f4", false, kvShape...), data)},
	}
}

func TestReadErrors(t *testing.T) {
	shape := []int{2, 2, 4}
	good := qkv(shape, shape, shape)
	data := f32bytes(ramp(16, 1))
	withQ := func(q []byte) []file { return append([]file{{"q.npy", q}}, good[1:]...) }
	withV := func(v []byte) []file { return append(good[:2:2], file{"v.npy", v}) }
	nanData := append([]byte(nil), data...)
	copy(nanData[8:], f32bytes([]float32{float32(nan())}))
	infData := append([]byte(nil), data...)
	copy(infData[60:], f32bytes([]float32{float32(-inf())}))
	hugeHeader := npyFile(2, dict("<f4", false, shape...), data)
	binary.LittleEndian.PutUint32(hugeHeader[8:], 1<<30)

	tests := []struct {
		name  string
		files []file
		want  string
	}{
		{"missing q", good[1:], "no q.npy"},
		{"missing v", good[:2], "no v.npy"},
		{"repeated k", append(good[:3:3], good[1]), "k.npy appears twice"},
		{"fortran order", withQ(npyFile(1, dict("<f4", true, shape...), data)), "Fortran"},
		{"int32", withQ(npyFile(1, dict("<i4", false, shape...), data)), `dtype "<i4" not supported`},
		{"float16", withQ(npyFile(1, dict("<f2", false, shape...), data[:32])), `dtype "<f2" not supported`},
		{"big-endian", withQ(npyFile(1, dict(">f4", false, shape...), data)), "big-endian"},
		{"truncated data", withQ(npyFile(1, dict("<f4", false, shape...), data[:63])), "q.npy: data truncated"},
		{"no data", withV(npyFile(1, dict("<f4", false, shape...), nil)), "v.npy: data truncated"},
		{"data too long", withQ(npyFile(1, dict("<f4", false, shape...), append(data, 0))), "q.npy: data longer"},
		{"float64 data as float32 shape", withQ(npyFile(1, dict("<f8", false, shape...), data)), "data truncated"},
		{"NaN", withQ(npyFile(1, dict("<f4", false, shape...), nanData)), "element 2 (index [0 0 2]) is NaN"},
		{"Inf", withV(npyFile(1, dict("<f4", false, shape...), infData)), "v.npy: element 15 (index [1 1 3]) is -Inf"},
		{"float64 beyond float32", withQ(npyFile(1, dict("<f8", false, shape...),
			f64bytes(append(make([]float64, 15), 1e300)))), "is 1e+300"},
		{"bad magic", withQ(append([]byte("\x93NUMPZ"), npyFile(1, dict("<f4", false, shape...), data)[6:]...)), "bad magic"},
		{"version 4.0", withQ(npyFile(4, dict("<f4", false, shape...), data)), "version 4.0"},
		{"empty entry", withQ(nil), "q.npy: not an .npy file: file truncated"},
		{"header over limit", withQ(hugeHeader), "over the 65536-byte limit"},
		{"header cut short", withQ(npyFile(1, dict("<f4", false, shape...), nil)[:40]), "header: file truncated"},
		{"extra key", withQ(npyFile(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2, 4), 'x': True}", data)), "keys other than"},
		{"missing shape", withQ(npyFile(1, "{'descr': '<f4', 'fortran_order': False}", data)), "'shape' missing"},
		{"missing descr", withQ(npyFile(1, "{'fortran_order': False, 'shape': (2, 2, 4)}", data)), "'descr' missing"},
		{"structured dtype", withQ(npyFile(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2, 2, 4)}", data)), "'descr'"},
		{"negative dimension", withQ(npyFile(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, -2, 4)}", data)), "non-negative"},
		{"huge dimension", withQ(npyFile(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 99999999999, 4)}", data)), "too large"},
		{"repeated key", withQ(npyFile(1, "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2, 2, 4)}", data)), "repeated"},
		{"unterminated", withQ(npyFile(1, "{'descr': '<f4", data)), "unterminated"},
		{"not a dict", withQ(npyFile(1, "('<f4', False)", data)), "not a dictionary"},
		{"text after dict", withQ(npyFile(1, dict("<f4", false, shape...)+" x", data)), "after the dictionary"},
		{"q over MaxElements", declared([]int{1 << 20, 1 << 6, 1 << 4}, []int{1 << 20, 1 << 2, 1 << 4}), "more than 268435456"},
		{"together over MaxElements", declared([]int{1 << 13, 1 << 7, 1 << 7}, []int{1 << 13, 1 << 7, 1 << 7}), "more than 268435456"},
		{"dimension product overflows", declared([]int{1 << 30, 1 << 30, 1 << 30, 1 << 30}, []int{1 << 30, 1 << 30, 1 << 30, 1 << 30}), "more than 268435456"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := read(t, npz(t, zip.Store, tc.files...))
			if err == nil || !strings.HasPrefix(err.Error(), "trace: ") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v; want one containing %q", err, tc.want)
			}
		})
	}
}
