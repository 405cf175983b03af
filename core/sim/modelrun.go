package sim

import (
	"fmt"
	"slices"

	"github.com/kvscope/kvscope/core/kv"
	"github.com/kvscope/kvscope/core/model"
)

// tapCache is an uncompressed model.Cache that also keeps each layer's
// last attention output, so the compressed cache can be measured against
// it position by position.
type tapCache struct {
	full *model.FullCache
	out  [][]float32 // per layer: the last output (Dim)
	keys []float32   // recording for calibration (fed token by token): [t][layer][kvDim] keys (rotated unless pre), nil when not recording
	vals []float32
	pre  bool // record keys before RoPE
	mc   model.Config
	rope []*model.RopeTable
}

func newTapCache(mc model.Config, capacity int) (*tapCache, error) {
	full, err := model.NewFullCache(mc, capacity)
	if err != nil {
		return nil, err
	}
	t := &tapCache{full: full, out: make([][]float32, mc.Layers), mc: mc}
	for l := range t.out {
		t.out[l] = make([]float32, mc.QDim())
	}
	return t, nil
}

func (t *tapCache) Attend(l, pos int, q, k, v, out []float32) error {
	if t.keys != nil {
		n := len(t.keys)
		t.keys = append(t.keys, k...)
		if !t.pre {
			if t.rope == nil {
				t.rope = model.RopeTables(t.mc, 0)
			}
			t.rope[l].Apply(t.keys[n:], pos)
		}
		t.vals = append(t.vals, v...)
	}
	if err := t.full.Attend(l, pos, q, k, v, out); err != nil {
		return err
	}
	copy(t.out[l], out)
	return nil
}

func (t *tapCache) Reset() { t.full.Reset() }

// teeCache is the shadow runner's cache. Off, it is the uncompressed
// tapCache. On — while ModelRun reads a chunk of its prompt — each Attend
// goes to the tap and then to the compressed ModelCache with the same
// query, key and value (the query copied before the tap rotates it), so
// the compressed cache stores the reference's own prompt keys and values
// (through its storage: quantized, low-rank…) and its policy observes the
// reference's queries over the keys it holds. The compressed cache's
// attention output is written to scratch and dropped: the reference's
// output carries the pass on. Runner.Prefill calls it layer by layer
// (every position of layer l before any of layer l+1); the tap and the
// compressed cache keep their layers apart, so they accept that order.
//
// While on, it also records per position of the chunk what the run
// records per token: the compressed cache's metrics summed over the
// layers (measured against the tap at the same layer and position, as
// ModelCache.Attend measures) and the reference's attention on position
// 0 for the sink metric.
type teeCache struct {
	tap    *tapCache
	comp   *ModelCache
	sinks  *sinkAcc
	on     bool
	from   int       // the chunk's first position
	sums   []Metrics // per position of the chunk since from: metrics summed over its layers so far
	q, out []float32 // scratch: the compressed cache's query and its dropped output
}

func newTeeCache(tap *tapCache, comp *ModelCache, sinks *sinkAcc) *teeCache {
	qd := tap.mc.QDim()
	return &teeCache{tap: tap, comp: comp, sinks: sinks, q: make([]float32, qd), out: make([]float32, qd)}
}

// begin turns the tee on for a chunk of n positions from position from.
func (t *teeCache) begin(from, n int) {
	t.on, t.from = true, from
	t.sums = append(t.sums[:0], make([]Metrics, n)...)
}

// Attend implements model.Cache.
func (t *teeCache) Attend(l, pos int, q, k, v, out []float32) error {
	if !t.on {
		return t.tap.Attend(l, pos, q, k, v, out)
	}
	i := pos - t.from
	if i < 0 || i >= len(t.sums) {
		return fmt.Errorf("sim: prompt chunk of positions %d to %d: position %d", t.from, t.from+len(t.sums)-1, pos)
	}
	copy(t.q, q)
	if err := t.tap.Attend(l, pos, q, k, v, out); err != nil {
		return err
	}
	heads := t.tap.mc.Heads
	for h := range heads {
		t.sinks.sum[l*heads+h] += float64(t.tap.full.Attention(l, h)[0])
	}
	t.comp.sum = Metrics{}
	if err := t.comp.Attend(l, pos, t.q, k, v, t.out); err != nil {
		return err
	}
	t.sums[i] = t.sums[i].add(t.comp.sum)
	return nil
}

