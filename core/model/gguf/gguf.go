// Package gguf reads GGUF model files (versions 1 to 3): metadata, tensor
// descriptions and tensor data decoded to float32. It is also the one
// description of ggml's tensor types: block sizes, and for the types used
// by small real models (F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q4_K,
// Q5_K, Q6_K) a Codec that dequantizes a row bit for bit as llama.cpp does,
// dots a stored row with a float32 vector, and encodes float32 values.
//
// Load validates every count, length, dimension and offset against the file
// size before allocating, so truncated or hostile input yields an error, never a
// panic or an allocation much larger than the file.
package gguf

import (
	"bytes"
	"fmt"
	"io"
)

// Magic is the first four bytes of every GGUF file.
const Magic = "GGUF"

// DefaultAlignment is the tensor data alignment used when the file has no
// general.alignment key.
const DefaultAlignment = 32

// File is a parsed GGUF file. Tensor data stays in the underlying io.ReaderAt
// (or byte slice, see LoadBytes) and is read on demand by ReadFloat32 and
// ReadBytes; the reader must stay valid while the File is used.
type File struct {
	Version uint32
	// Alignment of the tensor data (general.alignment, or DefaultAlignment).
	Alignment int
	// Metadata in file order; keys are unique.
	Metadata []KV
	// Tensors in file order; names are unique.
	Tensors []TensorInfo
	// DataOffset is the absolute file offset where tensor data begins.
	DataOffset int64

	r       io.ReaderAt
	data    []byte // the whole file, for a File from LoadBytes
	size    int64
	kvIndex map[string]int
	tIndex  map[string]int
}

// Load parses the header of a GGUF file of size bytes read from r. It returns an
// error (prefixed "gguf:") if the magic or version is wrong, the file is
// truncated, a value type or tensor type is unknown, a key or tensor name is
// repeated, the alignment is not a power of two, a tensor has zero or more than
// MaxDims dimensions, or a tensor's data lies outside the file or is misaligned.
func Load(r io.ReaderAt, size int64) (*File, error) {
	if size < 0 {
		return nil, fmt.Errorf("gguf: negative size %d", size)
	}
	d := newDecoder(r, size)
	magic, err := d.read(4)
	if err != nil {
		return nil, fmt.Errorf("gguf: not a GGUF file: %w", err)
	}
	if string(magic) != Magic {
		return nil, fmt.Errorf("gguf: not a GGUF file: magic %q", magic)
	}
	if d.version, err = d.u32(); err != nil {
		return nil, err
	}
	if d.version < 1 || d.version > 3 {
		return nil, fmt.Errorf("gguf: unsupported version %d (want 1, 2 or 3)", d.version)
	}
	f := &File{Version: d.version, Alignment: DefaultAlignment, r: r, size: size}

	// Smallest encodings: a tensor info is a name length, n_dims, one dim, type and
	// offset; a KV is a key length, a value type and a one-byte value.
	cs := d.countSize()
	nTensors, err := d.count("tensor count", cs+4+cs+4+8)
	if err != nil {
		return nil, err
	}
	nKV, err := d.count("metadata count", cs+4+1)
	if err != nil {
		return nil, err
	}

	f.Metadata = make([]KV, 0, nKV)
	f.kvIndex = make(map[string]int, nKV)
	for i := 0; i < nKV; i++ {
		key, err := d.str("metadata key")
		if err != nil {
			return nil, err
		}
		if _, dup := f.kvIndex[key]; dup {
			return nil, fmt.Errorf("gguf: duplicate metadata key %q", key)
		}
		t, err := d.valueType()
		if err != nil {
			return nil, fmt.Errorf("gguf: metadata %q: %w", key, err)
		}
		v, err := d.value(t, 0)
		if err != nil {
			return nil, fmt.Errorf("gguf: metadata %q: %w", key, err)
		}
		f.kvIndex[key] = len(f.Metadata)
		f.Metadata = append(f.Metadata, KV{Key: key, Value: v})
	}
	if v, ok := f.Lookup("general.alignment"); ok {
		a, ok := v.Int()
		if !ok || a <= 0 || a > 1<<20 || a&(a-1) != 0 {
			return nil, fmt.Errorf("gguf: general.alignment %v is not a power of two up to 2^20", v.Data)
		}
		f.Alignment = int(a)
	}

	f.Tensors = make([]TensorInfo, nTensors)
	f.tIndex = make(map[string]int, nTensors)
	for i := range f.Tensors {
		t := &f.Tensors[i]
		if t.Name, err = d.str("tensor name"); err != nil {
			return nil, err
		}
		if _, dup := f.tIndex[t.Name]; dup {
			return nil, fmt.Errorf("gguf: duplicate tensor %q", t.Name)
		}
		f.tIndex[t.Name] = i
		nDims, err := d.u32()
		if err != nil {
			return nil, err
		}
		if nDims < 1 || nDims > MaxDims {
			return nil, fmt.Errorf("gguf: tensor %q has %d dimensions (want 1 to %d)", t.Name, nDims, MaxDims)
		}
		t.Dims = make([]uint64, nDims)
		for j := range t.Dims {
			if t.Dims[j], err = d.word(); err != nil {
				return nil, err
			}
		}
		typ, err := d.u32()
		if err != nil {
			return nil, err
		}
		t.Type = TensorType(typ)
		if t.Offset, err = d.u64(); err != nil {
			return nil, err
		}
		if err := t.validate(); err != nil {
			return nil, err
		}
	}

	align := int64(f.Alignment)
	f.DataOffset = (d.off + align - 1) / align * align
	if f.DataOffset > size && nTensors > 0 {
		return nil, fmt.Errorf("gguf: tensor data would start at %d, past the end of the %d-byte file", f.DataOffset, size)
	}
	avail := uint64(max(size-f.DataOffset, 0))
	for i := range f.Tensors {
		t := &f.Tensors[i]
		if t.Offset%uint64(align) != 0 {
			return nil, fmt.Errorf("gguf: tensor %q offset %d is not a multiple of the alignment %d", t.Name, t.Offset, align)
		}
		if nb := t.NumBytes(); t.Offset > avail || nb > avail-t.Offset {
			return nil, fmt.Errorf("gguf: tensor %q (%d bytes at data offset %d) extends past the end of the file (%d data bytes)", t.Name, nb, t.Offset, avail)
		}
	}
	return f, nil
}

// LoadBytes is Load for a file held in memory. The File then reads tensor
// data without copying: ReadBytes returns sub-slices of b, and whatever
// keeps them (a model's kept-quantized matrices) aliases b. The caller must
// not modify b while the File or anything read from it is in use.
func LoadBytes(b []byte) (*File, error) {
	f, err := Load(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, err
	}
	f.data = b
	return f, nil
}

// Lookup returns the metadata value stored under key.
func (f *File) Lookup(key string) (Value, bool) {
	i, ok := f.kvIndex[key]
	if !ok {
		return Value{}, false
	}
	return f.Metadata[i].Value, true
}

// Tensor returns the description of the named tensor.
func (f *File) Tensor(name string) (*TensorInfo, bool) {
	i, ok := f.tIndex[name]
	if !ok {
		return nil, false
	}
	return &f.Tensors[i], true
}
