package view

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/kvscope/kvscope/core/kv"
	"github.com/kvscope/kvscope/core/store"

	"github.com/kvscope/kvscope/core/sim"
)

// Kind is how a Field's value is written.
type Kind uint8

// Field kinds.
const (
	Int    Kind = iota // a whole number in [Min, Max]
	Float              // a number in [Min, Max]
	Enum               // one of Choices
	Bool               // 1/0 (true/false, on/off and yes/no are read too)
	Seed               // an unsigned 64-bit integer
	Text               // free text, sanitized by SanitizePrompt
	Source             // a model file's address, normalized by NormalizeSource
	Names              // a comma-separated list of control keys (EmbedControls)
	Origin             // a web origin, normalized by NormalizeOrigin
)

// Field describes one setting: its URL key, its range and how to reach it.
// The page's controls take their bounds from here, so the URL decoder, the
// controls and the tests share one table.
type Field struct {
	Key     string   // URL key; a per-configuration field is written "b.<key>" for B
	Label   string   // what the page calls it
	Kind    Kind     //
	Min     float64  // Int, Float: smallest value
	Max     float64  // Int, Float: largest value (further limited by Normalize)
	Step    float64  // Int, Float: a control's step
	Unit    string   // Int, Float: what the control's readout writes after the value ("steps/s"); "" for none
	Choices []string // Enum: the accepted values, in the order a control lists them
	PerSide bool     // eviction or storage: A and B each have their own
	Empty   bool     // Enum: "" is accepted too and means the first choice (the simulator's default)
	// Param is the kv setting the field is, for the eviction settings a
	// policy may or may not read (Relevant); 0 for the others.
	Param kv.Param
	// Quantized marks a storage setting that matters only below 16 bits.
	Quantized bool
	// UniformOnly marks a storage setting only the uniform quantizer takes
	// below 16 bits (store refuses it with the others).
	UniformOnly bool

	choices func() []string // Enum: the accepted values, from a registry (policies, quantizers, allocators)
	// LinkOnly: only a link sets it; no control of the page edits it, so
	// an embed's controls= does not accept it (EmbedControls).
	LinkOnly bool
	// Omit: Encode leaves the field out while it holds its zero value
	// (false or ""), so links without it stay as they were.
	Omit bool

	i  func(*State, *sim.Config) *int
	f  func(*State, *sim.Config) *float64
	s  func(*State, *sim.Config) *string
	b  func(*State, *sim.Config) *bool
	u  func(*State, *sim.Config) *uint64
	in func(v float64) float64 // optional snapping of a parsed number (bits)
}

// Granularities, BitWidths and Rotations are the accepted values of the
// gran, bits and rotate fields ("" in a configuration reads as the first
// rotation). The policies, quantizers and allocators are their packages'
// (kv.Policies, store.Quantizers, kv.Allocs): a field's Choices.
var (
	Granularities = []string{"tensor", "channel", "token", "group", "kivi"}
	BitWidths     = []int{32, 16, 8, 4, 3, 2}
	Rotations     = []string{"none", "hadamard"}
)

// policyNames lists every policy's name, built-in and registered.
func policyNames() []string {
	var out []string
	for _, p := range kv.Policies() {
		out = append(out, p.String())
	}
	return out
}

// allocNames lists every allocator's name.
func allocNames() []string {
	var out []string
	for _, a := range kv.Allocs() {
		out = append(out, a.String())
	}
	return out
}

// quantNames lists every quantizer's name, built-in and registered.
func quantNames() []string { return slices.Clone(store.Quantizers) }

// Limits of the simulated run that the page accepts.
const (
	MaxTokens = 4096
	MaxHeads  = 32
	MaxDim    = 128
	MaxLayers = 8
)

func ci(get func(*sim.Config) *int) func(*State, *sim.Config) *int {
	return func(_ *State, c *sim.Config) *int { return get(c) }
}
func cf(get func(*sim.Config) *float64) func(*State, *sim.Config) *float64 {
	return func(_ *State, c *sim.Config) *float64 { return get(c) }
}

