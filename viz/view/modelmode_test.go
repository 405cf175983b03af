package view

import (
	"bytes"
	"crypto/sha256"
	hexenc "encoding/hex"
	"math"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/sim"
)

func TestSanitizePrompt(t *testing.T) {
	tests := []struct {
		in, want string
		changed  bool
	}{
		{"Once upon a time", "Once upon a time", false},
		{"", "", false},
		{"line\none\ttab\r\n", "line\none\ttab\n", true},
		{"two\n\nparagraphs", "two\n\nparagraphs", false},
		{"nul\x00bell\x07esc\x1b[0m", "nulbellesc[0m", true},
		{"bidi \u202eevil\u202c and zero\u200bwidth", "bidi evil and zerowidth", true},
		{"bad \xff\xfe utf8", "bad  utf8", true},
		{"héllo — 猫", "héllo — 猫", false},
		{strings.Repeat("x", MaxPromptBytes+1), strings.Repeat("x", MaxPromptBytes), true},
		{strings.Repeat("x", MaxPromptBytes-1) + "é", strings.Repeat("x", MaxPromptBytes-1), true}, // no half character
	}
	for _, tc := range tests {
		got, changed := SanitizePrompt(tc.in)
		if got != tc.want || changed != tc.changed {
			t.Errorf("SanitizePrompt(%q) = %q, %v; want %q, %v", tc.in, got, changed, tc.want, tc.changed)
		}
	}
}

func FuzzSanitizePrompt(f *testing.F) {
	for _, s := range []string{"", "Once upon a time", "\x00\xff\u202e", strings.Repeat("猫", 100)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, changed := SanitizePrompt(in)
		if !utf8.ValidString(out) || len(out) > MaxPromptBytes || changed != (out != in) {
			t.Fatalf("SanitizePrompt(%q) = %q, %v", in, out, changed)
		}
		if again, ch := SanitizePrompt(out); ch || again != out {
			t.Fatalf("not idempotent: %q -> %q", out, again)
		}
		for _, r := range out {
			if r < ' ' || r == 0x7f {
				t.Fatalf("control %U kept in %q", r, out)
			}
		}
	})
}

func TestTokenText(t *testing.T) {
	tests := []struct {
		piece    string
		afterBOS bool
		want     string
	}{
		{"▁Once", true, "Once"},
		{"▁Once", false, " Once"},
		{"ly", false, "ly"},
		{"<0x0A>", false, "\n"},
		{"<0x41>", true, "A"},
		{"<0xZZ>", false, "<0xZZ>"},
		{"<s>", false, ""},
		{"</s>", false, ""},
		{"<", false, "<"},
		{"<=>", false, "<=>"},
		{"▁▁", false, "  "},
	}
	for _, tc := range tests {
		if got := TokenText(tc.piece, tc.afterBOS); got != tc.want {
			t.Errorf("TokenText(%q, %v) = %q, want %q", tc.piece, tc.afterBOS, got, tc.want)
		}
	}
}

func TestCompressedSpans(t *testing.T) {
	pieces := []string{"<s>", "▁Once", "▁upon", "▁a", "▁time", ",", "▁there", "▁was", "▁a", "▁dog"}
	tests := []struct {
		name     string
		diverge  int
		wantText string // spans joined, Diff ones in [brackets]
		spans    int
	}{
		{"agree", -1, "Once upon a time, there was a dog", 6},
		{"diverge at the last token", 9, "Once upon a time, there was a[ dog]", 6},
		{"diverge right after the prompt", 5, "Once upon a time[,][ there][ was][ a][ dog]", 6},
	}
	for _, tc := range tests {
		sp := CompressedSpans(nil, pieces, 5, tc.diverge)
		var b strings.Builder
		for _, s := range sp {
			if s.Diff {
				b.WriteString("[" + s.Text + "]")
			} else {
				b.WriteString(s.Text)
			}
		}
		if b.String() != tc.wantText || len(sp) != tc.spans {
			t.Errorf("%s: %q in %d spans, want %q in %d", tc.name, b.String(), len(sp), tc.wantText, tc.spans)
		}
		if sp[0].First != 0 || sp[0].Count != 5 || sp[1].First != 5 || sp[1].Count != 1 {
			t.Errorf("%s: prompt span %+v, first token %+v", tc.name, sp[0], sp[1])
		}
	}
	// Hovering: every generated token is its own span with its position.
	sp := CompressedSpans(nil, pieces, 5, -1)
	if last := sp[len(sp)-1]; last.First != 9 || last.Text != " dog" {
		t.Errorf("last span %+v", last)
	}
	// No prompt beyond BOS: no empty prompt span, no leading space.
	sp = CompressedSpans(sp, []string{"<s>", "▁Once", "▁upon"}, 1, -1)
	if len(sp) != 2 || sp[0].Text != "Once" || sp[0].First != 1 {
		t.Errorf("BOS-only prompt: %+v", sp)
	}
	if n := testing.AllocsPerRun(20, func() { sp = CompressedSpans(sp, pieces[:1], 1, -1) }); n != 0 {
		t.Errorf("CompressedSpans of BOS allocates %v", n)
	}
}

