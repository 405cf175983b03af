// Package llamacpp runs llama.cpp as kvscope's reference in tests: the
// node-llama-cpp 3.21.1 package (its prebuilt CPU library, pinned in this
// directory's package.json and package-lock.json, installed by `make
// llamacpp`) driven by oracle.mjs under Node. Tokenize asks it for token ids,
// LogProbs for next-token log-probabilities, so kvscope's tokenizer and
// forward pass can be compared with llama.cpp's.
//
// The oracle needs node on PATH and node_modules installed here; it cannot
// run under GOOS=js (no processes). Tests call Require, which skips them when
// the oracle is missing, unless KVSCOPE_LLAMACPP=1, where a missing oracle
// fails them.
package llamacpp

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/kvscope/kvscope/core/internal/testenv"
	"github.com/kvscope/kvscope/core/model/gguf"
	"github.com/kvscope/kvscope/core/model/ggufwrite"
)

// Dir returns this package's directory (core/model/llamacpp under the
// repository root, the nearest ancestor of the working directory holding
// go.mod), where oracle.mjs and node_modules live.
func Dir() (string, error) {
	root, err := testenv.RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "core", "model", "llamacpp"), nil
}

var (
	availOnce sync.Once
	availErr  error
)

// Available returns nil if the oracle can run: not under GOOS=js, node on
// PATH, node-llama-cpp installed in Dir, and its library loading. Otherwise
// it says what is missing. The check runs once per process.
func Available() error {
	availOnce.Do(func() { availErr = available() })
	return availErr
}

func available() error {
	if runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		return fmt.Errorf("llamacpp: no processes under GOOS=%s", runtime.GOOS)
	}
	dir, err := Dir()
	if err != nil {
		return err
	}
	if _, err := exec.LookPath("node"); err != nil {
		return fmt.Errorf("llamacpp: node not found on PATH: %w", err)
	}
	for _, p := range []string{"node-llama-cpp", "@node-llama-cpp/linux-x64"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", p, "package.json")); err != nil {
			return fmt.Errorf("llamacpp: %s not installed in %s (run make llamacpp)", p, dir)
		}
	}
	_, err = run(nil, "version")
	return err
}

// Require skips tb when the oracle is not available, or fails it when the
// environment variable KVSCOPE_LLAMACPP is "1" (make test-native sets it),
// except under GOOS=js, which always skips.
func Require(tb testing.TB) {
	tb.Helper()
	err := Available()
	if err == nil {
		return
	}
	if os.Getenv("KVSCOPE_LLAMACPP") == "1" && runtime.GOOS != "js" {
		tb.Fatalf("llama.cpp oracle required (KVSCOPE_LLAMACPP=1): %v", err)
	}
	tb.Skipf("llama.cpp oracle not available: %v", err)
}

// run runs oracle.mjs with args, stdin holding the JSON of in (if not nil),
// and returns its standard output.
func run(in any, args ...string) ([]byte, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("node", append([]string{filepath.Join(dir, "oracle.mjs")}, args...)...)
	cmd.Dir = dir
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, err
		}
		cmd.Stdin = bytes.NewReader(b)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("llamacpp: oracle %s: %v: %s", args[0], err, bytes.TrimSpace(stderr.Bytes()))
	}
	return stdout.Bytes(), nil
}

// Tokenize returns llama.cpp's token ids of each text with the GGUF file at
// model (loaded vocabulary-only): llama_tokenize with add_special and
// parse_special off. Texts must be valid UTF-8 (they travel as JSON strings).
func Tokenize(model string, texts []string) ([][]int, error) {
	ids, _, err := TokenizeBoth(model, texts, nil)
	return ids, err
}

// TokenizeSpecial is Tokenize with parse_special on: the texts of control
// and user-defined tokens are matched whole.
func TokenizeSpecial(model string, texts []string) ([][]int, error) {
	_, ids, err := TokenizeBoth(model, nil, texts)
	return ids, err
}

// TokenizeBoth is Tokenize of plain and TokenizeSpecial of special with one
// load of the vocabulary.
func TokenizeBoth(model string, plain, special []string) (plainIDs, specialIDs [][]int, err error) {
	in := struct {
		Plain   []string `json:"plain"`
		Special []string `json:"special"`
	}{append([]string{}, plain...), append([]string{}, special...)}
	out, err := run(in, "tokenize", model)
	if err != nil {
		return nil, nil, err
	}
	var ids struct{ Plain, Special [][]int }
	if err := json.Unmarshal(out, &ids); err != nil {
		return nil, nil, fmt.Errorf("llamacpp: tokenize output: %w", err)
	}
	if len(ids.Plain) != len(plain) || len(ids.Special) != len(special) {
		return nil, nil, fmt.Errorf("llamacpp: %d and %d id lists for %d and %d texts", len(ids.Plain), len(ids.Special), len(plain), len(special))
	}
	return ids.Plain, ids.Special, nil
}

