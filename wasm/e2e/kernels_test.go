//go:build !js

package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestKernelsInThePage: the page runs the model's matrix products and
// attention on kvscope's WebAssembly SIMD kernels (static/kernels.js wires
// kernels.wasm into main.wasm), says so among the model's facts, and a
// model decodes on them exactly as the uncompressed reference says (a
// full-budget cache writes the same text), and the facts give the
// decoding speed measured on the way.
func TestKernelsInThePage(t *testing.T) {
	needModel(t)
	tb := open(t, "mode=model&play=0&at=40&mtokens=40&policy=full&bits=32")
	s := tb.waitModelRun()
	if s.Kernels != "wasm simd128" {
		t.Fatalf("kernels path %q (page: %q), want wasm simd128", s.Kernels, tb.eval(`String(window.kvscopeKernelPath)`))
	}
	if s.Text == nil || s.Text.Full != s.Text.Compressed || s.Text.Diverge != -1 || s.Step != 40 {
		t.Errorf("decoding on the kernels: step %d, text %+v", s.Step, s.Text)
	}
	if f := tb.eval(`document.getElementById("model-facts").textContent`); !strings.Contains(f, "WebAssembly SIMD") {
		t.Errorf("the model's facts do not say the kernels' path")
	}
	// The 40 steps were caught up before the facts were last written (a
	// window of view.RateWindow completes, or the run was built), so
	// the decoding line is there once the rate is.
	tb.waitJS(`document.getElementById("model-facts").textContent.includes(" steps/s")`, 20*time.Second)
	if f := tb.eval(`document.getElementById("model-facts").textContent`); !strings.Contains(f, "Decoding") {
		t.Errorf("the model's facts do not give the decoding speed: %q", f)
	}
}
