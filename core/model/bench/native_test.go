package bench_test

import (
	"os"
	"testing"
	"time"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/model/bench"
	"github.com/kvscope/kvscope/core/model/llamacpp"
)

// TestNative (make bench-native) measures one kvscope decoder natively
// beside llama.cpp native on one thread (node-llama-cpp's prebuilt CPU
// library) on every bench file, and logs the table. Figures, not
// assertions: it fails only if a system cannot run a file. The greedy
// tokens of the two are compared for information (F32 files agree;
// llama.cpp rounds activations to Q8_0 on quantized weights, so those
// part ways).
func TestNative(t *testing.T) {
	if os.Getenv("KVSCOPE_BENCH") == "" {
		t.Skip("a measurement: make bench-native (KVSCOPE_BENCH=1)")
	}
	llamacpp.Require(t)
	var rows []bench.Row
	for _, f := range bench.Files() {
		t.Run(f.Name, func(t *testing.T) {
			path, err := bench.Path(f.Spec)
			if err != nil {
				t.Fatal(err)
			}
			ours := measureNative(t, path)
			pr, dr, err := llamacpp.Bench(path, ours.prompt, ours.start, bench.DecodeTokens, bench.Warm, bench.Reps)
			if err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			var p, d []float64
			for i := range pr {
				p, d = append(p, pr[i].Rate()), append(d, dr[i].Rate())
			}
			theirs := bench.Figures{Decode: bench.Best(d), Prompt: bench.Best(p)}
			t.Logf("%s: llama.cpp decode %.0f tok/s, prompt %.0f; greedy tokens agree on the first %d of %d",
				f.Name, d, p, commonPrefix(ours.tokens, dr[0].IDs), len(ours.tokens))
			rows = append(rows, bench.Row{File: f.Name, KVScope: ours.Figures, Peer: theirs})
		})
	}
	t.Logf("native, one thread (kvscope: one decoder, model.FullCache, matrices as stored; llama.cpp: F32 KV cache); the fastest of %d sittings after %d warm-up:\n%s",
		bench.Reps, bench.Warm, bench.Table("llama.cpp", rows))
}

type nativeFigures struct {
	bench.Figures
	tokens        []int // the greedy tokens of the decode run
	prompt, start []int // the runs' prompts
}

func measureNative(t *testing.T, path string) nativeFigures {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	m, err := model.LoadBytes(b, model.Options{KeepQuantized: true})
	if err != nil {
		t.Fatal(err)
	}
	load := time.Since(t0)
	pr, dr, err := bench.Measure(m, bench.Warm, bench.Reps)
	if err != nil {
		t.Fatal(err)
	}
	p, d := bench.Rates(pr, dr)
	f := bench.Figures{Decode: bench.Best(d), Prompt: bench.Best(p)}
	t.Logf("%s: kvscope loaded in %.1f s; decode %.0f tok/s, prompt %.0f (kernels %s)", path, load.Seconds(), d, p, pr[0].KernelPath)
	return nativeFigures{Figures: f, tokens: dr[0].Tokens, prompt: bench.Prompt(m), start: bench.Start(m)}
}

// commonPrefix returns how many leading elements a and b share.
func commonPrefix(a, b []int) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