var fieldTable = []Field{
	// The stream, shared by A and B.
	{Key: "seed", Label: "Seed", Kind: Seed, u: func(_ *State, c *sim.Config) *uint64 { return &c.Seed }},
	{Key: "layers", Label: "Layers", Kind: Int, Min: 1, Max: MaxLayers, Step: 1, i: ci(func(c *sim.Config) *int { return &c.Layers })},
	{Key: "heads", Label: "Query heads", Kind: Int, Min: 1, Max: MaxHeads, Step: 1, i: ci(func(c *sim.Config) *int { return &c.Heads })},
	{Key: "kvheads", Label: "KV heads", Kind: Int, Min: 1, Max: MaxHeads, Step: 1, i: ci(func(c *sim.Config) *int { return &c.KVHeads })},
	{Key: "dim", Label: "Head dim", Kind: Int, Min: 8, Max: MaxDim, Step: 8, i: ci(func(c *sim.Config) *int { return &c.HeadDim })},
	{Key: "prompt", Label: "Prompt length", Kind: Int, Min: 1, Max: MaxTokens, Step: 1, i: ci(func(c *sim.Config) *int { return &c.Prompt })},
	{Key: "tokens", Label: "Tokens", Kind: Int, Min: 16, Max: MaxTokens, Step: 16, i: ci(func(c *sim.Config) *int { return &c.Tokens })},
	{Key: "sinkstr", Label: "Sink strength", Kind: Float, Min: 0, Max: 4, Step: 0.1, f: cf(func(c *sim.Config) *float64 { return &c.SinkStrength })},
	{Key: "heavystr", Label: "Heavy-hitter strength", Kind: Float, Min: 0, Max: 4, Step: 0.1, f: cf(func(c *sim.Config) *float64 { return &c.HeavyStrength })},
	{Key: "locality", Label: "Locality", Kind: Float, Min: 0, Max: 4, Step: 0.1, f: cf(func(c *sim.Config) *float64 { return &c.Locality })},
	{Key: "retrieval", Label: "Retrieval heads share", Kind: Float, Min: 0, Max: 1, Step: 0.05, f: cf(func(c *sim.Config) *float64 { return &c.RetrievalShare })},
	{Key: "outliers", Label: "Outlier key channels", Kind: Int, Min: 0, Max: MaxDim, Step: 1, i: ci(func(c *sim.Config) *int { return &c.OutlierChannels })},
	{Key: "outscale", Label: "Outlier scale", Kind: Float, Min: 0, Max: 50, Step: 0.5, f: cf(func(c *sim.Config) *float64 { return &c.OutlierScale })},
	{Key: "taildf", Label: "Noise tail (Student-t df, 0 = Gaussian)", Kind: Float, Min: 0, Max: 30, Step: 0.5, f: cf(func(c *sim.Config) *float64 { return &c.TailDF })},
	{Key: "ref", Label: "Reference every n steps", Kind: Int, Min: 0, Max: 64, Step: 1, i: ci(func(c *sim.Config) *int { return &c.RefStride })},

	// Eviction and storage, per configuration.
	{Key: "policy", Label: "Policy", Kind: Enum, choices: policyNames, PerSide: true, s: func(_ *State, c *sim.Config) *string { return &c.Policy }},
	{Key: "sink", Label: "Sink tokens", Kind: Int, Param: kv.ParamSink, Min: 0, Max: MaxTokens, Step: 1, PerSide: true, i: ci(func(c *sim.Config) *int { return &c.Sink })},
	{Key: "recent", Label: "Recent window", Kind: Int, Param: kv.ParamRecent, Min: 0, Max: MaxTokens, Step: 1, PerSide: true, i: ci(func(c *sim.Config) *int { return &c.Recent })},
	{Key: "heavy", Label: "Heavy hitters", Kind: Int, Param: kv.ParamHeavy, Min: 0, Max: MaxTokens, Step: 1, PerSide: true, i: ci(func(c *sim.Config) *int { return &c.Heavy })},
	{Key: "chunk", Label: "Chunk size", Kind: Int, Param: kv.ParamChunk, Min: 1, Max: MaxTokens, Step: 1, PerSide: true, i: ci(func(c *sim.Config) *int { return &c.ChunkSize })},
	{Key: "drop", Label: "Drop share", Kind: Float, Param: kv.ParamDrop, Min: 0, Max: 0.95, Step: 0.05, PerSide: true, f: cf(func(c *sim.Config) *float64 { return &c.DropShare })},
	{Key: "shared", Label: "One decision for all heads", Kind: Bool, Param: kv.ParamShared, PerSide: true, b: func(_ *State, c *sim.Config) *bool { return &c.Shared }},
	{Key: "alloc", Empty: true, Label: "Budget split", Kind: Enum, choices: allocNames, Param: kv.ParamAlloc, PerSide: true, s: func(_ *State, c *sim.Config) *string { return &c.Alloc }},
	{Key: "merge", Label: "Merge evicted values", Kind: Bool, Param: kv.ParamMerge, PerSide: true, b: func(_ *State, c *sim.Config) *bool { return &c.Merge }},
	{Key: "vweight", Label: "Weigh scores by value size", Kind: Bool, Param: kv.ParamValueWeight, PerSide: true, b: func(_ *State, c *sim.Config) *bool { return &c.ValueWeight }},
	{Key: "pages", Label: "Pages read per query (0 = 4)", Kind: Int, Param: kv.ParamPages, Min: 0, Max: 256, Step: 1, PerSide: true, i: ci(func(c *sim.Config) *int { return &c.Pages })},
	{Key: "pagesize", Label: "Page size (0 = 16)", Kind: Int, Param: kv.ParamPageSize, Min: 0, Max: 256, Step: 1, PerSide: true, LinkOnly: true, i: ci(func(c *sim.Config) *int { return &c.PageSize })},
	{Key: "bits", Label: "Bits", Kind: Int, Min: 2, Max: 32, Step: 1, PerSide: true, i: ci(func(c *sim.Config) *int { return &c.Bits }), in: snapBits},
	{Key: "gran", Label: "Granularity", Kind: Enum, Quantized: true, Choices: Granularities, PerSide: true, s: func(_ *State, c *sim.Config) *string { return &c.Granularity }},
	{Key: "group", Label: "Group size", Kind: Int, Quantized: true, Min: 1, Max: 1024, Step: 1, PerSide: true, i: ci(func(c *sim.Config) *int { return &c.GroupSize })},
	{Key: "residual", Label: "FP16 residual", Kind: Int, Quantized: true, Min: 0, Max: MaxTokens, Step: 1, PerSide: true, i: ci(func(c *sim.Config) *int { return &c.Residual })},
	{Key: "quant", Empty: true, Label: "Quantizer", Kind: Enum, choices: quantNames, Quantized: true, PerSide: true, s: func(_ *State, c *sim.Config) *string { return &c.Quant }},
	{Key: "rotate", Empty: true, Label: "Rotation", Kind: Enum, Quantized: true, Choices: Rotations, PerSide: true, s: func(_ *State, c *sim.Config) *string { return &c.Rotate }},
	{Key: "outfp16", Label: "Outliers kept in FP16 (share)", Kind: Float, Quantized: true, UniformOnly: true, Min: 0, Max: 0.5, Step: 0.01, PerSide: true, f: cf(func(c *sim.Config) *float64 { return &c.OutliersFP16 })},
	{Key: "sinkfp16", Label: "First tokens kept in FP16", Kind: Int, Quantized: true, Min: 0, Max: MaxTokens, Step: 1, PerSide: true, i: ci(func(c *sim.Config) *int { return &c.SinkFP16 })},
	{Key: "sketch", Label: "Sketch seed", Kind: Seed, PerSide: true, LinkOnly: true, u: func(_ *State, c *sim.Config) *uint64 { return &c.SketchSeed }},
	{Key: "rank", Label: "Rank (0 = off)", Kind: Int, UniformOnly: true, Min: 0, Max: MaxDim, Step: 1, PerSide: true, i: ci(func(c *sim.Config) *int { return &c.Rank })},

	// How the page shows the run.
	{Key: "cmp", Label: "Compare", Kind: Bool, b: func(s *State, _ *sim.Config) *bool { return &s.Compare }},
	{Key: "layer", Label: "Layer shown", Kind: Int, Min: 0, Max: MaxLayers - 1, Step: 1, i: func(s *State, _ *sim.Config) *int { return &s.Layer }},
	{Key: "thead", Label: "Text colours: KV head (−1: share of heads)", Kind: Int, Min: AllHeads, Max: MaxHeads - 1, Step: 1, i: func(s *State, _ *sim.Config) *int { return &s.TextHead }},
	{Key: "speed", Label: "Speed (steps/s)", Kind: Float, Min: 1, Max: 240, Step: 1, Unit: "steps/s", f: func(s *State, _ *sim.Config) *float64 { return &s.Speed }},
	{Key: "at", Label: "Step", Kind: Int, Min: 0, Max: MaxTokens, Step: 1, LinkOnly: true, i: func(s *State, _ *sim.Config) *int { return &s.At }},
	{Key: "play", Label: "Playing", Kind: Bool, b: func(s *State, _ *sim.Config) *bool { return &s.Playing }},
	{Key: "scale", Label: "Model", Kind: Enum, Choices: modelKeys(), s: func(s *State, _ *sim.Config) *string { return &s.Model }},
	{Key: "ctx", Label: "Context (tokens)", Kind: Int, Min: 1024, Max: 1 << 20, Step: 1024, i: func(s *State, _ *sim.Config) *int { return &s.Context }},

	// Real-model mode.
	{Key: "mode", Label: "Stream", Kind: Enum, Choices: Modes, s: func(s *State, _ *sim.Config) *string { return &s.Mode }},
	{Key: "text", Label: "Prompt", Kind: Text, s: func(s *State, _ *sim.Config) *string { return &s.Text }},
	{Key: "question", Label: "Question", Kind: Text, s: func(s *State, _ *sim.Config) *string { return &s.Question }},
	{Key: "qafter", Label: "Compress after the question", Kind: Bool, b: func(s *State, _ *sim.Config) *bool { return &s.QAfter }},
	{Key: "mtokens", Label: "Max tokens", Kind: Int, Min: MinModelTokens, Max: MaxModelTokens, Step: 1, i: func(s *State, _ *sim.Config) *int { return &s.MaxTok }},
	{Key: "repos", Label: "Re-position keys (StreamingLLM)", Kind: Bool, b: func(s *State, _ *sim.Config) *bool { return &s.Repos }},
	{Key: "model", Label: "Model file", Kind: Source, s: func(s *State, _ *sim.Config) *string { return &s.Source }},

	// An embedded view (an <iframe> in another page, see embed.go).
	{Key: KeyEmbed, Label: "Embedded view", Kind: Bool, LinkOnly: true, Omit: true, b: func(s *State, _ *sim.Config) *bool { return &s.Embed }},
	{Key: "present", Label: "Presentation mode", Kind: Bool, LinkOnly: true, Omit: true, b: func(s *State, _ *sim.Config) *bool { return &s.Present }},
	{Key: KeyControls, Label: "Controls the embedded view shows", Kind: Names, LinkOnly: true, Omit: true, s: func(s *State, _ *sim.Config) *string { return &s.Controls }},
	{Key: KeyOrigin, Label: "Host page that may drive the embedded view", Kind: Origin, LinkOnly: true, Omit: true, s: func(s *State, _ *sim.Config) *string { return &s.Origin }},
}

