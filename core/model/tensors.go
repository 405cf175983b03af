package model

import (
	"fmt"

	"github.com/kvscope/kvscope/core/model/gguf"
)

// readMatrix reads the named [rows][cols] matrix (dims cols, rows in the
// file): kept as the file stores it when quantized is set and the type is
// not F32 (any type with a gguf.Codec: F16, BF16 and the quants; the bytes
// alias the file's when it was loaded from a byte slice), else decoded to
// float32. A type that cannot be decoded is an error naming it.
func readMatrix(f *gguf.File, name string, rows, cols int, quantized bool) (Matrix, error) {
	t, err := tensorInfo(f, name, cols, rows)
	if err != nil {
		return Matrix{}, err
	}
	if keptAsStored(t, quantized) {
		if _, err := t.Type.Codec(); err != nil {
			return Matrix{}, fmt.Errorf("model: tensor %q: type %v not supported", name, t.Type)
		}
		raw, err := f.ReadBytes(t)
		if err != nil {
			return Matrix{}, fmt.Errorf("model: %w", err)
		}
		return Matrix{Rows: rows, Cols: cols, Type: t.Type, Q: raw}, nil
	}
	x, err := readTensor(f, name, cols, rows)
	if err != nil {
		return Matrix{}, err
	}
	return Matrix{Rows: rows, Cols: cols, Type: gguf.TypeF32, F: x}, nil
}

// keptAsStored reports whether the loader keeps the matrix t in its
// stored bytes (Options.KeepQuantized, any type but F32) rather than
// widening it to float32: the one rule readMatrix and PlannedBytes follow.
func keptAsStored(t *gguf.TensorInfo, quantized bool) bool {
	return quantized && len(t.Dims) == 2 && t.Type != gguf.TypeF32
}

// readTensor decodes the named tensor after checking that its dimensions
// (innermost first) are exactly dims.
func readTensor(f *gguf.File, name string, dims ...int) ([]float32, error) {
	if _, err := tensorInfo(f, name, dims...); err != nil {
		return nil, err
	}
	x, err := f.ReadFloat32(name)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	return x, nil
}

// tensorInfo returns the named tensor's description after checking that its
// dimensions (innermost first) are exactly dims.
func tensorInfo(f *gguf.File, name string, dims ...int) (*gguf.TensorInfo, error) {
	t, ok := f.Tensor(name)
	if !ok {
		return nil, fmt.Errorf("model: tensor %s missing", name)
	}
	match := len(t.Dims) == len(dims)
	for i := 0; match && i < len(dims); i++ {
		match = t.Dims[i] == uint64(dims[i])
	}
	if !match {
		want := make([]uint64, len(dims))
		for i, d := range dims {
			want[i] = uint64(d)
		}
		return nil, fmt.Errorf("model: tensor %s has shape %s, config needs %s", name, gguf.DimsString(t.Dims), gguf.DimsString(want))
	}
	return t, nil
}
