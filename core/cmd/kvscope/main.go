// Command kvscope runs kvscope's decoding simulator, or replays a recorded
// attention trace, through any eviction policy and storage, and prints a
// summary table or one JSON line per step.
//
//	kvscope -preset seed000 -heads 32 -kv-heads 32 -head-dim 128 -tokens 1000 -ref 0
//	kvscope -policy h2o -sink 4 -recent 32 -heavy 28 -bits 4 -json -every 50
//	kvscope -trace llama.npz -policy streaming -bits 32
//	kvscope -sweep -sweep-bits 16,8,4,2 > sweep.csv
//	kvscope -model qwen3.gguf -tokenize < text.txt
//	kvscope -model stories260K.gguf -ids 1,403,407 -logits logits.f32
//
// Run kvscope -help for every flag.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/core/trace"
)

func main() {
	if err := runWith(os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "kvscope:", err)
		}
		os.Exit(2)
	}
}

// options are the command's own settings beside the simulator's Config.
type options struct {
	preset string
	trace  string
	model  string
	prompt string
	file   string // -prompt-file
	q      string // -question
	after  bool   // -compress-after
	repos  bool
	json   bool
	every  int
	layer  int
	task   taskOptions
	sweep  sweepOptions
	tokens tokenOptions
}

// flags binds every setting to a FlagSet.
func flags(c *sim.Config, o *options, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("kvscope", flag.ContinueOnError)
	fs.SetOutput(out)
	names := make([]string, len(sim.Presets))
	for i, p := range sim.Presets {
		names[i] = p.Name
	}
	fs.StringVar(&o.preset, "preset", "", "apply a named configuration first, then the other flags: "+strings.Join(names, ", "))
	fs.StringVar(&o.trace, "trace", "", "replay a recorded `file.npz` (arrays q, k, v shaped [T,H,D] or [L,T,H,D]) instead of the synthetic stream")
	fs.StringVar(&o.model, "model", "", "decode with a llama `file.gguf` (e.g. stories260K) through the compressed cache instead of the synthetic stream; -tokens caps the run")
	fs.StringVar(&o.prompt, "text", "Once upon a time", "with -model, the text to continue")
	fs.StringVar(&o.file, "prompt-file", "", "with -model, read the prompt (a document) from `file.txt` instead of -text")
	fs.StringVar(&o.q, "question", "", "with -model, ask this question after the prompt (in the model's chat template when kvscope recognises it: ChatML, Llama 3, Gemma)")
	fs.BoolVar(&o.after, "compress-after", false, "with -question, start evicting after the question is read (query-aware) instead of where the document ends")
	fs.BoolVar(&o.repos, "repos", false, "with -model, re-position keys within the cache as StreamingLLM does")
	fs.BoolVar(&o.json, "json", false, "print one JSON line per step instead of the summary table")
	fs.IntVar(&o.every, "every", 1, "with -json, print every `n`th step (and the last)")
	fs.IntVar(&o.layer, "layer", 0, "with -json, the layer whose kept positions and roles are printed")
	taskFlags(fs, &o.task)
	sweepFlags(fs, &o.sweep)
	tokenFlags(fs, &o.tokens)

	fs.Uint64Var(&c.Seed, "seed", c.Seed, "stream seed: same seed and settings give the same run")
	fs.IntVar(&c.Layers, "layers", c.Layers, "layers simulated")
	fs.IntVar(&c.Heads, "heads", c.Heads, "query heads per layer")
	fs.IntVar(&c.KVHeads, "kv-heads", c.KVHeads, "key/value heads per layer (grouped-query attention when fewer than -heads)")
	fs.IntVar(&c.HeadDim, "head-dim", c.HeadDim, "dimensions per head")
	fs.IntVar(&c.Prompt, "prompt", c.Prompt, "prompt tokens prefilled before decoding")
	fs.IntVar(&c.Tokens, "tokens", c.Tokens, "history length at the end of the run, prompt included")

	fs.Float64Var(&c.SinkStrength, "sink-strength", c.SinkStrength, "generator: attention drawn by the first tokens (0 off, 1 default)")
	fs.Float64Var(&c.HeavyStrength, "heavy-strength", c.HeavyStrength, "generator: spread of token salience, which makes heavy hitters (0 off, 1 default)")
	fs.Float64Var(&c.Locality, "locality", c.Locality, "generator: attention on recent tokens (0 off, 1 default)")
	fs.Float64Var(&c.RetrievalShare, "retrieval", c.RetrievalShare, "generator: share of heads that return to specific earlier tokens (0..1)")
	fs.IntVar(&c.OutlierChannels, "outliers", c.OutlierChannels, "generator: key channels with a large constant offset")
	fs.Float64Var(&c.OutlierScale, "outlier-scale", c.OutlierScale, "generator: size of those channels relative to the rest")
	fs.Float64Var(&c.TailDF, "tail-df", c.TailDF, "generator: Student-t degrees of freedom of key/value noise (0 Gaussian)")

	policyFlags(fs, c)

	storageFlags(fs, c)
	fs.IntVar(&c.RefStride, "ref", c.RefStride, "compare with the uncompressed cache every `n` steps (0 off: no fidelity metrics)")
	return fs
}