// Reset implements model.Cache: it resets the tap, the cache the shadow
// runner owns (the compressed cache is the compressed runner's).
func (t *teeCache) Reset() { t.tap.Reset() }

// ModelCalibration is what storage learned from a model's keys and values
// before decoding: per-channel or per-tensor ranges and low-rank bases.
type ModelCalibration struct {
	c          calibration
	reposition bool
}

// CalibrationText is how many tokens CalibrateModel records: the model's
// own greedy continuation of an empty prompt (Tokenizer.Prompt).
const CalibrationText = 128

// CalibrateModel runs m on its greedy continuation of an empty prompt with an
// uncompressed cache, records every layer's keys (before RoPE with
// reposition, else rotated to their positions) and values, and learns what
// cfg's storage needs from them. It returns nil and no error when cfg's
// storage needs nothing.
func CalibrateModel(m *model.Model, cfg Config, reposition bool) (*ModelCalibration, error) {
	mc := m.Config
	cfg.Layers, cfg.Heads, cfg.KVHeads, cfg.HeadDim = mc.Layers, mc.Heads, mc.KVHeads, mc.HeadDim
	if !cfg.needsCalibration() {
		return nil, nil
	}
	n := min(CalibrationText, mc.ContextLength)
	tap, err := newTapCache(mc, n+1)
	if err != nil {
		return nil, err
	}
	tap.pre = reposition
	tap.keys = make([]float32, 0, n*mc.Layers*mc.KVDim())
	tap.vals = make([]float32, 0, cap(tap.keys))
	r := m.NewRunner(tap)
	if _, err := r.Generate(m.Tokenizer.Prompt(""), model.GenerateOptions{MaxTokens: n - 1, IgnoreEOS: true}); err != nil {
		return nil, fmt.Errorf("sim: calibration run: %w", err)
	}
	cfg.Tokens = len(tap.keys) / (mc.Layers * mc.KVDim())
	src := func() (Source, error) { return &recorded{k: tap.keys, v: tap.vals}, nil }
	c, err := calibrate(cfg, src)
	if err != nil {
		return nil, err
	}
	return &ModelCalibration{c: c, reposition: reposition}, nil
}

// recorded replays recorded keys and values ([t][layer][kvDim]) as a Source.
type recorded struct {
	k, v []float32
	pos  int
}

func (r *recorded) Next(q, k, v []float32) int {
	n := len(k)
	copy(k, r.k[r.pos*n:(r.pos+1)*n])
	copy(v, r.v[r.pos*n:(r.pos+1)*n])
	r.pos++
	return r.pos - 1
}

// ModelRunDecoders is how many decoders a ModelRun steps per token after
// its prompt: the uncompressed, the compressed and the teacher-forced one.
const ModelRunDecoders = 3

// PromptChunk is the most prompt tokens one ModelRun.Step reads. A run
// reads its prompt but the last token in chunks, each in one batched
// uncompressed pass (model.Runner.Prefill: each weight matrix multiplies
// the whole chunk at once) that also fills the compressed cache (see
// ModelRun); larger chunks stream the weights fewer times, smaller ones
// let a viewer see the prompt arrive. The run's results do not depend on
// it (up to float32 rounding).
const PromptChunk = 64

