// Package ggufwrite encodes GGUF files for tests and benchmarks of kvscope's
// loader and model: it writes exactly the layout that package gguf reads,
// versions 1 to 3, and synthesizes whole llama models with seeded random
// weights (Llama, Stories15M), since no real weights of the larger shapes
// ship with the project. Its functions panic on values they cannot encode
// (test helpers).
package ggufwrite

import (
	"encoding/binary"
	"fmt"
	"reflect"

	"github.com/kvscope/kvscope/core/model/gguf"
)

// Tensor is one tensor to encode; Data holds its raw little-endian bytes.
type Tensor struct {
	Name string
	Dims []uint64 // innermost first
	Type gguf.TensorType
	Data []byte
}

// Quant returns a tensor of type typ holding x, encoded by typ's gguf.Codec
// (ggml's reference quantizers; F16 and BF16 round to nearest even). dims
// are innermost first and their product must be len(x). It returns an error
// for a type package gguf cannot encode, or a len(x) that is not a whole
// number of rows of whole blocks.
func Quant(name string, typ gguf.TensorType, x []float32, dims ...uint64) (Tensor, error) {
	c, err := typ.Codec()
	if err != nil {
		return Tensor{}, fmt.Errorf("ggufwrite: tensor %q: %w", name, err)
	}
	n := uint64(1)
	for _, d := range dims {
		n *= d
	}
	be := uint64(typ.BlockElems())
	if len(dims) == 0 || n != uint64(len(x)) || dims[0]%be != 0 {
		return Tensor{}, fmt.Errorf("ggufwrite: tensor %q: %d values in dims %s, rows of whole %v blocks of %d", name, len(x), gguf.DimsString(dims), typ, be)
	}
	b := make([]byte, typ.RowBytes(len(x)))
	c.Quantize(b, x)
	return Tensor{Name: name, Dims: dims, Type: typ, Data: b}, nil
}

// must is Quant for the helpers below, which panic on bad input (test
// helpers).
func must(name string, typ gguf.TensorType, x []float32, dims []uint64) Tensor {
	t, err := Quant(name, typ, x, dims...)
	if err != nil {
		panic(err)
	}
	return t
}

// F32 returns a tensor of type F32 holding x.
func F32(name string, x []float32, dims ...uint64) Tensor { return must(name, gguf.TypeF32, x, dims) }

// F16 returns a tensor of type F16 holding x rounded to half precision.
func F16(name string, x []float32, dims ...uint64) Tensor { return must(name, gguf.TypeF16, x, dims) }

// BF16 returns a tensor of type BF16 holding x rounded to bfloat16 (the top
// 16 bits of the float32, rounded to nearest even; NaN stays NaN).
func BF16(name string, x []float32, dims ...uint64) Tensor { return must(name, gguf.TypeBF16, x, dims) }

// Q8_0 returns a tensor of type Q8_0 holding x quantized in blocks of 32
// (len(x) must be a multiple of 32) as llama.cpp does: d = max |x|/127,
// each quant round(x/d).
func Q8_0(name string, x []float32, dims ...uint64) Tensor { return must(name, gguf.TypeQ8_0, x, dims) }

// Q4_0 returns a tensor of type Q4_0 holding x quantized in blocks of 32
// (len(x) must be a multiple of 32) as llama.cpp does: the scale d is the
// block's value of largest magnitude divided by −8, each quant is
// min(15, ⌊x/d + 8.5⌋), and byte j holds quant j in its low nibble and
// quant j+16 in its high nibble.
func Q4_0(name string, x []float32, dims ...uint64) Tensor { return must(name, gguf.TypeQ4_0, x, dims) }

// Encode returns a GGUF file of the given version (1, 2 or 3). The alignment is
// taken from a general.alignment entry in kvs if present, else
// gguf.DefaultAlignment. Tensors are laid out in order, each aligned. Values must
// hold the Go types documented on gguf.Value; Encode panics otherwise (test
// helper).
func Encode(version uint32, kvs []gguf.KV, tensors []Tensor) []byte {
	w := &writer{version: version}
	align := uint64(gguf.DefaultAlignment)
	for _, kv := range kvs {
		if kv.Key == "general.alignment" {
			a, _ := kv.Value.Int()
			align = uint64(a)
		}
	}
	size := uint64(1 << 20) // the header, generously
	for _, t := range tensors {
		size += uint64(len(t.Data)) + align
	}
	w.b = make([]byte, 0, size)
	w.b = append(w.b, gguf.Magic...)
	w.u32(version)
	w.count(len(tensors))
	w.count(len(kvs))
	for _, kv := range kvs {
		w.str(kv.Key)
		w.u32(uint32(kv.Value.Type))
		w.value(kv.Value)
	}
	var off uint64
	for _, t := range tensors {
		w.str(t.Name)
		w.u32(uint32(len(t.Dims)))
		for _, d := range t.Dims {
			if version == 1 {
				w.u32(uint32(d))
			} else {
				w.u64(d)
			}
		}
		w.u32(uint32(t.Type))
		w.u64(off)
		off = (off + uint64(len(t.Data)) + align - 1) / align * align
	}
	w.pad(align)
	for _, t := range tensors {
		w.b = append(w.b, t.Data...)
		w.pad(align)
	}
	return w.b
}

