package model

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/kvscope/kvscope/core/model/gguf"
)

// Token types as stored in tokenizer.ggml.token_type (llama.cpp's
// llama_token_type; 0 is undefined).
const (
	TokenNormal      = 1
	TokenUnknown     = 2
	TokenControl     = 3
	TokenUserDefined = 4
	TokenUnused      = 5
	TokenByte        = 6
)

// Tokenizer turns text into token ids exactly as llama.cpp's llama_tokenize
// does with add_special and parse_special off, for the two vocabulary kinds
// small GGUF models use: SentencePiece BPE (tokenizer.ggml.model "llama":
// Llama 2, TinyLlama, Gemma) and byte-level BPE ("gpt2": GPT-2, Llama 3,
// Qwen, SmolLM) with the pre-tokenizer tokenizer.ggml.pre names.
//
// Text is first cut around the user-defined tokens it contains (matched
// whole, longest first); the literal text of control tokens ("<s>",
// "<|endoftext|>") is ordinary text. Token types are the file's, corrected as
// llama.cpp corrects them at load: texts it knows as end-of-generation or
// fill-in-the-middle markers ("</s>", "<|im_end|>", …) become control tokens.
//
// A Tokenizer is read-only after construction and safe for concurrent use.
type Tokenizer struct {
	bpe            bool
	pre            preKind
	preName        string
	ignoreMerges   bool
	addSpacePrefix bool
	addBOS, addEOS bool

	pieces []string
	scores []float32
	types  []int32
	// lookup maps the text of every token, whatever its type, to its id
	// (llama.cpp's token_to_id).
	lookup     map[string]int32
	byteTok    [256]int32 // id of the text "<0xXX>", or -1
	singleByte [256]int32 // id of the one-byte text, or -1
	charTok    [256]int32 // byte-level BPE: id of the byte's alphabet character, or -1
	pairRank   map[uint64]bpeMerge
	textRank   map[[2]string]bpeMerge
	user       matcher // user-defined tokens: matched in text by Encode
	special    matcher // control, user-defined and unknown tokens: matched by EncodeSpecial

	BOS int // beginning-of-sequence id, or -1 if the vocabulary has none
	EOS int // end-of-sequence id, or -1
	UNK int // unknown-token id, or -1

	// HasTemplate reports whether the file gives a chat template
	// (tokenizer.chat_template), and Chat is the format recognised in it
	// (DetectChat; ChatNone for a template kvscope does not know).
	HasTemplate bool
	Chat        ChatFormat
}

// vocab is a vocabulary as a GGUF file describes it, with llama.cpp's
// defaults applied.
type vocab struct {
	bpe                            bool
	pieces                         []string
	scores                         []float32
	types                          []int32 // nil: every token normal
	merges                         []string
	pre                            string
	bos, eos, unk                  int // -1: none
	addBOS, addEOS, addSpacePrefix bool
	fimGiven                       [len(fimTexts)]bool // the file gives that marker's id
}

// NewTokenizer builds a SentencePiece tokenizer with llama.cpp's defaults
// (space prefix, BOS added). pieces and scores must have equal length; types
// may be nil, in which case pieces of the form <0xXX> are byte tokens, the
// bos, eos and unk ids control/unknown tokens, and all others normal. It
// returns an error if lengths differ, the vocabulary is empty, a piece is
// repeated, or bos, eos or unk is out of range.
func NewTokenizer(pieces []string, scores []float32, types []int32, bos, eos, unk int) (*Tokenizer, error) {
	n := len(pieces)
	for _, id := range []int{bos, eos, unk} {
		if n > 0 && (id < 0 || id >= n) {
			return nil, fmt.Errorf("model: tokenizer: special token id %d out of range [0, %d)", id, n)
		}
	}
	if types == nil && len(scores) == n {
		types = make([]int32, n)
		for i, p := range pieces {
			switch {
			case i == unk:
				types[i] = TokenUnknown
			case i == bos || i == eos:
				types[i] = TokenControl
			case isBytePiece(p):
				types[i] = TokenByte
			default:
				types[i] = TokenNormal
			}
		}
	}
	return newTokenizer(vocab{pieces: pieces, scores: scores, types: types, bos: bos, eos: eos, unk: unk,
		addBOS: true, addSpacePrefix: true})
}

