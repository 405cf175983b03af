package main

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/internal/testmodel"
	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/model/gguf"
	"github.com/kvscope/kvscope/core/model/llamacpp"
)

// tokenizeCLI runs kvscope -model path -tokenize on text and parses the ids.
func tokenizeCLI(t *testing.T, path, text string) []int {
	t.Helper()
	var out, errOut bytes.Buffer
	if err := runWith([]string{"-model", path, "-tokenize"}, strings.NewReader(text), &out, &errOut); err != nil {
		t.Fatal(err, errOut.String())
	}
	s := out.String()
	if !strings.HasSuffix(s, "\n") || strings.Count(s, "\n") != 1 {
		t.Fatalf("output %q is not one line", s)
	}
	ids := []int{}
	for _, f := range strings.Fields(s) {
		id, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("output %q: %v", s, err)
		}
		ids = append(ids, id)
	}
	return ids
}

var cliTexts = []string{"", "Once upon a time", "  it's 1234567\n\n", "日本語 🙂 <|endoftext|></s>"}

// -tokenize prints Tokenizer.Encode's ids (no BOS) for a whole model and for
// vocabulary-only files, whose missing weights are never read.
func TestTokenizeFlag(t *testing.T) {
	paths := map[string]string{}
	for _, name := range []string{"llama3", "llama2", "qwen3"} {
		paths[name] = testmodel.VocabPath(t, name)
	}
	testmodel.Bytes(t)
	p, err := testmodel.Path()
	if err != nil {
		t.Fatal(err)
	}
	paths["stories260K"] = p
	for name, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := ggufLoad(b)
		if err != nil {
			t.Fatal(err)
		}
		tok, err := model.TokenizerFromGGUF(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range cliTexts {
			if got, want := tokenizeCLI(t, path, text), tok.Encode(text, false, false); !slices.Equal(got, want) {
				t.Errorf("%s %q: printed %v, Encode gives %v", name, text, got, want)
			}
		}
	}
}

// The printed ids are llama.cpp's.
func TestTokenizeFlagMatchesLlamaCpp(t *testing.T) {
	llamacpp.Require(t)
	path := testmodel.VocabPath(t, "qwen3")
	want, err := llamacpp.Tokenize(path, cliTexts)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range cliTexts {
		if got := tokenizeCLI(t, path, text); !slices.Equal(got, want[i]) {
			t.Errorf("%q: printed %v, llama.cpp %v", text, got, want[i])
		}
	}
}

// -ids with -logits writes the Runner's logits for exactly the given ids,
// one float32 row per position.
func TestLogitsFlag(t *testing.T) {
	m := testmodel.Model(t)
	path, err := testmodel.Path()
	if err != nil {
		t.Fatal(err)
	}
	ids := []int{1, 403, 407, 261, 2, 0, 511}
	out := filepath.Join(t.TempDir(), "logits.f32")
	var buf bytes.Buffer
	if err := run([]string{"-model", path, "-ids", "1,403, 407,261,2,0,511", "-logits", out}, &buf, &buf); err != nil {
		t.Fatal(err, buf.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	n := m.Config.Vocab
	if len(b) != 4*n*len(ids) {
		t.Fatalf("%d bytes, want %d positions × %d floats", len(b), len(ids), n)
	}
	fc, err := model.NewFullCache(m.Config, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := m.NewRunner(fc)
	for i, id := range ids {
		logits, err := r.Forward(id)
		if err != nil {
			t.Fatal(err)
		}
		for j, x := range logits {
			if got := math.Float32frombits(binary.LittleEndian.Uint32(b[4*(i*n+j):])); got != x {
				t.Fatalf("position %d token %d: wrote %g, Runner gives %g", i, j, got, x)
			}
		}
	}
}

func TestTokenFlagErrors(t *testing.T) {
	testmodel.Bytes(t)
	path, err := testmodel.Path()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "x.f32")
	notGGUF := filepath.Join(t.TempDir(), "text.gguf")
	if err := os.WriteFile(notGGUF, []byte("not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ args, want string }{
		{"-tokenize", "need -model"},
		{"-ids 1 -logits " + out, "need -model"},
		{"-model " + path + " -ids 1,2", "needs -logits"},
		{"-model " + path + " -logits " + out, "needs -ids"},
		{"-model " + path + " -ids 1,x -logits " + out, `"x" is not a token id`},
		{"-model " + path + " -ids 1,,2 -logits " + out, "not a token id"},
		{"-model " + path + " -ids 1,512 -logits " + out, "id 512 out of range [0, 512)"},
		{"-model " + path + " -ids -1 -logits " + out, "id -1 out of range"},
		{"-model " + path + " -ids " + strings.Repeat("1,", 512) + "1 -logits " + out, "exceed the model's context of 512"},
		{"-model " + path + " -tokenize -ids 1 -logits " + out, "separate runs"},
		{"-model " + path + " -tokenize -task fetch", "runs of their own"},
		{"-model /nonexistent.gguf -tokenize", "nonexistent"},
		{"-model " + notGGUF + " -tokenize", "not a GGUF file"},
		{"-model " + path + " -ids 1 -logits " + filepath.Join(out, "no", "dir"), "no"},
	} {
		var o, e bytes.Buffer
		err := runWith(strings.Fields(tc.args), strings.NewReader("text"), &o, &e)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error mentioning %q", tc.args, err, tc.want)
		}
	}
}

func ggufLoad(b []byte) (*gguf.File, error) { return gguf.Load(bytes.NewReader(b), int64(len(b))) }
