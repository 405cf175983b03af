package gguf_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/kvscope/kvscope/core/internal/testmodel"
	"github.com/kvscope/kvscope/core/model/gguf"
	"github.com/kvscope/kvscope/core/model/ggufwrite"
)

// FuzzLoad feeds arbitrary bytes to Load: it must return an error or a File
// whose tensors all decode, never panic. Seeds: small valid files of every
// version, and the first 4 KiB of the real model when it is present.
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
		if err != nil {
			return
		}
		for i := range file.Tensors {
			ti := &file.Tensors[i]
			if ti.NumBytes() > uint64(len(data)) {
				t.Fatalf("tensor %q claims %d bytes in a %d-byte file", ti.Name, ti.NumBytes(), len(data))
			}
			switch ti.Type {
			case gguf.TypeF32, gguf.TypeF16, gguf.TypeBF16, gguf.TypeQ8_0:
				if _, err := file.ReadFloat32(ti.Name); err != nil {
					t.Fatalf("tensor %q: %v", ti.Name, err)
				}
			}
		}
	})
}