// ModelRun decodes a prompt with a real model twice, side by side: with an
// uncompressed cache and with a compressed one, each greedily on its own
// text. A third, uncompressed cache follows the compressed text (teacher
// forcing), so each step compares the two caches' next-token predictions
// and attention on the same tokens: ModelRunDecoders decoders a step. It
// is deterministic.
//
// The prompt is read as llama.cpp and kvpress read it: at full precision,
// then compressed. Its tokens but the last are read in chunks of up to
// PromptChunk, each once, by the uncompressed shadow's batched pass; the
// compressed cache is fed that pass's queries, keys and values (a tee,
// layer by layer), so it stores the reference's prompt keys and values
// through its own storage and its policy scores and evicts them on the
// reference's attention. The compressed runner then takes up from the
// prompt's last token, which every decoder reads by itself as any later
// token: the compressed text's first token comes from the compressed
// cache's own next-token prediction.
//
// Per position, a run records the token of each text and its piece, the
// metrics (Snapshot.History: one entry per position fed) and the sink
// metric. A chunked prompt position's metrics compare the compressed
// cache's attention with the reference's for the reference's query at
// that position (from the last prompt token on, for the shadow's query
// on the compressed text, whose earlier tokens are the same). Next-token
// predictions are compared from the last prompt token on only: a chunk
// computes no compressed next-token distribution, so KL, top-1 agreement
// and Text.KLHistory (entry i: position Prompt−1+i) begin there.
type ModelRun struct {
	m      *model.Model
	cfg    Config
	cache  *ModelCache
	tap    *tapCache
	ref    *model.Runner // uncompressed, free-running
	refFC  *model.FullCache
	test   *model.Runner // compressed, free-running
	shadow *model.Runner // uncompressed, fed the compressed text
	tee    *teeCache     // the shadow's cache; on while a prompt chunk is read
	chunk  int           // prompt tokens a step reads at most (PromptChunk; tests change it)
	// viaForward makes a chunk go through Forward token by token (with the
	// tee on) instead of Prefill: what a chunk must equal, for the tests.
	viaForward bool
	// tokenPrompt reads the prompt as runs did before chunks: a token a
	// step, every decoder reading it by itself (the compressed runner on
	// its own passes), measured as every later token. BenchmarkModelRunPrompt
	// compares; it is not what a run's contract describes.
	tokenPrompt bool

	prompt            []int
	maxTokens         int
	refToks, testToks []int
	refNext, testNext int
	klSum             float64
	agree, steps      int
	diverge           int
	pieces            []string
	refText, testText []byte
	last              Metrics
	history           []Metrics
	kls               []float64
	text              TextCompare
	snap              Snapshot
	sinks             *sinkAcc // the sink metric of the uncompressed cache on the compressed text
	err               error

	// KVzip: where the cache compresses (0 for other policies), whether
	// it has, and what its reconstruction pass cost.
	zipAt    int
	zipped   bool
	zipFed   int
	zipNanos int64
}

// NewModelRun prepares to decode prompt (Tokenizer.Prompt: after BOS when the vocabulary asks for it) for up to
// maxTokens positions, prompt included, with cfg's policy and storage.
func NewModelRun(m *model.Model, cfg Config, prompt string, maxTokens int, reposition bool) (*ModelRun, error) {
	toks := m.Tokenizer.Prompt(prompt)
	return NewPromptRun(m, cfg, toks, len(toks), maxTokens, reposition)
}

// NewDocumentRun prepares to decode the answer to question about doc
// (Tokenizer.Document) for up to maxTokens positions, prompt included.
// The compressed cache starts evicting when the document ends, before the
// question arrives (a cache compressed once and reused across questions,
// kvpress's default), or with after, once the question is read too (a
// query-aware compression: SnapKV's window then holds the question).
// Without a question it is NewModelRun.
func NewDocumentRun(m *model.Model, cfg Config, doc, question string, after bool, maxTokens int, reposition bool) (*ModelRun, error) {
	d := m.Tokenizer.Document(doc, question)
	at := d.Question
	if after {
		at = len(d.IDs)
	}
	return NewPromptRun(m, cfg, d.IDs, at, maxTokens, reposition)
}

