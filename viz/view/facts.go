package view

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/model/gguf"
	"github.com/kvscope/kvscope/core/sim"
)

// ModelFacts is what the page tells about a model file: read from its
// header (architecture, tokenizer, tensor types), from the configuration
// the loader derived (the shape; zero when the loader refused the file),
// and the bytes it takes.
type ModelFacts struct {
	Arch      string      `json:"arch"`      // general.architecture
	Tokenizer string      `json:"tokenizer"` // tokenizer.ggml.model ("llama", "gpt2", …)
	Shaped    bool        `json:"shaped"`    // the shape below is known (the loader accepted the metadata)
	Layers    int         `json:"layers"`    //
	Heads     int         `json:"heads"`     // query heads
	KVHeads   int         `json:"kvHeads"`   //
	HeadDim   int         `json:"headDim"`   //
	Vocab     int         `json:"vocab"`     //
	Context   int         `json:"context"`   // training context length, tokens
	Types     []TypeCount `json:"types"`     // tensors per type, most bytes first
	File      int64       `json:"file"`      // bytes in the file
	Memory    int64       `json:"memory"`    // bytes the page holds for it: the file and what loading allocates beside it
	Kernels   string      `json:"kernels"`   // the matrix kernels' path (model.KernelPath): "wasm simd128" or "go…"
}

// TypeCount is how many tensors of a file have one type, and their bytes.
type TypeCount struct {
	Type    string `json:"type"`
	Tensors int    `json:"tensors"`
	Bytes   int64  `json:"bytes"`
}

// FactsOf gathers the facts of a parsed file f of fileBytes bytes: the
// shape from c when it is not nil (the configuration the loader read),
// and weights, the bytes its weights hold once loaded (model.PlannedBytes;
// the page holds the file beside them).
func FactsOf(f *gguf.File, c *model.Config, fileBytes, weights int64) ModelFacts {
	fs := ModelFacts{File: fileBytes, Memory: ModelMemory(fileBytes, weights)}
	if v, ok := f.Lookup("general.architecture"); ok {
		fs.Arch, _ = v.Str()
	}
	if v, ok := f.Lookup("tokenizer.ggml.model"); ok {
		fs.Tokenizer, _ = v.Str()
	}
	if c != nil {
		if c.Arch != "" {
			fs.Arch = c.Arch
		}
		fs.Shaped = true
		fs.Layers, fs.Heads, fs.KVHeads, fs.HeadDim = c.Layers, c.Heads, c.KVHeads, c.HeadDim
		fs.Vocab, fs.Context = c.Vocab, c.ContextLength
	} else if v, ok := f.Lookup("tokenizer.ggml.tokens"); ok {
		fs.Vocab = v.Len()
	}
	idx := map[gguf.TensorType]int{}
	for i := range f.Tensors {
		t := &f.Tensors[i]
		j, ok := idx[t.Type]
		if !ok {
			j = len(fs.Types)
			idx[t.Type] = j
			fs.Types = append(fs.Types, TypeCount{Type: t.Type.String()})
		}
		fs.Types[j].Tensors++
		fs.Types[j].Bytes += int64(t.NumBytes())
	}
	sort.SliceStable(fs.Types, func(i, j int) bool { return fs.Types[i].Bytes > fs.Types[j].Bytes })
	return fs
}

// tokenizerNames says what GGUF's tokenizer.ggml.model values are.
var tokenizerNames = map[string]string{
	"llama": "SentencePiece",
	"gpt2":  "byte-level BPE",
	"bert":  "WordPiece",
	"t5":    "Unigram",
	"rwkv":  "RWKV",
}

// Fact is one line of the model's facts: what, its value in a few words,
// and optionally more about it (a tooltip).
type Fact struct {
	Label, Value, Title string
}

// Lines returns the facts as the page lists them: architecture, layers,
// heads, head dim, vocabulary and tokenizer, context, tensor types, bytes.
// Lines without a known value are left out.
func (f ModelFacts) Lines() []Fact {
	var out []Fact
	add := func(label, value string) {
		if value != "" {
			out = append(out, Fact{Label: label, Value: value})
		}
	}
	add("Architecture", f.Arch)
	if f.Shaped {
		add("Layers", strconv.Itoa(f.Layers))
		heads := fmt.Sprintf("%d query, %d KV", f.Heads, f.KVHeads)
		title := "every query head has its own key and value head"
		switch {
		case f.KVHeads == 1:
			title = "multi-query attention: every query head shares one key and value head"
		case f.KVHeads > 0 && f.KVHeads < f.Heads:
			heads += fmt.Sprintf(" (%d per KV)", f.Heads/f.KVHeads)
			title = fmt.Sprintf("grouped-query attention: %d query heads share each key and value head", f.Heads/f.KVHeads)
		}
		add("Heads", heads)
		out[len(out)-1].Title = title
		add("Head dim", strconv.Itoa(f.HeadDim))
	}
	if f.Vocab > 0 || f.Tokenizer != "" {
		var parts []string
		if f.Vocab > 0 {
			parts = append(parts, Count(f.Vocab))
		}
		if f.Tokenizer != "" {
			kind := f.Tokenizer
			if n, ok := tokenizerNames[f.Tokenizer]; ok {
				kind = n
			}
			parts = append(parts, kind)
		}
		add("Vocabulary", strings.Join(parts, ", "))
		if f.Tokenizer != "" {
			out[len(out)-1].Title = "tokenizer.ggml.model = " + strconv.Quote(f.Tokenizer)
		}
	}
	if f.Shaped {
		add("Context", Count(f.Context)+" tokens")
	}
	var ts []string
	for _, t := range f.Types {
		ts = append(ts, fmt.Sprintf("%s ×%d", t.Type, t.Tensors))
	}
	add("Tensors", strings.Join(ts, ", "))
	if f.File > 0 {
		add("Bytes", Bytes(float64(f.File))+" file, "+Bytes(float64(f.Memory))+" in memory")
		out[len(out)-1].Title = "in memory: the file, which the page keeps and every quantized matrix stays in, and what is widened to float32 beside it (norms, F32 tensors)"
	}
	if f.Kernels != "" {
		v := f.Kernels
		title := "the matrix products run in Go, without SIMD"
		if strings.HasPrefix(v, "wasm simd") {
			v, title = "WebAssembly SIMD", "the matrix products and attention run in kvscope's WebAssembly SIMD module (kernels.wasm), 128 bits at a time"
		}
		add("Kernels", v)
		out[len(out)-1].Title = title
	}
	return out
}

