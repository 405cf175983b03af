package sim

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/model/ggufwrite"
)

// BenchmarkModelRunPrompt is the time a ModelRun takes to read a prompt of
// about 512 tokens on a synthesized SmolLM2-135M-shaped model (30 layers,
// dim 576, 9 heads, 3 kv heads, vocab 49,152, Q8_0 matrices kept
// quantized) with the page's default H2O INT8 cache: from NewModelRun
// until Pos reaches the prompt's length (its last token read by every
// decoder). "chunked" reads it as runs do (PromptChunk tokens a step, one
// batched uncompressed pass filling the compressed cache through the
// tee); "per-token" as runs did before, a token a step through the
// shadow and the compressed runner. It reports prompt tokens per second.
// Synthesizing the model takes seconds and the per-token run about a
// minute: run it with -run '^$' -bench ModelRunPrompt -benchtime=1x.
func BenchmarkModelRunPrompt(b *testing.B) {
	data := ggufwrite.Llama(ggufwrite.SmolLM2_135M)
	m, err := model.LoadOptions(bytes.NewReader(data), int64(len(data)), model.Options{KeepQuantized: true})
	if err != nil {
		b.Fatal(err)
	}
	data = nil
	text := promptOf(m, 512)
	n := len(m.Tokenizer.Prompt(text))
	for _, tc := range []struct {
		name     string
		perToken bool
	}{{"chunked", false}, {"per-token", true}} {
		b.Run(tc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				r, err := NewModelRun(m, DefaultConfig(), text, n+1, false)
				if err != nil {
					b.Fatal(err)
				}
				r.tokenPrompt = tc.perToken
				b.StartTimer()
				for r.Pos() < n && r.Step() {
				}
				if r.Err() != nil || r.Pos() != n {
					b.Fatalf("stopped at %d of %d: %v", r.Pos(), n, r.Err())
				}
			}
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "tokens/s")
			b.ReportMetric(float64(n), "prompt-tokens")
		})
	}
}

// promptOf returns a text of words that m's tokenizer reads as about n
// tokens (BOS included), not fewer.
func promptOf(m *model.Model, n int) string {
	words := strings.Fields("once upon a time there was a little girl named lily she loved to play outside in the park one day she saw a big red ball")
	var sb strings.Builder
	for i := 0; ; i++ {
		if len(m.Tokenizer.Prompt(sb.String())) >= n {
			return sb.String()
		}
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(words[i%len(words)])
	}
}
