package testenv_test

import (
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
