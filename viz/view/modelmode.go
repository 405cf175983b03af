package view

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kvscope/kvscope/core/sim"
)

// The page's modes: the synthetic stream or a real model.
const (
	ModeSynthetic = "synthetic"
	ModeModel     = "model"
)

// Modes are the accepted values of the mode field.
var Modes = []string{ModeSynthetic, ModeModel}

// Real-model mode's limits and defaults.
const (
	DefaultPrompt      = "Once upon a time"
	DefaultModelTokens = 256
	MinModelTokens     = 8       // positions, BOS and prompt included
	MaxModelTokens     = 32768   // the page's limit; a model's own context applies below it (FitPrompt)
	MaxPromptBytes     = 1 << 20 // a document of about 250,000 tokens: far past any context the page runs
	PromptRoom         = 64      // tokens FitPrompt leaves after a prompt that fills Max tokens
)

// FitPrompt decides how long a run of a prompt of promptTokens positions
// (BOS included) is, given Max tokens maxTok and the model's context
// length. A prompt that leaves no room in maxTok raises it to hold the
// prompt and PromptRoom tokens more, within the context; a prompt the
// context cannot hold with a token to spare is refused (ok false). The
// notice, empty when maxTok stands, gives the numbers that decided.
func FitPrompt(promptTokens, maxTok, context int) (tokens int, notice string, ok bool) {
	tokens = min(maxTok, context)
	if tokens < maxTok {
		notice = "Max tokens " + itoa(maxTok) + " is above this model's context of " + itoa(context) + " tokens; using " + itoa(context)
	}
	if promptTokens < tokens {
		return tokens, notice, true
	}
	if promptTokens >= context {
		return 0, "The prompt is " + itoa(promptTokens) + " tokens and this model's context holds " + itoa(context) +
			": shorten it to fewer than " + itoa(context) + " tokens. The previous prompt is kept.", false
	}
	n := min(promptTokens+PromptRoom, context)
	return n, "The prompt is " + itoa(promptTokens) + " tokens, more than Max tokens " + itoa(maxTok) +
		": Max tokens raised to " + itoa(n) + " (this model's context is " + itoa(context) + ")", true
}

// ChatNotice says how a question is asked of a model whose chat format
// is format (model.ChatFormat's name; "none" when not recognised) and
// whether its file gives a chat template at all.
func ChatNotice(format string, hasTemplate bool) string {
	switch {
	case format != "none":
		return "The question is asked in this model's chat template (" + format + "): the document and the question are one user turn, and the answer is the assistant's."
	case hasTemplate:
		return "This model's chat template is not one kvscope recognises (ChatML, Llama 3, Gemma): the question follows the document as plain text, \"Question: … Answer:\"."
	}
	return "This model has no chat template (a base model): the question follows the document as plain text, \"Question: … Answer:\"."
}

// ReadableText reports whether txt, a file's contents decoded as UTF-8
// (invalid bytes already replaced by U+FFFD, as the browser's File.text
// does), reads as text rather than as a binary file: no NUL byte, and at
// most one character in a hundred replaced or a control character other
// than a tab or a line break. Empty text is not readable.
func ReadableText(txt string) bool {
	if txt == "" {
		return false
	}
	bad, n := 0, 0
	for _, r := range txt {
		n++
		switch {
		case r == 0:
			return false
		case r == utf8.RuneError, r < 0x20 && r != '\t' && r != '\n' && r != '\r':
			bad++
		}
	}
	return bad*100 <= n
}

// IsTextFile reports whether a dropped file, by its name and MIME type,
// is a document to read as the prompt rather than a model: plain text or
// Markdown.
func IsTextFile(name, mime string) bool {
	n := strings.ToLower(name)
	return strings.HasPrefix(mime, "text/plain") || mime == "text/markdown" ||
		strings.HasSuffix(n, ".txt") || strings.HasSuffix(n, ".md")
}

// The model the page knows: Karpathy's stories260K (tinyllamas, MIT), as
// the GGUF file testdata/tinyllamas-stories-260k-f32.gguf of the public
// GitHub repository crabml/crabml.
const (
	KnownModelFile   = "stories260K.gguf"
	KnownModelSHA256 = "c14806920629b6c217445c69d7ac61bd0e4047289f8ab824c3f0b4f827a5d1cb"
	KnownModelSize   = 1182656
)

// IsKnownModel reports whether a file's sha256 (lower-case hex) is the
// stories260K file the page was made with.
func IsKnownModel(sha256hex string) bool {
	return strings.EqualFold(sha256hex, KnownModelSHA256)
}

// SanitizePrompt returns p made safe to decode and to put in a link:
// invalid UTF-8 dropped, line breaks kept as \n (a carriage return is
// dropped), tabs kept, other control and format characters (including
// bidirectional overrides) removed, and at most MaxPromptBytes bytes kept (cut at a character
// boundary). It reports whether anything changed. It never panics and
// costs O(len(p)).
func SanitizePrompt(p string) (string, bool) {
	var b strings.Builder
	b.Grow(min(len(p), MaxPromptBytes))
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRuneInString(p[i:])
		i += size
		switch {
		case r == utf8.RuneError && size <= 1:
			continue
		case r == '\r':
			continue // line breaks are kept as \n alone
		case r == '\t' || r == '\n':
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			continue
		}
		if b.Len()+utf8.RuneLen(r) > MaxPromptBytes {
			break
		}
		b.WriteRune(r)
	}
	out := b.String()
	return out, out != p
}

