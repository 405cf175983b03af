package model_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kvscope/kvscope/core/internal/testmodel"
	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/model/llamacpp"
)

// oracleFixed are hand-picked texts of every class the tokenizers treat
// differently.
var oracleFixed = []string{
	"", " ", "  ", "   ", "\t", "\n", "\r\n", "\n\n\n", " \n", "\n ", "\t\t x", "a\n\n\nb", "a \n b", "x\r\ny\r\n",
	"Hello world", "Hello, world!", "Once upon a time, there was a little girl named Lily.",
	"The quick brown fox jumps over the lazy dog.", "   leading spaces", "trailing spaces   ", " both ",
	"1", "12", "123", "1234", "12345", "1234567890", "3.14159", "1,000,000", "a1b22c333d4444", "0x1F", "2024-01-31",
	"it's", "It'S", "we'll", "WE'LL", "they're", "I've", "I'm", "he'd", "'s", "'", "''", "don't stop", "rock 'n' roll",
	"!!!", "?!", "...", "---", "()[]{}<>", "@#$%^&*", "a+b=c", "x^2 ~ y|z", "`code`", "__init__", "a_b-c.d/e\\f",
	"café", "naïve", "Zürich", "señor", "ÀÉÎÕÜ", "ß", "İstanbul", "ǅungla", "e\u0301", "a\u0300\u0301",
	"日本語のテキスト", "中文文本", "한국어", "Привет мир", "Ελληνικά", "עברית", "العربية", "हिन्दी", "ไทย",
	"🙂", "👍🏽", "👨‍👩‍👧", "🇫🇷", "emoji 🙂 in text", "∑ ∫ √ ∞", "½ ² ³ ٣ ௫", "€100", "£5", "¥",
	"\u00a0nbsp", "ideographic\u3000space", "line\u2028sep", "zero\u200bwidth", "\u0085", "\x00", "\x01\x02\x7f",
	"𠀀 𪜀 \U0002EBF0\U0002EBF1 \u2FFC \u31EF", "a\U0002EBF0b", "中\U0002EBF0文", "x\u2FFCy", "\uFFFD", "\U0010FFFD",
	"<|endoftext|>", "<s>", "</s>", "<unk>", "<|im_start|>user\nhi<|im_end|>", "<|begin_of_text|>",
	"<tool_call>", "</tool_call>", "<think>x</think>", "[multimodal]", "<start_of_turn>", "<end_of_turn>",
	"a<|endoftext|>b", "x</s>y", "<s>hello</s>", " <tool_call> ", "<tool_call><tool_call>",
	"▁", "▁▁x", "Ġ", "<0x0A>", "[PAD151700]",
}

// oraclePieces are the parts random texts are made of.
var oraclePieces = []string{
	"the", "The", "tokenizer", "Lily", " ", "  ", "\t", "\n", "\r\n", "\n\n", "1", "42", "1234567", "3.5",
	"'s", "'LL", "'re", "'t", "don't", "é", "naïve", "日本語", "中文", "한국어", "🙂", "👍🏽", "Ω", "!", "?!", "...",
	"—", "«»", "\"", "(", ")", ",", ".", "-", "_", "$", "€", "½", "²", "٣", "\u0301", "\u00a0", "\u3000",
	"ß", "İ", "x", "Hello", "WORLD", "<|endoftext|>", "<s>", "</s>", "<|im_start|>", "<tool_call>",
	"[multimodal]", "▁", "<0x41>", "\U0002EBF0",
}

// oracleTexts returns oracleFixed and n seeded random texts: mixes of
// oraclePieces and of random code points.
func oracleTexts(n int) []string {
	rng := rand.New(rand.NewPCG(20240131, 7))
	texts := slices.Clone(oracleFixed)
	for range n {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			if rng.IntN(5) == 0 {
				r := rune(rng.IntN(0x3000))
				if rng.IntN(4) == 0 {
					r = rune(rng.IntN(0x30000))
				}
				if utf8.ValidRune(r) {
					b.WriteRune(r)
				}
				continue
			}
			b.WriteString(oraclePieces[rng.IntN(len(oraclePieces))])
		}
		texts = append(texts, b.String())
	}
	return texts
}

// diffTokens reports the texts whose ids differ from llama.cpp's.
func diffTokens(t *testing.T, tok *model.Tokenizer, texts []string, got func(string) []int, want [][]int) {
	t.Helper()
	bad := 0
	for i, s := range texts {
		g := got(s)
		if slices.Equal(g, want[i]) {
			continue
		}
		if bad++; bad <= 8 {
			t.Errorf("%q:\n got  %v %s\n want %v %s", s, g, pieces(tok, g), want[i], pieces(tok, want[i]))
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d texts differ from llama.cpp", bad, len(texts))
	}
}

func pieces(tok *model.Tokenizer, ids []int) string {
	ps := make([]string, len(ids))
	for i, id := range ids {
		ps[i] = fmt.Sprintf("%q", tok.Piece(id))
	}
	return strings.Join(ps, " ")
}

// Tokenization equals llama.cpp's on every real vocabulary, for the fixed
// and random texts: Encode with llama_tokenize's parse_special off,
// EncodeSpecial with it on.
func TestTokenizeMatchesLlamaCpp(t *testing.T) {
	llamacpp.Require(t)
	plain, special := oracleTexts(400), oracleTexts(100)
	for _, name := range testmodel.Vocabs {
		t.Run(name, func(t *testing.T) {
			path := testmodel.VocabPath(t, name)
			tok := testmodel.Tokenizer(t, name)
			wantPlain, wantSpecial, err := llamacpp.TokenizeBoth(path, plain, special)
			if err != nil {
				t.Fatal(err)
			}
			diffTokens(t, tok, plain, func(s string) []int { return tok.Encode(s, false, false) }, wantPlain)
			diffTokens(t, tok, special, func(s string) []int { return tok.EncodeSpecial(s, false, false) }, wantSpecial)
		})
	}
}
