package gguf

import (
	"fmt"
	"strings"
)

// TensorType is the element type of a tensor (ggml's type numbering).
type TensorType uint32

// Tensor types whose block sizes the loader knows, so that a file holding
// any of them can be listed and sized. Codec reports which of them can also
// be decoded, dotted and encoded: F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1,
// Q8_0, Q4_K, Q5_K and Q6_K.
const (
	TypeF32     TensorType = 0
	TypeF16     TensorType = 1
	TypeQ4_0    TensorType = 2
	TypeQ4_1    TensorType = 3
	TypeQ5_0    TensorType = 6
	TypeQ5_1    TensorType = 7
	TypeQ8_0    TensorType = 8
	TypeQ8_1    TensorType = 9
	TypeQ2_K    TensorType = 10
	TypeQ3_K    TensorType = 11
	TypeQ4_K    TensorType = 12
	TypeQ5_K    TensorType = 13
	TypeQ6_K    TensorType = 14
	TypeQ8_K    TensorType = 15
	TypeIQ2_XXS TensorType = 16
	TypeIQ2_XS  TensorType = 17
	TypeIQ3_XXS TensorType = 18
	TypeIQ1_S   TensorType = 19
	TypeIQ4_NL  TensorType = 20
	TypeIQ3_S   TensorType = 21
	TypeIQ2_S   TensorType = 22
	TypeIQ4_XS  TensorType = 23
	TypeI8      TensorType = 24
	TypeI16     TensorType = 25
	TypeI32     TensorType = 26
	TypeI64     TensorType = 27
	TypeF64     TensorType = 28
	TypeIQ1_M   TensorType = 29
	TypeBF16    TensorType = 30
	TypeTQ1_0   TensorType = 34
	TypeTQ2_0   TensorType = 35
	TypeMXFP4   TensorType = 39
)

// typeTraits is what the package knows of one tensor type: its name, its
// block size (ggml-common.h) and, when it can decode the type, its kernels.
type typeTraits struct {
	name       string
	blockElems uint64 // elements per block
	blockBytes uint64 // bytes per block
	codec      *Codec // nil when the values cannot be decoded
}

// tensorTypes is indexed by TensorType; an entry with no name is unknown.
// The types kvscope decodes come first, one a line; the others, named and
// sized so that a file holding them is described and refused clearly,
// follow by family.
var tensorTypes = [...]typeTraits{
	TypeF32:  {"F32", 1, 4, &codecF32},
	TypeF16:  {"F16", 1, 2, &codecF16},
	TypeBF16: {"BF16", 1, 2, &codecBF16},
	TypeQ8_0: {"Q8_0", 32, 34, &codecQ8_0},
	TypeQ4_0: {"Q4_0", 32, 18, &codecQ4_0},
	TypeQ4_1: {"Q4_1", 32, 20, &codecQ4_1},
	TypeQ5_0: {"Q5_0", 32, 22, &codecQ5_0},
	TypeQ5_1: {"Q5_1", 32, 24, &codecQ5_1},
	TypeQ4_K: {"Q4_K", 256, 144, &codecQ4_K},
	TypeQ5_K: {"Q5_K", 256, 176, &codecQ5_K},
	TypeQ6_K: {"Q6_K", 256, 210, &codecQ6_K},

	TypeQ8_1: {"Q8_1", 32, 36, nil}, TypeQ8_K: {"Q8_K", 256, 292, nil},
	TypeQ2_K: {"Q2_K", 256, 84, nil}, TypeQ3_K: {"Q3_K", 256, 110, nil},
	TypeIQ1_S: {"IQ1_S", 256, 50, nil}, TypeIQ1_M: {"IQ1_M", 256, 56, nil},
	TypeIQ2_XXS: {"IQ2_XXS", 256, 66, nil}, TypeIQ2_XS: {"IQ2_XS", 256, 74, nil}, TypeIQ2_S: {"IQ2_S", 256, 82, nil},
	TypeIQ3_XXS: {"IQ3_XXS", 256, 98, nil}, TypeIQ3_S: {"IQ3_S", 256, 110, nil},
	TypeIQ4_NL: {"IQ4_NL", 32, 18, nil}, TypeIQ4_XS: {"IQ4_XS", 256, 136, nil},
	TypeTQ1_0: {"TQ1_0", 256, 54, nil}, TypeTQ2_0: {"TQ2_0", 256, 66, nil}, TypeMXFP4: {"MXFP4", 32, 17, nil},
	TypeI8: {"I8", 1, 1, nil}, TypeI16: {"I16", 1, 2, nil}, TypeI32: {"I32", 1, 4, nil}, TypeI64: {"I64", 1, 8, nil}, TypeF64: {"F64", 1, 8, nil},
}

// traits returns t's entry and whether the type is known.
func (t TensorType) traits() (*typeTraits, bool) {
	if uint64(t) >= uint64(len(tensorTypes)) || tensorTypes[t].name == "" {
		return nil, false
	}
	return &tensorTypes[t], true
}

// String returns the ggml name of the type ("F32", "Q8_0", …) or "TensorType(n)".
func (t TensorType) String() string {
	if tr, ok := t.traits(); ok {
		return tr.name
	}
	return fmt.Sprintf("TensorType(%d)", uint32(t))
}

// BlockElems returns the number of values in one block of type t (1 for
// F32, F16 and BF16, 32 for Q8_0, 256 for the K-quants), or 0 for an
// unknown type.
func (t TensorType) BlockElems() int {
	if tr, ok := t.traits(); ok {
		return int(tr.blockElems)
	}
	return 0
}

