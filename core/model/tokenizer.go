package model

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/kvscope/kvscope/core/model/gguf"
)

// Token types as stored in tokenizer.ggml.token_type (SentencePiece's numbering).
const (
	TokenNormal      = 1
	TokenUnknown     = 2
	TokenControl     = 3
	TokenUserDefined = 4
	TokenUnused      = 5
	TokenByte        = 6
)

// spaceMark is SentencePiece's visible space, "▁" (U+2581).
const spaceMark = "\u2581"

// Tokenizer is a SentencePiece-style BPE tokenizer: pieces with scores, "▁" for
// spaces, and byte tokens <0x00>…<0xFF> as fallback for characters the
// vocabulary lacks.
type Tokenizer struct {
	pieces []string
	scores []float32
	types  []int32
	// lookup maps the text of normal and user-defined pieces to their ids; only
	// these take part in encoding.
	lookup  map[string]int
	byteTok [256]int // id of <0xXX>, or -1
	BOS     int      // beginning-of-sequence id
	EOS     int      // end-of-sequence id
	UNK     int      // id used when a byte has no byte token
}

// NewTokenizer builds a tokenizer. pieces and scores must have equal length;
// types may be nil, in which case pieces of the form <0xXX> are byte tokens, the
// bos, eos and unk ids control/unknown tokens, and all others normal. It returns
// an error if lengths differ, the vocabulary is empty, or bos, eos or unk is out
// of range.
func NewTokenizer(pieces []string, scores []float32, types []int32, bos, eos, unk int) (*Tokenizer, error) {
	n := len(pieces)
	if n == 0 {
		return nil, fmt.Errorf("model: tokenizer: empty vocabulary")
	}
	if len(scores) != n || (types != nil && len(types) != n) {
		return nil, fmt.Errorf("model: tokenizer: %d pieces, %d scores, %d types", n, len(scores), len(types))
	}
	for _, id := range []int{bos, eos, unk} {
		if id < 0 || id >= n {
			return nil, fmt.Errorf("model: tokenizer: special token id %d out of range [0, %d)", id, n)
		}
	}
	t := &Tokenizer{pieces: pieces, scores: scores, types: types, BOS: bos, EOS: eos, UNK: unk, lookup: make(map[string]int, n)}
	if t.types == nil {
		t.types = make([]int32, n)
		for i, p := range pieces {
			switch {
			case i == unk:
				t.types[i] = TokenUnknown
			case i == bos || i == eos:
				t.types[i] = TokenControl
			case isBytePiece(p):
				t.types[i] = TokenByte
			default:
				t.types[i] = TokenNormal
			}
		}
	}
	for i := range t.byteTok {
		t.byteTok[i] = -1
	}
	for i, p := range pieces {
		switch t.types[i] {
		case TokenNormal, TokenUserDefined:
			if _, dup := t.lookup[p]; !dup {
				t.lookup[p] = i
			}
		case TokenByte:
			if b, ok := parseBytePiece(p); ok && t.byteTok[b] < 0 {
				t.byteTok[b] = i
			}
		}
	}
	return t, nil
}

// TokenizerFromGGUF builds a tokenizer from tokenizer.ggml.tokens, .scores
// (default all 0), .token_type (optional), .bos_token_id (default 1),
// .eos_token_id (default 2) and .unknown_token_id (default 0). It returns an
// error if tokenizer.ggml.model is present and not "llama", or arrays are
// missing, mistyped or of different lengths.
func TokenizerFromGGUF(f *gguf.File) (*Tokenizer, error) {
	if v, ok := f.Lookup("tokenizer.ggml.model"); ok {
		if s, _ := v.Str(); s != "llama" {
			return nil, fmt.Errorf("model: tokenizer.ggml.model %q, want \"llama\" (SentencePiece)", s)
		}
	}
	tv, _ := f.Lookup("tokenizer.ggml.tokens")
	pieces, ok := tv.Strings()
	if !ok {
		return nil, fmt.Errorf("model: tokenizer.ggml.tokens missing or not an array of strings")
	}
	scores := make([]float32, len(pieces))
	if sv, ok := f.Lookup("tokenizer.ggml.scores"); ok {
		if scores, ok = sv.Float32s(); !ok {
			return nil, fmt.Errorf("model: tokenizer.ggml.scores is not an array of floats")
		}
	}
	var types []int32
	if tv, ok := f.Lookup("tokenizer.ggml.token_type"); ok {
		ints, ok := tv.Ints()
		if !ok {
			return nil, fmt.Errorf("model: tokenizer.ggml.token_type is not an array of integers")
		}
		types = make([]int32, len(ints))
		for i, x := range ints {
			types[i] = int32(max(min(x, math.MaxInt32), math.MinInt32))
		}
	}
	id := func(key string, def int) (int, error) {
		v, ok := f.Lookup(key)
		if !ok {
			return def, nil
		}
		i, ok := v.Int()
		if !ok || i < 0 || i >= int64(len(pieces)) {
			return 0, fmt.Errorf("model: %s = %v is not a token id", key, v.Data)
		}
		return int(i), nil
	}
	bos, err := id("tokenizer.ggml.bos_token_id", 1)
	if err != nil {
		return nil, err
	}
	eos, err := id("tokenizer.ggml.eos_token_id", 2)
	if err != nil {
		return nil, err
	}
	unk, err := id("tokenizer.ggml.unknown_token_id", 0)
	if err != nil {
		return nil, err
	}
	return NewTokenizer(pieces, scores, types, bos, eos, unk)
}

func isBytePiece(p string) bool {
	_, ok := parseBytePiece(p)
	return ok
}