var fillChoices sync.Once

// table is the settings table with the registries' choices filled in,
// once every package (and test) has registered its policies and
// quantizers.
func table() []Field {
	fillChoices.Do(func() {
		for i := range fieldTable {
			if f := &fieldTable[i]; f.choices != nil {
				f.Choices = f.choices()
			}
		}
	})
	return fieldTable
}

// Fields returns the settings table in URL order. The slice is shared; do not modify it.
func Fields() []Field { return table() }

// Lookup returns the field of a key ("b." prefixes allowed for per-side
// fields) and the side it addresses (0 = A, 1 = B).
func Lookup(key string) (f *Field, side int, ok bool) {
	if rest, isB := strings.CutPrefix(key, "b."); isB {
		key, side = rest, 1
	}
	fields := table()
	for i := range fields {
		if fields[i].Key == key {
			if side == 1 && !fields[i].PerSide {
				return nil, 0, false
			}
			return &fields[i], side, true
		}
	}
	return nil, 0, false
}

func snapBits(v float64) float64 {
	best := BitWidths[0]
	for _, b := range BitWidths {
		if math.Abs(float64(b)-v) < math.Abs(float64(best)-v) {
			best = b
		}
	}
	return float64(best)
}

// Notice tells the visitor that a setting was adjusted or ignored.
type Notice struct {
	Key   string // the setting's URL key ("" for the whole link)
	Value string // the value as given (shortened to 40 bytes)
	Msg   string // what was done, e.g. "above 32; using 32"
}

