package model_test

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/kvscope/kvscope/core/model"
)

func toyTokenizer(t testing.TB) *model.Tokenizer {
	t.Helper()
	tok, err := model.NewTokenizer(toyPieces, toyScores, nil, 1, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// byteTokenizer is the toy vocabulary plus every missing byte token, so any
// input round-trips.
func byteTokenizer(t testing.TB) *model.Tokenizer {
	t.Helper()
	pieces := append([]string(nil), toyPieces...)
	scores := append([]float32(nil), toyScores...)
	have := map[string]bool{}
	for _, p := range pieces {
		have[p] = true
	}
	for b := 0; b < 256; b++ {
		if p := fmt.Sprintf("<0x%02X>", b); !have[p] {
			pieces = append(pieces, p)
			scores = append(scores, 0)
		}
	}
	tok, err := model.NewTokenizer(pieces, scores, nil, 1, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestEncodeToy(t *testing.T) {
	tok := toyTokenizer(t)
	tests := []struct {
		text     string
		bos, eos bool
		want     []int
	}{
		{"", false, false, []int{}},
		{"", true, true, []int{1, 2}},
		{"a", true, false, []int{1, 11}},             // ▁ a → ▁a
		{"ab", false, false, []int{14}},              // ▁a (−5) before ab (−6), then ▁ab
		{"abc", false, false, []int{11, 15}},         // ▁a and bc tie at −5: leftmost first; ▁abc absent
		{"x x", false, true, []int{7, 16, 7, 16, 2}}, // ▁x absent
		{"A\n", false, false, []int{7, 4, 3}},        // byte fallback, never merged
		{"é", false, false, []int{7, 5, 6}},          // two UTF-8 bytes
		{"\xC3", false, false, []int{7, 5}},          // invalid UTF-8: its byte
		{"z", false, false, []int{7, 0}},             // no piece, no byte token: UNK
	}
	for _, tc := range tests {
		if got := tok.Encode(tc.text, tc.bos, tc.eos); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Encode(%q, %v, %v) = %v, want %v", tc.text, tc.bos, tc.eos, got, tc.want)
		}
	}
}

func TestDecodeToy(t *testing.T) {
	tok := toyTokenizer(t)
	tests := []struct {
		ids  []int
		want string
	}{
		{[]int{1, 11, 15}, "abc"},
		{[]int{7, 4, 3}, "A\n"},
		{[]int{1, 7, 16, 2}, "x"},
		{[]int{11, 11}, "a a"},
		{[]int{8, 11}, "a a"}, // no leading ▁: nothing to strip
		{[]int{7, 5, 6}, "é"},
		{[]int{99, -1, 11}, "a"},
	}
	for _, tc := range tests {
		if got := tok.Decode(tc.ids); got != tc.want {
			t.Errorf("Decode(%v) = %q, want %q", tc.ids, got, tc.want)
		}
	}
}

func TestTokenTypes(t *testing.T) {
	types := make([]int32, len(toyPieces))
	for i := range types {
		types[i] = model.TokenNormal
	}
	types[0], types[1], types[2] = model.TokenUnknown, model.TokenControl, model.TokenControl
	for i := 3; i <= 6; i++ {
		types[i] = model.TokenByte
	}
	types[11] = model.TokenUnused // "▁a": still merged (llama.cpp merges any piece), never shown
	tok, err := model.NewTokenizer(toyPieces, toyScores, types, 1, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tok.Encode("abc", false, false), []int{11, 15}; !reflect.DeepEqual(got, want) {
		t.Errorf("Encode(abc) with ▁a unused = %v, want %v", got, want)
	}
	if got := tok.Decode([]int{11, 12}); got != "ab" {
		t.Errorf("unused token decoded: %q", got)
	}
	for id, want := range map[int]int32{-1: 0, 0: model.TokenUnknown, 1: model.TokenControl, 4: model.TokenByte, 11: model.TokenUnused, 12: model.TokenNormal, len(types): 0} {
		if got := tok.Type(id); got != want {
			t.Errorf("Type(%d) = %d, want %d", id, got, want)
		}
	}
}

func TestNewTokenizerErrors(t *testing.T) {
	tests := []struct {
		name          string
		pieces        []string
		scores        []float32
		types         []int32
		bos, eos, unk int
	}{
		{"empty", nil, nil, nil, 0, 0, 0},
		{"scores", []string{"a", "b"}, []float32{0}, nil, 0, 1, 0},
		{"types", []string{"a", "b"}, []float32{0, 0}, []int32{1}, 0, 1, 0},
		{"bos", []string{"a", "b"}, []float32{0, 0}, nil, 2, 1, 0},
		{"unk", []string{"a", "b"}, []float32{0, 0}, nil, 0, 1, -1},
		{"duplicate", []string{"a", "b", "a"}, []float32{0, 0, 0}, nil, 0, 1, 0},
	}
	for _, tc := range tests {
		if _, err := model.NewTokenizer(tc.pieces, tc.scores, tc.types, tc.bos, tc.eos, tc.unk); err == nil || !strings.HasPrefix(err.Error(), "model: tokenizer") {
			t.Errorf("%s: err = %v", tc.name, err)
		}
	}
}

var roundTripTexts = []string{
	"",
	"Once upon a time, there was a little girl named Lily.",
	"  two leading spaces and trailing  ",
	"tab\there\nnew line\r\n",
	"Lily's \"big\" ball!",
	"日本語 🙂 émoji",
	"\x00 nul and \x7f",
	" ",
}

func TestRoundTripReal(t *testing.T) {
	tok := realModel(t).Tokenizer
	for _, s := range roundTripTexts {
		ids := tok.Encode(s, true, true)
		if got := tok.Decode(ids); got != s {
			t.Errorf("Decode(Encode(%q)) = %q (ids %v)", s, got, ids)
		}
	}
	// Known pieces of stories260K.
	if got := tok.Decode([]int{13}); got != "\n" {
		t.Errorf("<0x0A> decodes to %q", got)
	}
	if tok.BOS != 1 || tok.EOS != 2 || tok.VocabSize() != 512 {
		t.Errorf("BOS %d EOS %d vocab %d", tok.BOS, tok.EOS, tok.VocabSize())
	}
	// Merging makes common words single tokens.
	if ids := tok.Encode("Lily", false, false); len(ids) != 1 || tok.Piece(ids[0]) != "▁Lily" {
		t.Errorf("Encode(Lily) = %v", ids)
	}
}

func TestAppendTokenAllocatesNothing(t *testing.T) {
	tok := toyTokenizer(t)
	buf := make([]byte, 0, 64)
	allocs := testing.AllocsPerRun(50, func() {
		buf = tok.AppendToken(buf[:0], 11, 14)
	})
	if allocs != 0 || string(buf) != " ab" {
		t.Errorf("AppendToken: %v allocs, text %q", allocs, buf)
	}
}

// FuzzTokenizerRoundTrip checks that Encode never panics nor returns an id
// outside the vocabulary, and Decode(Encode(s)) == s for valid UTF-8 without
// the visible-space character "▁" (which decodes as a space by design). With
// invalid UTF-8 a lead byte takes the bytes it announces into one piece, as
// in llama.cpp, spaces included (which then come back as "▁").
func FuzzTokenizerRoundTrip(f *testing.F) {
	for _, s := range roundTripTexts {
		f.Add(s)
	}
	f.Add("abc ab a bc x")
	f.Add("\xff a\xC3")
	tok := byteTokenizer(f)
	f.Fuzz(func(t *testing.T, s string) {
		ids := tok.Encode(s, true, false)
		for _, id := range ids {
			if id < 0 || id >= tok.VocabSize() {
				t.Fatalf("Encode(%q) = %v: id out of range", s, ids)
			}
		}
		if !utf8.ValidString(s) || strings.Contains(s, "▁") {
			return
		}
		if got := tok.Decode(ids); got != s {
			t.Fatalf("Decode(Encode(%q)) = %q (ids %v)", s, got, ids)
		}
		if len(ids) > len(s)+2 {
			t.Fatalf("%d tokens for %d bytes", len(ids), len(s))
		}
	})
}

// A Tokenizer is shared by goroutines (a Model serves several Runners): each
// Encode has its own working memory.
func TestEncodeConcurrent(t *testing.T) {
	tok := byteTokenizer(t)
	texts := []string{"abc ab a bc x", "日本語 🙂 émoji", strings.Repeat("ab c ", 50)}
	want := make([][]int, len(texts))
	for i, s := range texts {
		want[i] = tok.Encode(s, true, false)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Go(func() {
			for k := range 50 {
				i := (g + k) % len(texts)
				if got := tok.Encode(texts[i], true, false); !reflect.DeepEqual(got, want[i]) {
					errs <- fmt.Sprintf("%q: %v, want %v", texts[i], got, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
