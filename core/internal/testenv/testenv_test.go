package testenv_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/kvscope/kvscope/core/internal/testenv"
)

// TestNativeOnly: the test runs unless this is the wasm run under -short.
func TestNativeOnly(t *testing.T) {
	want := testing.Short() && runtime.GOOS == "js"
	if testenv.Skips() != want {
		t.Fatalf("Skips() = %v with -short %v on %s", testenv.Skips(), testing.Short(), runtime.GOOS)
	}
	ran := false
	t.Run("inner", func(t *testing.T) {
		testenv.NativeOnly(t)
		ran = true
	})
	if ran == want {
		t.Errorf("the test ran: %v; it should have run: %v", ran, !want)
	}
}

// TestRepoRoot: from a folder below go.mod, and from go.mod's own folder,
// the root is go.mod's folder.
func TestRepoRoot(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "repo")
	deep := filepath.Join(repo, "core", "model")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{deep, repo} {
		t.Chdir(dir)
		if got, err := testenv.RepoRoot(); err != nil || got != repo {
			t.Errorf("from %s: RepoRoot() = %q, %v; want %q", dir, got, err, repo)
		}
	}
}
