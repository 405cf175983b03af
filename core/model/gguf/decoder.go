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

// uint reads an n-byte (n ≤ 8) little-endian unsigned integer.
func (d *decoder) uint(n int) (uint64, error) {
	d.buf = [8]byte{}
	if _, err := d.read(n); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(d.buf[:]), nil
}

func (d *decoder) u32() (uint32, error) {
	v, err := d.uint(4)
	return uint32(v), err
}

func (d *decoder) u64() (uint64, error) { return d.uint(8) }

// boolean reads a bool: one byte, 0 or 1.
func (d *decoder) boolean() (bool, error) {
	v, err := d.uint(1)
	if err == nil && v > 1 {
		err = fmt.Errorf("gguf: invalid bool %d at offset %d", v, d.off-1)
	}
	return v == 1, err
}

// countSize is the encoded size of a count or length: 4 bytes in version 1, 8 later.
func (d *decoder) countSize() int64 {
	if d.version == 1 {
		return 4
	}
	return 8
}

// word reads a count, length or dimension: a uint32 in version 1, a
// uint64 later.
func (d *decoder) word() (uint64, error) { return d.uint(int(d.countSize())) }

// count reads a count or length (a word) and checks
// that count*minSize bytes remain in the file, so the caller may allocate count
// elements safely. what names the count in error messages.
func (d *decoder) count(what string, minSize int64) (int, error) {
	n, err := d.word()
	if err != nil {
		return 0, err
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

// value reads a value of type t; depth counts enclosing arrays.
func (d *decoder) value(t ValueType, depth int) (Value, error) {
	if t != TypeArray {
		x, err := scalarTypes[t].one(d)
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
	if elem == TypeArray {
		v.Data, err = readArray(d, n, func(d *decoder) (Value, error) { return d.value(TypeArray, depth+1) })
	} else {
		v.Data, err = scalarTypes[elem].many(d, n)
	}
	if err != nil {
		return Value{}, err
	}
	return v, nil
}

// scalarType is what the decoder knows of a scalar value type: its encoded
// size (0 for a string, whose size is its length's) and how to read one
// value, as the Go type Value.Data holds, or an array of n of them, as a
// slice of it.
type scalarType struct {
	size int
	one  func(d *decoder) (any, error)
	many func(d *decoder, n int) (any, error)
}

// scalarTypes is indexed by ValueType; TypeArray's entry is empty.
var scalarTypes = [...]scalarType{
	TypeUint8:   integer[uint8](1),
	TypeInt8:    integer[int8](1),
	TypeUint16:  integer[uint16](2),
	TypeInt16:   integer[int16](2),
	TypeUint32:  integer[uint32](4),
	TypeInt32:   integer[int32](4),
	TypeFloat32: fixed(4, func(v uint64) float32 { return math.Float32frombits(uint32(v)) }),
	TypeBool:    scalar(1, (*decoder).boolean),
	TypeString:  scalar(0, func(d *decoder) (string, error) { return d.str("string") }),
	TypeArray:   {},
	TypeUint64:  integer[uint64](8),
	TypeInt64:   integer[int64](8),
	TypeFloat64: fixed(8, math.Float64frombits),
}

// scalar returns the scalarType of a T of size bytes, read by read.
func scalar[T any](size int, read func(*decoder) (T, error)) scalarType {
	return scalarType{
		size: size,
		one: func(d *decoder) (any, error) {
			v, err := read(d)
			return v, err
		},
		many: func(d *decoder, n int) (any, error) {
			s, err := readArray(d, n, read)
			return s, err
		},
	}
}

// fixed returns the scalarType of a size-byte little-endian value that
// conv turns into a T.
func fixed[T any](size int, conv func(uint64) T) scalarType {
	return scalar(size, func(d *decoder) (T, error) {
		v, err := d.uint(size)
		return conv(v), err
	})
}

// integer returns the scalarType of a size-byte integer T.
func integer[T uint8 | int8 | uint16 | int16 | uint32 | int32 | uint64 | int64](size int) scalarType {
	return fixed(size, func(v uint64) T { return T(v) })
}

// readArray reads n values with read.
func readArray[T any](d *decoder, n int, read func(*decoder) (T, error)) ([]T, error) {
	out := make([]T, n)
	for i := range out {
		x, err := read(d)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}
