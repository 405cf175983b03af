// Package testenv says which of kvscope's tests a run leaves out.
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