// BlockBytes returns the size in bytes of one block of type t, or 0 for an
// unknown type.
func (t TensorType) BlockBytes() int {
	if tr, ok := t.traits(); ok {
		return int(tr.blockBytes)
	}
	return 0
}

// RowBytes returns the bytes that n values of type t occupy, or −1 if the
// type is unknown or n is not a non-negative multiple of its block size.
func (t TensorType) RowBytes(n int) int {
	be, bb := t.BlockElems(), t.BlockBytes()
	if be == 0 || n < 0 || n%be != 0 {
		return -1
	}
	return n / be * bb
}

// MaxDims is the largest number of dimensions a tensor may have.
const MaxDims = 4

// maxElements caps a tensor's element count (and each dimension) well below any
// overflow of the byte-size arithmetic.
const maxElements = 1 << 40

// TensorInfo describes one tensor of a file.
type TensorInfo struct {
	Name string
	// Dims lists the dimensions innermost (fastest-varying) first, as ggml does: a
	// matrix with Dims [in, out] is stored row-major as out rows of in elements.
	Dims []uint64
	Type TensorType
	// Offset is the position of the tensor's data relative to File.DataOffset.
	Offset uint64
}

// NumElements returns the product of the dimensions.
func (t *TensorInfo) NumElements() uint64 {
	n := uint64(1)
	for _, d := range t.Dims {
		n *= d
	}
	return n
}

// NumBytes returns the size of the tensor's data in the file.
func (t *TensorInfo) NumBytes() uint64 {
	tr, ok := t.Type.traits()
	if !ok {
		return 0
	}
	return t.NumElements() / tr.blockElems * tr.blockBytes
}

// validate checks dimensions and type; it is called by Load for every tensor.
func (t *TensorInfo) validate() error {
	tr, ok := t.Type.traits()
	if !ok {
		return fmt.Errorf("gguf: tensor %q: unknown tensor type %v", t.Name, t.Type)
	}
	n := uint64(1)
	for i, d := range t.Dims {
		if d == 0 || d > maxElements {
			return fmt.Errorf("gguf: tensor %q: dimension %d is %d", t.Name, i, d)
		}
		if n > maxElements/d {
			return fmt.Errorf("gguf: tensor %q: more than %d elements", t.Name, uint64(maxElements))
		}
		n *= d
	}
	if t.Dims[0]%tr.blockElems != 0 {
		return fmt.Errorf("gguf: tensor %q: innermost dimension %d is not a multiple of the %v block size %d", t.Name, t.Dims[0], t.Type, tr.blockElems)
	}
	return nil
}

// ReadFloat32 decodes the named tensor into a new []float32 of NumElements
// elements, in storage order. It returns an error if the tensor does not exist,
// its type cannot be decoded, or the read fails.
func (f *File) ReadFloat32(name string) ([]float32, error) {
	t, ok := f.Tensor(name)
	if !ok {
		return nil, fmt.Errorf("gguf: no tensor %q", name)
	}
	if t.Type.codec() == nil {
		return nil, fmt.Errorf("gguf: tensor %q: type %v not supported", t.Name, t.Type)
	}
	dst := make([]float32, t.NumElements())
	return dst, f.ReadFloat32Into(t, dst)
}

// ReadFloat32Into decodes tensor t into dst, which must have exactly
// t.NumElements() elements, with t's Codec (exactly as ggml dequantizes).
// It reads the tensor's bytes with ReadBytes: no copy for a File from
// LoadBytes, else one call to the underlying io.ReaderAt into a temporary
// buffer. A type the package cannot decode is an error naming it and the
// tensor.
func (f *File) ReadFloat32Into(t *TensorInfo, dst []float32) error {
	if uint64(len(dst)) != t.NumElements() {
		return fmt.Errorf("gguf: tensor %q has %d elements, destination %d", t.Name, t.NumElements(), len(dst))
	}
	c := t.Type.codec()
	if c == nil {
		return fmt.Errorf("gguf: tensor %q: type %v not supported", t.Name, t.Type)
	}
	raw, err := f.ReadBytes(t)
	if err != nil {
		return err
	}
	c.Dequantize(dst, raw)
	return nil
}

// ReadBytes returns tensor t's data as stored in the file (NumBytes bytes).
// For a File from LoadBytes it is a sub-slice of the loaded bytes (capacity
// clipped to the tensor), which the caller must not modify; otherwise it is
// a new slice filled by one call to the underlying io.ReaderAt.
func (f *File) ReadBytes(t *TensorInfo) ([]byte, error) {
	n := t.NumBytes()
	if f.data != nil {
		off := uint64(f.DataOffset) + t.Offset
		if off > uint64(len(f.data)) || n > uint64(len(f.data))-off {
			return nil, fmt.Errorf("gguf: tensor %q (%d bytes at %d) lies outside the %d-byte file", t.Name, n, off, len(f.data))
		}
		return f.data[off : off+n : off+n], nil
	}
	raw := make([]byte, n)
	if _, err := f.r.ReadAt(raw, f.DataOffset+int64(t.Offset)); err != nil {
		return nil, fmt.Errorf("gguf: reading tensor %q: %w", t.Name, err)
	}
	return raw, nil
}

// DimsString formats dimensions as "[64 512]" for error messages.
func DimsString(dims []uint64) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, d := range dims {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprint(&b, d)
	}
	b.WriteByte(']')
	return b.String()
}
