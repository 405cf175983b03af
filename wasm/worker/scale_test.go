//go:build !js

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	"github.com/kvscope/kvscope/core/model/bench"
	"github.com/kvscope/kvscope/core/model/ggufwrite"
)

// TestDecodeScaling (KVSCOPE_MEASURE=1) is the harness of the README's
// decoding-across-cores figures: with nothing drawn, 1, 2 and 4 Node
// worker_threads, each running the page's decoding worker on
// SmolLM2-135M's full shape (synthesized weights), decode one run of
// 48 positions each, side by side (testdata/scale.js), on V8's optimizing
// tier from the start (as make bench-wasm runs); it logs the steps a
// second of all of them together, twice each. It takes about ten
// minutes: go test -timeout 30m.
func TestDecodeScaling(t *testing.T) {
	if os.Getenv("KVSCOPE_MEASURE") == "" {
		t.Skip("a measurement: KVSCOPE_MEASURE=1")
	}
	modelPath, err := bench.Path(ggufwrite.SmolLM2_135M)
	if err != nil {
		t.Fatal(err)
	}
	node, dir := workerDir(t, "../../static/kernels.wasm") // make build assembles it
	for range 2 {
		for _, n := range []string{"1", "2", "4"} {
			out, err := exec.Command(node, "--no-liftoff", "testdata/scale.js", dir, modelPath, n, "48", "Once upon a time").Output()
			if err != nil {
				t.Fatalf("%s workers: %v\n%s", n, err, out)
			}
			var r struct {
				Workers   int     `json:"workers"`
				MS        float64 `json:"ms"`
				StepsPerS float64 `json:"stepsPerS"`
			}
			if err := json.Unmarshal(out, &r); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			t.Logf("%d decoding workers: %.2f steps/s together (%.1f s for 48 positions each; three decoders a step)", r.Workers, r.StepsPerS, r.MS/1000)
		}
	}
}
