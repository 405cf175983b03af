package trace

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// npyMagic opens every .npy file.
const npyMagic = "\x93NUMPY"

// maxHeaderLen bounds the header dictionary of an .npy file; NumPy's own
// reader refuses headers over 10000 bytes by default.
const maxHeaderLen = 1 << 16

// npyHeader is the parsed header of an .npy array kvscope can read: little-
// endian float32 or float64 in C order.
type npyHeader struct {
	size  int   // bytes per element: 4 (float32) or 8 (float64)
	shape []int // dimensions, each ≥ 0
}

// readNPYHeader reads the magic string, version and header dictionary of an
// .npy file (format versions 1.0, 2.0 and 3.0) and leaves r at the first
// data byte.
func readNPYHeader(r io.Reader) (npyHeader, error) {
	var pre [10]byte
	if _, err := io.ReadFull(r, pre[:8]); err != nil {
		return npyHeader{}, fmt.Errorf("not an .npy file: %w", shortRead(err))
	}
	if string(pre[:6]) != npyMagic {
		return npyHeader{}, errors.New("not an .npy file (bad magic string)")
	}
	var n int
	switch major, minor := pre[6], pre[7]; {
	case major == 1 && minor == 0:
		if _, err := io.ReadFull(r, pre[8:10]); err != nil {
			return npyHeader{}, fmt.Errorf("header length: %w", shortRead(err))
		}
		n = int(binary.LittleEndian.Uint16(pre[8:10]))
	case (major == 2 || major == 3) && minor == 0:
		var l [4]byte
		if _, err := io.ReadFull(r, l[:]); err != nil {
			return npyHeader{}, fmt.Errorf("header length: %w", shortRead(err))
		}
		u := binary.LittleEndian.Uint32(l[:])
		if u > maxHeaderLen {
			return npyHeader{}, fmt.Errorf("header of %d bytes is over the %d-byte limit", u, maxHeaderLen)
		}
		n = int(u)
	default:
		return npyHeader{}, fmt.Errorf("unsupported .npy format version %d.%d; want 1.0, 2.0 or 3.0", major, minor)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return npyHeader{}, fmt.Errorf("header: %w", shortRead(err))
	}
	return parseHeader(string(buf))
}

// shortRead turns the end-of-file errors of io.ReadFull into one message.
func shortRead(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return errors.New("file truncated")
	}
	return err
}

// parseHeader parses an .npy header dictionary such as
// "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }" followed by
// padding and a newline.
func parseHeader(s string) (npyHeader, error) {
	p := &literal{s: s}
	d, err := p.dict()
	if err != nil {
		return npyHeader{}, fmt.Errorf("header %q: %w", clip(s), err)
	}
	if p.skipSpace(); p.i != len(s) {
		return npyHeader{}, fmt.Errorf("header %q: unexpected text after the dictionary", clip(s))
	}
	var h npyHeader
	descr, ok := d["descr"].(string)
	if !ok {
		return h, fmt.Errorf("header %q: 'descr' missing or not a string", clip(s))
	}
	switch descr {
	case "<f4":
		h.size = 4
	case "<f8":
		h.size = 8
	case ">f4", ">f8":
		return h, fmt.Errorf("big-endian dtype %q not supported; save with arr.astype('<f4')", descr)
	default:
		return h, fmt.Errorf("dtype %q not supported; want '<f4' (float32) or '<f8' (float64)", descr)
	}
	fortran, ok := d["fortran_order"].(bool)
	if !ok {
		return h, fmt.Errorf("header %q: 'fortran_order' missing or not True/False", clip(s))
	}
	if fortran {
		return h, errors.New("Fortran-order arrays not supported; save with np.ascontiguousarray(arr)")
	}
	shape, ok := d["shape"].([]int)
	if !ok {
		return h, fmt.Errorf("header %q: 'shape' missing or not a tuple of integers", clip(s))
	}
	if len(d) != 3 {
		return h, fmt.Errorf("header %q: keys other than 'descr', 'fortran_order' and 'shape'", clip(s))
	}
	h.shape = shape
	return h, nil
}

