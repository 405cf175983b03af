package model

import (
	"fmt"
	"strings"
)

// Byte-level BPE (tokenizer.ggml.model "gpt2"), as llama.cpp's
// llm_tokenizer_bpe_session: each pre-tokenized word is written in the GPT-2
// byte alphabet (one character per byte of its UTF-8), split into those
// characters, and the adjacent pair with the lowest merge rank (the leftmost
// on ties) is merged until no pair has a rank. A merged piece that is not a
// token falls back to the tokens of its single bytes.

// byteChar maps a byte to the character that stands for it in a byte-level
// vocabulary: printable Latin-1 bytes stand for themselves, the other 68
// (control bytes, space, DEL, NBSP, soft hyphen) in order for U+0100…U+0143.
// byteText is that character's UTF-8, charByte the inverse map (-1 for a
// character outside the alphabet).
var byteChar, byteText, charByte = func() (chars [256]rune, texts [256]string, inv [0x144]int16) {
	n := rune(0)
	for b := range 256 {
		if '!' <= b && b <= '~' || 0xA1 <= b && b <= 0xAC || 0xAE <= b {
			chars[b] = rune(b)
		} else {
			chars[b] = 0x100 + n
			n++
		}
	}
	for i := range inv {
		inv[i] = -1
	}
	for b, r := range chars {
		texts[b] = string(r)
		inv[r] = int16(b)
	}
	return chars, texts, inv
}()

// bpeMerge is a merge's rank and the id of the token it makes (-1 when the
// merged text is not a token).
type bpeMerge struct{ rank, id int32 }

// loadMerges reads tokenizer.ggml.merges: "left right" split at the first
// space after position 0 (a line without one is the pair "", ""), the rank
// being the line's index; a repeated pair keeps its first rank. Pairs of two
// tokens are keyed by their ids, the rare others by their texts.
func (t *Tokenizer) loadMerges(merges []string) {
	t.pairRank = make(map[uint64]bpeMerge, len(merges))
	var buf []byte
	for i, m := range merges {
		var l, r string
		if len(m) > 1 {
			if sp := strings.IndexByte(m[1:], ' '); sp >= 0 {
				l, r = m[:sp+1], m[sp+2:]
			}
		}
		buf = append(append(buf[:0], l...), r...)
		res, ok := t.lookup[string(buf)]
		if !ok {
			res = -1
		}
		mg := bpeMerge{rank: int32(i), id: res}
		li, lok := t.lookup[l]
		ri, rok := t.lookup[r]
		if lok && rok {
			if k := pairKey(li, ri); !hasPair(t.pairRank, k) {
				t.pairRank[k] = mg
			}
			continue
		}
		if t.textRank == nil {
			t.textRank = make(map[[2]string]bpeMerge)
		}
		if _, dup := t.textRank[[2]string{l, r}]; !dup {
			t.textRank[[2]string{l, r}] = mg
		}
	}
}

func pairKey(l, r int32) uint64 { return uint64(uint32(l))<<32 | uint64(uint32(r)) }

func hasPair(m map[uint64]bpeMerge, k uint64) bool { _, ok := m[k]; return ok }

// symbol is a piece of a word during merging: bytes [start, start+n) of the
// word, its neighbours in the chain (-1 at the ends) and its token id (-1
// when its text is not a token). n is 0 once merged into its left neighbour.
type symbol struct{ start, n, prev, next, id int32 }

// bigram is a candidate merge of symbols left and right into token id. key
// orders the queue (smallest first): BPE's rank then left, SentencePiece's
// score (highest first) then left. It is valid while the symbols' lengths are
// still a and b (they only grow, or drop to 0 when merged away).
type bigram struct {
	key               uint64
	left, right, a, b int32
	id                int32
}

// join merges bigram b's right symbol into its left one, which becomes
// token b.id, and unlinks the right one (BPE and SentencePiece alike).
func join(syms []symbol, b bigram) {
	l, r := &syms[b.left], &syms[b.right]
	l.n += r.n
	r.n = 0
	l.id = b.id
	l.next = r.next
	if r.next >= 0 {
		syms[r.next].prev = b.left
	}
}

// bpeEncode appends the tokens of raw text (a fragment without user-defined
// tokens) to out.
func (t *Tokenizer) bpeEncode(text string, out []int, sc *scratch) []int {
	sp := &sc.split
	sp.load(text)
	sp.split(t.pre)
	ini := 0
	var enc [4]byte
	for _, e := range sp.ends {
		w := sc.word[:0]
		for _, r := range sp.cpts[ini:e] {
			for _, b := range appendCpt(enc[:0], r) {
				w = append(w, byteText[b]...)
			}
		}
		sc.word = w
		out = t.bpeWord(w, out, sc)
		ini = int(e)
	}
	return out
}