// NewBPETokenizer builds a byte-level BPE tokenizer: tokens written in the
// GPT-2 byte alphabet, their types (nil: all normal), merges as
// tokenizer.ggml.merges stores them ("left right", rank = index), the
// pre-tokenizer's tokenizer.ggml.pre name ("gpt-2", "llama-bpe", "qwen2",
// "smollm", …; an unknown or empty name selects llama.cpp's default
// pre-tokenizer) and the BOS and EOS ids (-1 for none). Whether BOS is
// added by default follows the pre-tokenizer as in llama.cpp (Llama 3's
// yes, the others no). It returns an error if lengths differ, the vocabulary
// is empty, a token is repeated, or bos or eos is out of range.
func NewBPETokenizer(tokens []string, types []int32, merges []string, pre string, bos, eos int) (*Tokenizer, error) {
	for _, id := range []int{bos, eos} {
		if id < -1 || id >= len(tokens) {
			return nil, fmt.Errorf("model: tokenizer: special token id %d out of range [-1, %d)", id, len(tokens))
		}
	}
	return newTokenizer(vocab{bpe: true, pieces: tokens, types: types, merges: merges, pre: pre,
		bos: bos, eos: eos, unk: -1, addBOS: preTokenizers[pre].addBOS})
}

// TokenizerFromGGUF builds the tokenizer of a GGUF file from its metadata
// alone (no tensor is read, so vocabulary-only files work), as llama.cpp's
// vocabulary loader does: tokenizer.ggml.model ("llama" when absent, or
// "gpt2"), .pre, .tokens, .scores (default all 0), .token_type (default all
// normal), .merges (required for "gpt2"), the special ids .bos_token_id,
// .eos_token_id and .unknown_token_id (defaults 1, 2, 0 for "llama"; 11, 11
// and none for "gpt2"; a default outside the vocabulary means none), and
// .add_bos_token, .add_eos_token and .add_space_prefix (defaults: BOS and a
// space prefix for "llama"; for "gpt2" BOS per pre-tokenizer, no prefix). It
// returns an error naming the key if the model is another one, or a value is
// missing, mistyped, of the wrong length or not a token id, or if a token is
// repeated.
func TokenizerFromGGUF(f *gguf.File) (*Tokenizer, error) {
	v := vocab{}
	model := "llama"
	if val, ok := f.Lookup("tokenizer.ggml.model"); ok {
		if model, ok = val.Str(); !ok {
			return nil, fmt.Errorf("model: tokenizer.ggml.model is not a string")
		}
	}
	if val, ok := f.Lookup("tokenizer.ggml.pre"); ok {
		if v.pre, ok = val.Str(); !ok {
			return nil, fmt.Errorf("model: tokenizer.ggml.pre is not a string")
		}
	}
	switch model {
	case "llama":
		v.bos, v.eos, v.unk = 1, 2, 0
		v.addBOS, v.addSpacePrefix = true, true
	case "gpt2":
		v.bpe = true
		v.bos, v.eos, v.unk = 11, 11, -1
		v.addBOS = preTokenizers[v.pre].addBOS
		mv, ok := f.Lookup("tokenizer.ggml.merges")
		if !ok {
			return nil, fmt.Errorf("model: tokenizer.ggml.merges missing (required by tokenizer.ggml.model \"gpt2\")")
		}
		if v.merges, ok = mv.Strings(); !ok {
			return nil, fmt.Errorf("model: tokenizer.ggml.merges is not an array of strings")
		}
	default:
		return nil, fmt.Errorf("model: tokenizer.ggml.model %q is not supported (want \"llama\" or \"gpt2\")", model)
	}
	tv, _ := f.Lookup("tokenizer.ggml.tokens")
	var ok bool
	if v.pieces, ok = tv.Strings(); !ok {
		return nil, fmt.Errorf("model: tokenizer.ggml.tokens missing or not an array of strings")
	}
	n := len(v.pieces)
	if sv, ok := f.Lookup("tokenizer.ggml.scores"); ok {
		if v.scores, ok = sv.Float32s(); !ok {
			ints, isInt := sv.Ints()
			if !isInt {
				return nil, fmt.Errorf("model: tokenizer.ggml.scores is not an array of numbers")
			}
			v.scores = make([]float32, len(ints))
			for i, x := range ints {
				v.scores[i] = float32(x)
			}
		}
	}
	if tv, ok := f.Lookup("tokenizer.ggml.token_type"); ok {
		ints, ok := tv.Ints()
		if !ok {
			return nil, fmt.Errorf("model: tokenizer.ggml.token_type is not an array of integers")
		}
		v.types = make([]int32, len(ints))
		for i, x := range ints {
			v.types[i] = int32(max(min(x, math.MaxInt32), math.MinInt32))
		}
	}
	id := func(key string, def *int) error {
		if *def >= n {
			*def = -1
		}
		val, ok := f.Lookup(key)
		if !ok {
			return nil
		}
		i, ok := val.Int()
		if !ok || i < 0 || i >= int64(n) {
			return fmt.Errorf("model: %s = %v is not a token id", key, val.Data)
		}
		*def = int(i)
		return nil
	}
	for _, s := range []struct {
		key string
		id  *int
	}{{"tokenizer.ggml.bos_token_id", &v.bos}, {"tokenizer.ggml.eos_token_id", &v.eos}, {"tokenizer.ggml.unknown_token_id", &v.unk}} {
		if err := id(s.key, s.id); err != nil {
			return nil, err
		}
	}
	for _, s := range []struct {
		key string
		on  *bool
	}{{"tokenizer.ggml.add_bos_token", &v.addBOS}, {"tokenizer.ggml.add_eos_token", &v.addEOS}, {"tokenizer.ggml.add_space_prefix", &v.addSpacePrefix}} {
		if val, ok := f.Lookup(s.key); ok {
			b, isBool := val.Data.(bool)
			if !isBool {
				return nil, fmt.Errorf("model: %s = %v is not a boolean", s.key, val.Data)
			}
			*s.on = b
		}
	}
	if v.addBOS && v.bos < 0 {
		return nil, fmt.Errorf("model: tokenizer.ggml.add_bos_token is true, but tokenizer.ggml.bos_token_id is not set")
	}
	if v.addEOS && v.eos < 0 {
		return nil, fmt.Errorf("model: tokenizer.ggml.add_eos_token is true, but tokenizer.ggml.eos_token_id is not set")
	}
	for i, keys := range fimKeys {
		for _, k := range keys {
			if _, ok := f.Lookup(k); ok {
				v.fimGiven[i] = true
			}
		}
	}
	tok, err := newTokenizer(v)
	if err != nil {
		return nil, err
	}
	if val, ok := f.Lookup("tokenizer.chat_template"); ok {
		s, isStr := val.Str()
		if !isStr {
			return nil, fmt.Errorf("model: tokenizer.chat_template is not a string")
		}
		tok.HasTemplate, tok.Chat = true, DetectChat(s)
	}
	return tok, nil
}