// parseBytePiece parses "<0xXX>" (hex digits, either case).
func parseBytePiece(p string) (byte, bool) {
	if len(p) != 6 || p[:3] != "<0x" || p[5] != '>' {
		return 0, false
	}
	var b byte
	for _, c := range []byte(p[3:5]) {
		switch {
		case '0' <= c && c <= '9':
			b = b<<4 | (c - '0')
		case 'a' <= c && c <= 'f':
			b = b<<4 | (c - 'a' + 10)
		case 'A' <= c && c <= 'F':
			b = b<<4 | (c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return b, true
}

// Type returns the SentencePiece type of id (TokenNormal, TokenByte, …), or
// 0 if id is out of range.
func (t *Tokenizer) Type(id int) int32 {
	if id < 0 || id >= len(t.types) {
		return 0
	}
	return t.types[id]
}

// VocabSize returns the number of pieces.
func (t *Tokenizer) VocabSize() int { return len(t.pieces) }

// Piece returns the raw vocabulary entry of id ("▁the", "<0x0A>", "<s>"), or ""
// if id is out of range.
func (t *Tokenizer) Piece(id int) string {
	if id < 0 || id >= len(t.pieces) {
		return ""
	}
	return t.pieces[id]
}

// Encode tokenizes text: it prepends a space (SentencePiece's dummy prefix) to
// non-empty text, maps spaces to "▁", starts from one token per character (the
// character's UTF-8 bytes as byte tokens when the vocabulary lacks it, UNK when
// even those are missing), then repeatedly merges the adjacent pair whose merged
// piece has the highest score (the leftmost on ties) until no pair is in the
// vocabulary. BOS and EOS are added when asked. Encoding costs O(n²) in the
// number of characters n.
func (t *Tokenizer) Encode(text string, bos, eos bool) []int {
	ids := make([]int, 0, len(text)+3)
	if bos {
		ids = append(ids, t.BOS)
	}
	start := len(ids)
	if text != "" {
		text = " " + text
	}
	for i := 0; i < len(text); {
		r, w := utf8.DecodeRuneInString(text[i:])
		ch := text[i : i+w]
		if r == ' ' {
			ch = spaceMark
		}
		if id, ok := t.lookup[ch]; ok && (r != utf8.RuneError || w > 1) {
			ids = append(ids, id)
		} else {
			for _, b := range []byte(text[i : i+w]) {
				if id := t.byteTok[b]; id >= 0 {
					ids = append(ids, id)
				} else {
					ids = append(ids, t.UNK)
				}
			}
		}
		i += w
	}
	ids = append(ids[:start], t.merge(ids[start:])...)
	if eos {
		ids = append(ids, t.EOS)
	}
	return ids
}

// merge applies BPE merges to seg in place and returns the shortened slice.
func (t *Tokenizer) merge(seg []int) []int {
	if len(seg) < 2 {
		return seg
	}
	var buf []byte
	best := make([]float32, len(seg)-1) // score of merging pair (i, i+1); -Inf if impossible
	with := make([]int, len(seg)-1)     // id of the merged piece
	pair := func(i int) {
		a, b := seg[i], seg[i+1]
		best[i] = float32(math.Inf(-1))
		if !t.mergeable(a) || !t.mergeable(b) {
			return
		}
		buf = append(append(buf[:0], t.pieces[a]...), t.pieces[b]...)
		if id, ok := t.lookup[string(buf)]; ok {
			best[i], with[i] = t.scores[id], id
		}
	}
	for i := range best {
		pair(i)
	}
	for {
		bi := -1
		bs := float32(math.Inf(-1))
		for i, s := range best {
			if s > bs {
				bi, bs = i, s
			}
		}
		if bi < 0 {
			return seg
		}
		seg[bi] = with[bi]
		seg = append(seg[:bi+1], seg[bi+2:]...)
		best = append(best[:bi], best[bi+1:]...)
		with = append(with[:bi], with[bi+1:]...)
		if bi > 0 {
			pair(bi - 1)
		}
		if bi < len(best) {
			pair(bi)
		}
	}
}

func (t *Tokenizer) mergeable(id int) bool {
	ty := t.types[id]
	return ty == TokenNormal || ty == TokenUserDefined
}

// AppendToken appends the text of token id, which follows token prev (-1 at the
// start), to dst and returns the extended slice: "▁" becomes a space, a byte
// token its byte, control and unused tokens nothing, and an out-of-range id
// nothing. A leading space is dropped when prev is BOS or -1 (it came from the
// dummy prefix). It allocates only when dst must grow.
func (t *Tokenizer) AppendToken(dst []byte, prev, id int) []byte {
	if id < 0 || id >= len(t.pieces) {
		return dst
	}
	p := t.pieces[id]
	switch t.types[id] {
	case TokenControl, TokenUnused:
		return dst
	case TokenByte:
		if b, ok := parseBytePiece(p); ok {
			return append(dst, b)
		}
	}
	first := true
	for len(p) > 0 {
		if strings.HasPrefix(p, spaceMark) {
			if !(first && (prev == t.BOS || prev < 0)) {
				dst = append(dst, ' ')
			}
			p = p[len(spaceMark):]
		} else {
			i := strings.Index(p, spaceMark)
			if i < 0 {
				i = len(p)
			}
			dst = append(dst, p[:i]...)
			p = p[i:]
		}
		first = false
	}
	return dst
}

// Decode returns the text of ids, the inverse of Encode for valid UTF-8 text
// without "▁" characters: see AppendToken.
func (t *Tokenizer) Decode(ids []int) string {
	var b []byte
	prev := -1
	for _, id := range ids {
		b = t.AppendToken(b, prev, id)
		prev = id
	}
	return string(b)
}