// clip shortens s for an error message.
func clip(s string) string {
	s = strings.TrimRight(s, " \n")
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

// literal parses the subset of Python literals .npy headers use: a dict
// with string keys whose values are strings, True/False, or tuples (or
// lists) of non-negative integers.
type literal struct {
	s string
	i int
}

func (p *literal) skipSpace() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

// accept skips spaces and consumes c if it comes next.
func (p *literal) accept(c byte) bool {
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *literal) dict() (map[string]any, error) {
	if !p.accept('{') {
		return nil, errors.New("not a dictionary")
	}
	d := make(map[string]any)
	for !p.accept('}') {
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		if _, dup := d[key]; dup {
			return nil, fmt.Errorf("key %q repeated", key)
		}
		if !p.accept(':') {
			return nil, fmt.Errorf("missing ':' after %q", key)
		}
		if d[key], err = p.value(); err != nil {
			return nil, fmt.Errorf("%q: %w", key, err)
		}
		if !p.accept(',') {
			if !p.accept('}') {
				return nil, errors.New("missing ',' or '}'")
			}
			break
		}
	}
	return d, nil
}

func (p *literal) str() (string, error) {
	p.skipSpace()
	if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
		return "", errors.New("expected a quoted string")
	}
	q := p.s[p.i]
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", errors.New("unterminated string")
	}
	v := p.s[p.i+1 : p.i+1+end]
	if strings.IndexByte(v, '\\') >= 0 {
		return "", errors.New("escapes in strings not supported")
	}
	p.i += end + 2
	return v, nil
}

func (p *literal) value() (any, error) {
	p.skipSpace()
	rest := p.s[p.i:]
	switch {
	case strings.HasPrefix(rest, "True"):
		p.i += 4
		return true, nil
	case strings.HasPrefix(rest, "False"):
		p.i += 5
		return false, nil
	case strings.HasPrefix(rest, "'"), strings.HasPrefix(rest, "\""):
		return p.str()
	case strings.HasPrefix(rest, "("):
		return p.ints('(', ')')
	case strings.HasPrefix(rest, "["):
		return p.ints('[', ']')
	}
	return nil, errors.New("unsupported value")
}

// ints parses a tuple or list of non-negative integers, such as (), (5,)
// or (2, 3).
func (p *literal) ints(open, close byte) ([]int, error) {
	p.accept(open)
	out := []int{}
	for !p.accept(close) {
		p.skipSpace()
		j := p.i
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		if j == p.i {
			return nil, errors.New("expected a non-negative integer")
		}
		v, err := strconv.Atoi(p.s[p.i:j])
		if err != nil || v > math.MaxInt32 {
			return nil, fmt.Errorf("dimension %s too large", p.s[p.i:j])
		}
		p.i = j
		out = append(out, v)
		if len(out) > 32 {
			return nil, errors.New("more than 32 dimensions")
		}
		if !p.accept(',') {
			if !p.accept(close) {
				return nil, fmt.Errorf("missing ',' or '%c'", close)
			}
			break
		}
	}
	return out, nil
}

// readData reads count elements of h's dtype from r, which must then be
// exhausted, and returns them as float32. Memory grows with the bytes that
// actually arrive, never straight to what a header declares. NaN, ±Inf and
// float64 values beyond the float32 range are errors.
func readData(r io.Reader, h npyHeader, count int) ([]float32, error) {
	const chunk = 32 << 10
	out := make([]float32, 0, min(count, chunk))
	buf := make([]byte, chunk)
	want := int64(count) * int64(h.size)
	lr := &io.LimitedReader{R: r, N: want}
	for len(out) < count {
		n := min(len(buf), (count-len(out))*h.size)
		if _, err := io.ReadFull(lr, buf[:n]); err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return nil, fmt.Errorf("data truncated: shape %v needs %d bytes", h.shape, want)
			}
			return nil, err
		}
		for i := 0; i < n; i += h.size {
			var v float64
			if h.size == 4 {
				v = float64(math.Float32frombits(binary.LittleEndian.Uint32(buf[i:])))
			} else {
				v = math.Float64frombits(binary.LittleEndian.Uint64(buf[i:]))
			}
			f := float32(v)
			if math.IsNaN(v) || math.IsInf(float64(f), 0) {
				return nil, fmt.Errorf("element %d (index %v) is %v", len(out), unravel(len(out), h.shape), v)
			}
			out = append(out, f)
		}
	}
	// The entry must end here; reading to the end also makes archive/zip
	// verify the entry's checksum and declared size.
	if n, err := io.ReadFull(r, buf[:1]); n > 0 {
		return nil, fmt.Errorf("data longer than shape %v (%d bytes)", h.shape, want)
	} else if err != io.EOF {
		return nil, err
	}
	return out, nil
}

// unravel returns the C-order index of flat element i of an array shaped
// shape.
func unravel(i int, shape []int) []int {
	idx := make([]int, len(shape))
	for k := len(shape) - 1; k >= 0; k-- {
		if shape[k] > 0 {
			idx[k] = i % shape[k]
			i /= shape[k]
		}
	}
	return idx
}