// LogProbs feeds ids (no BOS added) through llama.cpp with the GGUF file at
// model (F32 KV cache, one thread) and returns, for every position, the
// natural-log probabilities of the next token over the whole vocabulary
// (-Inf where llama.cpp reported none).
func LogProbs(model string, ids []int) ([][]float32, error) {
	if len(ids) == 0 {
		return nil, errors.New("llamacpp: no ids to feed")
	}
	f, err := os.CreateTemp("", "kvscope-logprobs-*.f32")
	if err != nil {
		return nil, err
	}
	path := f.Name()
	f.Close()
	defer os.Remove(path)
	if _, err := run(ids, "logprobs", model, path); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) == 0 || len(b)%(4*len(ids)) != 0 {
		return nil, fmt.Errorf("llamacpp: %d bytes of log-probabilities for %d positions", len(b), len(ids))
	}
	n := len(b) / 4 / len(ids)
	rows := make([][]float32, len(ids))
	for i := range rows {
		rows[i] = make([]float32, n)
		for j := range rows[i] {
			rows[i][j] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*(i*n+j):]))
		}
	}
	return rows, nil
}

// AsV3 returns the GGUF file data rewritten as version 3 (llama.cpp refuses
// version 1): the same metadata, tensors and tensor data.
func AsV3(data []byte) ([]byte, error) {
	f, err := gguf.Load(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	ts := make([]ggufwrite.Tensor, len(f.Tensors))
	for i := range f.Tensors {
		t := &f.Tensors[i]
		raw, err := f.ReadBytes(t)
		if err != nil {
			return nil, err
		}
		ts[i] = ggufwrite.Tensor{Name: t.Name, Dims: t.Dims, Type: t.Type, Data: raw}
	}
	return ggufwrite.Encode(3, f.Metadata, ts), nil
}

// WriteV3 writes data as a version-3 GGUF file (see AsV3) in dir and returns
// its path.
func WriteV3(dir string, data []byte) (string, error) {
	v3, err := AsV3(data)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "model-v3.gguf")
	return path, os.WriteFile(path, v3, 0o644)
}

// Timing is one timed run of Bench: Tokens tokens in Time; IDs the greedy
// tokens a decode run generated (nil for a prompt run).
type Timing struct {
	Tokens int
	Time   time.Duration
	IDs    []int
}

// Rate returns tokens per second.
func (t Timing) Rate() float64 { return float64(t.Tokens) / t.Time.Seconds() }

// Bench times llama.cpp with the GGUF file at model on one thread with an
// F32 KV cache, as kvscope's bench package times its decoder: warm
// untimed sittings, then reps timed ones, each of two runs on a cleared
// sequence. The prompt run evaluates prompt up to its first greedy token
// (the last position's logits included); the decode run evaluates start,
// then generates decode greedy tokens each fed back, timed from the first
// generated token to the last (decode forward passes). It returns the
// timed sittings' prompt and decode runs, in order.
func Bench(model string, prompt, start []int, decode, warm, reps int) (promptRuns, decodeRuns []Timing, err error) {
	if len(prompt) == 0 || len(start) == 0 || decode < 1 || warm < 0 || reps < 1 {
		return nil, nil, fmt.Errorf("llamacpp: bench needs a prompt, a start, decode ≥ 1 and reps ≥ 1 (have %d, %d, %d, %d)", len(prompt), len(start), decode, reps)
	}
	in := map[string]any{"prompt": prompt, "start": start, "decode": decode, "warm": warm, "reps": reps}
	out, err := run(in, "bench", model)
	if err != nil {
		return nil, nil, err
	}
	type run struct {
		Tokens int     `json:"tokens"`
		MS     float64 `json:"ms"`
		IDs    []int   `json:"ids"`
	}
	var res struct{ Prompt, Decode []run }
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, nil, fmt.Errorf("llamacpp: bench output: %w", err)
	}
	if len(res.Prompt) != reps || len(res.Decode) != reps {
		return nil, nil, fmt.Errorf("llamacpp: bench: %d and %d runs for %d sittings", len(res.Prompt), len(res.Decode), reps)
	}
	conv := func(rs []run) []Timing {
		ts := make([]Timing, len(rs))
		for i, r := range rs {
			ts[i] = Timing{Tokens: r.Tokens, Time: time.Duration(r.MS * float64(time.Millisecond)), IDs: r.IDs}
		}
		return ts
	}
	return conv(res.Prompt), conv(res.Decode), nil
}
