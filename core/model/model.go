package model

import (
	"io"

	"github.com/kvscope/kvscope/core/model/gguf"
)

// Model is a loaded Llama model: configuration, weights and tokenizer. It is
// read-only after loading, so several Runners may share it.
type Model struct {
	Config    Config
	Weights   Weights
	Tokenizer *Tokenizer
}

// Load parses a GGUF file of size bytes from r and returns the model. In the
// browser, pass bytes.NewReader(b) and len(b). Errors come from gguf.Load and
// FromGGUF.
func Load(r io.ReaderAt, size int64) (*Model, error) {
	return LoadOptions(r, size, Options{})
}

// LoadOptions is Load with options (see Options: keep matrices as the
// file stores them).
func LoadOptions(r io.ReaderAt, size int64, opts Options) (*Model, error) {
	return loadAll(NewLoader(r, size, opts))
}

// LoadBytes is LoadOptions for a file held in memory, read without
// copying (gguf.LoadBytes): with opts.KeepQuantized the kept matrices
// alias b, so memory holds the file once. The caller must not modify b
// while the model is in use.
func LoadBytes(b []byte, opts Options) (*Model, error) {
	return loadAll(NewLoaderBytes(b, opts))
}

// FromGGUF builds a model from a parsed file: ConfigFromGGUF, TokenizerFromGGUF,
// then every tensor decoded to float32 (any type with a gguf.Codec: F32,
// F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q4_K, Q5_K, Q6_K; see
// FromGGUFOptions to keep matrices as stored) with its shape checked
// against the configuration; another tensor type is an error naming it. The classifier is output.weight, or the token embedding when
// that tensor is absent (tied). It returns a "model:"-prefixed error naming the
// offending key or tensor.
func FromGGUF(f *gguf.File) (*Model, error) { return FromGGUFOptions(f, Options{}) }

// FromGGUFOptions is FromGGUF with options.
func FromGGUFOptions(f *gguf.File, opts Options) (*Model, error) {
	return loadAll(newLoader(f, opts))
}

// loadAll runs the loader l (or returns err, NewLoader's error) to the end
// and returns its model: every way of loading a model is a Loader's.
func loadAll(l *Loader, err error) (*Model, error) {
	if err != nil {
		return nil, err
	}
	for l.Next() {
	}
	return l.Model()
}