// IsHeading reports whether n introduces the notices after it (a message
// without a key that ends in a colon).
func IsHeading(n Notice) bool {
	return n.Key == "" && strings.HasSuffix(n.Msg, ":")
}

func (n Notice) String() string {
	if n.Key == "" {
		return n.Msg
	}
	return fmt.Sprintf("%s=%q: %s", n.Key, n.Value, n.Msg)
}

func short(v string) string {
	if len(v) > 40 {
		return strings.ToValidUTF8(v[:40], "") + "…"
	}
	return v
}

// Set parses value into the field named key of s (the "b." prefix selects
// B), clamping numbers to the field's range and then normalizing s. It
// returns the notices about key to show: none when value was taken as
// given. Other settings that Normalize adjusts are not reported. An unknown
// key or an unreadable value leaves s unchanged, with a notice. Set never
// panics.
//
// Set is what a control does: choosing another policy also keeps the
// total token budget (KeepBudget). Decode, which reproduces a link, does
// not.
func Set(s *State, key, value string) []Notice {
	var from string
	f, side, ok := Lookup(key)
	if ok && f.Key == "policy" {
		from = s.Side(side).Policy
	}
	ns := set(s, key, value)
	if from != "" {
		KeepBudget(s.Side(side), from)
	}
	for _, n := range Normalize(s) {
		if n.Key == key {
			ns = append(ns, n)
		}
	}
	return ns
}