func TestSplitFull(t *testing.T) {
	comp := CompressedSpans(nil, []string{"<s>", "▁The", "▁cat", "▁sat", "▁down"}, 2, 3)
	tests := []struct {
		full        string
		agree, rest string
	}{
		{"The cat ran away", "The cat", " ran away"},
		{"The cat", "The cat", ""},
		{"The dog ran", "The ", "dog ran"}, // should not happen; longest common prefix
		{"The caté", "The cat", "é"},
	}
	for _, tc := range tests {
		a, r := SplitFull(tc.full, comp)
		if a != tc.agree || r != tc.rest {
			t.Errorf("SplitFull(%q) = %q + %q, want %q + %q", tc.full, a, r, tc.agree, tc.rest)
		}
	}
	same := CompressedSpans(nil, []string{"<s>", "▁The", "▁cat"}, 2, -1)
	if a, r := SplitFull("The cat", same); a != "The cat" || r != "" {
		t.Errorf("no divergence: %q + %q", a, r)
	}
	// A split never cuts a character in two.
	multi := CompressedSpans(nil, []string{"<s>", "▁é", "▁a"}, 1, 2)
	if a, r := SplitFull("\u00e8 b", multi); !utf8.ValidString(a) || !utf8.ValidString(r) || a+r != "\u00e8 b" {
		t.Errorf("split %q + %q", a, r)
	}
}

func TestSparkValues(t *testing.T) {
	vals := []float64{0, 1, math.NaN(), 3, math.Inf(1), 2}
	dst := make([]float32, 3)
	got, hi := SparkValues(dst, vals, 0)
	if hi != 3 || len(got) != 3 || got[0] != 1.0/3 || got[1] != 1 || got[2] != 2.0/3 {
		t.Errorf("SparkValues = %v, hi %v", got, hi)
	}
	if got, hi := SparkValues(dst, nil, 0.5); len(got) != 0 || hi != 0.5 {
		t.Errorf("empty: %v %v", got, hi)
	}
	if got, hi := SparkValues(make([]float32, 10), []float64{0.1}, 1); len(got) != 1 || hi != 1 || math.Abs(float64(got[0])-0.1) > 1e-6 {
		t.Errorf("floor: %v %v", got, hi)
	}
	if n := testing.AllocsPerRun(20, func() { SparkValues(dst, vals, 0) }); n != 0 {
		t.Errorf("allocates %v", n)
	}
}

func TestIsKnownModel(t *testing.T) {
	if !IsKnownModel(strings.ToUpper(KnownModelSHA256)) || IsKnownModel(KnownModelSHA256[1:]) || IsKnownModel("") {
		t.Error("IsKnownModel")
	}
}

