package bench_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/model/bench"
	"github.com/kvscope/kvscope/core/model/gguf"
	"github.com/kvscope/kvscope/core/model/ggufwrite"
)

// tinySpec is a small model with stories15M's vocabulary the prompt fits
// (a context of 160).
var tinySpec = ggufwrite.LlamaSpec{Dim: 32, Layers: 2, Heads: 4, KVHeads: 2, Hidden: 64, Vocab: 32000, Context: 160,
	NormEps: 1e-5, RopeBase: 10000, Version: 3, Type: gguf.TypeQ8_0, EmbedType: gguf.TypeF32, Seed: 3, EmbedStd: 0.7}

func tinyModel(t *testing.T) *model.Model {
	t.Helper()
	return load(t, tinySpec)
}

func load(t *testing.T, s ggufwrite.LlamaSpec) *model.Model {
	t.Helper()
	m, err := model.LoadBytes(ggufwrite.Llama(s), model.Options{KeepQuantized: true})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Run's decode run generates what Generate does greedily, and its prompt
// run's token is the one after feeding the prompt token by token.
func TestRunIsGreedyDecoding(t *testing.T) {
	m := tinyModel(t)
	res, err := bench.Run(m, bench.Start(m), 12)
	if err != nil {
		t.Fatal(err)
	}
	fc, err := model.NewFullCache(m.Config, 0)
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.NewRunner(fc).Generate(bench.Start(m), model.GenerateOptions{MaxTokens: 13, IgnoreEOS: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Tokens, want) {
		t.Errorf("decode run's tokens %v, Generate's %v", res.Tokens, want)
	}
	if res.Prompt != 2 || res.Decode != 12 || res.CacheCapacity != 14 || res.KernelPath != model.KernelPath() {
		t.Errorf("decode run %+v", res)
	}
	if res.PromptRate() <= 0 || res.DecodeRate() <= 0 {
		t.Errorf("rates %v %v", res.PromptRate(), res.DecodeRate())
	}

	p := bench.Prompt(m)
	pr, err := bench.Run(m, p, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := m.NewRunner(fc)
	var logits []float32
	for _, tok := range p {
		if logits, err = r.Forward(tok); err != nil {
			t.Fatal(err)
		}
	}
	if len(pr.Tokens) != 1 || pr.Tokens[0] != model.Argmax(logits) || pr.Prompt != len(p) || pr.Decode != 0 {
		t.Errorf("prompt run %+v, want the token %d", pr, model.Argmax(logits))
	}
}

func TestRunErrors(t *testing.T) {
	m := tinyModel(t)
	for _, c := range []struct {
		name   string
		prompt []int
		decode int
	}{
		{"no prompt", nil, 4},
		{"negative decode", []int{1}, -1},
		{"beyond the context", []int{1}, tinySpec.Context},
		{"token out of range", []int{1, tinySpec.Vocab}, 2},
	} {
		if _, err := bench.Run(m, c.prompt, c.decode); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	if _, _, err := bench.Measure(m, 0, 0); err == nil {
		t.Error("Measure of no timed sitting: no error")
	}
}

func TestMeasure(t *testing.T) {
	m := tinyModel(t)
	prompt, decode, err := bench.Measure(m, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(prompt) != 2 || len(decode) != 2 {
		t.Fatalf("%d prompt and %d decode runs, want 2 each", len(prompt), len(decode))
	}
	for i := range 2 {
		if prompt[i].Prompt != bench.PromptTokens || decode[i].Decode != bench.DecodeTokens || len(decode[i].Tokens) != bench.DecodeTokens+1 {
			t.Errorf("sitting %d: prompt %+v decode %d steps %d tokens", i, prompt[i].Prompt, decode[i].Decode, len(decode[i].Tokens))
		}
	}
	if !slices.Equal(decode[0].Tokens, decode[1].Tokens) {
		t.Error("two sittings decoded differently")
	}
}

// The prompt is PromptTokens tokens and the start two (BOS first) for
// every vocabulary of the bench files' sizes, and beyond.
func TestPrompt(t *testing.T) {
	for _, vocab := range []int{32000, 49152, 151936} {
		s := tinySpec
		s.Vocab, s.Type, s.EmbedType = vocab, gguf.TypeF32, gguf.TypeF32
		m := load(t, s)
		p, start := bench.Prompt(m), bench.Start(m)
		if len(p) != bench.PromptTokens || p[0] != 1 || len(start) != 2 || start[0] != 1 {
			t.Errorf("vocab %d: prompt of %d tokens starting %d, start %v", vocab, len(p), p[0], start)
		}
		seen := map[int]bool{}
		for _, id := range p[1:] {
			seen[id] = true
		}
		if len(seen) < bench.PromptTokens/2 {
			t.Errorf("vocab %d: %d distinct tokens in the prompt", vocab, len(seen))
		}
	}
}

func TestFiles(t *testing.T) {
	var names []string
	for _, f := range bench.Files() {
		names = append(names, f.Name)
		if f.Spec.Version != 3 || f.Spec.Type != f.Spec.EmbedType {
			t.Errorf("%s: version %d, types %v and %v", f.Name, f.Spec.Version, f.Spec.Type, f.Spec.EmbedType)
		}
	}
	want := []string{"stories15M F32", "stories15M F16", "stories15M Q8_0", "SmolLM2-135M F32", "SmolLM2-135M F16", "SmolLM2-135M Q8_0"}
	if !slices.Equal(names, want) {
		t.Errorf("files %q, want %q", names, want)
	}
}

func TestPath(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	path, err := bench.Path(tinySpec)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(path) != filepath.Join(os.TempDir(), "kvscope-shapes") {
		t.Errorf("path %s outside %s", path, os.TempDir())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := model.LoadBytes(b, model.Options{}); err != nil {
		t.Errorf("the file does not load: %v", err)
	}
	// A second call reuses the file: an edit to it survives.
	if err := os.WriteFile(path, []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	again, err := bench.Path(tinySpec)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(again); again != path || string(b) != "kept" {
		t.Errorf("second call: %s holding %d bytes", again, len(b))
	}
	other := tinySpec
	other.Seed++
	if p, err := bench.Path(other); err != nil || p == path {
		t.Errorf("another spec: %s, %v", p, err)
	}
}

func TestBest(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{5, 1, 7, 3}, 7},
	} {
		if got := bench.Best(c.xs); got != c.want {
			t.Errorf("Best(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
}
