package model

import "unicode"

// Pre-tokenization of byte-level BPE: text is decoded into code points the
// way llama.cpp decodes it, each code point gets the character classes
// llama.cpp's splitters read, and a pipeline of splitters cuts the code
// points into words. The splitters are hand-written scanners that mirror
// llama.cpp's (src/unicode.cpp: unicode_regex_split_custom_gpt2, _llama3,
// _qwen2, and std::regex for the passes it has no scanner for), including
// their behaviour at the edges of a segment: a later pass only cuts inside
// the words of the earlier ones.

// Character classes of a code point (llama.cpp's unicode_cpt_flags, reduced
// to the bits the splitters test).
const (
	cLetter   uint8 = 1 << iota // \p{L}
	cNumber                     // \p{N}
	cSpace                      // \s: Unicode White_Space (llama.cpp's unicode_set_whitespace is the same set)
	cPunct                      // \p{P}
	cDefPunct                   // the default pre-tokenizer's first pass: [\p{P}\$\+<=>\^~\|]
)

// asciiClass holds the classes of the ASCII code points.
var asciiClass = func() (t [128]uint8) {
	for c := rune(0); c < 128; c++ {
		t[c] = classOfRune(c)
	}
	for _, c := range "$+<=>^~|" {
		t[c] |= cDefPunct
	}
	return t
}()

// classOf returns the classes of code point r.
func classOf(r rune) uint8 {
	if r < 0x80 {
		return asciiClass[r]
	}
	return classOfRune(r)
}

// classOfRune classifies r with Go's Unicode tables (Unicode 15.0). llama.cpp
// generated its tables from Unicode 15.1: of the 627 code points 15.1
// assigned, only CJK Unified Ideographs Extension I (U+2EBF0–U+2EE5D, letters)
// changes a split; the other five (U+2FFC–U+2FFF, U+31EF) are symbols, which
// split like the unassigned code points Go takes them for.
func classOfRune(r rune) uint8 {
	var c uint8
	if unicode.Is(unicode.White_Space, r) {
		c |= cSpace
	}
	switch {
	case unicode.IsLetter(r) || 0x2EBF0 <= r && r <= 0x2EE5D:
		c |= cLetter
	case unicode.IsNumber(r):
		c |= cNumber
	case unicode.IsPunct(r):
		c |= cPunct | cDefPunct
	}
	return c
}

// decodeCpt decodes the code point at the start of s as llama.cpp's
// unicode_cpt_from_utf8 does: it checks only the lead byte's length and that
// the following bytes are continuation bytes, so overlong forms and
// surrogates decode to their values. Anything else yields U+FFFD and one
// byte. Values above U+10FFFF (which llama.cpp cannot re-encode and throws
// on) also yield U+FFFD, with their length.
func decodeCpt(s string) (rune, int) {
	b0 := s[0]
	cont := func(i int) bool { return i < len(s) && s[i]&0xC0 == 0x80 }
	switch {
	case b0 < 0x80:
		return rune(b0), 1
	case b0&0x40 == 0:
		return 0xFFFD, 1
	case b0&0x20 == 0:
		if cont(1) {
			return rune(b0&0x1F)<<6 | rune(s[1]&0x3F), 2
		}
	case b0&0x10 == 0:
		if cont(1) && cont(2) {
			return rune(b0&0x0F)<<12 | rune(s[1]&0x3F)<<6 | rune(s[2]&0x3F), 3
		}
	case b0&0x08 == 0:
		if cont(1) && cont(2) && cont(3) {
			r := rune(b0&0x07)<<18 | rune(s[1]&0x3F)<<12 | rune(s[2]&0x3F)<<6 | rune(s[3]&0x3F)
			if r > unicode.MaxRune {
				return 0xFFFD, 4
			}
			return r, 4
		}
	}
	return 0xFFFD, 1
}

