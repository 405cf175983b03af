package testmodel

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB whose Skipf and Fatalf record the message and stop
// the call (by panicking with stop), so Bytes's outcomes can be observed.
type recorder struct {
	testing.TB
	skipped, failed string
}

type stop struct{}

func (r *recorder) Helper() {}
func (r *recorder) Skipf(format string, args ...any) {
	r.skipped = format
	panic(stop{})
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = format
	panic(stop{})
}
func (r *recorder) Fatal(args ...any) { r.Fatalf("fatal") }

func call(tb testing.TB) (r *recorder, b []byte) {
	r = &recorder{TB: tb}
	defer func() {
		if p := recover(); p != nil {
			if _, ok := p.(stop); !ok {
				panic(p)
			}
		}
	}()
	return r, Bytes(r)
}

func TestBytesOutcomes(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	pkg := filepath.Join(repo, "core", "model")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(pkg)

	t.Setenv("CI", "")
	if r, _ := call(t); !strings.Contains(r.skipped, "missing") || r.failed != "" {
		t.Errorf("absent model outside CI: skipped %q failed %q, want a skip", r.skipped, r.failed)
	}
	t.Setenv("CI", "true")
	if r, _ := call(t); !strings.Contains(r.failed, "missing") {
		t.Errorf("absent model in CI: failed %q, want a failure", r.failed)
	}
	models := filepath.Join(root, "shared", "models")
	if err := os.MkdirAll(models, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(models, FileName), []byte("not the model"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, b := call(t); !strings.Contains(r.failed, "sha256") || b != nil {
		t.Errorf("corrupt model: failed %q, %d bytes returned", r.failed, len(b))
	}
}

func callVocab(tb testing.TB, name string) (r *recorder, path string) {
	r = &recorder{TB: tb}
	defer func() {
		if p := recover(); p != nil {
			if _, ok := p.(stop); !ok {
				panic(p)
			}
		}
	}()
	return r, VocabPath(r, name)
}

func TestVocabPathOutcomes(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(repo)
	t.Setenv("CI", "")
	if r, _ := callVocab(t, "gpt2"); !strings.Contains(r.skipped, "missing") || r.failed != "" {
		t.Errorf("absent vocabulary outside CI: skipped %q failed %q, want a skip", r.skipped, r.failed)
	}
	t.Setenv("CI", "true")
	if r, _ := callVocab(t, "gpt2"); !strings.Contains(r.failed, "missing") {
		t.Errorf("absent vocabulary in CI: failed %q, want a failure", r.failed)
	}
	vocabs := filepath.Join(root, "shared", "vocabs")
	if err := os.MkdirAll(vocabs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vocabs, "gpt2.gguf"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if r, p := callVocab(t, "gpt2"); r.failed != "" || r.skipped != "" || p != filepath.Join(vocabs, "gpt2.gguf") {
		t.Errorf("present vocabulary: path %q, failed %q skipped %q", p, r.failed, r.skipped)
	}
}