// newTokenizer checks v and builds its tokenizer.
func newTokenizer(v vocab) (*Tokenizer, error) {
	n := len(v.pieces)
	if n == 0 {
		return nil, fmt.Errorf("model: tokenizer: empty vocabulary")
	}
	if v.scores == nil {
		v.scores = make([]float32, n)
	}
	if len(v.scores) != n || (v.types != nil && len(v.types) != n) {
		return nil, fmt.Errorf("model: tokenizer: %d pieces, %d scores, %d types", n, len(v.scores), len(v.types))
	}
	info, known := preTokenizers[v.pre]
	if !known {
		info = preTokenizers["default"]
	}
	t := &Tokenizer{
		bpe: v.bpe, pre: info.kind, preName: v.pre, ignoreMerges: v.bpe && info.ignoreMerges,
		addSpacePrefix: v.addSpacePrefix, addBOS: v.addBOS, addEOS: v.addEOS,
		pieces: v.pieces, scores: v.scores, types: make([]int32, n),
		lookup: make(map[string]int32, n), BOS: v.bos, EOS: v.eos, UNK: v.unk,
	}
	cloned := false
	for i, p := range t.pieces {
		if p == "" { // llama.cpp renames empty tokens
			if !cloned {
				t.pieces, cloned = slices.Clone(v.pieces), true
			}
			p = fmt.Sprintf("[EMPTY_%d]", i)
			t.pieces[i] = p
		}
		if j, dup := t.lookup[p]; dup {
			return nil, fmt.Errorf("model: tokenizer: duplicate token %q at ids %d and %d", p, j, i)
		}
		t.lookup[p] = int32(i)
		t.types[i] = TokenNormal
		if v.types != nil {
			t.types[i] = v.types[i]
			if t.types[i] < 0 || t.types[i] > TokenByte {
				t.types[i] = 0
			}
		}
	}
	t.retype(v.fimGiven)
	for b := range 256 {
		t.byteTok[b], t.singleByte[b] = -1, -1
		if id, ok := t.lookup[fmt.Sprintf("<0x%02X>", b)]; ok {
			t.byteTok[b] = id
		}
		if id, ok := t.lookup[string([]byte{byte(b)})]; ok {
			t.singleByte[b] = id
		}
		t.charTok[b] = -1
		if id, ok := t.lookup[byteText[b]]; ok {
			t.charTok[b] = id
		}
	}
	if t.bpe {
		t.loadMerges(v.merges)
	}
	var user, special []int32
	for i, ty := range t.types {
		switch ty {
		case TokenUserDefined:
			user = append(user, int32(i))
			special = append(special, int32(i))
		case TokenControl, TokenUnknown:
			special = append(special, int32(i))
		}
	}
	t.user = newMatcher(t.pieces, user)
	t.special = newMatcher(t.pieces, special)
	return t, nil
}

