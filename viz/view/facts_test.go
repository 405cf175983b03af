package view

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/model/gguf"
	"github.com/kvscope/kvscope/core/model/ggufwrite"
	"github.com/kvscope/kvscope/core/sim"
)

func TestFactsOf(t *testing.T) {
	s := ggufwrite.LlamaSpec{Dim: 64, Layers: 3, Heads: 4, KVHeads: 2, Hidden: 96, Vocab: 1000, Context: 128,
		NormEps: 1e-5, RopeBase: 10000, Version: 3, Type: gguf.TypeQ8_0, Seed: 1}
	data := ggufwrite.Llama(s)
	f, err := gguf.Load(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	c, err := model.ConfigFromGGUF(f)
	if err != nil {
		t.Fatal(err)
	}
	w := model.PlannedBytes(f, model.Options{KeepQuantized: true})
	fs := FactsOf(f, &c, int64(len(data)), w)
	if fs.Arch != "llama" || fs.Tokenizer != "llama" || !fs.Shaped || fs.Layers != 3 || fs.Heads != 4 || fs.KVHeads != 2 ||
		fs.HeadDim != 16 || fs.Vocab != 1000 || fs.Context != 128 || fs.File != int64(len(data)) || fs.Memory != int64(len(data))+w {
		t.Errorf("facts %+v", fs)
	}
	// Q8_0: the 7 matrices of each layer; F32: 2 norms a layer and the output norm; the embedding is F32 (EmbedType 0).
	want := map[string]int{"Q8_0": 21, "F32": 8}
	for _, tc := range fs.Types {
		if want[tc.Type] != tc.Tensors {
			t.Errorf("%s: %d tensors, want %d", tc.Type, tc.Tensors, want[tc.Type])
		}
		delete(want, tc.Type)
	}
	if len(want) > 0 {
		t.Errorf("types missing: %v (got %+v)", want, fs.Types)
	}
	var b strings.Builder
	for _, l := range fs.Lines() {
		fmt.Fprintf(&b, "%s: %s\n", l.Label, l.Value)
	}
	for _, part := range []string{"Architecture: llama\n", "Layers: 3\n", "Heads: 4 query, 2 KV (2 per KV)\n",
		"Head dim: 16\n", "Vocabulary: 1,000, SentencePiece\n", "Context: 128 tokens\n", "Tensors: ", "Q8_0 ×21", "F32 ×8",
		" file, ", " in memory\n"} {
		if !strings.Contains(b.String(), part) {
			t.Errorf("facts lack %q:\n%s", part, b.String())
		}
	}

	// A file the loader refuses still tells its architecture and types.
	kvs := ggufwrite.LlamaKVs(s)
	for i := range kvs {
		if kvs[i].Key == "general.architecture" {
			kvs[i].Value = gguf.Value{Type: gguf.TypeString, Data: "mamba"}
		}
	}
	mamba := ggufwrite.Encode(3, kvs, ggufwrite.LlamaWeights(s))
	f2, err := gguf.Load(bytes.NewReader(mamba), int64(len(mamba)))
	if err != nil {
		t.Fatal(err)
	}
	fs2 := FactsOf(f2, nil, int64(len(mamba)), -1)
	lines := fs2.Lines()
	if fs2.Arch != "mamba" || fs2.Shaped || fs2.Vocab != 1000 || lines[0] != (Fact{Label: "Architecture", Value: "mamba"}) {
		t.Errorf("refused file's facts %+v, lines %v", fs2, lines)
	}
	for _, l := range lines {
		if l.Label == "Layers" || l.Label == "Context" {
			t.Errorf("an unknown shape is listed: %v", l)
		}
	}
}

func TestSinkFact(t *testing.T) {
	if f := SinkFact(nil); f.Value != "measuring…" {
		t.Errorf("before measuring: %+v", f)
	}
	s := &sim.Sinks{Layers: 2, Heads: 2, Tokens: 64, Importance: []float64{0.9, 0.1, 0.4, 0.2}}
	if f := SinkFact(s); f.Value != "2 of 4 (2 layers × 2 heads)" || !strings.Contains(f.Title, "64 tokens") || !strings.Contains(f.Title, "largest 90%") {
		t.Errorf("measured: %+v", f)
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 49152: "49,152", 151936: "151,936", 1234567: "1,234,567", -4096: "−4,096"} {
		if got := Count(n); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

func ExampleSinkSummary() {
	s := &sim.Sinks{Layers: 2, Heads: 3, Tokens: 64, Importance: []float64{0.9, 0.2, 0.31, 0.5, 0.3, 0.05}}
	fmt.Println(SinkSummary(s))
	fmt.Println(LessonSinkNote("stories260K", s))
	fmt.Println(SinkSummary(&sim.Sinks{Layers: 2, Heads: 3}) == "")
	// Output:
	// 3 of 6 heads (2 layers × 3 query heads) are sink heads
	// Your model, stories260K: 3 of 6 heads (2 layers × 3 query heads) are sink heads (50%; position 0 gets over 30% of their attention over its first 64 tokens).
	// true
}

func TestModelTooLarge(t *testing.T) {
	tests := []struct {
		file, weights int64
		want          string // a part of the reason; "" fits
	}{
		{KnownModelSize, -1, ""},
		{640 << 20, 700 << 20, ""},
		{1 << 30, -1, ""},
		{1<<30 + 600<<20, -1, ""},                  // 1.6 GiB: fits until its header says what it widens
		{1<<30 + 600<<20, 1600 << 20, "of memory"}, // … 1.6 GiB of it widened
		{1 << 30, 2<<30 + 1, "of memory"},          // an F16 file widened
		{5e9, -1, "at most 2 GiB"},                 // a 5 GB download
		{MaxModelFile + 1, 0, "at most 2 GiB"},
	}
	for _, tc := range tests {
		got := ModelTooLarge(tc.file, tc.weights)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("ModelTooLarge(%d, %d) = %q, want %q", tc.file, tc.weights, got, tc.want)
		}
	}
}

func TestRefusals(t *testing.T) {
	if s := FetchRefused("https://example.com/a.gguf", "TypeError: Failed to fetch"); !strings.Contains(s, "example.com") ||
		!strings.Contains(s, "cross-origin") || !strings.Contains(s, "drop it") || !strings.Contains(s, "Failed to fetch") {
		t.Errorf("fetch refused: %s", s)
	}
	if s := FetchRefused("https://huggingface.co/a/b/resolve/main/c.gguf", "TypeError"); !strings.Contains(s, "/resolve/main/") {
		t.Errorf("fetch refused on Hugging Face: %s", s)
	}
	if s := HTTPRefused(404, "Not Found"); s != "the server answered HTTP 404 Not Found: no file at that address" {
		t.Errorf("404: %s", s)
	}
	if s := HTTPRefused(403, ""); !strings.Contains(s, "HTTP 403") || !strings.Contains(s, "not public") {
		t.Errorf("403: %s", s)
	}
	if s := Truncated(1000, 4096, "network error"); s != "the download was interrupted: truncated at 1000 B of 4 KiB (network error)" {
		t.Errorf("truncated: %s", s)
	}
	for _, tc := range []struct{ err, want string }{
		{`gguf: not a GGUF file: magic "PK\x03\x04"`, "not a GGUF file ("},
		{"gguf: not a GGUF file: gguf: truncated file: need 4 bytes at offset 0, file has 2", "not a GGUF file ("},
		{`gguf: tensor "blk.0.ffn_up.weight" (100 bytes at data offset 32) extends past the end of the file (40 data bytes)`, "the file is truncated ("},
		{"gguf: truncated file at offset 9: unexpected EOF", "the file is truncated ("},
		{`model: general.architecture "mamba", want "llama"`, `model: general.architecture "mamba", want "llama"`},
	} {
		if got := LoadRefused(errors.New(tc.err)); !strings.HasPrefix(got, tc.want) || !strings.Contains(got, tc.err) {
			t.Errorf("LoadRefused(%q) = %q", tc.err, got)
		}
	}
}

func TestSinkGridOf(t *testing.T) {
	early := &sim.Sinks{Layers: 1, Heads: 2, Tokens: 5, Importance: []float64{0.9, 0.1}}
	full := &sim.Sinks{Layers: 1, Heads: 2, Tokens: sim.SinkPrompt, Importance: []float64{0.9, 0.1}}
	for _, tc := range []struct {
		name    string
		s       *sim.Sinks
		header  string
		marked  bool
		summary string
	}{
		{"none", nil, "", false, "turn the reference on"},
		{"nothing averaged", &sim.Sinks{Layers: 1, Heads: 2}, "", false, "turn the reference on"},
		{"early", early, "measuring, 5 of 64 queries", false, "averaged over 5 queries so far (largest 90%)"},
		{"settled", full, "1 of 2", true, "1 of 2 heads are sink heads"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := SinkGridOf(tc.s)
			if g.Header != tc.header || g.Marked != tc.marked || !strings.Contains(g.Summary, tc.summary) {
				t.Errorf("got %+v, want header %q, marked %v, summary containing %q", g, tc.header, tc.marked, tc.summary)
			}
		})
	}
	// Early, the count that would contradict the model's measurement is
	// not stated.
	if g := SinkGridOf(early); strings.Contains(g.Summary, "sink heads") {
		t.Errorf("early summary classifies heads: %q", g.Summary)
	}
}
