package model_test

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kvscope/kvscope/core/internal/testmodel"
	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/model/gguf"
)

// pinnedTexts and pinnedIDs are llama.cpp's tokenization of a few texts with
// each real vocabulary (llama_tokenize, no specials added or parsed, taken
// from the oracle), so a regression shows without Node.
var pinnedTexts = []string{
	"Hello world",
	" it's 1234567 \n\n",
	"WE'LL  go\tnow\r\n",
	"café 日本語 🙂",
	"<|endoftext|></s><s>[multimodal]<tool_call>",
	"",
}

var pinnedIDs = map[string][][]int{
	"llama3": {
		{9906, 1917},
		{433, 596, 220, 4513, 10961, 22, 4815},
		{12739, 6, 4178, 220, 733, 82022, 319},
		{936, 59958, 105180, 102158, 28584},
		{27, 91, 8862, 728, 428, 91, 1500, 82, 1822, 82, 31868, 26961, 318, 58697, 35239, 14506, 13735, 29},
		{},
	},
	"qwen3": {
		{9707, 1879},
		{432, 594, 220, 16, 17, 18, 19, 20, 21, 22, 4710},
		{12457, 6, 4086, 220, 728, 80922, 319},
		{924, 58858, 75402, 21894, 102819, 27484},
		{27, 91, 8691, 723, 427, 91, 1472, 82, 1784, 82, 30768, 25875, 318, 57597, 60, 151657},
		{},
	},
	"gpt2": {
		{15496, 995},
		{340, 338, 17031, 2231, 3134, 220, 628},
		{8845, 6, 3069, 220, 467, 197, 2197, 201, 198},
		{66, 1878, 2634, 10545, 245, 98, 17312, 105, 45739, 252, 32485},
		{27, 91, 437, 1659, 5239, 91, 12240, 82, 6927, 82, 36937, 16680, 320, 375, 282, 60, 27, 25981, 62, 13345, 29},
		{},
	},
	"smollm": {
		{15496, 995},
		{340, 338, 220, 16, 17, 18, 19, 20, 21, 22, 220, 628},
		{8845, 6, 3069, 220, 467, 197, 2197, 201, 198},
		{66, 1878, 2634, 10545, 245, 98, 17312, 105, 45739, 252, 32485},
		{27, 91, 437, 1659, 5239, 91, 12240, 82, 6927, 82, 36937, 16680, 320, 375, 282, 60, 27, 25981, 62, 13345, 29},
		{},
	},
	"llama2": {
		{15043, 3186},
		{29871, 372, 29915, 29879, 29871, 29896, 29906, 29941, 29946, 29945, 29953, 29955, 29871, 13, 13},
		{399, 29923, 29915, 2208, 29871, 748, 12, 3707, 30004, 13},
		{274, 28059, 29871, 30325, 30346, 30968, 29871, 243, 162, 156, 133},
		{529, 29989, 355, 974, 726, 29989, 2565, 29879, 5299, 29879, 24566, 4713, 326, 397, 284, 29962, 29966, 10154, 29918, 4804, 29958},
		{},
	},
	"gemma3": {
		{9259, 1902},
		{625, 236789, 236751, 236743, 236770, 236778, 236800, 236812, 236810, 236825, 236832, 236743, 108},
		{11284, 236789, 2182, 138, 1909, 255968, 2998, 251, 107},
		{123125, 236859, 33375, 238582, 57235},
		{236820, 236909, 643, 1340, 1005, 236909, 2588, 236751, 236813, 203, 5, 236820, 13205, 236779, 6639, 236813},
		{},
	},
}

func TestPinnedTokenization(t *testing.T) {
	for _, name := range testmodel.Vocabs {
		t.Run(name, func(t *testing.T) {
			tok := testmodel.Tokenizer(t, name)
			for i, s := range pinnedTexts {
				if got, want := tok.Encode(s, false, false), pinnedIDs[name][i]; !slices.Equal(got, want) {
					t.Errorf("%q:\n got  %v %s\n want %v %s", s, got, pieces(tok, got), want, pieces(tok, want))
				}
			}
		})
	}
}