// Texts llama.cpp's loader retypes whatever the file says.
var (
	// eogTexts end generation; they become control tokens.
	eogTexts = []string{"<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>",
		"<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]", "<|end_of_text|>",
		"<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>", "<｜end▁of▁sentence｜>", "[e~["}
	// fimTexts are the fill-in-the-middle markers (prefix, suffix, middle,
	// pad, repo, file separator) looked for when the file gives no id; the
	// one found becomes a control token.
	fimTexts = [...][]string{
		{"<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>", "<｜fim▁begin｜>", "<PRE>", "▁<PRE>", "<|code_prefix|>", "<|prefix|>"},
		{"<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>", "<｜fim▁hole｜>", "<SUF>", "▁<SUF>", "<|code_suffix|>", "<|suffix|>"},
		{"<|fim_middle|>", "<fim-middle>", "<fim_middle>", "<｜fim▁end｜>", "<MID>", "▁<MID>", "<|code_middle|>", "<|middle|>"},
		{"<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"},
		{"<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"},
		{"<|file_sep|>"},
	}
	fimKeys = [len(fimTexts)][]string{
		{"tokenizer.ggml.fim_pre_token_id", "tokenizer.ggml.prefix_token_id"},
		{"tokenizer.ggml.fim_suf_token_id", "tokenizer.ggml.suffix_token_id"},
		{"tokenizer.ggml.fim_mid_token_id", "tokenizer.ggml.middle_token_id"},
		{"tokenizer.ggml.fim_pad_token_id"},
		{"tokenizer.ggml.fim_rep_token_id"},
		{"tokenizer.ggml.fim_sep_token_id"},
	}
	// gptOSSTexts are always user-defined (rendered in output).
	gptOSSTexts = []string{"<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"}
)

