package gguf

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/x448/float16"
)

// TensorType is the element type of a tensor (ggml's type numbering).
type TensorType uint32

// Tensor types whose sizes the loader knows. ReadFloat32 decodes F32, F16, BF16,
// Q8_0 and Q4_0; the others can be listed and sized but not decoded.
const (
	TypeF32  TensorType = 0
	TypeF16  TensorType = 1
	TypeQ4_0 TensorType = 2
	TypeQ4_1 TensorType = 3
	TypeQ5_0 TensorType = 6
	TypeQ5_1 TensorType = 7
	TypeQ8_0 TensorType = 8
	TypeQ8_1 TensorType = 9
	TypeI8   TensorType = 24
	TypeI16  TensorType = 25
	TypeI32  TensorType = 26
	TypeI64  TensorType = 27
	TypeF64  TensorType = 28
	TypeBF16 TensorType = 30
)

type typeTraits struct {
	name       string
	blockElems uint64 // elements per block
	blockBytes uint64 // bytes per block
}

var tensorTypes = map[TensorType]typeTraits{
	TypeF32:  {"F32", 1, 4},
	TypeF16:  {"F16", 1, 2},
	TypeQ4_0: {"Q4_0", 32, 18},
	TypeQ4_1: {"Q4_1", 32, 20},
	TypeQ5_0: {"Q5_0", 32, 22},
	TypeQ5_1: {"Q5_1", 32, 24},
	TypeQ8_0: {"Q8_0", 32, 34},
	TypeQ8_1: {"Q8_1", 32, 36},
	TypeI8:   {"I8", 1, 1},
	TypeI16:  {"I16", 1, 2},
	TypeI32:  {"I32", 1, 4},
	TypeI64:  {"I64", 1, 8},
	TypeF64:  {"F64", 1, 8},
	TypeBF16: {"BF16", 1, 2},
}

// String returns the ggml name of the type ("F32", "Q8_0", …) or "TensorType(n)".
func (t TensorType) String() string {
	if tr, ok := tensorTypes[t]; ok {
		return tr.name
	}
	return fmt.Sprintf("TensorType(%d)", uint32(t))
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
	tr := tensorTypes[t.Type]
	if tr.blockElems == 0 {
		return 0
	}
	return t.NumElements() / tr.blockElems * tr.blockBytes
}

// validate checks dimensions and type; it is called by Load for every tensor.
func (t *TensorInfo) validate() error {
	tr, ok := tensorTypes[t.Type]
	if !ok {
		return fmt.Errorf("gguf: tensor %q: unsupported tensor type %v", t.Name, t.Type)
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
	dst := make([]float32, t.NumElements())
	return dst, f.ReadFloat32Into(t, dst)
}

// ReadFloat32Into decodes tensor t into dst, which must have exactly
// t.NumElements() elements. It reads the tensor's bytes in one call to the
// underlying io.ReaderAt, using a temporary buffer unless t is F32.
func (f *File) ReadFloat32Into(t *TensorInfo, dst []float32) error {
	if uint64(len(dst)) != t.NumElements() {
		return fmt.Errorf("gguf: tensor %q has %d elements, destination %d", t.Name, t.NumElements(), len(dst))
	}
	raw, err := f.ReadBytes(t)
	if err != nil {
		return err
	}
	switch t.Type {
	case TypeF32:
		for i := range dst {
			dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
	case TypeF16:
		for i := range dst {
			dst[i] = float16.Frombits(binary.LittleEndian.Uint16(raw[2*i:])).Float32()
		}
	case TypeBF16:
		for i := range dst {
			dst[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(raw[2*i:])) << 16)
		}
	case TypeQ8_0:
		// Blocks of 34 bytes: an F16 scale d, then 32 int8 quants q; x = d*q.
		for b := 0; b < len(dst)/32; b++ {
			blk := raw[34*b : 34*b+34]
			d := float16.Frombits(binary.LittleEndian.Uint16(blk)).Float32()
			for j := 0; j < 32; j++ {
				dst[32*b+j] = d * float32(int8(blk[2+j]))
			}
		}
	case TypeQ4_0:
		// Blocks of 18 bytes: an F16 scale d, then 16 bytes whose low nibbles
		// are quants 0–15 and high nibbles quants 16–31; x = d*(q−8).
		for b := 0; b < len(dst)/32; b++ {
			blk := raw[18*b : 18*b+18]
			d := float16.Frombits(binary.LittleEndian.Uint16(blk)).Float32()
			for j, q := range blk[2:18] {
				dst[32*b+j] = d * float32(int(q&15)-8)
				dst[32*b+j+16] = d * float32(int(q>>4)-8)
			}
		}
	default:
		return fmt.Errorf("gguf: tensor %q: cannot decode type %v to float32", t.Name, t.Type)
	}
	return nil
}

// ReadBytes returns tensor t's data as stored in the file (NumBytes bytes),
// read in one call to the underlying io.ReaderAt into a new slice.
func (f *File) ReadBytes(t *TensorInfo) ([]byte, error) {
	raw := make([]byte, t.NumBytes())
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