// bpeWord appends the tokens of one word, written in the byte alphabet.
func (t *Tokenizer) bpeWord(w []byte, out []int, sc *scratch) []int {
	if t.ignoreMerges {
		if id, ok := t.lookup[string(w)]; ok {
			return append(out, int(id))
		}
	}
	syms := sc.syms[:0]
	for i := 0; i < len(w); {
		// Every character of the word stands for one byte.
		n := min(utf8Len(w[i]), len(w)-i)
		k := int32(len(syms))
		syms = append(syms, symbol{start: int32(i), n: int32(n), prev: k - 1, next: k + 1, id: t.charTok[w[i]]})
		if n == 2 {
			syms[k].id = t.charTok[charByte[rune(w[i]&0x1F)<<6|rune(w[i+1]&0x3F)]]
		}
		i += n
	}
	return t.mergeWord(out, w, syms, sc, (*Tokenizer).pushBPE, (*Tokenizer).appendSingleByte)
}

// appendSingleByte appends the token of byte c's one-byte text, if there is
// one: byte-level BPE's fallback for a symbol that is no token.
func (t *Tokenizer) appendSingleByte(out []int, c byte) []int {
	if id := t.singleByte[c]; id >= 0 {
		out = append(out, int(id))
	}
	return out
}

// mergeWord is the merge loop of BPE and SentencePiece alike. syms are the
// symbols of word w, linked in order (at least one); push queues the merge
// of two adjacent symbols if the vocabulary has one (bpe: a ranked pair,
// SentencePiece: a scored token), and the queue's first merge still valid
// is applied until none is left. It then appends the tokens of the symbols
// left to out, a symbol that is no token byte by byte through fallback,
// and keeps syms and the queue in sc for the next word.
func (t *Tokenizer) mergeWord(out []int, w []byte, syms []symbol, sc *scratch,
	push func(t *Tokenizer, h []bigram, syms []symbol, w []byte, l, r int32) []bigram,
	fallback func(t *Tokenizer, out []int, c byte) []int) []int {
	syms[len(syms)-1].next = -1
	h := sc.heap[:0]
	for i := 1; i < len(syms); i++ {
		h = push(t, h, syms, w, int32(i-1), int32(i))
	}
	for len(h) > 0 {
		var b bigram
		b, h = heapPop(h)
		l, r := &syms[b.left], &syms[b.right]
		if l.n == 0 || r.n == 0 || l.n != b.a || r.n != b.b {
			continue // stale: a side was merged since
		}
		join(syms, b)
		h = push(t, h, syms, w, l.prev, b.left)
		h = push(t, h, syms, w, b.left, l.next)
	}
	for i := int32(0); i >= 0; i = syms[i].next {
		s := syms[i]
		if s.id >= 0 {
			out = append(out, int(s.id))
			continue
		}
		for _, c := range w[s.start : s.start+s.n] {
			out = fallback(t, out, c)
		}
	}
	sc.syms, sc.heap = syms, h
	return out
}

// pushBPE queues the merge of symbols l and r if the pair has a rank.
func (t *Tokenizer) pushBPE(h []bigram, syms []symbol, w []byte, l, r int32) []bigram {
	if l < 0 || r < 0 {
		return h
	}
	a, b := &syms[l], &syms[r]
	var m bpeMerge
	var ok bool
	if a.id >= 0 && b.id >= 0 {
		m, ok = t.pairRank[pairKey(a.id, b.id)]
	} else if t.textRank != nil {
		m, ok = t.textRank[[2]string{string(w[a.start : a.start+a.n]), string(w[b.start : b.start+b.n])}]
	}
	if !ok {
		return h
	}
	return heapPush(h, bigram{key: uint64(m.rank)<<32 | uint64(l), left: l, right: r, a: a.n, b: b.n, id: m.id})
}

// appendBPEText appends the bytes a normal byte-level token stands for. A
// character outside the byte alphabet is written as llama.cpp's
// llama_decode_text writes it: "[UNK_BYTE_0x" + its UTF-8 in hex + the
// token's text + "]".
func appendBPEText(dst []byte, p string) []byte {
	for _, r := range p {
		if r >= 0 && int(r) < len(charByte) && charByte[r] >= 0 {
			dst = append(dst, byte(charByte[r]))
			continue
		}
		dst = fmt.Appendf(dst, "[UNK_BYTE_0x%x%s]", string(r), p)
	}
	return dst
}

// heapPush adds x to the binary min-heap h (by key).
func heapPush(h []bigram, x bigram) []bigram {
	h = append(h, x)
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if h[i].key >= h[p].key {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	return h
}

// heapPop removes and returns the smallest element of h.
func heapPop(h []bigram) (bigram, []bigram) {
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h[c+1].key < h[c].key {
			c++
		}
		if h[c].key >= h[i].key {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	return top, h
}