// retype applies llama.cpp's load-time corrections of token types.
func (t *Tokenizer) retype(fimGiven [len(fimTexts)]bool) {
	set := func(text string, ty int32) bool {
		id, ok := t.lookup[text]
		if ok {
			t.types[id] = ty
		}
		return ok
	}
	for i, texts := range fimTexts {
		if fimGiven[i] {
			continue
		}
		// llama.cpp takes the first match in hash order; the lowest id here.
		first := int32(-1)
		for _, s := range texts {
			if id, ok := t.lookup[s]; ok && (first < 0 || id < first) {
				first = id
			}
		}
		if first >= 0 {
			t.types[first] = TokenControl
		}
	}
	for _, s := range eogTexts {
		set(s, TokenControl)
	}
	for _, s := range gptOSSTexts {
		set(s, TokenUserDefined)
	}
	has := func(s string) bool { _, ok := t.lookup[s]; return ok }
	// o200k_harmony and solar-open: "<|end|>" does not end generation there.
	if has("<|end|>") && (has("<|return|>") && (has("<|call|>") || has("<|calls|>")) || (has("<|call|>") || has("<|calls|>")) && has("<|flush|>")) {
		set("<|end|>", TokenUserDefined)
	}
	// Gemma 4 and PaddleOCR: "</s>" is text there.
	if has("<|tool_response>") {
		set("</s>", TokenNormal)
	}
}

// matcher finds which of a set of special tokens occur in a text.
type matcher struct {
	first [256]bool        // a token starts with this byte
	edges map[uint64]int32 // trie: node<<8 | byte → child node
	ends  []int32          // per node: the token ending there, or -1
	rank  map[int32]int32  // token → its place in priority order
	ids   []int32          // the tokens, longest text first (then by id)
}

func newMatcher(pieces []string, ids []int32) matcher {
	m := matcher{ids: slices.Clone(ids), edges: map[uint64]int32{}, ends: []int32{-1}, rank: make(map[int32]int32, len(ids))}
	slices.SortStableFunc(m.ids, func(a, b int32) int { return len(pieces[b]) - len(pieces[a]) })
	for r, id := range m.ids {
		m.rank[id] = int32(r)
		p := pieces[id]
		m.first[p[0]] = true
		node := int32(0)
		for i := 0; i < len(p); i++ {
			k := uint64(node)<<8 | uint64(p[i])
			child, ok := m.edges[k]
			if !ok {
				child = int32(len(m.ends))
				m.edges[k] = child
				m.ends = append(m.ends, -1)
			}
			node = child
		}
		m.ends[node] = id
	}
	return m
}

// present appends to dst the ranks of the tokens occurring in text, sorted
// and without repeats.
func (m *matcher) present(text string, dst []int32) []int32 {
	if len(m.ids) == 0 {
		return dst
	}
	start := len(dst)
	for i := 0; i < len(text); i++ {
		if !m.first[text[i]] {
			continue
		}
		node := int32(0)
		for j := i; j < len(text); j++ {
			child, ok := m.edges[uint64(node)<<8|uint64(text[j])]
			if !ok {
				break
			}
			node = child
			if id := m.ends[node]; id >= 0 {
				dst = append(dst, m.rank[id])
			}
		}
	}
	slices.Sort(dst[start:])
	return append(dst[:start], slices.Compact(dst[start:])...)
}

// fragment is a byte range of the text, raw (tok -1) or one special token.
type fragment struct{ start, end, tok int32 }

