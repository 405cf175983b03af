package trace

import (
	"archive/zip"
	"bytes"
	"hash/crc32"
	"runtime"
	"strings"
	"testing"
)

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A header may declare an array up to MaxElements; when the data is not
// there, Read must fail without allocating what the header promised.
func TestReadDeclaredShapeCostsNothing(t *testing.T) {
	big := []int{1 << 10, 1 << 6, 1 << 6} // 2^22 elements each: 16 MiB of float32, 48 MiB together
	data := f32bytes(ramp(1000, 1))
	for _, method := range []uint16{zip.Store, zip.Deflate} {
		files := []file{
			{"q.npy", npyFile(1, dict("<f4", false, big...), data)},
			{"k.npy", npyFile(1, dict("<f4", false, big...), data)},
			{"v.npy", npyFile(1, dict("<f4", false, big...), data)},
		}
		archive := npz(t, method, files...)
		var err error
		n := allocated(func() { _, err = read(t, archive) })
		if err == nil || !strings.Contains(err.Error(), "q.npy: data truncated") {
			t.Errorf("method %d: error %v; want q.npy truncated", method, err)
		}
		if n > 2<<20 {
			t.Errorf("method %d: Read allocated %d bytes for a %d-byte archive; want under 2 MiB", method, n, len(archive))
		}
	}
}

// rawNPZ builds a stored archive whose central directory declares the given
// sizes and checksum for each entry, whatever the data really is.
func rawNPZ(t *testing.T, files []file, size func(file) uint64, crc func(file) uint32) []byte {
	t.Helper()
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	for _, f := range files {
		w, err := z.CreateRaw(&zip.FileHeader{Name: f.name, Method: zip.Store, CRC32: crc(f),
			CompressedSize64: size(f), UncompressedSize64: size(f)})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(f.data)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestReadLyingArchive(t *testing.T) {
	shape := []int{4, 2, 8}
	files := qkv(shape, shape, shape)
	honestSize := func(f file) uint64 { return uint64(len(f.data)) }
	honestCRC := func(f file) uint32 { return crc32.ChecksumIEEE(f.data) }
	if _, err := read(t, rawNPZ(t, files, honestSize, honestCRC)); err != nil {
		t.Fatalf("honest raw archive: %v", err)
	}
	tests := []struct {
		name string
		size func(file) uint64
		crc  func(file) uint32
	}{
		{"sizes far beyond the file", func(file) uint64 { return 1 << 40 }, honestCRC},
		{"sizes a little too large", func(f file) uint64 { return uint64(len(f.data)) + 100 }, honestCRC},
		{"sizes too small", func(f file) uint64 { return uint64(len(f.data)) - 4 }, honestCRC},
		{"wrong checksum", honestSize, func(f file) uint32 { return crc32.ChecksumIEEE(f.data) ^ 1 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			archive := rawNPZ(t, files, tc.size, tc.crc)
			var err error
			n := allocated(func() { _, err = read(t, archive) })
			if err == nil || !strings.HasPrefix(err.Error(), "trace: ") {
				t.Errorf("error %v; want a trace error", err)
			}
			if n > 1<<20 {
				t.Errorf("Read allocated %d bytes; want under 1 MiB", n)
			}
		})
	}
}

func TestReadNotZip(t *testing.T) {
	for _, data := range [][]byte{nil, []byte("PK\x03\x04 not really"), npyFile(1, dict("<f4", false, 1, 1, 1), make([]byte, 4))} {
		if _, err := read(t, data); err == nil || !strings.Contains(err.Error(), "trace: not an .npz") {
			t.Errorf("Read(%q…): %v; want a not-an-npz error", data[:min(len(data), 8)], err)
		}
	}
}