func set(s *State, key, value string) []Notice {
	f, side, ok := Lookup(key)
	if !ok {
		return []Notice{{Key: short(key), Value: short(value), Msg: "unknown setting; ignored"}}
	}
	c := s.Side(side)
	bad := func(why string) []Notice {
		return []Notice{{Key: key, Value: short(value), Msg: why}}
	}
	if f.Kind == Source {
		// Links made before the model-scale preset had its own key
		// ("scale") wrote it as model=<preset>.
		if k := strings.ToLower(strings.TrimSpace(value)); slices.Contains(modelKeys(), k) {
			s.Model = k
			return nil
		}
		v, note, err := NormalizeSource(value)
		if err != nil {
			return bad(err.Error() + "; ignored")
		}
		*f.s(s, c) = v
		if note != "" {
			return bad(note)
		}
		return nil
	}
	if f.Kind == Names || f.Kind == Origin {
		return setEmbedField(f, s, key, value)
	}
	if f.Kind == Text {
		v, changed := SanitizePrompt(value)
		*f.s(s, c) = v
		if f.Key == "text" {
			s.LocalDoc = "" // the prompt is given: no longer one to look up
		}
		if changed {
			return bad("control characters removed or longer than " + itoa(MaxPromptBytes) + " bytes; using " + strconv.Quote(short(v)))
		}
		return nil
	}
	value = strings.TrimSpace(value)
	switch f.Kind {
	case Seed:
		u, err := strconv.ParseUint(value, 10, 64)
		if err != nil {
			return bad("not a whole number from 0 to 2^64−1; ignored")
		}
		*f.u(s, c) = u
		return nil
	case Bool:
		switch strings.ToLower(value) {
		case "1", "true", "on", "yes":
			*f.b(s, c) = true
		case "0", "false", "off", "no":
			*f.b(s, c) = false
		default:
			return bad("not 1 or 0; ignored")
		}
		return nil
	case Enum:
		v := strings.ToLower(value)
		if v == "" && f.Empty {
			*f.s(s, c) = ""
			return nil
		}
		for _, ch := range f.Choices {
			if ch == v {
				*f.s(s, c) = ch
				return nil
			}
		}
		return bad("not one of " + strings.Join(f.Choices, ", ") + "; ignored")
	}
	v, err := strconv.ParseFloat(value, 64)
	if err != nil || math.IsNaN(v) {
		return bad("not a number; ignored")
	}
	var out []Notice
	if f.in != nil {
		if w := f.in(v); w != v {
			out = append(out, Notice{Key: key, Value: short(value), Msg: "not an offered value; using " + fmtNum(w)})
			v = w
		}
	}
	if v < f.Min {
		out = append(out, Notice{Key: key, Value: short(value), Msg: "below " + fmtNum(f.Min) + "; using " + fmtNum(f.Min)})
		v = f.Min
	} else if v > f.Max {
		out = append(out, Notice{Key: key, Value: short(value), Msg: "above " + fmtNum(f.Max) + "; using " + fmtNum(f.Max)})
		v = f.Max
	}
	if f.Kind == Int {
		*f.i(s, c) = int(math.Round(v))
	} else {
		*f.f(s, c) = v
	}
	return out
}