// What each vocabulary says of itself once loaded as llama.cpp loads it.
func TestVocabularies(t *testing.T) {
	tests := []struct {
		name, model, pre string
		n, bos, eos      int
		addBOS           bool
		retyped          []int // control tokens although the file says otherwise
	}{
		{"llama3", "gpt2", "llama-bpe", 128256, 128000, 128001, true, nil},
		{"qwen3", "gpt2", "qwen2", 151936, 151643, 151645, false, []int{128247}},
		{"gpt2", "gpt2", "gpt-2", 50257, 50256, 50256, false, nil},
		{"smollm", "gpt2", "smollm", 50257, 50256, 50256, false, nil},
		{"llama2", "llama", "default", 32000, 1, 2, true, nil},
		{"gemma3", "llama", "default", 262144, 2, 106, true, []int{212}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tok := testmodel.Tokenizer(t, tc.name)
			if tok.Model() != tc.model || tok.Pre() != tc.pre || tok.VocabSize() != tc.n || tok.BOS != tc.bos ||
				tok.EOS != tc.eos || tok.AddBOS() != tc.addBOS || tok.AddEOS() {
				t.Errorf("model %q pre %q, %d tokens, BOS %d EOS %d, add BOS %v EOS %v", tok.Model(), tok.Pre(),
					tok.VocabSize(), tok.BOS, tok.EOS, tok.AddBOS(), tok.AddEOS())
			}
			for _, id := range tc.retyped {
				if tok.Type(id) != model.TokenControl || tok.Piece(id) != "</s>" {
					t.Errorf("token %d %q has type %d, want control", id, tok.Piece(id), tok.Type(id))
				}
			}
			if id, ok := tok.TokenID(tok.Piece(tok.EOS)); !ok || id != tok.EOS {
				t.Errorf("TokenID(%q) = %d, %v", tok.Piece(tok.EOS), id, ok)
			}
			if _, ok := tok.TokenID("no such token \x00"); ok {
				t.Error("TokenID found a text that is no token")
			}
		})
	}
}

// A chat template written by kvscope keeps its control tokens whole with
// EncodeSpecial, and spells them out with Encode.
func TestEncodeSpecialChatTemplate(t *testing.T) {
	tok := testmodel.Tokenizer(t, "qwen3")
	start, _ := tok.TokenID("<|im_start|>")
	end, _ := tok.TokenID("<|im_end|>")
	ids := tok.EncodeSpecial("<|im_start|>user\nHi<|im_end|>", false, false)
	if len(ids) < 4 || ids[0] != start || ids[len(ids)-1] != end {
		t.Fatalf("EncodeSpecial = %v %s", ids, pieces(tok, ids))
	}
	if plain := tok.Encode("<|im_start|>", false, false); len(plain) < 2 || slices.Contains(plain, start) {
		t.Errorf("Encode spelled <|im_start|> as %v", plain)
	}
	if got := tok.Decode(ids); got != "user\nHi" {
		t.Errorf("Decode = %q: control tokens render as nothing", got)
	}
}

// realRoundTrip are texts every real vocabulary gives back unchanged.
var realRoundTrip = []string{
	"Once upon a time, there was a little girl named Lily.",
	"  two leading spaces and trailing  ",
	"tab\there\nnew line\r\n\n\n",
	"Lily's \"big\" ball! It'S 1234567 3.14",
	"日本語 🙂 émoji 👨‍👩‍👧 Привет",
	"\x00 nul, \x7f del",
	" ",
}

func TestRealVocabRoundTrip(t *testing.T) {
	for _, name := range testmodel.Vocabs {
		t.Run(name, func(t *testing.T) {
			tok := testmodel.Tokenizer(t, name)
			for _, s := range realRoundTrip {
				ids := tok.Encode(s, tok.AddBOS(), false)
				if got := tok.Decode(ids); got != s {
					t.Errorf("Decode(Encode(%q)) = %q (%s)", s, got, pieces(tok, ids))
				}
			}
		})
	}
}

// Byte-level tokens can end inside a UTF-8 sequence: appended one by one they
// give the same bytes as Decode, incomplete until the last one.
func TestAppendTokenPartialUTF8(t *testing.T) {
	tok := testmodel.Tokenizer(t, "gpt2")
	ids := tok.Encode("🙂", false, false)
	if len(ids) < 2 {
		t.Fatalf("🙂 is %v: want it split across tokens", ids)
	}
	var b []byte
	prev := -1
	for i, id := range ids {
		b = tok.AppendToken(b, prev, id)
		prev = id
		if i < len(ids)-1 && utf8.Valid(b) {
			t.Errorf("after %d of %d tokens the bytes %x are already whole", i+1, len(ids), b)
		}
	}
	if string(b) != "🙂" || tok.Decode(ids) != "🙂" {
		t.Errorf("appended %q, decoded %q", b, tok.Decode(ids))
	}
	allocs := testing.AllocsPerRun(50, func() { b = tok.AppendToken(b[:0], -1, ids[0]) })
	if allocs != 0 {
		t.Errorf("AppendToken allocates %v times", allocs)
	}
}

