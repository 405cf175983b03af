// Package bench is the measurement that `make bench-wllama` and `make
// bench-native` compare with llama.cpp: the files (real models' shapes,
// synthesized weights), the prompt, and one kvscope decoder's run over
// them — a model.Runner with a model.FullCache, greedy, the prompt
// through Runner.Prefill and then one Runner.Forward per decoded token.
//
// The same Run serves both harnesses: natively (core/model/bench's
// TestNative beside llama.cpp through node-llama-cpp) and in the browser
// (the sweep worker's "bench" request, wasm/worker/bench.go, beside
// wllama in headless Chromium; wasm/e2e/bench_test.go).
package bench

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/model/gguf"
	"github.com/kvscope/kvscope/core/model/ggufwrite"
)

// The measurement's sizes, in two runs per sitting as llama.cpp's own
// figures split them: prompt speed is one Prefill of PromptTokens tokens
// (Prompt), decode speed DecodeTokens greedy steps after a one-word start
// (Start; stories15M's context of 256 is too short for both in one run). Warm
// untimed sittings come first (V8 tiers wasm up while it runs, so a cold
// first run measures its baseline compiler), then Reps timed ones.
const (
	PromptTokens = 135
	DecodeTokens = 128
	Warm         = 3
	Reps         = 5
)

// File is one model file the harnesses measure.
type File struct {
	Name string // e.g. "stories15M F32"
	Spec ggufwrite.LlamaSpec
}

// Files returns the files measured: the stories15M shape and the
// SmolLM2-135M shape, each with every matrix (the embedding too) F32, F16
// and Q8_0, GGUF v3 (wllama and node-llama-cpp refuse v1).
func Files() []File {
	var fs []File
	for _, s := range []struct {
		name string
		spec ggufwrite.LlamaSpec
	}{{"stories15M", ggufwrite.Stories15M}, {"SmolLM2-135M", ggufwrite.SmolLM2_135M}} {
		for _, typ := range []gguf.TensorType{gguf.TypeF32, gguf.TypeF16, gguf.TypeQ8_0} {
			spec := s.spec
			spec.Type, spec.EmbedType, spec.Version = typ, typ, 3
			fs = append(fs, File{Name: s.name + " " + typ.String(), Spec: spec})
		}
	}
	return fs
}

// Path returns the path of spec's GGUF file (ggufwrite.Llama) in the
// directory kvscope-shapes under os.TempDir, writing it when it is not
// there yet: synthesizing the larger shapes takes from seconds to
// minutes, so every harness run after the first reuses it. The name is a
// hash of the spec; the file is written under a temporary name and
// renamed, so a path returned is always a whole file.
func Path(spec ggufwrite.LlamaSpec) (string, error) {
	sum := sha256.Sum256(fmt.Appendf(nil, "%+v", spec))
	dir := filepath.Join(os.TempDir(), "kvscope-shapes")
	path := filepath.Join(dir, hex.EncodeToString(sum[:8])+".gguf")
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("bench: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "*.tmp")
	if err != nil {
		return "", fmt.Errorf("bench: %w", err)
	}
	_, werr := tmp.Write(ggufwrite.Llama(spec))
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("bench: writing %s: %w", path, werr)
	}
	return path, nil
}

// PromptText returns the measured prompt's text: PromptTokens−1 words
// of three lower-case letters, each one piece "▁abc" of ggufwrite.Vocab's
// vocabularies (of 32,000 pieces or more), so that with BOS it is
// PromptTokens tokens for kvscope's tokenizer and llama.cpp's alike (a
// harness passes wllama text, which it tokenizes itself).
func PromptText() string {
	const letters = "etaoinshrdlcu" // the first 13 of ggufwrite.Vocab's merge order
	words := make([]string, PromptTokens-1)
	for i := range words {
		k := i * 97
		words[i] = string([]byte{letters[k%13], letters[k/13%13], letters[k/169%13]})
	}
	return strings.Join(words, " ")
}

// StartText is the decode run's text: one word, so the run starts from
// BOS and one token.
const StartText = "the"

// Prompt returns m's tokens of PromptText as a run starts (BOS first:
// model.Tokenizer.Prompt).
func Prompt(m *model.Model) []int { return m.Tokenizer.Prompt(PromptText()) }

// Start returns m's tokens of StartText as a run starts.
func Start(m *model.Model) []int { return m.Tokenizer.Prompt(StartText) }

// Result is one timed run.
type Result struct {
	Prompt        int           // tokens prefilled
	PromptTime    time.Duration // Runner.Prefill of them, the logits after the last included
	Decode        int           // greedy steps: tokens fed back through Runner.Forward
	DecodeTime    time.Duration // those steps, each an Argmax and a Forward
	Tokens        []int         // the Decode+1 greedy tokens: the one after the prompt, then one per step
	KernelPath    string        // model.KernelPath() during the run
	CacheCapacity int           // positions the FullCache holds (prompt + decode)
}