// Get returns the field named key of s as the URL writes it, or "" for an
// unknown key.
func Get(s *State, key string) string {
	f, side, ok := Lookup(key)
	if !ok {
		return ""
	}
	c := s.Side(side)
	switch f.Kind {
	case Seed:
		return strconv.FormatUint(*f.u(s, c), 10)
	case Bool:
		if *f.b(s, c) {
			return "1"
		}
		return "0"
	case Enum, Text, Source, Names, Origin:
		return *f.s(s, c)
	case Int:
		return strconv.Itoa(*f.i(s, c))
	}
	return fmtNum(*f.f(s, c))
}

func fmtNum(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// SliderMax returns the top of key's slider for configuration c of a run
// of total positions: a range that makes the slider useful (sinks up to 64,
// a window or budget up to the whole run, a rank up to the head dim). The
// number box beside a slider still takes any value up to the Field's Max;
// a value above the slider's top pins the slider at its end. It returns the
// Field's Max for keys without a slider.
func SliderMax(key string, c *sim.Config, total int) float64 {
	total = max(total, 1)
	switch key {
	case "sink":
		return float64(min(64, total))
	case "recent", "heavy":
		return float64(total)
	case "residual":
		return float64(min(256, total))
	case "chunk":
		return float64(min(256, total))
	case "rank":
		return float64(max(c.HeadDim, 1))
	case "pages":
		return 64
	case "sinkfp16":
		return float64(min(64, total))
	}
	if f, _, ok := Lookup(key); ok {
		return f.Max
	}
	return 0
}