// The spans the page shows read exactly as the real model's compressed
// text, and the uncompressed text splits where the two runs part.
func TestSpansMatchRealModel(t *testing.T) {
	b, err := os.ReadFile("../../../shared/models/" + KnownModelFile)
	if err != nil {
		t.Skipf("test model not available: %v", err)
	}
	sum := sha256.Sum256(b)
	if !IsKnownModel(hexenc.EncodeToString(sum[:])) || len(b) != KnownModelSize {
		t.Fatalf("the test model's sha256 is %x, size %d", sum, len(b))
	}
	m, err := model.Load(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	cfg := sim.DefaultConfig()
	cfg.Policy, cfg.Sink, cfg.Recent, cfg.Heavy, cfg.Bits = "window", 0, 4, 0, 32
	r, err := sim.NewModelRun(m, cfg, DefaultPrompt, 60, false)
	if err != nil {
		t.Fatal(err)
	}
	for r.Step() {
	}
	s := r.Snapshot(0)
	full, comp := r.Texts()
	spans := CompressedSpans(nil, s.Tokens, s.Prompt, s.Text.Diverge)
	var joined strings.Builder
	firstDiff := -1
	for _, sp := range spans {
		joined.WriteString(sp.Text)
		if sp.Diff && firstDiff < 0 {
			firstDiff = sp.First
		}
	}
	if joined.String() != comp {
		t.Fatalf("spans read %q, the compressed text is %q", joined.String(), comp)
	}
	if s.Text.Diverge < 0 || firstDiff != s.Text.Diverge {
		t.Fatalf("a 4-token window: diverge %d, first marked span %d", s.Text.Diverge, firstDiff)
	}
	agree, rest := SplitFull(full, spans)
	if agree+rest != full || rest == "" || !strings.HasPrefix(comp, agree) {
		t.Fatalf("SplitFull(%q) = %q + %q (compressed %q)", full, agree, rest, comp)
	}
}

func TestModelConfig(t *testing.T) {
	c := sim.DefaultConfig()
	c.HeadDim, c.Layers, c.Heads, c.KVHeads, c.SinkStrength = 64, 3, 16, 2, 3
	c.Policy, c.Sink, c.Recent, c.Heavy, c.Bits, c.Granularity, c.GroupSize, c.Rank = "streaming", 4, 300, 9, 4, "group", 6, 12
	got, ns := ModelConfig(c, 8, 256)
	if got.Policy != "streaming" || got.Sink != 4 || got.Heavy != 9 || got.Bits != 4 {
		t.Errorf("policy and storage not kept: %+v", got)
	}
	if got.Recent != 256 || got.Rank != 8 || got.GroupSize != 4 || got.Tokens != 256 {
		t.Errorf("not fitted to the model: recent %d rank %d group %d tokens %d", got.Recent, got.Rank, got.GroupSize, got.Tokens)
	}
	d := sim.DefaultConfig()
	if got.HeadDim != d.HeadDim || got.SinkStrength != d.SinkStrength || got.Layers != d.Layers {
		t.Errorf("stream settings leak into the model's configuration: %+v", got)
	}
	keys := map[string]bool{}
	for _, n := range ns {
		keys[n.Key] = true
	}
	if len(ns) != 2 || !keys["rank"] || !keys["group"] {
		t.Errorf("notices %v", ns)
	}
	// Settings that fit give no notice, and group sizes that divide stay.
	c.Recent, c.Rank, c.GroupSize = 16, 0, 2
	if got, ns := ModelConfig(c, 8, 256); len(ns) != 0 || got.GroupSize != 2 {
		t.Errorf("fitting settings: %v, group %d", ns, got.GroupSize)
	}
	c.GroupSize = 0
	if got, _ := ModelConfig(c, 8, 256); got.GroupSize != 1 {
		t.Errorf("group 0 became %d", got.GroupSize)
	}
}

func TestFitPrompt(t *testing.T) {
	for _, tc := range []struct {
		name                string
		prompt, maxTok, ctx int
		tokens              int
		ok, notice          bool
		says                []string
	}{
		{"fits", 20, 256, 8192, 256, true, false, nil},
		{"Max tokens above the context", 20, 4096, 512, 512, true, true, []string{"4096", "512"}},
		{"a document raises Max tokens", 2000, 256, 8192, 2064, true, true, []string{"2000", "256", "2064", "8192"}},
		{"raised up to the context", 8150, 256, 8192, 8192, true, true, []string{"8150", "8192"}},
		{"a prompt that fills Max tokens exactly", 256, 256, 8192, 320, true, true, []string{"256", "320"}},
		{"longer than the context", 9000, 256, 8192, 0, false, true, []string{"9000", "8192", "kept"}},
		{"as long as the context", 512, 512, 512, 0, false, true, []string{"512"}},
	} {
		n, notice, ok := FitPrompt(tc.prompt, tc.maxTok, tc.ctx)
		if n != tc.tokens || ok != tc.ok || (notice != "") != tc.notice {
			t.Errorf("%s: FitPrompt(%d, %d, %d) = %d, %q, %v", tc.name, tc.prompt, tc.maxTok, tc.ctx, n, notice, ok)
		}
		for _, s := range tc.says {
			if !strings.Contains(notice, s) {
				t.Errorf("%s: the notice %q does not say %s", tc.name, notice, s)
			}
		}
		if ok && tc.prompt >= n {
			t.Errorf("%s: a prompt of %d in a run of %d", tc.name, tc.prompt, n)
		}
	}
}

func TestIsTextFile(t *testing.T) {
	for _, tc := range []struct {
		name, mime string
		want       bool
	}{
		{"report.txt", "", true},
		{"NOTES.TXT", "", true},
		{"readme.md", "", true},
		{"doc", "text/plain;charset=utf-8", true},
		{"model.gguf", "", false},
		{"model.gguf", "application/octet-stream", false},
		{"page.html", "text/html", false},
	} {
		if got := IsTextFile(tc.name, tc.mime); got != tc.want {
			t.Errorf("IsTextFile(%q, %q) = %v", tc.name, tc.mime, got)
		}
	}
}

func TestTailText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly ten", 11, "exactly ten"},
		{"a long document's end", 5, "…s end"},
		{"héé", 3, "…é"}, // never half a character
	} {
		if got := TailText(tc.in, tc.n); got != tc.want {
			t.Errorf("TailText(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestChatNotice(t *testing.T) {
	for _, tc := range []struct {
		format string
		has    bool
		says   string
	}{
		{"ChatML", true, "chat template (ChatML)"},
		{"none", true, "not one kvscope recognises"},
		{"none", false, "no chat template"},
	} {
		if got := ChatNotice(tc.format, tc.has); !strings.Contains(got, tc.says) {
			t.Errorf("ChatNotice(%q, %v) = %q, want it to say %q", tc.format, tc.has, got, tc.says)
		}
	}
}

func TestReadableText(t *testing.T) {
	for _, tc := range []struct {
		name, txt string
		want      bool
	}{
		{"a document", "Minutes.\n\tItem 1. The budget.\r\n", true},
		{"empty", "", false},
		{"a NUL byte", "text\x00more", false},
		{"a binary file read as UTF-8", strings.Repeat("\uFFFD\x01ab", 50), false},
		{"one stray byte in a long text", strings.Repeat("a long and clean text ", 10) + "\uFFFD", true},
	} {
		if got := ReadableText(tc.txt); got != tc.want {
			t.Errorf("%s: %v", tc.name, got)
		}
	}
}