// run is runWith without standard input.
func run(args []string, stdout, stderr io.Writer) error {
	return runWith(args, strings.NewReader(""), stdout, stderr)
}

// runWith runs the command with args; -tokenize reads stdin.
func runWith(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	// First pass: find the preset, so explicit flags override it.
	cfg, o := sim.DefaultConfig(), options{}
	if err := flags(&cfg, &o, io.Discard).Parse(args); err != nil {
		cfg, o = sim.DefaultConfig(), options{}
		return flags(&cfg, &o, stderr).Parse(args) // prints the message and usage
	}
	cfg, preset := sim.DefaultConfig(), o.preset
	if preset != "" {
		found := false
		for _, p := range sim.Presets {
			if p.Name == preset {
				p.Apply(&cfg)
				found = true
			}
		}
		if !found {
			return fmt.Errorf("unknown preset %q", preset)
		}
	}
	o = options{}
	fs := flags(&cfg, &o, stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if o.every < 1 {
		return fmt.Errorf("-every must be at least 1, got %d", o.every)
	}
	if o.task.kind != "" && o.sweep.on {
		return fmt.Errorf("-task and -sweep are separate runs: give one")
	}
	if o.tokens.on() {
		if o.task.kind != "" || o.sweep.on {
			return fmt.Errorf("-tokenize, -ids and -logits are runs of their own: drop -task and -sweep")
		}
		return runTokens(stdin, stdout, o.model, o.tokens)
	}
	if o.task.kind != "" {
		w := bufio.NewWriter(stdout)
		defer w.Flush()
		return runTask(w, cfg, o)
	}
	if o.sweep.on {
		return runSweep(stdout, cfg, o)
	}
	if o.model != "" {
		w := bufio.NewWriter(stdout)
		defer w.Flush()
		return runModel(w, cfg, o)
	}
	var e *sim.Engine
	var err error
	if o.trace != "" {
		tr, terr := trace.Open(o.trace)
		if terr != nil {
			return terr
		}
		if !isSet(fs, "tokens") {
			cfg.Tokens = 0
		}
		e, err = sim.NewReplay(cfg, tr)
	} else {
		e, err = sim.New(cfg)
	}
	if err != nil {
		return err
	}
	cfg = e.Config()
	if o.layer < 0 || o.layer >= cfg.Layers {
		return fmt.Errorf("-layer %d out of range [0, %d)", o.layer, cfg.Layers)
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	if o.json {
		return streamJSON(w, e, o)
	}
	e.SetTiming(true)
	e.RunTo(cfg.Tokens)
	if e.Err() != nil {
		return e.Err()
	}
	summary(w, e)
	frontierSummary(w, e, o.trace != "")
	return nil
}

func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// stepLine is one line of -json output.
type stepLine struct {
	Step      int          `json:"step"`
	Kept      [][]int32    `json:"kept"`  // per kv head of the chosen layer: cached positions
	Roles     []string     `json:"roles"` // per kv head: one letter per kept position (s sink, h heavy, r recent, k kept)
	Memory    sim.Memory   `json:"memory"`
	Total     int64        `json:"total_bytes"`
	FullBytes int64        `json:"full_fp16_bytes"`
	Evict     int64        `json:"evict_fp16_bytes"`
	Metrics   *sim.Metrics `json:"metrics,omitempty"`
}

var roleLetter = map[sim.Role]byte{sim.Sink: 's', sim.Heavy: 'h', sim.Recent: 'r', sim.Kept: 'k'}

func streamJSON(w io.Writer, e *sim.Engine, o options) error {
	cfg := e.Config()
	enc := json.NewEncoder(w)
	line := stepLine{Kept: make([][]int32, cfg.KVHeads), Roles: make([]string, cfg.KVHeads)}
	var roles []byte
	for e.Step() {
		t := e.Pos() - 1
		if t%o.every != 0 && e.Pos() != cfg.Tokens {
			continue
		}
		s := e.Snapshot(o.layer)
		layer := e.Layer(o.layer)
		for g := range cfg.KVHeads {
			line.Kept[g] = layer.Positions(g)
			roles = roles[:0]
			for _, p := range line.Kept[g] {
				roles = append(roles, roleLetter[s.Cell(g, int(p)).Role])
			}
			line.Roles[g] = string(roles)
		}
		line.Step, line.Memory, line.Total, line.FullBytes, line.Evict = t, s.Mem, s.Mem.Total(), s.FullBytes, s.EvictBytes
		line.Metrics = nil
		if cfg.RefStride > 0 && len(s.History) > 0 {
			m := s.Metrics
			line.Metrics = &m
		}
		if err := enc.Encode(&line); err != nil {
			return err
		}
	}
	return e.Err()
}

const mb = 1024 * 1024

// summary prints the run's table: seed 000's four lines (its arithmetic:
// payload only), then the honest itemized bytes and the fidelity averages.
func summary(w io.Writer, e *sim.Engine) {
	cfg := e.Config()
	s := e.Snapshot(0)
	kept := s.EvictBytes / int64(2*2*cfg.HeadDim*cfg.Layers*cfg.KVHeads)
	fmt.Fprintf(w, "kvscope: %s, %d-bit %s storage; %d layer(s) × %d kv heads × %d dims\n",
		budgetText(cfg), cfg.Bits, cfg.Granularity, cfg.Layers, cfg.KVHeads, cfg.HeadDim)
	fmt.Fprintf(w, "Without compression: %.1f MB (%d tokens)\n", float64(s.FullBytes)/mb, cfg.Tokens)
	fmt.Fprintf(w, "With eviction only: %.1f MB (%d tokens)\n", float64(s.EvictBytes)/mb, kept)
	label := fmt.Sprintf("INT%d", cfg.Bits)
	switch cfg.Bits {
	case 32:
		label = "float32"
	case 16:
		label = "FP16"
	}
	fmt.Fprintf(w, "With eviction + %s: %.1f MB\n", label, float64(s.Mem.Payload+s.Mem.Residual)/mb)
	fmt.Fprintf(w, "Overall compression: %.1fx\n", float64(s.FullBytes)/float64(s.Mem.Payload+s.Mem.Residual))
	total := s.Mem.Total()
	fmt.Fprintf(w, "Honest total: %.3f MB (%.1fx) = payload %d + scales/zero points %d + FP16 residual %d + low-rank factors %d + index map %d + policy scores %d + holes %d bytes\n",
		float64(total)/mb, float64(s.FullBytes)/float64(total), s.Mem.Payload, s.Mem.Meta, s.Mem.Residual, s.Mem.Factors, s.Mem.Index, s.Mem.Scores, s.Mem.Holes)
	storageSummary(w, e)
	c := e.Costs()
	fmt.Fprintf(w, "Time per token: generate %v, store %v, attention %v, eviction %v, reference %v; storing and evicting add %.0f%% to attention\n",
		c.Generate, c.Store, c.Attend, c.Evict, c.Reference, 100*c.Overhead())
	printSinks(w, e.Sinks(), "synthetic stream over the run")
	_, hist := e.Metrics()
	if len(hist) == 0 {
		fmt.Fprintln(w, "Fidelity: reference off (-ref 0)")
		return
	}
	var m sim.Metrics
	for _, h := range hist {
		m.KErr, m.VErr, m.OutErr, m.Mass, m.KL, m.Bias = m.KErr+h.KErr, m.VErr+h.VErr, m.OutErr+h.OutErr, m.Mass+h.Mass, m.KL+h.KL, m.Bias+h.Bias
	}
	n := float64(len(hist))
	fmt.Fprintf(w, "Fidelity (mean of %d reference steps): attention mass kept %.3f, output error %.3f, KL %.3f nats, key error %.4f, value error %.4f, q·k bias %+.4f\n",
		len(hist), m.Mass/n, m.OutErr/n, m.KL/n, m.KErr/n, m.VErr/n, m.Bias/n)
}

// runModel decodes o.prompt with the model in o.model twice, uncompressed
// and through cfg's compressed cache, and prints both texts, how far they
// agree, the memory, and the perplexity of the uncompressed text (its
// tokens as decoded, not re-encoded) under both.
func runModel(w io.Writer, cfg sim.Config, o options) error {
	m, err := loadModel(o.model)
	if err != nil {
		return err
	}
	text := o.prompt
	if o.file != "" {
		b, err := os.ReadFile(o.file)
		if err != nil {
			return err
		}
		if !utf8.Valid(b) {
			return fmt.Errorf("-prompt-file %s is not UTF-8 text", o.file)
		}
		if text = string(b); strings.TrimSpace(text) == "" {
			return fmt.Errorf("-prompt-file %s is empty", o.file)
		}
	}
	doc := m.Tokenizer.Document(text, o.q)
	if o.q != "" {
		fmt.Fprintf(w, "Question asked %s; the prompt is %d tokens, the document %d.\n", chatText(doc.Format, m.Tokenizer.HasTemplate), len(doc.IDs), doc.Question)
	}
	n := min(cfg.Tokens, m.Config.ContextLength)
	if len(doc.IDs) >= n {
		return fmt.Errorf("the prompt is %d tokens: it leaves no room in -tokens %d (this model's context is %d)", len(doc.IDs), n, m.Config.ContextLength)
	}
	r, err := sim.NewDocumentRun(m, cfg, text, o.q, o.after, n, o.repos)
	if err != nil {
		return err
	}
	for r.Step() {
	}
	if r.Err() != nil {
		return r.Err()
	}
	s := r.Snapshot(0)
	t := s.Text
	c := r.Config()
	fmt.Fprintf(w, "kvscope: %s, %d-bit %s storage; model %d layers × %d kv heads × %d dims, %d tokens\n",
		budgetText(c), c.Bits, c.Granularity, c.Layers, c.KVHeads, c.HeadDim, s.Step)
	fmt.Fprintf(w, "Uncompressed: %q\nCompressed:   %q\n", t.Full, t.Compressed)
	if t.Diverge >= 0 {
		fmt.Fprintf(w, "The texts part at position %d.\n", t.Diverge)
	} else {
		fmt.Fprintln(w, "The texts agree.")
	}
	fmt.Fprintf(w, "Next-token KL(full ‖ compressed): mean %.4f nats; top-1 agreement %.1f%%\n", t.MeanKL, 100*t.Agreement)
	fmt.Fprintf(w, "Memory: %d bytes stored of %d FP16 (%.1fx)\n", s.Mem.Total(), s.FullBytes, float64(s.FullBytes)/float64(max(1, s.Mem.Total())))
	fullToks, _ := r.Tokens()
	full, comp, err := sim.PerplexityTokens(m, cfg, fullToks, o.repos)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Perplexity of the uncompressed text: %.3f uncompressed, %.3f compressed\n", full, comp)
	return printModelSinks(w, m, r)
}

// chatText says how a question is put to a model of that chat format.
func chatText(f model.ChatFormat, hasTemplate bool) string {
	switch {
	case f != model.ChatNone:
		return "in the model's chat template (" + f.String() + ")"
	case hasTemplate:
		return "as plain text (the model's chat template is not one kvscope recognises)"
	}
	return "as plain text (the model has no chat template)"
}

// loadModel reads and loads the llama GGUF file at path.
func loadModel(path string) (*model.Model, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return model.Load(bytes.NewReader(b), int64(len(b)))
}
