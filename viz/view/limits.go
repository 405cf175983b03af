package view

import (
	"fmt"
	"strings"
)

// How large a model the page takes. The page is a wasm32 Go program: its
// whole heap lives in one WebAssembly memory of at most 4 GiB, and the
// browser hands a file over as ArrayBuffers of at most 2 GiB. The page
// copies a download, chunk by chunk, into one Go []byte allocated once at
// the file's size, and keeps it: the loader reads from it and every
// non-F32 matrix stays in it (model.LoadBytes: Q8_0 ≈1.06 bytes a weight,
// Q4_K ≈0.56), so only what is widened to float32 — norms, F32 tensors —
// is allocated beside it (model.PlannedAlloc). What is left of the 4 GiB holds
// the Go runtime, the page's own data, the three decoders' caches and the
// garbage collector's slack (its memory limit is set just under 4 GiB).
const (
	// MaxModelFile is the largest file taken: 2 GiB, the ArrayBuffer
	// limit (the chart's workers receive the file as one).
	MaxModelFile = 2 << 30
	// MaxModelMemory bounds the file plus its loaded weights: 3 GiB of
	// wasm32's 4, leaving 1 GiB for everything else.
	MaxModelMemory = 3 << 30
)

// ModelMemory returns the bytes the page holds for a model: the file plus
// what loading it allocates beside the file (model.PlannedAlloc). Before
// the header is read, pass weights < 0: nothing is counted beside the
// file, the least any loading takes (the header's check follows).
func ModelMemory(file, weights int64) int64 {
	return file + max(weights, 0)
}

// ModelTooLarge says why a model of file bytes whose weights take weights
// bytes (< 0: not known yet) does not fit the page, or returns "" when it
// fits. It is asked before anything is allocated: from the download's
// Content-Length or the file's size, and again once the header is read.
func ModelTooLarge(file, weights int64) string {
	switch mem := ModelMemory(file, weights); {
	case file > MaxModelFile:
		return fmt.Sprintf("the file is %s; a browser tab takes files of at most %s", Bytes(float64(file)), Bytes(MaxModelFile))
	case mem > MaxModelMemory:
		return fmt.Sprintf("its file and the weights widened beside it would take %s of memory; the page has %s for a model (wasm32 addresses 4 GiB)", Bytes(float64(mem)), Bytes(MaxModelMemory))
	}
	return ""
}

// FetchRefused is the notice for a download the browser refused before any
// answer (fetch's TypeError: a host that sends no cross-origin headers, or
// no network): what happened and what to do instead.
func FetchRefused(src, why string) string {
	host := SourceHost(src)
	if host == "" {
		host = "the page's host"
	}
	msg := fmt.Sprintf("the browser could not download it from %s (%s): the host does not allow cross-origin downloads, or is unreachable.", host, strings.TrimSpace(why))
	if isHuggingFace(host) {
		msg += " Use the file's …/resolve/main/<file>.gguf address,"
	} else {
		msg += " Use an address that sends Access-Control-Allow-Origin (Hugging Face's …/resolve/ addresses do),"
	}
	return msg + " or download the file and drop it on the page."
}

// HTTPRefused is the notice for a download answered with an HTTP error.
func HTTPRefused(status int, statusText string) string {
	s := fmt.Sprintf("the server answered HTTP %d", status)
	if t := strings.TrimSpace(statusText); t != "" {
		s += " " + t
	}
	switch {
	case status == 404:
		s += ": no file at that address"
	case status == 401 || status == 403:
		s += ": the file is not public (a gated model needs its licence accepted and a token, which the page does not send)"
	}
	return s
}

// Truncated is the notice for a download that ended early: got of want
// bytes (want ≤ 0: length not announced), and the browser's reason.
func Truncated(got, want int64, why string) string {
	s := "the download was interrupted: truncated at " + Bytes(float64(got))
	if want > 0 {
		s += " of " + Bytes(float64(want))
	}
	if why = strings.TrimSpace(why); why != "" {
		s += " (" + why + ")"
	}
	return s
}

// LoadRefused turns the loader's error for a file into the page's words:
// a file whose tensors lie past its end is named truncated, a wrong magic
// not a GGUF file; other errors (an unsupported architecture or tensor
// type, a missing key) are shown as the loader names them.
func LoadRefused(err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "not a GGUF file"):
		return "not a GGUF file (" + msg + ")"
	case strings.Contains(msg, "past the end of the") || strings.Contains(msg, "unexpected EOF") || strings.Contains(msg, "gguf: truncated"):
		return "the file is truncated (" + msg + ")"
	}
	return msg
}