// Count formats a whole number with thin groups of three: "49,152".
func Count(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "−" + b.String()
	}
	return b.String()
}

// SinkSummary says how many of a model's heads are sink heads in Gu et
// al.'s sense (position-0 importance above sim.SinkThreshold): "180 of
// 270 heads (30 layers × 9 query heads) are sink heads". It returns ""
// when nothing was measured.
func SinkSummary(s *sim.Sinks) string {
	if s == nil || s.Tokens == 0 || len(s.Importance) == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d heads (%d layers × %d query heads) are sink heads", s.Count(), s.Layers*s.Heads, s.Layers, s.Heads)
}

// SinkFact is the facts' line on measured sinks: the count in a few
// words, how it was measured in its Title.
func SinkFact(s *sim.Sinks) Fact {
	if SinkSummary(s) == "" {
		return Fact{Label: "Sink heads", Value: "measuring…"}
	}
	return Fact{Label: "Sink heads", Value: fmt.Sprintf("%d of %d (%d layers × %d heads)", s.Count(), s.Layers*s.Heads, s.Layers, s.Heads),
		Title: fmt.Sprintf("Gu et al.'s sink heads: position 0 gets over %s of their attention, averaged over the first %d tokens of the story; mean %s, largest %s",
			Percent(sim.SinkThreshold), s.Tokens, Percent(s.Mean()), Percent(s.Max()))}
}

// LessonSinkNote is what a lesson about sinks or heavy hitters adds when a
// real model was measured: "Your model, SmolLM2-135M-Instruct Q8_0: 180 of
// 270 heads (30 layers × 9 query heads) are sink heads." It returns ""
// without a measurement.
func LessonSinkNote(name string, s *sim.Sinks) string {
	sum := SinkSummary(s)
	if sum == "" {
		return ""
	}
	share := Percent(s.Share())
	return fmt.Sprintf("Your model, %s: %s (%s; position 0 gets over %s of their attention over its first %d tokens).",
		name, sum, share, Percent(sim.SinkThreshold), s.Tokens)
}

// SinkGrid is what the page shows of a run's measured sink heads beside
// the head grid: a short Header ("12 of 40"), a Summary sentence, and
// whether the cells may be marked as sink heads. While fewer than
// sim.SinkPrompt queries have been averaged the heads are not classified
// (Marked false, Header "measuring"): over a run's first few queries
// position 0 is a large share of all there is to attend to, so nearly
// every head would pass the threshold, and the count would contradict the
// model's own measurement (SinkFact) over Gu et al.'s 64 tokens.
type SinkGrid struct {
	Header, Summary string
	Marked          bool
}

// SinkGridOf describes s, or says how to get it measured when s is nil or
// empty.
func SinkGridOf(s *sim.Sinks) SinkGrid {
	if s == nil || s.Tokens == 0 || len(s.Importance) == 0 {
		return SinkGrid{Summary: "Measured from the reference attention: turn the reference on (Reference every n steps) to see it."}
	}
	if s.Tokens < sim.SinkPrompt {
		return SinkGrid{Header: fmt.Sprintf("measuring, %d of %d queries", s.Tokens, sim.SinkPrompt),
			Summary: fmt.Sprintf("The attention each head pays position 0, averaged over %d queries so far (largest %s). Heads are classified after %d queries, as Gu et al. measure: over the first few, position 0 is a large share of all there is to attend to.",
				s.Tokens, Percent(s.Max()), sim.SinkPrompt)}
	}
	return SinkGrid{Header: fmt.Sprintf("%d of %d", s.Count(), len(s.Importance)), Marked: true,
		Summary: fmt.Sprintf("%d of %d heads are sink heads (position 0 gets over %s of their attention, averaged over %d queries); the largest share is %s.",
			s.Count(), len(s.Importance), Percent(sim.SinkThreshold), s.Tokens, Percent(s.Max()))}
}