// PromptRate returns prompt tokens per second.
func (r Result) PromptRate() float64 { return float64(r.Prompt) / r.PromptTime.Seconds() }

// DecodeRate returns decode steps (tokens) per second.
func (r Result) DecodeRate() float64 { return float64(r.Decode) / r.DecodeTime.Seconds() }

// Run feeds prompt to a new Runner of m with a FullCache of
// len(prompt)+decode positions through one Prefill, then takes decode
// greedy steps (Argmax of the logits, fed back by Forward), timing the
// two phases apart. The cache and runner are made before the clock
// starts. It returns an error for an empty prompt, a negative decode, a
// token out of range or a context too short for the run.
func Run(m *model.Model, prompt []int, decode int) (Result, error) {
	if len(prompt) == 0 || decode < 0 {
		return Result{}, fmt.Errorf("bench: a run needs a prompt and decode ≥ 0 (have %d tokens, decode %d)", len(prompt), decode)
	}
	n := len(prompt) + decode
	if n > m.Config.ContextLength {
		return Result{}, fmt.Errorf("bench: %d positions exceed the model's context of %d", n, m.Config.ContextLength)
	}
	fc, err := model.NewFullCache(m.Config, n)
	if err != nil {
		return Result{}, fmt.Errorf("bench: %w", err)
	}
	r := m.NewRunner(fc)
	res := Result{Prompt: len(prompt), Decode: decode, Tokens: make([]int, 0, decode+1), KernelPath: model.KernelPath(), CacheCapacity: n}
	t0 := time.Now()
	logits, err := r.Prefill(prompt)
	if err != nil {
		return Result{}, fmt.Errorf("bench: %w", err)
	}
	t1 := time.Now()
	for range decode {
		next := model.Argmax(logits)
		res.Tokens = append(res.Tokens, next)
		if logits, err = r.Forward(next); err != nil {
			return Result{}, fmt.Errorf("bench: %w", err)
		}
	}
	t2 := time.Now()
	res.Tokens = append(res.Tokens, model.Argmax(logits))
	res.PromptTime, res.DecodeTime = t1.Sub(t0), t2.Sub(t1)
	return res, nil
}

// Measure times warm untimed sittings, then reps timed ones, each a
// prompt run (Run of Prompt(m) with no decode step) and a decode run (Run
// of Start(m) with DecodeTokens steps), and returns the timed sittings'
// runs in order.
func Measure(m *model.Model, warm, reps int) (prompt, decode []Result, err error) {
	if warm < 0 || reps < 1 {
		return nil, nil, fmt.Errorf("bench: %d warm and %d timed sittings (want ≥ 0 and ≥ 1)", warm, reps)
	}
	p, start := Prompt(m), Start(m)
	for i := range warm + reps {
		pr, err := Run(m, p, 0)
		if err != nil {
			return nil, nil, err
		}
		dr, err := Run(m, start, DecodeTokens)
		if err != nil {
			return nil, nil, err
		}
		if i >= warm {
			prompt, decode = append(prompt, pr), append(decode, dr)
		}
	}
	return prompt, decode, nil
}

// Figures are one system's figures on one file, in tokens per second:
// each the fastest of its timed sittings, the one least disturbed by
// whatever else the machine ran (on a shared 2-core machine the slower
// sittings measure the neighbours more than the code).
type Figures struct {
	Decode, Prompt float64
}

// Best returns the fastest of rates (tokens per second), 0 for none.
func Best(rates []float64) float64 {
	if len(rates) == 0 {
		return 0
	}
	return slices.Max(rates)
}

// Rates returns the runs' prompt and decode rates, in order.
func Rates(prompt, decode []Result) (p, d []float64) {
	for _, r := range prompt {
		p = append(p, r.PromptRate())
	}
	for _, r := range decode {
		d = append(d, r.DecodeRate())
	}
	return p, d
}

// Row is one file's line of a comparison: kvscope's figures and its
// peer's.
type Row struct {
	File          string
	KVScope, Peer Figures
}

// Table formats rows as a Markdown table comparing kvscope with peer
// (the peer's name as a column heads it): decode and prompt tokens per
// second of each, and the ratios kvscope ÷ peer.
func Table(peer string, rows []Row) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| file | decode tok/s: %s | kvscope | kvscope ÷ %[1]s | prompt (%d tokens) tok/s: %[1]s | kvscope | kvscope ÷ %[1]s |\n", peer, PromptTokens)
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %.0f | %.0f | %.2f | %.0f | %.0f | %.2f |\n", r.File,
			r.Peer.Decode, r.KVScope.Decode, r.KVScope.Decode/r.Peer.Decode,
			r.Peer.Prompt, r.KVScope.Prompt, r.KVScope.Prompt/r.Peer.Prompt)
	}
	return b.String()
}
