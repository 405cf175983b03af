package gguf

import (
	"fmt"
	"math"
	"reflect"
)

// ValueType is the type tag of a metadata value, as stored in the file.
type ValueType uint32

// Metadata value types defined by the GGUF format.
const (
	TypeUint8   ValueType = 0
	TypeInt8    ValueType = 1
	TypeUint16  ValueType = 2
	TypeInt16   ValueType = 3
	TypeUint32  ValueType = 4
	TypeInt32   ValueType = 5
	TypeFloat32 ValueType = 6
	TypeBool    ValueType = 7
	TypeString  ValueType = 8
	TypeArray   ValueType = 9
	TypeUint64  ValueType = 10
	TypeInt64   ValueType = 11
	TypeFloat64 ValueType = 12
)

var valueTypeNames = [...]string{
	"uint8", "int8", "uint16", "int16", "uint32", "int32", "float32",
	"bool", "string", "array", "uint64", "int64", "float64",
}

// String returns the type's name ("uint32", "array", …) or "ValueType(n)" for unknown tags.
func (t ValueType) String() string {
	if int(t) < len(valueTypeNames) {
		return valueTypeNames[t]
	}
	return fmt.Sprintf("ValueType(%d)", uint32(t))
}

// scalarSize is the encoded size in bytes of a fixed-size scalar type, or 0 for
// strings, arrays and unknown types.
func (t ValueType) scalarSize() int {
	if int(t) < len(scalarTypes) {
		return scalarTypes[t].size
	}
	return 0
}

// KV is one metadata entry.
type KV struct {
	Key   string
	Value Value
}

// Value is one metadata value.
//
// Data holds the Go value matching Type: uint8, int8, uint16, int16, uint32, int32,
// float32, bool, string, uint64, int64 or float64 for scalars. For TypeArray, Elem is
// the element type and Data is the matching typed slice ([]uint8 … []float64,
// []bool, []string), or []Value when the elements are themselves arrays.
type Value struct {
	Type ValueType
	Elem ValueType
	Data any
}

// Int returns the value as an int64 if it is an integer scalar that fits.
func (v Value) Int() (int64, bool) { return int64Of(reflect.ValueOf(v.Data)) }

// int64Of returns r as an int64 if it holds an integer that fits.
func int64Of(r reflect.Value) (int64, bool) {
	switch {
	case r.CanInt():
		return r.Int(), true
	case r.CanUint() && r.Uint() <= math.MaxInt64:
		return int64(r.Uint()), true
	}
	return 0, false
}

// Float returns the value as a float64 if it is a float or integer scalar.
func (v Value) Float() (float64, bool) {
	switch x := v.Data.(type) {
	case float32:
		return float64(x), true
	case float64:
		return x, true
	}
	if i, ok := v.Int(); ok {
		return float64(i), true
	}
	return 0, false
}

// Str returns the value if it is a string scalar.
func (v Value) Str() (string, bool) {
	s, ok := v.Data.(string)
	return s, ok
}

// Strings returns the elements if the value is an array of strings. The slice is
// shared with the File, not copied.
func (v Value) Strings() ([]string, bool) {
	s, ok := v.Data.([]string)
	return s, ok
}

// Float32s returns the elements as float32 if the value is an array of float32 or
// float64. An array of float32 is returned as stored (shared, not copied).
func (v Value) Float32s() ([]float32, bool) {
	switch x := v.Data.(type) {
	case []float32:
		return x, true
	case []float64:
		out := make([]float32, len(x))
		for i, f := range x {
			out[i] = float32(f)
		}
		return out, true
	}
	return nil, false
}

// Ints returns the elements as int64 if the value is an array of any integer type
// whose elements all fit in an int64. The result is always a fresh slice.
func (v Value) Ints() ([]int64, bool) {
	r := reflect.ValueOf(v.Data)
	if r.Kind() != reflect.Slice {
		return nil, false
	}
	if _, ok := int64Of(reflect.Zero(r.Type().Elem())); !ok {
		return nil, false // not integers
	}
	out := make([]int64, r.Len())
	for i := range out {
		var ok bool
		if out[i], ok = int64Of(r.Index(i)); !ok {
			return nil, false
		}
	}
	return out, true
}

// Len returns the number of elements of an array value, or 0 for scalars.
func (v Value) Len() int {
	if r := reflect.ValueOf(v.Data); r.Kind() == reflect.Slice {
		return r.Len()
	}
	return 0
}
