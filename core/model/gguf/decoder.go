package gguf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// maxArrayDepth bounds the nesting of arrays of arrays, so a hostile file cannot
// drive the decoder into deep recursion.
const maxArrayDepth = 8

// decoder reads the little-endian header of a GGUF file sequentially, keeping
// track of its offset so that every count and length can be checked against the
// bytes that remain before anything is allocated.
type decoder struct {
	r       *bufio.Reader
	off     int64 // bytes consumed so far
	size    int64 // total file size
	version uint32
	buf     [8]byte
}

func newDecoder(r io.ReaderAt, size int64) *decoder {
	return &decoder{r: bufio.NewReaderSize(io.NewSectionReader(r, 0, size), 64<<10), size: size}
}

func (d *decoder) remaining() int64 { return d.size - d.off }

// read fills d.buf[:n].
func (d *decoder) read(n int) ([]byte, error) {
	if int64(n) > d.remaining() {
		return nil, fmt.Errorf("gguf: truncated file: need %d bytes at offset %d, file has %d", n, d.off, d.size)
	}
	b := d.buf[:n]
	if _, err := io.ReadFull(d.r, b); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("gguf: truncated file at offset %d: %w", d.off, io.ErrUnexpectedEOF)
		}
		return nil, fmt.Errorf("gguf: read at offset %d: %w", d.off, err)
	}
	d.off += int64(n)
	return b, nil
}

func (d *decoder) u8() (uint8, error) {
	b, err := d.read(1)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

func (d *decoder) u16() (uint16, error) {
	b, err := d.read(2)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint16(b), nil
}

func (d *decoder) u32() (uint32, error) {
	b, err := d.read(4)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (d *decoder) u64() (uint64, error) {
	b, err := d.read(8)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// countSize is the encoded size of a count or length: 4 bytes in version 1, 8 later.
func (d *decoder) countSize() int64 {
	if d.version == 1 {
		return 4
	}
	return 8
}

// count reads a count or length (uint32 in version 1, uint64 later) and checks
// that count*minSize bytes remain in the file, so the caller may allocate count
// elements safely. what names the count in error messages.
func (d *decoder) count(what string, minSize int64) (int, error) {
	var n uint64
	if d.version == 1 {
		v, err := d.u32()
		if err != nil {
			return 0, err
		}
		n = uint64(v)
	} else {
		v, err := d.u64()
		if err != nil {
			return 0, err
		}
		n = v
	}
	if minSize < 1 {
		minSize = 1
	}
	if n > uint64(d.remaining()/minSize) {
		return 0, fmt.Errorf("gguf: %s %d at offset %d exceeds what the remaining %d bytes can hold", what, n, d.off, d.remaining())
	}
	if n > math.MaxInt32 {
		return 0, fmt.Errorf("gguf: %s %d too large", what, n)
	}
	return int(n), nil
}

func (d *decoder) str(what string) (string, error) {
	n, err := d.count(what+" length", 1)
	if err != nil {
		return "", err
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(d.r, b); err != nil {
		return "", fmt.Errorf("gguf: truncated %s at offset %d: %w", what, d.off, io.ErrUnexpectedEOF)
	}
	d.off += int64(n)
	return string(b), nil
}

// minEncodedSize is the smallest number of bytes a value of type t can occupy.
func (d *decoder) minEncodedSize(t ValueType) int64 {
	switch t {
	case TypeString:
		return d.countSize()
	case TypeArray:
		return 4 + d.countSize()
	}
	return int64(t.scalarSize())
}

func (d *decoder) valueType() (ValueType, error) {
	off := d.off
	v, err := d.u32()
	if err != nil {
		return 0, err
	}
	t := ValueType(v)
	if t > TypeFloat64 {
		return 0, fmt.Errorf("gguf: unknown value type %d at offset %d", v, off)
	}
	return t, nil
}

// scalar reads one value of scalar type t (not an array).
func (d *decoder) scalar(t ValueType) (any, error) {
	switch t {
	case TypeUint8:
		return d.u8()
	case TypeInt8:
		v, err := d.u8()
		return int8(v), err
	case TypeUint16:
		return d.u16()
	case TypeInt16:
		v, err := d.u16()
		return int16(v), err
	case TypeUint32:
		return d.u32()
	case TypeInt32:
		v, err := d.u32()
		return int32(v), err
	case TypeFloat32:
		v, err := d.u32()
		return math.Float32frombits(v), err
	case TypeBool:
		v, err := d.u8()
		if err != nil {
			return nil, err
		}
		if v > 1 {
			return nil, fmt.Errorf("gguf: invalid bool %d at offset %d", v, d.off-1)
		}
		return v == 1, nil
	case TypeString:
		return d.str("string")
	case TypeUint64:
		return d.u64()
	case TypeInt64:
		v, err := d.u64()
		return int64(v), err
	case TypeFloat64:
		v, err := d.u64()
		return math.Float64frombits(v), err
	}
	return nil, fmt.Errorf("gguf: unexpected value type %v", t)
}

// value reads a value of type t; depth counts enclosing arrays.
func (d *decoder) value(t ValueType, depth int) (Value, error) {
	if t != TypeArray {
		x, err := d.scalar(t)
		return Value{Type: t, Data: x}, err
	}
	if depth >= maxArrayDepth {
		return Value{}, fmt.Errorf("gguf: arrays nested deeper than %d at offset %d", maxArrayDepth, d.off)
	}
	elem, err := d.valueType()
	if err != nil {
		return Value{}, err
	}
	n, err := d.count("array length", d.minEncodedSize(elem))
	if err != nil {
		return Value{}, err
	}
	v := Value{Type: TypeArray, Elem: elem}
	switch elem {
	case TypeUint8:
		v.Data, err = readArray(d, n, d.u8)
	case TypeInt8:
		v.Data, err = readArray(d, n, func() (int8, error) { x, err := d.u8(); return int8(x), err })
	case TypeUint16:
		v.Data, err = readArray(d, n, d.u16)
	case TypeInt16:
		v.Data, err = readArray(d, n, func() (int16, error) { x, err := d.u16(); return int16(x), err })
	case TypeUint32:
		v.Data, err = readArray(d, n, d.u32)
	case TypeInt32:
		v.Data, err = readArray(d, n, func() (int32, error) { x, err := d.u32(); return int32(x), err })
	case TypeFloat32:
		v.Data, err = readArray(d, n, func() (float32, error) { x, err := d.u32(); return math.Float32frombits(x), err })
	case TypeBool:
		v.Data, err = readArray(d, n, func() (bool, error) { x, err := d.scalar(TypeBool); b, _ := x.(bool); return b, err })
	case TypeString:
		v.Data, err = readArray(d, n, func() (string, error) { return d.str("string") })
	case TypeUint64:
		v.Data, err = readArray(d, n, d.u64)
	case TypeInt64:
		v.Data, err = readArray(d, n, func() (int64, error) { x, err := d.u64(); return int64(x), err })
	case TypeFloat64:
		v.Data, err = readArray(d, n, func() (float64, error) { x, err := d.u64(); return math.Float64frombits(x), err })
	case TypeArray:
		v.Data, err = readArray(d, n, func() (Value, error) { return d.value(TypeArray, depth+1) })
	}
	if err != nil {
		return Value{}, err
	}
	return v, nil
}

func readArray[T any](d *decoder, n int, next func() (T, error)) ([]T, error) {
	out := make([]T, n)
	for i := range out {
		x, err := next()
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}
