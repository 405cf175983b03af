package model

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// words splits text with pipeline k.
func words(k preKind, text string) []string {
	var s splitter
	s.load(text)
	s.split(k)
	var out []string
	ini := 0
	for _, e := range s.ends {
		var b []byte
		for _, r := range s.cpts[ini:e] {
			b = appendCpt(b, r)
		}
		out = append(out, string(b))
		ini = int(e)
	}
	return out
}

// The words each pipeline cuts, worked out by hand from llama.cpp's regexes
// and scanners.
func TestPreTokenizerWords(t *testing.T) {
	tests := []struct {
		k    preKind
		text string
		want []string
	}{
		{preGPT2, "Hello world", []string{"Hello", " world"}},
		{preGPT2, "it's WE'LL", []string{"it", "'s", " WE", "'", "LL"}}, // case-sensitive contractions
		{preGPT2, "a  b", []string{"a", " ", " b"}},                     // \s+(?!\S) leaves one space
		{preGPT2, "a  ", []string{"a", "  "}},                           // trailing spaces stay together
		{preGPT2, "x 12345 !!", []string{"x", " 12345", " !!"}},
		{preGPT2, "\t\tx", []string{"\t", "\t", "x"}},
		{preGPT2, "a\n\nb", []string{"a", "\n", "\n", "b"}},
		{preGPT2, "café", []string{"café"}},
		{preLlama3, "WE'LL it's", []string{"WE", "'LL", " it", "'s"}}, // case-folded
		{preLlama3, "1234567", []string{"123", "456", "7"}},
		{preLlama3, "a  b", []string{"a", " ", " b"}},
		{preLlama3, "a \n\n b", []string{"a", " \n\n", " b"}}, // \s*[\r\n]+
		{preLlama3, "!!!\n\nx", []string{"!!!\n\n", "x"}},     // punctuation takes its newlines
		{preLlama3, "(hello)", []string{"(hello", ")"}},       // one leading non-letter
		{preLlama3, "x ", []string{"x", " "}},
		{preLlama3, " \U0002EBF0x", []string{" \U0002EBF0x"}}, // Unicode 15.1 letters are letters
		{preQwen2, "12345", []string{"1", "2", "3", "4", "5"}},
		{preQwen2, "x12", []string{"x", "1", "2"}},
		{preDigitsGPT2, "a 123 b", []string{"a", " ", "1", "2", "3", " b"}},
		{preDigitsGPT2, "x  1", []string{"x", "  ", "1"}}, // the digit pass ends the spaces' segment
		{preDefault, "Hello, world!", []string{"Hello", ",", " world", "!"}},
		{preDefault, "it's", []string{"it", "'", "s"}},                       // the punctuation pass comes first
		{preDefault, "a+b=c`d", []string{"a", "+", "b", "=", "c", "`", "d"}}, // ` is a symbol, not in the class
		{preDefault, "x 1234567", []string{"x", " ", "123", "456", "7"}},
		{preDefault, "¡Hola!", []string{"¡", "Hola", "!"}},
	}
	for _, tc := range tests {
		if got := words(tc.k, tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("pipeline %d, %q: %q, want %q", tc.k, tc.text, got, tc.want)
		}
	}
}

// llama.cpp decodes UTF-8 by the lead byte alone: overlong forms and
// surrogates keep their values, anything else is U+FFFD for one byte.
func TestDecodeCpt(t *testing.T) {
	tests := []struct {
		in string
		r  rune
		n  int
	}{
		{"a", 'a', 1}, {"é", 'é', 2}, {"日", '日', 3}, {"🙂", '🙂', 4},
		{"\xC0\x80", 0, 2},          // overlong NUL
		{"\xED\xA0\x80", 0xD800, 3}, // surrogate
		{"\x80", 0xFFFD, 1}, {"\xC3", 0xFFFD, 1}, {"\xC3a", 0xFFFD, 1}, {"\xE6\x97", 0xFFFD, 1},
		{"\xF4\x90\x80\x80", 0xFFFD, 4}, // above U+10FFFF
		{"\xF8\x80\x80\x80\x80", 0xFFFD, 1},
	}
	for _, tc := range tests {
		if r, n := decodeCpt(tc.in); r != tc.r || n != tc.n {
			t.Errorf("decodeCpt(%q) = %U, %d; want %U, %d", tc.in, r, n, tc.r, tc.n)
		}
	}
	if got := appendCpt(nil, 0xD800); string(got) != "\xED\xA0\x80" {
		t.Errorf("appendCpt(U+D800) = %x", got)
	}
}

// Classes follow Go's tables, patched where llama.cpp's (Unicode 15.1) differ.
func TestClassOf(t *testing.T) {
	tests := []struct {
		r    rune
		want uint8
	}{
		{'a', cLetter}, {'7', cNumber}, {' ', cSpace}, {'\n', cSpace}, {'!', cPunct | cDefPunct},
		{'$', cDefPunct}, {'`', 0}, {'~', cDefPunct}, {'\x00', 0},
		{'é', cLetter}, {'²', cNumber}, {'\u00a0', cSpace}, {'\u3000', cSpace}, {'¡', cPunct | cDefPunct},
		{'€', 0}, {'\u0301', 0}, {'\U0002EBF0', cLetter}, {'\U0002EE5D', cLetter}, {'\U0002EE5E', 0}, {'\u2FFC', 0},
	}
	for _, tc := range tests {
		if got := classOf(tc.r); got != tc.want {
			t.Errorf("classOf(%U) = %b, want %b", tc.r, got, tc.want)
		}
	}
}

// FuzzPreTokenizer checks that every pipeline cuts any text into non-empty
// words that cover it in order.
func FuzzPreTokenizer(f *testing.F) {
	for _, s := range []string{"Hello, world!", "it's 1234567 \n\n x", "\xff\xC3 a\u3000b", "  ", "日本語🙂"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var s splitter
		s.load(text)
		for _, k := range []preKind{preDefault, preGPT2, preLlama3, preQwen2, preDigitsGPT2} {
			s.split(k)
			prev := int32(0)
			for _, e := range s.ends {
				if e <= prev && len(s.cpts) > 0 {
					t.Fatalf("pipeline %d on %q: ends %v", k, text, s.ends)
				}
				prev = e
			}
			if int(prev) != len(s.cpts) {
				t.Fatalf("pipeline %d on %q: words end at %d of %d code points", k, text, prev, len(s.cpts))
			}
		}
		if utf8.ValidString(text) && !strings.ContainsRune(text, utf8.RuneError) {
			if got := strings.Join(words(preLlama3, text), ""); got != text {
				t.Fatalf("words of %q join to %q", text, got)
			}
		}
	})
}
