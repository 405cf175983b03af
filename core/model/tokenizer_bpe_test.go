package model_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/model/gguf"
	"github.com/kvscope/kvscope/core/model/ggufwrite"
)

// bpeTokens is a toy byte-level vocabulary (Ġ is the space's character).
var bpeTokens = []string{
	"a", "b", "c", "Ġ", "ab", "abc", "Ġa", "Ġab", "<", "|", ">", "!", // 0–11
	"<x>", "<|c|>", "</s>", "Ã", "©", // 12–16: user-defined, control, retyped to control, é's two bytes
}

var bpeTypes = []int32{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, model.TokenUserDefined, model.TokenControl, 1, 1, 1}

var bpeMerges = []string{"a b", "ab c", "Ġ a", "Ġa b"}

func toyBPE(t *testing.T, pre string) *model.Tokenizer {
	t.Helper()
	tok, err := model.NewBPETokenizer(bpeTokens, bpeTypes, bpeMerges, pre, -1, 14)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestEncodeBPEToy(t *testing.T) {
	tests := []struct {
		pre, text string
		want      []int
	}{
		{"gpt-2", "abc", []int{5}},
		{"gpt-2", " ab", []int{3, 4}},             // "a b" ranks before "Ġ a": Ġ + ab, and no "Ġ ab"
		{"llama-bpe", " ab", []int{7}},            // ignore_merges: the word " ab" is a token
		{"llama-bpe", " abc", []int{3, 5}},        // not a token: merged
		{"gpt-2", "d!", []int{11}},                // no token for d's character: dropped, as llama.cpp does
		{"gpt-2", "a<x>b", []int{0, 12, 1}},       // user-defined tokens are matched whole
		{"gpt-2", "<|c|>", []int{8, 9, 2, 9, 10}}, // a control token's text is text
		{"gpt-2", "</s>", []int{8, 10}},           // retyped to control: text, "/" and "s" have no token
		{"gpt-2", "é", []int{15, 16}},
		{"unknown-pre", "a!", []int{0, 11}}, // an unknown pre-tokenizer is llama.cpp's default
		{"gpt-2", "", []int{}},
	}
	for _, tc := range tests {
		tok := toyBPE(t, tc.pre)
		if got := tok.Encode(tc.text, false, false); !slices.Equal(got, tc.want) {
			t.Errorf("%s %q: %v, want %v", tc.pre, tc.text, got, tc.want)
		}
	}
	tok := toyBPE(t, "gpt-2")
	if got, want := tok.EncodeSpecial("a<|c|></s>", false, true), []int{0, 13, 14, 14}; !slices.Equal(got, want) {
		t.Errorf("EncodeSpecial = %v, want %v", got, want)
	}
	if tok.Type(14) != model.TokenControl || tok.Type(12) != model.TokenUserDefined {
		t.Errorf("types %d %d: </s> is control after loading, <x> user-defined", tok.Type(14), tok.Type(12))
	}
	if tok.AddBOS() || tok.Model() != "gpt2" || tok.BOS != -1 {
		t.Errorf("AddBOS %v model %q BOS %d", tok.AddBOS(), tok.Model(), tok.BOS)
	}
	if got := tok.Encode("ab", true, true); !slices.Equal(got, []int{4, 14}) {
		t.Errorf("Encode with BOS (none) and EOS = %v", got)
	}
}

func TestDecodeBPEToy(t *testing.T) {
	tok := toyBPE(t, "gpt-2")
	tests := []struct {
		ids  []int
		want string
	}{
		{[]int{3, 4}, " ab"},
		{[]int{15, 16}, "é"},
		{[]int{12, 13, 14}, "<x>"}, // user-defined as text, control as nothing
		{[]int{-1, 99}, ""},
	}
	for _, tc := range tests {
		if got := tok.Decode(tc.ids); got != tc.want {
			t.Errorf("Decode(%v) = %q, want %q", tc.ids, got, tc.want)
		}
	}
}

func TestNewBPETokenizerErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tokens []string
		types  []int32
		bos    int
	}{
		{"empty", nil, nil, -1},
		{"types", []string{"a", "b"}, []int32{1}, -1},
		{"bos", []string{"a", "b"}, nil, 2},
		{"duplicate", []string{"a", "b", "a"}, nil, -1},
	} {
		if _, err := model.NewBPETokenizer(tc.tokens, tc.types, nil, "gpt-2", tc.bos, -1); err == nil || !strings.HasPrefix(err.Error(), "model: tokenizer") {
			t.Errorf("%s: err = %v", tc.name, err)
		}
	}
}