// NewPromptRun prepares to decode the prompt of token ids toks for up to
// maxTokens positions, prompt included; the compressed cache reads its
// first compressAt positions before its policy starts evicting (the
// prompt's length, or where a question begins; see NewDocumentRun). Every
// prompt position is read, by every decoder, before the run generates.
func NewPromptRun(m *model.Model, cfg Config, toks []int, compressAt, maxTokens int, reposition bool) (*ModelRun, error) {
	mc := m.Config
	if maxTokens < 2 || maxTokens > mc.ContextLength {
		return nil, fmt.Errorf("sim: model run of %d tokens: want 2 to %d (the model's context)", maxTokens, mc.ContextLength)
	}
	if len(toks) == 0 {
		return nil, fmt.Errorf("sim: a model run needs a prompt of at least one token")
	}
	if len(toks) >= maxTokens {
		return nil, fmt.Errorf("sim: prompt of %d tokens leaves no room in %d", len(toks), maxTokens)
	}
	if compressAt < 1 || compressAt > len(toks) {
		return nil, fmt.Errorf("sim: compression from position %d of a %d-token prompt", compressAt, len(toks))
	}
	for _, t := range toks {
		if t < 0 || t >= mc.Vocab {
			return nil, fmt.Errorf("sim: prompt token %d out of the vocabulary's %d", t, mc.Vocab)
		}
	}
	toks = slices.Clone(toks)
	cal, err := CalibrateModel(m, cfg, reposition)
	if err != nil {
		return nil, err
	}
	cache, err := NewModelCache(mc, cfg, maxTokens, compressAt, reposition, cal)
	if err != nil {
		return nil, err
	}
	tap, err := newTapCache(mc, maxTokens)
	if err != nil {
		return nil, err
	}
	full, err := model.NewFullCache(mc, maxTokens)
	if err != nil {
		return nil, err
	}
	cache.ref = tap
	sinks := newSinkAcc(mc.Layers, mc.Heads)
	tee := newTeeCache(tap, cache, sinks)
	r := &ModelRun{m: m, cfg: cache.cfg, cache: cache, tap: tap, prompt: toks, maxTokens: maxTokens, diverge: -1,
		ref: m.NewRunner(full), refFC: full, test: m.NewRunner(cache), shadow: m.NewRunner(tee), tee: tee,
		chunk: PromptChunk, sinks: sinks}
	if p, _ := kv.ParsePolicy(cfg.Policy); p.Describe().Reconstructs {
		// The compressed cache waits for the reconstruction's scores
		// instead of ending its prompt by itself (zip).
		r.zipAt = compressAt
		cache.c.deferEnd = true
	}
	r.refToks = make([]int, 0, maxTokens)
	r.testToks = make([]int, 0, maxTokens)
	r.pieces = make([]string, 0, maxTokens)
	r.history = make([]Metrics, 0, maxTokens)
	r.kls = make([]float64, 0, maxTokens)
	return r, nil
}

// Config returns the run's configuration (with the model's shape).
func (r *ModelRun) Config() Config { return r.cfg }

// Pos returns the number of tokens fed so far: a step reading a prompt
// chunk advances it by up to PromptChunk, any other step by one.
func (r *ModelRun) Pos() int { return len(r.testToks) }

// Err returns the error that stopped the run, if any.
func (r *ModelRun) Err() error { return r.err }

// Cache returns the compressed cache.
func (r *ModelRun) Cache() *ModelCache { return r.cache }

// Step feeds the next tokens: up to PromptChunk tokens of the prompt
// while more than its last token are left (see ModelRun), else one token
// to each cache — the prompt's last token, then each run's own greedy
// choice. It returns false when maxTokens are fed, both texts have ended
// (EOS), or after an error. While the two texts agree, the uncompressed
// run and the shadow read the same tokens through the same arithmetic, so
// the shadow's pass serves both: the uncompressed run's cache is copied
// from the shadow's when the texts part (the same results, two forward
// passes per token instead of three until then).
func (r *ModelRun) Step() bool { return r.StepTo(r.maxTokens) }

