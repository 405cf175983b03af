// Package testenv describes where kvscope's tests run: which of them a run
// leaves out, and where the repository's root is (RepoRoot), beside which
// the test model, the vocabularies and llama.cpp's oracle live.
//
// make test runs the core packages twice: natively (make test-native,
// never -short) and as WebAssembly under Node (make test-wasm, with
// -short). The wasm run is there to check the port — the SIMD kernels
// against their Go path, bit-identical streams and recordings, 32-bit
// sizes, allocation counts — so under -short it leaves out the tests that
// only repeat the native run's arithmetic at length (a lesson's claims
// over whole runs, sweeps over every policy), which cost most of its time.
package testenv

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// NativeOnly skips tb when it runs as WebAssembly under -short (make
// test-wasm); natively, and as wasm without -short, tb runs.
func NativeOnly(tb testing.TB) {
	tb.Helper()
	if Skips() {
		tb.Skip("long and port-independent: make test-native runs it; make test-wasm (-short) leaves it out")
	}
}

// Skips reports whether NativeOnly skips in this run.
func Skips() bool { return testing.Short() && runtime.GOOS == "js" }

// RepoRoot returns the repository's root: the nearest ancestor of the
// working directory (itself included) that holds go.mod. Go runs a test
// in its package's directory, so a test finds the root from there.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("testenv: no go.mod above the working directory")
		}
		dir = parent
	}
}