type writer struct {
	b       []byte
	version uint32
}

func (w *writer) u32(v uint32) { w.b = binary.LittleEndian.AppendUint32(w.b, v) }
func (w *writer) u64(v uint64) { w.b = binary.LittleEndian.AppendUint64(w.b, v) }

func (w *writer) pad(align uint64) {
	for uint64(len(w.b))%align != 0 {
		w.b = append(w.b, 0)
	}
}

func (w *writer) count(n int) {
	if w.version == 1 {
		w.u32(uint32(n))
	} else {
		w.u64(uint64(n))
	}
}

func (w *writer) str(s string) {
	w.count(len(s))
	w.b = append(w.b, s...)
}

func (w *writer) value(v gguf.Value) {
	switch x := v.Data.(type) {
	case uint8, int8, uint16, int16, uint32, int32, float32, bool, uint64, int64, float64:
		// Fixed-size scalars are their little-endian bytes (a bool one
		// byte, 0 or 1), as encoding/binary writes them.
		w.b, _ = binary.Append(w.b, binary.LittleEndian, x)
	case string:
		w.str(x)
	case []gguf.Value:
		w.u32(uint32(v.Elem))
		w.count(len(x))
		for _, e := range x {
			w.value(e)
		}
	default:
		// A typed array ([]string, []float32…): its element type, its
		// length, then each element as the scalar it is.
		xs := reflect.ValueOf(v.Data)
		if xs.Kind() != reflect.Slice {
			panic(fmt.Sprintf("ggufwrite: unsupported value %T", v.Data))
		}
		w.u32(uint32(v.Elem))
		w.count(xs.Len())
		for i := range xs.Len() {
			w.value(gguf.Value{Type: v.Elem, Data: xs.Index(i).Interface()})
		}
	}
}

// Scalar returns a metadata value of the type matching x's Go type.
func Scalar(x any) gguf.Value {
	return gguf.Value{Type: typeOf(x), Data: x}
}

// Array returns an array metadata value; xs must be a typed slice such as
// []string or []float32.
func Array(xs any) gguf.Value {
	elem := gguf.TypeArray // []gguf.Value: an array of arrays
	if _, nested := xs.([]gguf.Value); !nested {
		t := reflect.TypeOf(xs)
		ok := t != nil && t.Kind() == reflect.Slice
		if ok {
			elem, ok = scalarType(reflect.Zero(t.Elem()).Interface())
		}
		if !ok {
			panic(fmt.Sprintf("ggufwrite: unsupported array %T", xs))
		}
	}
	return gguf.Value{Type: gguf.TypeArray, Elem: elem, Data: xs}
}

func typeOf(x any) gguf.ValueType {
	if t, ok := scalarType(x); ok {
		return t
	}
	panic(fmt.Sprintf("ggufwrite: unsupported scalar %T", x))
}

// scalarType returns the metadata type of x's Go type, or false for a type
// GGUF has no scalar of.
func scalarType(x any) (gguf.ValueType, bool) {
	switch x.(type) {
	case uint8:
		return gguf.TypeUint8, true
	case int8:
		return gguf.TypeInt8, true
	case uint16:
		return gguf.TypeUint16, true
	case int16:
		return gguf.TypeInt16, true
	case uint32:
		return gguf.TypeUint32, true
	case int32:
		return gguf.TypeInt32, true
	case float32:
		return gguf.TypeFloat32, true
	case bool:
		return gguf.TypeBool, true
	case string:
		return gguf.TypeString, true
	case uint64:
		return gguf.TypeUint64, true
	case int64:
		return gguf.TypeInt64, true
	case float64:
		return gguf.TypeFloat64, true
	}
	return 0, false
}
