package gguf_test

import (
	"bytes"
	"math"
	"os"
	"testing"

	"github.com/kvscope/kvscope/core/internal/testmodel"
	"github.com/kvscope/kvscope/core/model/gguf"
	"github.com/kvscope/kvscope/core/model/ggufwrite"
)

// FuzzLoad feeds arbitrary bytes to Load and LoadBytes: they must agree and
// return an error or a File whose tensors of every decodable type decode
// to the same values either way, never panic. Seeds: small valid files of
// every version, and the first 4 KiB of the real model when it is present.
func FuzzLoad(f *testing.F) {
	for _, v := range []uint32{1, 2, 3} {
		f.Add(ggufwrite.Encode(v, allTypesKVs(), testTensors()))
		f.Add(ggufwrite.Encode(v, nil, nil))
	}
	if p, err := testmodel.Path(); err == nil {
		if b, err := os.ReadFile(p); err == nil && len(b) > 4096 {
			f.Add(b[:4096])
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := gguf.Load(bytes.NewReader(data), int64(len(data)))
		fb, errb := gguf.LoadBytes(data)
		if (err == nil) != (errb == nil) {
			t.Fatalf("Load: %v; LoadBytes: %v", err, errb)
		}
		if err != nil {
			return
		}
		for i := range file.Tensors {
			ti := &file.Tensors[i]
			if ti.NumBytes() > uint64(len(data)) {
				t.Fatalf("tensor %q claims %d bytes in a %d-byte file", ti.Name, ti.NumBytes(), len(data))
			}
			if _, err := ti.Type.Codec(); err != nil {
				continue
			}
			a, err := file.ReadFloat32(ti.Name)
			if err != nil {
				t.Fatalf("tensor %q: %v", ti.Name, err)
			}
			b, err := fb.ReadFloat32(ti.Name)
			if err != nil {
				t.Fatalf("tensor %q from bytes: %v", ti.Name, err)
			}
			for j := range a {
				if math.Float32bits(a[j]) != math.Float32bits(b[j]) {
					t.Fatalf("tensor %q value %d: %v, from bytes %v", ti.Name, j, a[j], b[j])
				}
			}
		}
	})
}