// StepTo is Step, except that a prompt chunk ends at position goal: it
// feeds at most max(goal−Pos(), 1) tokens, so a viewer asking for goal
// positions gets no more. It returns what Step returns.
func (r *ModelRun) StepTo(goal int) bool {
	pos := len(r.testToks)
	if r.err != nil || pos >= r.maxTokens {
		return false
	}
	if r.zipAt > 0 && pos == r.zipAt && !r.zipped {
		// KVzip: the cache compresses here, scored by the reconstruction.
		if err := r.zip(); err != nil {
			r.err = fmt.Errorf("sim: KVzip's reconstruction after position %d: %w", pos, err)
			return false
		}
	}
	if end := len(r.prompt) - 1; pos < end && !r.tokenPrompt {
		if r.zipAt > pos {
			end = min(end, r.zipAt) // a chunk stops where KVzip compresses
		}
		return r.readPrompt(r.prompt[pos:min(end, pos+max(1, min(r.chunk, goal-pos)))])
	}
	eos := r.m.Tokenizer.EOS
	if pos > len(r.prompt) && r.refNext == eos && r.testNext == eos {
		return false
	}
	refTok, testTok := r.refNext, r.testNext
	if pos < len(r.prompt) {
		refTok, testTok = r.prompt[pos], r.prompt[pos]
	}
	a, err := r.shadow.Forward(testTok)
	if err == nil {
		r.cache.sum = Metrics{}
		var b []float32
		if b, err = r.test.Forward(testTok); err == nil {
			r.testNext = model.Argmax(b)
			kl := model.KLDivergence(a, b)
			if r.testNext == model.Argmax(a) {
				r.agree++
			}
			r.steps++
			r.klSum += kl
			r.kls = append(r.kls, kl)
			if r.diverge < 0 && refTok == testTok {
				r.refNext = model.Argmax(a) // the shadow's pass is the uncompressed run's
			} else {
				if r.ref.Pos() < pos { // the texts part here: take up the shared history
					if err = r.refFC.CopyFrom(r.tap.full, pos); err == nil {
						err = r.ref.Seek(pos)
					}
				}
				var c []float32
				if err == nil {
					if c, err = r.ref.Forward(refTok); err == nil {
						r.refNext = model.Argmax(c)
					}
				}
			}
		}
	}
	if err != nil {
		r.err = fmt.Errorf("sim: model run at position %d: %w", pos, err)
		return false
	}
	r.addSinks()
	r.record(refTok, testTok, r.cache.sum)
	return true
}

// readPrompt feeds the prompt tokens toks (ending before the prompt's
// last token) at the next positions: once, through the shadow's batched
// pass with the tee on, which fills the compressed cache too; the
// compressed runner is then positioned after them. Each position records
// its metrics (summed over the layers by the tee) and the sink metric;
// the uncompressed run shares the shadow's history, the texts being one.
func (r *ModelRun) readPrompt(toks []int) bool {
	pos := len(r.testToks)
	r.tee.begin(pos, len(toks))
	var err error
	if r.viaForward {
		for _, t := range toks {
			if _, err = r.shadow.Forward(t); err != nil {
				break
			}
		}
	} else {
		_, err = r.shadow.Prefill(toks)
	}
	r.tee.on = false
	if err == nil {
		err = r.test.Seek(pos + len(toks))
	}
	if err != nil {
		r.err = fmt.Errorf("sim: model run reading the prompt at positions %d to %d: %w", pos, pos+len(toks)-1, err)
		return false
	}
	r.sinks.n += len(toks)
	for i, t := range toks {
		r.record(t, t, r.tee.sums[i])
	}
	return true
}

// record appends the position fed next: its metrics (sum, summed over the
// layers), and each text's token and piece.
func (r *ModelRun) record(refTok, testTok int, sum Metrics) {
	pos := len(r.testToks)
	r.last = sum.scale(1 / float64(r.m.Config.Layers))
	r.history = append(r.history, r.last)
	r.refToks = append(r.refToks, refTok)
	r.testToks = append(r.testToks, testTok)
	tk := r.m.Tokenizer
	prevR, prevT := -1, -1
	if pos > 0 {
		prevR, prevT = r.refToks[pos-1], r.testToks[pos-1]
	}
	r.refText = tk.AppendToken(r.refText, prevR, refTok)
	r.testText = tk.AppendToken(r.testText, prevT, testTok)
	r.pieces = append(r.pieces, tk.TokenText(prevT, testTok))
	if r.diverge < 0 && refTok != testTok {
		r.diverge = pos
	}
}

// Texts returns the uncompressed and compressed texts so far.
func (r *ModelRun) Texts() (full, compressed string) { return string(r.refText), string(r.testText) }