// FuzzRealRoundTrip checks that Llama 3's byte-level BPE gives back any
// valid UTF-8 text, and Llama 2's and Gemma 3's SentencePiece any without
// "▁" (which decodes as a space), and that no id falls outside the
// vocabulary.
func FuzzRealRoundTrip(f *testing.F) {
	for _, s := range append(slices.Clone(realRoundTrip), pinnedTexts...) {
		f.Add(s)
	}
	f.Add("\xf6 ") // the lead byte takes the space's "▁" into its piece: 4 byte tokens
	toks := []*model.Tokenizer{testmodel.Tokenizer(f, "llama3"), testmodel.Tokenizer(f, "llama2"), testmodel.Tokenizer(f, "gemma3")}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tok := range toks {
			ids := tok.Encode(s, false, false)
			for _, id := range ids {
				if id < 0 || id >= tok.VocabSize() {
					t.Fatalf("Encode(%q) = %v: id out of range", s, ids)
				}
			}
			if !utf8.ValidString(s) {
				continue
			}
			if len(ids) > len(s)+1 {
				t.Fatalf("%d tokens for %d bytes", len(ids), len(s))
			}
			if tok.Model() == "llama" && strings.Contains(s, "▁") {
				continue
			}
			if got := tok.Decode(ids); got != s {
				t.Fatalf("%s: Decode(Encode(%q)) = %q (%s)", tok.Model(), s, got, pieces(tok, ids))
			}
		}
	})
}

// benchText is a few KB of English prose.
var benchText = strings.Repeat("Once upon a time, there was a little girl named Lily. She loved to play "+
	"outside in the sunshine with her dog, Max. One day, they found a shiny red ball under the old oak "+
	"tree. \"Can we keep it?\" Lily asked her mom. \"Of course,\" she said, smiling. It's 3:45 pm.\n", 12)

func BenchmarkEncodeVocab(b *testing.B) {
	for _, name := range []string{"llama3", "qwen3", "llama2", "gemma3"} {
		b.Run(name, func(b *testing.B) {
			tok := testmodel.Tokenizer(b, name)
			b.SetBytes(int64(len(benchText)))
			b.ReportAllocs()
			for b.Loop() {
				tok.Encode(benchText, false, false)
			}
		})
	}
}

// BenchmarkTokenizerFromGGUF measures building Llama 3's tokenizer (128,256
// tokens, 280,147 merges) from a parsed vocabulary-only file.
func BenchmarkTokenizerFromGGUF(b *testing.B) {
	data, err := os.ReadFile(testmodel.VocabPath(b, "llama3"))
	if err != nil {
		b.Fatal(err)
	}
	f, err := gguf.Load(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := model.TokenizerFromGGUF(f); err != nil {
			b.Fatal(err)
		}
	}
}

// Prompt starts a run as each vocabulary asks: Llama 3 and Gemma 3 after
// BOS, Qwen without one (an empty prompt then starts from its
// <|endoftext|>, which is its EOS).
func TestPrompt(t *testing.T) {
	for _, tc := range []struct {
		vocab  string
		addBOS bool
	}{{"llama3", true}, {"gemma3", true}, {"llama2", true}, {"qwen3", false}} {
		tok := testmodel.Tokenizer(t, tc.vocab)
		if tok.AddBOS() != tc.addBOS {
			t.Errorf("%s: AddBOS %v", tc.vocab, tok.AddBOS())
		}
		text := tok.Encode("Hello world", false, false)
		got := tok.Prompt("Hello world")
		if tc.addBOS {
			text = append([]int{tok.BOS}, text...)
		}
		if !slices.Equal(got, text) {
			t.Errorf("%s: Prompt %v, want %v", tc.vocab, got, text)
		}
		if e := tok.Prompt(""); len(e) != 1 || (tc.addBOS && e[0] != tok.BOS) || (!tc.addBOS && tok.BOS < 0 && e[0] != tok.EOS) {
			t.Errorf("%s: empty prompt %v (BOS %d, EOS %d)", tc.vocab, e, tok.BOS, tok.EOS)
		}
	}
}

// TokenText shows a token as it reads: Llama 3's "Ġthe" as " the",
// Llama 2's "▁the" as " the", a control token as nothing.
func TestTokenText(t *testing.T) {
	for _, vocab := range []string{"llama3", "llama2", "qwen3", "gemma3"} {
		tok := testmodel.Tokenizer(t, vocab)
		ids := tok.Encode("Hello the world", false, false)
		var got string
		for i, id := range ids {
			prev := -1
			if i > 0 {
				prev = ids[i-1]
			}
			got += tok.TokenText(prev, id)
		}
		if want := tok.Decode(ids); got != want {
			t.Errorf("%s: token texts %q, decoded %q", vocab, got, want)
		}
		if tok.BOS >= 0 && tok.TokenText(-1, tok.BOS) != "" {
			t.Errorf("%s: BOS shows as %q", vocab, tok.TokenText(-1, tok.BOS))
		}
	}
}
