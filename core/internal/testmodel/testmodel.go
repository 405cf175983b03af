// Package testmodel locates the stories260K test model for kvscope's model tests.
//
// The model is not part of the repository: it lives at ../shared/models/ beside
// the checkout. Tests that need it call Bytes, which skips the test when the file
// is absent (and fails it when the environment variable CI is "true").
package testmodel

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/kvscope/kvscope/core/internal/testenv"
	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/model/gguf"
)

// SHA256 is the digest of the expected stories260K.gguf (1,182,656 bytes).
const SHA256 = "c14806920629b6c217445c69d7ac61bd0e4047289f8ab824c3f0b4f827a5d1cb"

// FileName is the model's file name.
const FileName = "stories260K.gguf"

// Where tells a reader how to obtain the model.
const Where = "place stories260K.gguf (tinyllamas stories260K as F32 GGUF v1, the file " +
	"testdata/tinyllamas-stories-260k-f32.gguf of github.com/crabml/crabml, sha256 " + SHA256 +
	") in ../shared/models/ beside the repository checkout"

// Path returns the expected location of the model: the repository root (the
// nearest ancestor of the working directory holding go.mod) joined with
// ../shared/models/stories260K.gguf.
func Path() (string, error) {
	root, err := testenv.RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "..", "shared", "models", FileName), nil
}

// Bytes returns the model file's contents after checking its sha256. When the
// file is missing it skips tb, unless CI=true, where it fails tb. A file with the
// wrong digest always fails tb.
func Bytes(tb testing.TB) []byte {
	tb.Helper()
	p, err := Path()
	if err != nil {
		tb.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("test model missing at %s: %s", p, Where)
		}
		tb.Skipf("test model missing at %s: %s", p, Where)
	}
	if err != nil {
		tb.Fatal(err)
	}
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != SHA256 {
		tb.Fatalf("test model %s has sha256 %s, want %s", p, got, SHA256)
	}
	return b
}

// Model loads the test model (skipping or failing tb as Bytes does).
func Model(tb testing.TB) *model.Model {
	tb.Helper()
	b := Bytes(tb)
	m, err := model.Load(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// Vocabs names the vocabulary-only GGUF files of real tokenizers in
// ../shared/vocabs/ beside the checkout (see its README for their sources).
var Vocabs = []string{"llama3", "qwen3", "gpt2", "smollm", "llama2", "gemma3"}

// VocabPath returns the path of vocabulary name (one of Vocabs). When the
// file is missing it skips tb, unless CI=true, where it fails tb.
func VocabPath(tb testing.TB, name string) string {
	tb.Helper()
	p, err := Path()
	if err != nil {
		tb.Fatal(err)
	}
	p = filepath.Join(filepath.Dir(filepath.Dir(p)), "vocabs", name+".gguf")
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("vocabulary %s missing at %s", name, p)
		}
		tb.Skipf("vocabulary %s missing at %s", name, p)
	} else if err != nil {
		tb.Fatal(err)
	}
	return p
}

// Tokenizer loads the tokenizer of vocabulary name (skipping or failing tb
// as VocabPath does). Tokenizers are read-only, so each is loaded once per
// test binary and shared.
func Tokenizer(tb testing.TB, name string) *model.Tokenizer {
	tb.Helper()
	path := VocabPath(tb, name)
	if tok, ok := tokenizers.Load(path); ok {
		return tok.(*model.Tokenizer)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	f, err := gguf.Load(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		tb.Fatal(err)
	}
	tok, err := model.TokenizerFromGGUF(f)
	if err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	tokenizers.Store(path, tok)
	return tok
}

var tokenizers sync.Map // path → *model.Tokenizer