// Snapshot fills the run's snapshot with layer's state after the last
// step: the compressed cache's tokens and roles, the uncompressed cache's
// attention on the same text, memory, metrics and both texts.
func (r *ModelRun) Snapshot(layer int) *Snapshot {
	s := &r.snap
	pos := len(r.testToks)
	full := r.tap.full
	var ref func(int) []float32
	if pos > 0 && !r.cache.reposition {
		ref = func(qh int) []float32 { return full.Attention(layer, qh) }
	}
	r.cache.c.fill(s, layer, pos, ref)
	s.Prompt = len(r.prompt)
	s.Mem = r.cache.c.memory()
	s.FullBytes = 2 * 2 * int64(r.cfg.Layers*r.cfg.KVHeads*r.cfg.HeadDim) * int64(pos)
	s.EvictBytes = r.cache.c.evictBytes()
	s.Metrics, s.History = r.last, r.history
	s.Sinks = r.Sinks()
	s.Tokens = r.pieces
	t := &r.text
	// The texts only grow: convert them again only when they did.
	if len(t.Full) != len(r.refText) {
		t.Full = string(r.refText)
	}
	if len(t.Compressed) != len(r.testText) {
		t.Compressed = string(r.testText)
	}
	t.Diverge, t.KLHistory = r.diverge, r.kls
	t.ZipFed, t.ZipTime = r.ZipCost()
	if len(r.kls) == 0 {
		t.KLHistory = nil // while a chunked prompt is read: none yet, as a frame's receiver has it
	}
	t.NextKL, t.MeanKL, t.Agreement = 0, 0, 0
	if r.steps > 0 {
		t.NextKL = r.kls[len(r.kls)-1]
		t.MeanKL = r.klSum / float64(r.steps)
		t.Agreement = float64(r.agree) / float64(r.steps)
	}
	s.Text = t
	return s
}

// Tokens returns the token ids fed so far: the uncompressed run's
// (prompt, BOS first, then its greedy continuation) and the compressed
// run's. The slices are the run's own; they must not be modified and are
// extended by later steps.
func (r *ModelRun) Tokens() (full, compressed []int) { return r.refToks, r.testToks }

// Perplexity returns the teacher-forced perplexity of the run's
// uncompressed text as it was decoded — its tokens (Tokens' full: BOS, the
// prompt, the greedy continuation) — under an uncompressed cache and under
// the run's compressed cache: PerplexityTokens of those tokens. It is how
// a run is scored, by the lessons and the command line alike: its text
// encoded again need not give the same tokens (greedy decoding need not
// pick the tokenizer's merges), nor fit the context. It needs two tokens
// fed.
func (r *ModelRun) Perplexity() (full, compressed float64, err error) {
	return PerplexityTokens(r.m, r.cfg, r.refToks, r.cache.reposition)
}

// Perplexity returns the teacher-forced perplexity of text (BOS is
// prepended) under an uncompressed cache and under cfg's compressed cache.
// The text must encode to at most the model's context length, BOS
// included. A text decoded from tokens may encode to more tokens than were
// decoded (greedy decoding need not pick the tokenizer's merges): to score
// what a run decoded, use ModelRun.Perplexity (or pass its tokens to
// PerplexityTokens) instead.
func Perplexity(m *model.Model, cfg Config, text string, reposition bool) (full, compressed float64, err error) {
	toks := m.Tokenizer.Prompt(text)
	if len(toks) < 2 || len(toks) > m.Config.ContextLength {
		return 0, 0, fmt.Errorf("sim: perplexity needs 1 to %d tokens of text, got %d", m.Config.ContextLength-1, len(toks)-1)
	}
	return PerplexityTokens(m, cfg, toks, reposition)
}

// PerplexityTokens returns the teacher-forced perplexity of toks[1:], each
// predicted from the tokens before it, under an uncompressed cache and
// under cfg's compressed cache. toks usually starts with BOS (as
// ModelRun.Tokens does); it needs 2 to ContextLength tokens, so a run that
// filled the model's context is scored whole.
func PerplexityTokens(m *model.Model, cfg Config, toks []int, reposition bool) (full, compressed float64, err error) {
	if len(toks) < 2 || len(toks) > m.Config.ContextLength {
		return 0, 0, fmt.Errorf("sim: perplexity needs 2 to %d tokens, got %d", m.Config.ContextLength, len(toks))
	}
	fc, err := model.NewFullCache(m.Config, len(toks))
	if err != nil {
		return 0, 0, err
	}
	if full, err = m.Perplexity(fc, toks); err != nil {
		return 0, 0, err
	}
	cal, err := CalibrateModel(m, cfg, reposition)
	if err != nil {
		return 0, 0, err
	}
	mc, err := NewModelCache(m.Config, cfg, len(toks), 1, reposition, cal)
	if err != nil {
		return 0, 0, err
	}
	compressed, err = m.Perplexity(mc, toks)
	return full, compressed, err
}