// appendCpt appends the UTF-8 encoding of r (at most U+10FFFF) as llama.cpp's
// unicode_cpt_to_utf8 writes it: surrogates are encoded like any other
// three-byte code point.
func appendCpt(b []byte, r rune) []byte {
	switch {
	case r < 0x80:
		return append(b, byte(r))
	case r < 0x800:
		return append(b, 0xC0|byte(r>>6), 0x80|byte(r)&0x3F)
	case r < 0x10000:
		return append(b, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
	}
	return append(b, 0xF0|byte(r>>18), 0x80|byte(r>>12)&0x3F, 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
}

// preKind names a pre-tokenizer pipeline.
type preKind uint8

const (
	preDefault    preKind = iota // [\p{P}\$\+<=>\^~\|]+, then gpt-2, then \p{N}+, then [0-9][0-9][0-9]
	preGPT2                      // 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)
	preLlama3                    // (?i:'s|…)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
	preQwen2                     // as preLlama3 with \p{N} (one digit) for \p{N}{1,3}
	preDigitsGPT2                // \p{N} (every digit on its own), then gpt-2
)

// preInfo is what llama.cpp derives from a tokenizer.ggml.pre value.
type preInfo struct {
	kind         preKind
	ignoreMerges bool // a word that is already a token is emitted whole
	addBOS       bool // the default of tokenizer.ggml.add_bos_token
}

// preTokenizers maps tokenizer.ggml.pre values to their pipelines, as
// llama.cpp's llama_vocab::impl::load does (names of the same regex share a
// line). A value not listed here, or none, gets the default pipeline.
var preTokenizers = map[string]preInfo{
	"default": {kind: preDefault},
	"gpt-2":   {kind: preGPT2}, "phi-2": {kind: preGPT2}, "jina-es": {kind: preGPT2}, "jina-de": {kind: preGPT2},
	"gigachat": {kind: preGPT2}, "jina-v2-es": {kind: preGPT2}, "jina-v2-de": {kind: preGPT2}, "mpt": {kind: preGPT2},
	"olmo": {kind: preGPT2}, "jais": {kind: preGPT2}, "trillion": {kind: preGPT2}, "granite-docling": {kind: preGPT2},
	"exaone4": {kind: preGPT2}, "mellum": {kind: preGPT2}, "a.x-4.0": {kind: preGPT2}, "modern-bert": {kind: preGPT2},
	"llama3": {kind: preLlama3, ignoreMerges: true, addBOS: true}, "llama-v3": {kind: preLlama3, ignoreMerges: true, addBOS: true},
	"llama-bpe": {kind: preLlama3, ignoreMerges: true, addBOS: true}, "falcon3": {kind: preLlama3, ignoreMerges: true, addBOS: true},
	"falcon-h1": {kind: preLlama3, ignoreMerges: true, addBOS: true}, "pixtral": {kind: preLlama3, ignoreMerges: true, addBOS: true},
	"midm-2.0": {kind: preLlama3, ignoreMerges: true, addBOS: true}, "lfm2": {kind: preLlama3, ignoreMerges: true, addBOS: true},
	"dbrx": {kind: preLlama3}, "smaug-bpe": {kind: preLlama3}, "glm4": {kind: preLlama3}, "chatglm-bpe": {kind: preLlama3},
	"qwen2": {kind: preQwen2}, "deepseek-r1-qwen": {kind: preQwen2}, "megrez": {kind: preQwen2}, "stablelm2": {kind: preQwen2},
	"hunyuan": {kind: preQwen2}, "solar-open": {kind: preQwen2}, "grok-2": {kind: preQwen2},
	"starcoder": {kind: preDigitsGPT2}, "smollm": {kind: preDigitsGPT2}, "refact": {kind: preDigitsGPT2},
	"command-r": {kind: preDigitsGPT2}, "codeshell": {kind: preDigitsGPT2}, "exaone": {kind: preDigitsGPT2},
	"minerva-7b": {kind: preDigitsGPT2}, "mellum2": {kind: preDigitsGPT2},
}

// splitter holds a text's code points and classes while its pipeline cuts
// them into words; ends are the words' end indices.
type splitter struct {
	cpts []rune
	cls  []uint8
	ends []int32
	next []int32
}

// load decodes text into s.cpts and s.cls.
func (s *splitter) load(text string) {
	s.cpts, s.cls = s.cpts[:0], s.cls[:0]
	for i := 0; i < len(text); {
		r, n := decodeCpt(text[i:])
		s.cpts = append(s.cpts, r)
		s.cls = append(s.cls, classOf(r))
		i += n
	}
}

// split runs pipeline k over the loaded code points and leaves the words'
// end indices in s.ends.
func (s *splitter) split(k preKind) {
	s.ends = append(s.ends[:0], int32(len(s.cpts)))
	switch k {
	case preGPT2:
		s.pass(s.gpt2)
	case preLlama3:
		s.pass(func(ini, end int) { s.llama3(ini, end, 3) })
	case preQwen2:
		s.pass(func(ini, end int) { s.llama3(ini, end, 1) })
	case preDigitsGPT2:
		s.pass(func(ini, end int) { s.runs(ini, end, cNumber, true) })
		s.pass(s.gpt2)
	default:
		s.pass(func(ini, end int) { s.runs(ini, end, cDefPunct, false) })
		s.pass(s.gpt2)
		s.pass(func(ini, end int) { s.runs(ini, end, cNumber, false) })
		s.pass(s.digitTriples)
	}
}

// pass applies f to every current word, f appending the new ends to s.next.
func (s *splitter) pass(f func(ini, end int)) {
	s.next = s.next[:0]
	ini := 0
	for _, e := range s.ends {
		f(ini, int(e))
		ini = int(e)
	}
	s.ends, s.next = s.next, s.ends
}

// cut ends a word at e; it does nothing when the word would be empty.
func (s *splitter) cut(e int) {
	prev := int32(0)
	if n := len(s.next); n > 0 {
		prev = s.next[n-1]
	}
	if int32(e) > prev {
		s.next = append(s.next, int32(e))
	}
}

// at returns the classes of code point p of a segment ending at end (0 past it).
func (s *splitter) at(p, end int) uint8 {
	if p < end {
		return s.cls[p]
	}
	return 0
}

// contraction returns the length of 's 't 're 've 'm 'll 'd at pos (0 if
// none), with the letters case-folded when fold is set.
func (s *splitter) contraction(pos, end int, fold bool) int {
	if s.cpts[pos] != '\'' || pos+1 >= end {
		return 0
	}
	lower := func(r rune) rune {
		if fold && 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	switch lower(s.cpts[pos+1]) {
	case 's', 't', 'm', 'd':
		return 2
	case 'r', 'v':
		if pos+2 < end && lower(s.cpts[pos+2]) == 'e' {
			return 3
		}
	case 'l':
		if pos+2 < end && lower(s.cpts[pos+2]) == 'l' {
			return 3
		}
	}
	return 0
}

// whitespace returns where a run of white space starting at pos ends and
// the end of its last \r or \n (0 if it has none).
func (s *splitter) whitespace(pos, end int) (n, lastRN int) {
	for pos+n < end && s.cls[pos+n]&cSpace != 0 {
		if c := s.cpts[pos+n]; c == '\r' || c == '\n' {
			lastRN = pos + n + 1
		}
		n++
	}
	return n, lastRN
}

const cWord = cSpace | cLetter | cNumber

// gpt2 splits [ini, end) with the GPT-2 regex
// 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S).
func (s *splitter) gpt2(ini, end int) {
	for pos := ini; pos < end; {
		if n := s.contraction(pos, end, false); n > 0 {
			pos += n
			s.cut(pos)
			continue
		}
		q := pos // the code point after an optional leading space
		if s.cpts[pos] == ' ' {
			q = pos + 1
		}
		switch c := s.at(q, end); {
		case c&cLetter != 0:
			pos = q
			for s.at(pos, end)&cLetter != 0 {
				pos++
			}
		case c&cNumber != 0:
			pos = q
			for s.at(pos, end)&cNumber != 0 {
				pos++
			}
		case q < end && c&cWord == 0:
			pos = q
			for pos < end && s.cls[pos]&cWord == 0 {
				pos++
			}
		default:
			switch n, _ := s.whitespace(pos, end); {
			case n > 1 && pos+n < end: // \s+(?!\S): leave the last space to the next word
				pos += n - 1
			case n > 0:
				pos += n
			default:
				pos++
			}
		}
		s.cut(pos)
	}
}

// llama3 splits [ini, end) with the Llama 3 regex, digits grouped by up to
// maxDigits (3 for llama-bpe, 1 for qwen2).
func (s *splitter) llama3(ini, end, maxDigits int) {
	for pos := ini; pos < end; {
		if n := s.contraction(pos, end, true); n > 0 {
			pos += n
			s.cut(pos)
			continue
		}
		r, c := s.cpts[pos], s.cls[pos]
		// [^\r\n\p{L}\p{N}]?\p{L}+
		if r != '\r' && r != '\n' && c&cNumber == 0 && (c&cLetter != 0 || s.at(pos+1, end)&cLetter != 0) {
			pos++
			for s.at(pos, end)&cLetter != 0 {
				pos++
			}
			s.cut(pos)
			continue
		}
		// \p{N}{1,maxDigits}
		if c&cNumber != 0 {
			start := pos
			for s.at(pos, end)&cNumber != 0 {
				pos++
				if pos-start >= maxDigits {
					s.cut(pos)
					start = pos
				}
			}
			s.cut(pos)
			continue
		}
		// ' ?[^\s\p{L}\p{N}]+[\r\n]*'; a lone space at the segment's end also
		// lands here in llama.cpp, which ends the same word.
		q := pos
		if r == ' ' {
			q = pos + 1
		}
		if q < end && s.cls[q]&cWord == 0 || q == end {
			pos = q
			for pos < end && s.cls[pos]&cWord == 0 {
				pos++
			}
			for pos < end && (s.cpts[pos] == '\r' || s.cpts[pos] == '\n') {
				pos++
			}
			s.cut(pos)
			continue
		}
		switch n, lastRN := s.whitespace(pos, end); {
		case lastRN > 0: // \s*[\r\n]+
			pos = lastRN
		case n > 1 && pos+n < end: // \s+(?!\S)
			pos += n - 1
		case n > 0: // \s+
			pos += n
		default:
			pos++
		}
		s.cut(pos)
	}
}

// runs cuts [ini, end) around the code points of class bit: each on its own
// when single is set, else each maximal run of them (the regexes \p{N},
// \p{N}+ and the default's punctuation class).
func (s *splitter) runs(ini, end int, bit uint8, single bool) {
	for pos := ini; pos < end; {
		in := s.cls[pos]&bit != 0
		pos++
		if !in || !single {
			for pos < end && (s.cls[pos]&bit != 0) == in {
				pos++
			}
		}
		s.cut(pos)
	}
}

// digitTriples cuts [0-9][0-9][0-9] out of [ini, end), leftmost first.
func (s *splitter) digitTriples(ini, end int) {
	digit := func(p int) bool { return '0' <= s.cpts[p] && s.cpts[p] <= '9' }
	for pos := ini; pos+3 <= end; pos++ {
		if digit(pos) && digit(pos+1) && digit(pos+2) {
			s.cut(pos)
			pos += 3
			s.cut(pos)
			pos--
		}
	}
	s.cut(end)
}
