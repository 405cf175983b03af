package model

import "math"

// SentencePiece BPE (tokenizer.ggml.model "llama"), as llama.cpp's
// llm_tokenizer_spm_session: spaces become "▁" (and the fragment gets a
// leading "▁" when the vocabulary adds a space prefix), the text is split
// into characters (by their lead byte, unchecked), and the adjacent pair whose
// concatenation is the highest-scoring token (the leftmost on ties) is merged
// until no pair is a token. Any token takes part, whatever its type. A piece
// left that is not a token falls back to byte tokens <0xXX>.

// spaceMark is SentencePiece's visible space, "▁" (U+2581).
const spaceMark = "\u2581"

// spmKey orders SentencePiece merges: the highest score first (the float's
// bits made to sort as unsigned, then inverted), then the leftmost.
func spmKey(score float32, left int32) uint64 {
	u := math.Float32bits(score)
	if u&(1<<31) != 0 {
		u = ^u
	} else {
		u |= 1 << 31
	}
	return uint64(^u)<<32 | uint64(left)
}

// spmEncode appends the tokens of raw text (a fragment without user-defined
// tokens) to out; prefix asks for the leading space.
func (t *Tokenizer) spmEncode(text string, prefix bool, out []int, sc *scratch) []int {
	w := sc.word[:0]
	if prefix {
		w = append(w, spaceMark...)
	}
	for i := 0; i < len(text); i++ {
		if text[i] == ' ' {
			w = append(w, spaceMark...)
		} else {
			w = append(w, text[i])
		}
	}
	syms := sc.syms[:0]
	for i := 0; i < len(w); {
		n := min(utf8Len(w[i]), len(w)-i)
		id, ok := t.lookup[string(w[i:i+n])]
		if !ok {
			id = -1
		}
		k := int32(len(syms))
		syms = append(syms, symbol{start: int32(i), n: int32(n), prev: k - 1, next: k + 1, id: id})
		i += n
	}
	if len(syms) == 0 {
		return out
	}
	sc.word = w
	return t.mergeWord(out, w, syms, sc, (*Tokenizer).pushSPM, (*Tokenizer).appendByte)
}

// appendByte appends the token of byte c as llama.cpp's byte_to_token finds
// it: "<0xXX>", else the one-byte text. Where llama.cpp throws (neither
// exists) the unknown token is appended, or nothing without one.
func (t *Tokenizer) appendByte(out []int, c byte) []int {
	switch {
	case t.byteTok[c] >= 0:
		return append(out, int(t.byteTok[c]))
	case t.singleByte[c] >= 0:
		return append(out, int(t.singleByte[c]))
	case t.UNK >= 0:
		return append(out, t.UNK)
	}
	return out
}

// pushSPM queues the merge of symbols l and r if their text is a token.
func (t *Tokenizer) pushSPM(h []bigram, syms []symbol, w []byte, l, r int32) []bigram {
	if l < 0 || r < 0 {
		return h
	}
	a, b := &syms[l], &syms[r]
	size := a.n + b.n
	id, ok := t.lookup[string(w[a.start:a.start+size])]
	if !ok {
		return h
	}
	return heapPush(h, bigram{key: spmKey(t.scores[id], l), left: l, right: r, a: a.n, b: b.n, id: id})
}

// appendSPMText appends the text of a normal SentencePiece token: "▁" becomes
// a space, and the token's leading one is dropped when strip is set.
func appendSPMText(dst []byte, p string, strip bool) []byte {
	for len(p) > 0 {
		if len(p) >= len(spaceMark) && p[:len(spaceMark)] == spaceMark {
			if !strip {
				dst = append(dst, ' ')
			}
			p = p[len(spaceMark):]
		} else {
			dst = append(dst, p[0])
			p = p[1:]
		}
		strip = false
	}
	return dst
}
