package model

import (
	"fmt"
	"io"

	"github.com/kvscope/kvscope/core/model/gguf"
)

// Loader builds a model one tensor per call, so that a page can show a
// progress bar while a large file is converted and stay responsive, and
// can stop whenever it likes (a Loader holds no goroutine). NewLoader
// parses the header, the configuration and the tokenizer; each Next reads
// and converts one tensor. The result is the model LoadOptions returns.
type Loader struct {
	c           Config
	tok         *Tokenizer
	w           Weights
	steps       []loadStep
	next        int
	done, total int64
	err         error
}

// NewLoader parses the GGUF file of size bytes read from r, its llama
// configuration and its tokenizer, and plans the tensors' conversion with
// opts. It returns the errors LoadOptions would return before reading any
// tensor (not a GGUF file, not llama, missing metadata…).
func NewLoader(r io.ReaderAt, size int64, opts Options) (*Loader, error) {
	f, err := gguf.Load(r, size)
	if err != nil {
		return nil, err
	}
	return newLoader(f, opts)
}

// NewLoaderBytes is NewLoader for a file held in memory, read without
// copying as LoadBytes reads it: with opts.KeepQuantized the kept matrices
// alias b, which the caller must not modify while the model is in use.
func NewLoaderBytes(b []byte, opts Options) (*Loader, error) {
	f, err := gguf.LoadBytes(b)
	if err != nil {
		return nil, err
	}
	return newLoader(f, opts)
}

func newLoader(f *gguf.File, opts Options) (*Loader, error) {
	c, err := ConfigFromGGUF(f)
	if err != nil {
		return nil, err
	}
	tok, err := TokenizerFromGGUF(f)
	if err != nil {
		return nil, err
	}
	l := &Loader{c: c, tok: tok}
	l.steps = weightSteps(f, c, opts, &l.w)
	for _, s := range l.steps {
		l.total += s.bytes
	}
	return l, nil
}

// Config returns the model's configuration (known before any tensor is read).
func (l *Loader) Config() Config { return l.c }

// Next reads and converts the next tensor. It returns false once every
// tensor is loaded or after an error (see Err).
func (l *Loader) Next() bool {
	if l.err != nil || l.next >= len(l.steps) {
		return false
	}
	s := l.steps[l.next]
	if l.err = s.run(); l.err != nil {
		return false
	}
	l.next++
	l.done += s.bytes
	return l.next < len(l.steps)
}

// Progress returns the tensor bytes converted so far and in all.
func (l *Loader) Progress() (done, total int64) { return l.done, l.total }

// Err returns the error that stopped loading, if any (naming the tensor).
func (l *Loader) Err() error { return l.err }

// Model returns the loaded model once every tensor is loaded, or an error
// (the loading error, or that tensors remain).
func (l *Loader) Model() (*Model, error) {
	if l.err != nil {
		return nil, l.err
	}
	if l.next < len(l.steps) {
		return nil, fmt.Errorf("model: loader: %d of %d tensors left", len(l.steps)-l.next, len(l.steps))
	}
	return &Model{Config: l.c, Weights: l.w, Tokenizer: l.tok}, nil
}