// TokenText returns how a tokenizer piece reads in the text: SentencePiece's
// '▁' is a space, a byte piece "<0x0A>" is that byte (a line break, or part
// of a multi-byte character), control pieces such as "<s>" are empty.
// afterBOS drops a leading space, as decoding does for the first token.
func TokenText(piece string, afterBOS bool) string {
	if len(piece) == 6 && strings.HasPrefix(piece, "<0x") && piece[5] == '>' {
		if v, ok := hexByte(piece[3], piece[4]); ok {
			return string([]byte{v})
		}
	}
	if isControlPiece(piece) {
		return "" // <s>, </s>, <unk>
	}
	s := strings.ReplaceAll(piece, "▁", " ")
	if afterBOS {
		s = strings.TrimPrefix(s, " ")
	}
	return s
}

// isControlPiece reports whether a piece is a control token's name such
// as "<s>", "</s>" or "<unk>": letters, '/' and '_' in angle brackets.
func isControlPiece(p string) bool {
	if len(p) < 3 || p[0] != '<' || p[len(p)-1] != '>' {
		return false
	}
	for _, c := range []byte(p[1 : len(p)-1]) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '/' || c == '_') {
			return false
		}
	}
	return true
}

// bosPiece is the beginning-of-sequence piece of Llama tokenizers; the
// token after it reads without its leading space.
const bosPiece = "<s>"

func hexByte(a, b byte) (byte, bool) {
	h, ok1 := hexDigit(a)
	l, ok2 := hexDigit(b)
	return h<<4 | l, ok1 && ok2
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// TextSpan is a run of the compressed text: Text is what the tokens
// First..First+Count-1 read as; Diff marks tokens from the divergence on.
type TextSpan struct {
	Text  string
	First int
	Count int
	Diff  bool
}

// CompressedSpans splits the compressed text, given as one piece per
// position, into spans for the page: one span per token from the prompt's
// end on (so each can be hovered), the prompt as one span, and Diff set on
// the tokens at and after diverge (diverge < 0: none). Positions that read
// as nothing (BOS) are left out. dst is reused.
func CompressedSpans(dst []TextSpan, pieces []string, prompt, diverge int) []TextSpan {
	dst = dst[:0]
	var pb strings.Builder
	for p, piece := range pieces {
		t := TokenText(piece, p == 0 || pieces[p-1] == bosPiece)
		diff := diverge >= 0 && p >= diverge
		if p < prompt && !diff {
			pb.WriteString(t)
			continue
		}
		if pb.Len() > 0 {
			dst = append(dst, TextSpan{Text: pb.String(), First: 0, Count: p})
			pb.Reset()
		}
		if t != "" {
			dst = append(dst, TextSpan{Text: t, First: p, Count: 1, Diff: diff})
		}
	}
	if pb.Len() > 0 {
		dst = append(dst, TextSpan{Text: pb.String(), First: 0, Count: len(pieces)})
	}
	return dst
}

// PromptTail is how many bytes of a long prompt the texts panel shows,
// before its continuation: the whole document is in the text view.
const PromptTail = 240

// TailText returns s when it is at most n bytes long, else "…" and its
// last n bytes or fewer (cut at a character boundary).
func TailText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return "…" + s[i:]
}

// SplitFull splits the uncompressed text where the compressed one leaves
// it: agree is the text both runs share (the compressed spans before the
// divergence), rest the uncompressed continuation from there. When diverge
// < 0 all of full agrees. If full does not start with that shared text
// (it should), the split falls back to the longest common prefix of full
// and the shared text, at a character boundary.
func SplitFull(full string, spans []TextSpan) (agree, rest string) {
	var b strings.Builder
	diverged := false
	for _, s := range spans {
		if s.Diff {
			diverged = true
			break
		}
		b.WriteString(s.Text)
	}
	if !diverged {
		return full, ""
	}
	shared := b.String()
	n := 0
	for n < len(full) && n < len(shared) && full[n] == shared[n] {
		n++
	}
	for n > 0 && n < len(full) && !utf8.RuneStart(full[n]) {
		n--
	}
	return full[:n], full[n:]
}

// ModelConfig returns the policy and storage settings of c that a real
// model with the given head dim decodes maxTok positions with: the
// synthetic stream's settings reset to sim.DefaultConfig's (the model
// fixes the shape), budgets at most maxTok (silently: a budget as long as
// the run keeps everything either way), the rank at most headDim, and for
// the "group" granularity a group size that divides headDim (the largest
// divisor not above the one asked). The rank and group adjustments, which
// change what is stored, yield notices. headDim and maxTok must be positive.
func ModelConfig(c sim.Config, headDim, maxTok int) (sim.Config, []Notice) {
	out := sim.DefaultConfig()
	out.Seed, out.Policy, out.Sink, out.Recent, out.Heavy = c.Seed, c.Policy, c.Sink, c.Recent, c.Heavy
	out.ChunkSize, out.DropShare, out.Shared = c.ChunkSize, c.DropShare, c.Shared
	out.Bits, out.Granularity, out.GroupSize, out.Residual, out.Rank = c.Bits, c.Granularity, c.GroupSize, c.Residual, c.Rank
	out.Tokens = maxTok
	var ns []Notice
	note := func(key string, old, now int, why string) {
		ns = append(ns, Notice{Key: key, Value: itoa(old), Msg: why + " for this model; using " + itoa(now)})
	}
	for _, p := range []*int{&out.Sink, &out.Recent, &out.Heavy, &out.ChunkSize, &out.Residual} {
		*p = min(*p, maxTok)
	}
	if out.Rank > headDim {
		note("rank", out.Rank, headDim, "at most the head dim")
		out.Rank = headDim
	}
	if out.Granularity == "group" && (out.GroupSize < 1 || headDim%out.GroupSize != 0) {
		g := min(max(out.GroupSize, 1), headDim)
		for headDim%g != 0 {
			g--
		}
		note("group", out.GroupSize, g, "must divide the head dim "+itoa(headDim))
		out.GroupSize = g
	}
	return out, ns
}
