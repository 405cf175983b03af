package view

import (
	"github.com/kvscope/kvscope/core/sim"
)

// State is everything a shared link reproduces: one or two simulation
// configurations and how the page shows them.
//
// The zero value is not useful; start from DefaultState or Decode. Every
// function of this package that takes a *State leaves it normalized: all
// values in range and the cross-field rules of Normalize satisfied.
type State struct {
	A sim.Config // the configuration shown (the left one in compare mode)
	B sim.Config // compare mode's second configuration; its stream settings always equal A's

	Compare bool    // show A and B side by side on the same stream
	Layer   int     // layer shown, 0 ≤ Layer < A.Layers
	Speed   float64 // decode steps per second while playing
	At      int     // step to open at (0 = the start); the page replays to it
	// TextHead is the KV head whose roles the text view colours (of the
	// layer shown), or AllHeads for the share of heads holding each token.
	TextHead int
	Playing  bool // decoding runs on its own

	Model   string // model-scale preset: a key of Models
	Context int    // model-scale context length, tokens

	// Real-model mode (Mode == ModeModel): a pretrained model decodes Text
	// through A's policy and storage; the synthetic stream settings of A,
	// B and Compare are kept but not used.
	Mode string // ModeSynthetic or ModeModel
	Text string // the model's prompt, sanitized (SanitizePrompt)
	// Question is asked about Text (model.Tokenizer.Document): "" for
	// none. QAfter compresses the cache after the question is read
	// rather than before it arrives (sim.NewDocumentRun).
	Question string
	QAfter   bool
	// LocalDoc names the prompt a link gave as a document kept in the
	// browser (doc=local-…, LocalDocID): the page looks it up and, when
	// it has it, makes it Text. It is not a setting of its own.
	LocalDoc string
	MaxTok   int  // positions the model decodes, prompt and BOS included
	Repos    bool // re-position keys within the cache (StreamingLLM)
	// Source is the model file's address (NormalizeSource): "" for the
	// stories260K file served beside the page.
	Source string

	// An embedded view (an <iframe> in another page; see EmbedControls).
	Embed bool // show the reduced view
	// Present is the presentation mode for a lecture hall: large type,
	// the side panels hidden, the map, the memory line and the texts large.
	Present  bool
	Controls string // the controls it shows: keys of EmbedControls, comma-separated
	Origin   string // a host page's origin whose messages it obeys (NormalizeOrigin); "" for its own only
}

// ModelMode reports whether s shows the real model rather than the synthetic stream.
func (s *State) ModelMode() bool { return s.Mode == ModeModel }

// Measured reports whether the fidelity metrics are measured: they are
// not in real-model mode with re-positioned keys, whose cache holds keys at
// other positions than the uncompressed run's, which leaves no reference
// to compare with (the page shows "–").
func (s *State) Measured() bool { return !(s.ModelMode() && s.Repos) }

// Total returns how many positions the run shown has at its end: A's
// tokens for the synthetic stream, MaxTok for the real model.
func (s *State) Total() int {
	if s.ModelMode() {
		return s.MaxTok
	}
	return s.A.Tokens
}

// DefaultState is the page's opening state: the synthetic stream with
// sim.DefaultConfig for A, the StreamingLLM preset for B, playing at 30
// steps per second, scaled to Llama-2-7B at 32K tokens; real-model mode
// would decode DefaultPrompt for DefaultModelTokens positions.
func DefaultState() State {
	s := State{
		A:        sim.DefaultConfig(),
		B:        sim.DefaultConfig(),
		Speed:    30,
		TextHead: AllHeads,
		Playing:  true,
		Model:    "llama2-7b",
		Context:  32768,
		Mode:     ModeSynthetic,
		Text:     DefaultPrompt,
		MaxTok:   DefaultModelTokens,
	}
	// B compares like for like: another policy at A's budget and storage.
	ApplyPreset(&s.B, "streaming")
	s.B.StoreAs(s.A)
	Normalize(&s)
	return s
}

// ApplyPreset applies the sim.Presets entry named name to c and reports
// whether one was found. It never changes the stream settings.
func ApplyPreset(c *sim.Config, name string) bool {
	for _, p := range sim.Presets {
		if p.Name == name {
			keep := *c
			p.Apply(c)
			copyStream(c, &keep)
			return true
		}
	}
	return false
}

// copyStream sets dst's synthetic-stream settings (seed, shape and
// generator knobs) to src's, leaving eviction and storage alone.
func copyStream(dst, src *sim.Config) {
	dst.Seed, dst.Layers, dst.Heads, dst.KVHeads = src.Seed, src.Layers, src.Heads, src.KVHeads
	dst.HeadDim, dst.Prompt, dst.Tokens = src.HeadDim, src.Prompt, src.Tokens
	dst.SinkStrength, dst.HeavyStrength, dst.Locality = src.SinkStrength, src.HeavyStrength, src.Locality
	dst.RetrievalShare, dst.OutlierChannels = src.RetrievalShare, src.OutlierChannels
	dst.OutlierScale, dst.TailDF, dst.RefStride = src.OutlierScale, src.TailDF, src.RefStride
}

// Side returns configuration A (side 0) or B (any other side).
func (s *State) Side(side int) *sim.Config {
	if side == 0 {
		return &s.A
	}
	return &s.B
}