// vocabFile returns a vocabulary-only GGUF file of kvs (no tensors).
func vocabFile(t *testing.T, kvs []gguf.KV) *gguf.File {
	t.Helper()
	data := ggufwrite.Encode(3, kvs, nil)
	f, err := gguf.Load(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func kv(key string, v any) gguf.KV {
	switch v.(type) {
	case []string, []float32, []int32, []int64:
		return gguf.KV{Key: key, Value: ggufwrite.Array(v)}
	}
	return gguf.KV{Key: key, Value: ggufwrite.Scalar(v)}
}

// The GGUF keys decide the model, the pre-tokenizer, BOS/EOS and the space
// prefix, with llama.cpp's defaults.
func TestTokenizerFromGGUFOptions(t *testing.T) {
	toyTypes := []int32{2, 3, 3, 6, 6, 6, 6, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	spm := []gguf.KV{kv("tokenizer.ggml.model", "llama"), kv("tokenizer.ggml.tokens", toyPieces), kv("tokenizer.ggml.scores", toyScores),
		kv("tokenizer.ggml.token_type", toyTypes)}
	tok, err := model.TokenizerFromGGUF(vocabFile(t, spm))
	if err != nil {
		t.Fatal(err)
	}
	if !tok.AddBOS() || tok.AddEOS() || tok.BOS != 1 || tok.EOS != 2 || tok.UNK != 0 || tok.Model() != "llama" {
		t.Errorf("defaults: add BOS %v EOS %v, ids %d %d %d", tok.AddBOS(), tok.AddEOS(), tok.BOS, tok.EOS, tok.UNK)
	}
	if got := tok.Encode("ab", false, false); !slices.Equal(got, []int{14}) {
		t.Errorf("with the space prefix: %v, want [14] (▁ab)", got)
	}
	// Gemma: no space prefix, so no leading ▁ and no space dropped on decoding.
	noPrefix := append(slices.Clone(spm), kv("tokenizer.ggml.add_space_prefix", false), kv("tokenizer.ggml.add_bos_token", false),
		kv("tokenizer.ggml.add_eos_token", true))
	tok, err = model.TokenizerFromGGUF(vocabFile(t, noPrefix))
	if err != nil {
		t.Fatal(err)
	}
	if got := tok.Encode("ab", false, false); !slices.Equal(got, []int{12}) {
		t.Errorf("without the space prefix: %v, want [12] (ab)", got)
	}
	if got := tok.Decode([]int{1, 11}); got != " a" {
		t.Errorf("Decode(<s> ▁a) without prefix = %q, want \" a\"", got)
	}
	if tok.AddBOS() || !tok.AddEOS() {
		t.Errorf("add BOS %v EOS %v, want false true", tok.AddBOS(), tok.AddEOS())
	}

	bpe := []gguf.KV{kv("tokenizer.ggml.model", "gpt2"), kv("tokenizer.ggml.tokens", bpeTokens),
		kv("tokenizer.ggml.token_type", bpeTypes), kv("tokenizer.ggml.merges", bpeMerges)}
	tok, err = model.TokenizerFromGGUF(vocabFile(t, append(slices.Clone(bpe), kv("tokenizer.ggml.pre", "llama-bpe"))))
	if err != nil {
		t.Fatal(err)
	}
	// BPE defaults: BOS and EOS 11 ("!" here), BOS added for llama-bpe.
	if tok.BOS != 11 || tok.EOS != 11 || tok.UNK != -1 || !tok.AddBOS() || tok.Pre() != "llama-bpe" {
		t.Errorf("BPE defaults: BOS %d EOS %d UNK %d add BOS %v pre %q", tok.BOS, tok.EOS, tok.UNK, tok.AddBOS(), tok.Pre())
	}
	if got := tok.Encode(" ab", false, false); !slices.Equal(got, []int{7}) {
		t.Errorf("llama-bpe from GGUF: %v, want [7]", got)
	}
	tok, err = model.TokenizerFromGGUF(vocabFile(t, append(slices.Clone(bpe), kv("tokenizer.ggml.pre", "no-such-pre"))))
	if err != nil || tok.AddBOS() || tok.Pre() != "no-such-pre" {
		t.Errorf("unknown pre: %v, add BOS %v", err, tok != nil && tok.AddBOS())
	}
	empty := []gguf.KV{kv("tokenizer.ggml.tokens", []string{"a", "", "b"})}
	if tok, err := model.TokenizerFromGGUF(vocabFile(t, empty)); err != nil || tok.Piece(1) != "[EMPTY_1]" || tok.BOS != 1 || tok.EOS != 2 {
		t.Errorf("empty token: %v, piece %q", err, tok.Piece(1))
	}
	ints := append(slices.Clone(spm[:2]), kv("tokenizer.ggml.scores", make([]int32, len(toyPieces))))
	if len(toyTypes) != len(toyPieces) {
		t.Fatal("toyTypes out of date")
	}
	if _, err := model.TokenizerFromGGUF(vocabFile(t, ints)); err != nil {
		t.Errorf("integer scores: %v", err)
	}
}

func TestTokenizerFromGGUFErrors(t *testing.T) {
	tokens := kv("tokenizer.ggml.tokens", []string{"a", "b", "c"})
	for _, tc := range []struct {
		name, want string
		kvs        []gguf.KV
	}{
		{"model", "not supported", []gguf.KV{kv("tokenizer.ggml.model", "bert"), tokens}},
		{"model type", "tokenizer.ggml.model", []gguf.KV{kv("tokenizer.ggml.model", uint32(1)), tokens}},
		{"no merges", "merges", []gguf.KV{kv("tokenizer.ggml.model", "gpt2"), tokens}},
		{"merges type", "merges", []gguf.KV{kv("tokenizer.ggml.model", "gpt2"), tokens, kv("tokenizer.ggml.merges", []int32{1})}},
		{"no tokens", "tokenizer.ggml.tokens", nil},
		{"duplicate", "duplicate token", []gguf.KV{kv("tokenizer.ggml.tokens", []string{"a", "b", "a"})}},
		{"scores", "scores", []gguf.KV{tokens, kv("tokenizer.ggml.scores", []string{"x", "y", "z"})}},
		{"scores length", "3 pieces, 2 scores", []gguf.KV{tokens, kv("tokenizer.ggml.scores", []float32{0, 0})}},
		{"types", "token_type", []gguf.KV{tokens, kv("tokenizer.ggml.token_type", []string{"x", "y", "z"})}},
		{"bos", "bos_token_id", []gguf.KV{tokens, kv("tokenizer.ggml.bos_token_id", uint32(3))}},
		{"add_bos type", "add_bos_token", []gguf.KV{tokens, kv("tokenizer.ggml.add_bos_token", uint8(1))}},
		{"add_bos without bos", "bos_token_id is not set", []gguf.KV{kv("tokenizer.ggml.model", "gpt2"), tokens,
			kv("tokenizer.ggml.merges", []string{}), kv("tokenizer.ggml.add_bos_token", true)}},
	} {
		_, err := model.TokenizerFromGGUF(vocabFile(t, tc.kvs))
		if err == nil || !strings.HasPrefix(err.Error(), "model: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
}

// FuzzNewBPETokenizer builds byte-level vocabularies from arbitrary tokens,
// types and merges (each string split at newlines) under every
// pre-tokenizer: building returns an error or a tokenizer, and encoding and
// decoding any text never panic nor return an id outside the vocabulary.
func FuzzNewBPETokenizer(f *testing.F) {
	f.Add(strings.Join(bpeTokens, "\n"), "\x01\x04\x03\x05", strings.Join(bpeMerges, "\n"), " ab<x>é!")
	f.Add("a\nb\nab\n", "", "a b\nab \n b\n", "abab a")
	f.Fuzz(func(t *testing.T, tokens, types, merges, text string) {
		toks := strings.Split(tokens, "\n")
		var ty []int32
		if types != "" {
			ty = make([]int32, len(toks))
			for i := range ty {
				ty[i] = int32(types[i%len(types)] % 8)
			}
		}
		for _, pre := range []string{"gpt-2", "llama-bpe", "qwen2", "smollm", "default"} {
			tok, err := model.NewBPETokenizer(toks, ty, strings.Split(merges, "\n"), pre, -1, len(toks)-1)
			if err != nil {
				return
			}
			for _, special := range []bool{false, true} {
				ids := tok.Encode(text, true, true)
				if special {
					ids = tok.EncodeSpecial(text, true, true)
				}
				for _, id := range ids {
					if id < 0 || id >= tok.VocabSize() {
						t.Fatalf("%s: id %d outside %d tokens", pre, id, tok.VocabSize())
					}
				}
				tok.Decode(ids)
			}
		}
	})
}