// partition cuts text around the tokens of m it contains as llama.cpp's
// tokenizer_st_partition does: token by token in priority order, each one's
// leftmost occurrences taken out of every raw fragment left.
func (m *matcher) partition(text string, pieces []string, sc *scratch) []fragment {
	frags := append(sc.frags[:0], fragment{0, int32(len(text)), -1})
	sc.ranks = m.present(text, sc.ranks[:0])
	for _, r := range sc.ranks {
		id := m.ids[r]
		p := pieces[id]
		next := sc.next[:0]
		for _, f := range frags {
			if f.tok >= 0 {
				next = append(next, f)
				continue
			}
			s := f.start
			for s < f.end {
				k := strings.Index(text[s:f.end], p)
				if k < 0 {
					break
				}
				if k > 0 {
					next = append(next, fragment{s, s + int32(k), -1})
				}
				next = append(next, fragment{s + int32(k), s + int32(k+len(p)), id})
				s += int32(k + len(p))
			}
			if s < f.end {
				next = append(next, fragment{s, f.end, -1})
			}
		}
		frags, sc.next = next, frags
	}
	sc.frags = frags
	return frags
}

// scratch is the working memory of one Encode, pooled across calls.
type scratch struct {
	out         []int
	frags, next []fragment
	ranks       []int32
	word        []byte
	syms        []symbol
	heap        []bigram
	split       splitter
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// Encode tokenizes text as llama.cpp's llama_tokenize with add_special and
// parse_special off, adding BOS and EOS when asked (ids of -1 are not
// added): user-defined tokens are matched whole, control tokens' texts are
// ordinary text. For SentencePiece each raw fragment gets a leading space
// when the vocabulary adds a space prefix (add_space_prefix) and it starts
// the text or follows a matched token. Encode allocates the result and,
// the first time, pooled working memory; it costs O(n log n) in the number
// of bytes n.
func (t *Tokenizer) Encode(text string, bos, eos bool) []int {
	return t.encode(text, bos, eos, &t.user)
}

// Prompt returns the ids a run over text starts with: text encoded as
// Encode does, after BOS when the vocabulary asks for it (AddBOS). A run
// needs one token to start from, so an empty result becomes BOS, or EOS
// when the vocabulary has no BOS (Qwen's <|endoftext|> is both) — or
// stays empty for a vocabulary with neither.
func (t *Tokenizer) Prompt(text string) []int {
	ids := t.Encode(text, t.AddBOS(), false)
	if len(ids) == 0 {
		switch {
		case t.BOS >= 0:
			ids = []int{t.BOS}
		case t.EOS >= 0:
			ids = []int{t.EOS}
		}
	}
	return ids
}

// EncodeSpecial is Encode with parse_special on: the texts of control,
// user-defined and unknown tokens are matched whole, as where kvscope writes
// a chat template itself ("<|im_start|>user\n…").
func (t *Tokenizer) EncodeSpecial(text string, bos, eos bool) []int {
	return t.encode(text, bos, eos, &t.special)
}

func (t *Tokenizer) encode(text string, bos, eos bool, m *matcher) []int {
	sc := scratchPool.Get().(*scratch)
	out := sc.out[:0]
	if bos && t.BOS >= 0 {
		out = append(out, t.BOS)
	}
	if text != "" {
		prevSpecial := true
		for _, f := range m.partition(text, t.pieces, sc) {
			switch {
			case f.tok >= 0:
				out = append(out, int(f.tok))
				prevSpecial = true
			case t.bpe:
				out = t.bpeEncode(text[f.start:f.end], out, sc)
			default:
				out = t.spmEncode(text[f.start:f.end], t.addSpacePrefix && prevSpecial, out, sc)
				prevSpecial = false
			}
		}
	}
	if eos && t.EOS >= 0 {
		out = append(out, t.EOS)
	}
	ids := slices.Clone(out)
	if ids == nil {
		ids = []int{}
	}
	sc.out = out
	scratchPool.Put(sc)
	return ids
}

// TokenID returns the id of the token whose text is exactly text, of any
// type ("<|im_start|>", "<s>", "Ġthe"), as llama.cpp's text_to_token.
func (t *Tokenizer) TokenID(text string) (int, bool) {
	id, ok := t.lookup[text]
	return int(id), ok
}

// AddBOS reports whether the vocabulary asks for BOS before a text
// (tokenizer.ggml.add_bos_token, with llama.cpp's defaults).
func (t *Tokenizer) AddBOS() bool { return t.addBOS && t.BOS >= 0 }

// AddEOS reports whether the vocabulary asks for EOS after a text
// (tokenizer.ggml.add_eos_token).
func (t *Tokenizer) AddEOS() bool { return t.addEOS && t.EOS >= 0 }

// Model returns the vocabulary kind as tokenizer.ggml.model names it:
// "llama" (SentencePiece) or "gpt2" (byte-level BPE).
func (t *Tokenizer) Model() string {
	if t.bpe {
		return "gpt2"
	}
	return "llama"
}

// Pre returns the tokenizer.ggml.pre value the tokenizer was built with.
func (t *Tokenizer) Pre() string { return t.preName }

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

// utf8Len is the length of the UTF-8 sequence lead byte b announces, as
// llama.cpp's unicode_len_utf8 reads it (continuation bytes count as 1).
func utf8Len(b byte) int {
	switch {
	case b < 0xC0:
		return 1
	case b < 0xE0:
		return 2
	case b < 0xF0:
		return 3
	}
	return 4
}

// Type returns the type of id (TokenNormal, TokenByte, …) after llama.cpp's
// load-time corrections, or 0 if id is out of range.
func (t *Tokenizer) Type(id int) int32 {
	if id < 0 || id >= len(t.types) {
		return 0
	}
	return t.types[id]
}

// VocabSize returns the number of pieces.
func (t *Tokenizer) VocabSize() int { return len(t.pieces) }

// Piece returns the raw vocabulary entry of id ("▁the", "Ġthe", "<0x0A>",
// "<s>"), or "" if id is out of range.
func (t *Tokenizer) Piece(id int) string {
	if id < 0 || id >= len(t.pieces) {
		return ""
	}
	return t.pieces[id]
}

// TokenText returns token id, following token prev (-1 at the start), as
// a reader sees it on its own: its text as AppendToken renders it there,
// with bytes that do not form whole UTF-8 characters — a byte-level token
// cut inside one — shown as U+FFFD. A token that renders as nothing (BOS,
// EOS, other control and unknown tokens) is shown by its piece ("<s>",
// "<|endoftext|>"), so a display can name it.
func (t *Tokenizer) TokenText(prev, id int) string {
	var buf [32]byte
	b := t.AppendToken(buf[:0], prev, id)
	if len(b) == 0 && id >= 0 && id < len(t.pieces) {
		return t.pieces[id]
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// AppendToken appends the bytes of token id, which follows token prev (-1 at
// the start), to dst and returns the extended slice, as llama.cpp's
// token_to_piece renders it without specials: a normal SentencePiece token
// with "▁" as a space, a normal byte-level token as the bytes its characters
// stand for, a user-defined token as its text, a byte token as its byte, and
// control, unknown, unused and out-of-range ids as nothing. When the
// vocabulary adds a space prefix, a leading space is dropped after BOS or at
// the start (it came from the prefix). A byte-level token may end inside a
// UTF-8 sequence: appending the tokens one by one yields the same bytes as
// Decode. It allocates only when dst must grow.
func (t *Tokenizer) AppendToken(dst []byte, prev, id int) []byte {
	if id < 0 || id >= len(t.pieces) {
		return dst
	}
	p := t.pieces[id]
	switch t.types[id] {
	case TokenNormal:
		if t.bpe {
			return appendBPEText(dst, p)
		}
		return appendSPMText(dst, p, t.addSpacePrefix && (prev < 0 || prev == t.BOS))
	case TokenUserDefined:
		return append(dst, p...)
	case TokenByte:
		if b, ok := parseBytePiece(p); ok {
			return append(dst, b)
		}
	}
	return dst
}

// Decode returns the text of ids (see AppendToken): the inverse of Encode
// for valid UTF-8 text with byte-level BPE, and for SentencePiece without
// "▁" characters or user-defined tokens in the text.
func (t *Tokenizer) Decode(ids []int) string {
	var b []byte
	prev := -1
	for _, id := range ids {
		b = t.AppendToken(b, prev, id)
		prev = id
	}
	return string(b)
}
