package view

import (
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/sim"
)

func TestDecodeTable(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		check   func(s *State) bool
		notices int // exact count expected
	}{
		{"empty", "", func(s *State) bool { return s.A == sim.DefaultConfig() }, 0},
		{"hash and values", "#policy=streaming&sink=2&recent=40&bits=4", func(s *State) bool {
			return s.A.Policy == "streaming" && s.A.Sink == 2 && s.A.Recent == 40 && s.A.Bits == 4
		}, 0},
		{"query prefix", "?seed=18446744073709551615", func(s *State) bool { return s.A.Seed == 1<<64-1 }, 0},
		{"clamp high", "heads=999", func(s *State) bool { return s.A.Heads == MaxHeads }, 1},
		{"clamp low", "tokens=-5", func(s *State) bool { return s.A.Tokens == 16 && s.A.Prompt == 15 }, 1}, // prompt adjusted silently
		{"not a number", "sink=abc", func(s *State) bool { return s.A.Sink == sim.DefaultConfig().Sink }, 1},
		{"NaN", "drop=NaN", func(s *State) bool { return s.A.DropShare == sim.DefaultConfig().DropShare }, 1},
		{"Inf clamps", "drop=Inf", func(s *State) bool { return s.A.DropShare == 0.95 }, 1},
		{"bits snap", "bits=5", func(s *State) bool { return s.A.Bits == 4 || s.A.Bits == 8 }, 1},
		{"unknown key", "color=red", func(s *State) bool { return s.A == sim.DefaultConfig() }, 1},
		{"unknown enum", "policy=magic", func(s *State) bool { return s.A.Policy == "h2o" }, 1},
		{"enum case", "policy=KNORM", func(s *State) bool { return s.A.Policy == "knorm" }, 0},
		{"kv heads divide", "heads=12&kvheads=5", func(s *State) bool { return s.A.KVHeads == 4 }, 1},
		{"prompt below tokens", "tokens=64&prompt=64", func(s *State) bool { return s.A.Prompt == 63 }, 1},
		{"sink at most tokens, order-free", "sink=100&tokens=64", func(s *State) bool { return s.A.Sink == 64 }, 1},
		{"B per side", "cmp=1&b.policy=window&b.recent=10", func(s *State) bool {
			return s.Compare && s.B.Policy == "window" && s.B.Recent == 10 && s.A.Policy == "h2o"
		}, 0},
		{"B stream follows A", "cmp=1&heads=4&kvheads=4", func(s *State) bool { return s.B.Heads == 4 && s.B.KVHeads == 4 }, 0},
		{"B stream key refused", "b.heads=4", func(s *State) bool { return s.A.Heads == 8 }, 1},
		{"preset", "preset=kivi2&residual=64", func(s *State) bool {
			return s.A.Granularity == "kivi" && s.A.Bits == 2 && s.A.Residual == 64
		}, 0},
		{"unknown preset", "preset=nope", func(s *State) bool { return true }, 1},
		{"bad escape", "sink=%zz&recent=9", func(s *State) bool { return s.A.Recent == 9 }, 1},
		{"layer below layers", "layers=2&layer=5", func(s *State) bool { return s.Layer == 1 }, 1},
		{"at clamps", "at=99999", func(s *State) bool { return s.At == 512 }, 2},
		{"bool words", "play=off&shared=yes", func(s *State) bool { return !s.Playing && s.A.Shared }, 0},
		{"bad bool", "play=maybe", func(s *State) bool { return s.Playing }, 1},
		{"scale", "scale=mistral-7b&ctx=131072", func(s *State) bool { return s.Model == "mistral-7b" && s.Context == 131072 }, 0},
		{"scale as older links wrote it", "model=mistral-7b&ctx=131072", func(s *State) bool {
			return s.Model == "mistral-7b" && s.Context == 131072 && s.Source == "" && !s.ModelMode()
		}, 0},
		{"model file opens real-model mode", "model=https%3A%2F%2Fhuggingface.co%2Fa%2Fb%2Fresolve%2Fmain%2Fc.gguf", func(s *State) bool {
			return s.Source == "https://huggingface.co/a/b/resolve/main/c.gguf" && s.ModelMode()
		}, 0},
		{"model file with its mode", "mode=synthetic&model=x.gguf", func(s *State) bool { return s.Source == "x.gguf" && !s.ModelMode() }, 0},
		{"model file page rewritten", "model=https://huggingface.co/a/b/blob/main/c.gguf", func(s *State) bool {
			return s.Source == "https://huggingface.co/a/b/resolve/main/c.gguf" && s.ModelMode()
		}, 1},
		{"model file refused", "model=javascript:alert(1)", func(s *State) bool { return s.Source == "" && !s.ModelMode() }, 1},
		{"model mode", "mode=model&text=Once+upon+a+time%2C+a+cat&mtokens=80&repos=1&layer=4&at=80", func(s *State) bool {
			return s.ModelMode() && s.Text == "Once upon a time, a cat" && s.MaxTok == 80 && s.Repos && s.Layer == 4 && s.At == 80
		}, 0},
		{"model mode at clamps to max tokens", "mode=model&mtokens=64&at=100", func(s *State) bool { return s.At == 64 }, 1},
		{"model tokens clamp", "mode=model&mtokens=99999", func(s *State) bool { return s.MaxTok == MaxModelTokens }, 1},
		{"unknown mode", "mode=llm", func(s *State) bool { return s.Mode == ModeSynthetic }, 1},
		{"prompt control chars", "mode=model&text=a%00b%1B%5B31m%E2%80%AEc", func(s *State) bool { return s.Text == "ab[31mc" }, 1},
		{"prompt too long", "text=" + strings.Repeat("ab", MaxPromptBytes/2+1), func(s *State) bool { return len(s.Text) == MaxPromptBytes }, 1},
		{"empty prompt", "text=", func(s *State) bool { return s.Text == "" }, 0},
		{"synthetic layer still clamps", "mode=synthetic&layer=4", func(s *State) bool { return s.Layer == 0 }, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, ns := Decode(tc.in)
			if !tc.check(&s) {
				t.Errorf("Decode(%q) = %+v", tc.in, s)
			}
			if len(ns) != tc.notices {
				t.Errorf("Decode(%q) notices = %d %v, want %d", tc.in, len(ns), ns, tc.notices)
			}
			if more := Normalize(&s); len(more) != 0 {
				t.Errorf("Decode(%q) not normalized: %v", tc.in, more)
			}
		})
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	states := []State{DefaultState()}
	s := DefaultState()
	s.Compare, s.Layer, s.A.Layers, s.Speed, s.At, s.Playing = true, 1, 3, 12.5, 100, false
	s.A.Seed, s.A.DropShare, s.B.Policy, s.B.Bits = 1<<63+7, 0.35, "tova", 3
	Normalize(&s)
	states = append(states, s)
	m := DefaultState()
	m.Mode, m.Text, m.MaxTok, m.Repos, m.Layer, m.At = ModeModel, "Tom & Sue said \"hi\" = 100% + 1?", 100, true, 3, 90
	Normalize(&m)
	states = append(states, m)
	for _, p := range sim.Presets {
		s := DefaultState()
		ApplyPreset(&s.A, p.Name)
		Normalize(&s)
		states = append(states, s)
	}
	for _, want := range states {
		enc := Encode(&want)
		got, ns := Decode(enc)
		if len(ns) != 0 {
			t.Errorf("Decode(Encode) notices %v for %s", ns, enc)
		}
		if !want.Compare {
			got.B, want.B = sim.Config{}, sim.Config{}
		}
		if got != want {
			t.Errorf("round trip of %s:\n got %+v\nwant %+v", enc, got, want)
		}
	}
}

func TestEncodeListsEveryField(t *testing.T) {
	s := DefaultState()
	s.Compare = true
	enc := Encode(&s)
	for _, f := range Fields() {
		if f.Omit {
			continue // TestEncodeOmits
		}
		if !strings.Contains("&"+enc, "&"+f.Key+"=") {
			t.Errorf("Encode lacks %s: %s", f.Key, enc)
		}
		if f.PerSide && !strings.Contains(enc, "&b."+f.Key+"=") {
			t.Errorf("Encode lacks b.%s", f.Key)
		}
	}
}

func TestDecodeBoundsNotices(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 50; i++ {
		b.WriteString("junk")
		b.WriteString(strings.Repeat("x", i))
		b.WriteString("=1&")
	}
	_, ns := Decode(b.String())
	if len(ns) != maxNotices {
		t.Fatalf("got %d notices, want %d", len(ns), maxNotices)
	}
	if !strings.Contains(ns[len(ns)-1].String(), "39 more") {
		t.Errorf("last notice %q", ns[len(ns)-1])
	}
}

func TestSetAndGet(t *testing.T) {
	s := DefaultState()
	for _, f := range Fields() {
		v := Get(&s, f.Key)
		if ns := Set(&s, f.Key, v); len(ns) != 0 {
			t.Errorf("Set(%s, Get=%q) notices %v", f.Key, v, ns)
		}
	}
	if ns := Set(&s, "recent", "70"); len(ns) != 0 || s.A.Recent != 70 || Get(&s, "recent") != "70" {
		t.Errorf("Set recent=70: %v, %d", ns, s.A.Recent)
	}
	if ns := Set(&s, "b.bits", "3"); len(ns) != 0 || s.B.Bits != 3 || s.A.Bits == 3 {
		t.Errorf("Set b.bits=3: %v, A %d B %d", ns, s.A.Bits, s.B.Bits)
	}
	if Get(&s, "nonsense") != "" {
		t.Error("Get of an unknown key is not empty")
	}
}

// valid checks the invariants Normalize promises, independently of it.
func valid(s *State) string {
	for side := 0; side < 2; side++ {
		c := s.Side(side)
		switch {
		case c.Tokens < 16 || c.Tokens > MaxTokens:
			return "tokens"
		case c.Prompt < 1 || c.Prompt >= c.Tokens:
			return "prompt"
		case c.Heads < 1 || c.Heads > MaxHeads || c.KVHeads < 1 || c.Heads%c.KVHeads != 0:
			return "heads"
		case c.HeadDim < 8 || c.HeadDim > MaxDim || c.Rank < 0 || c.Rank > c.HeadDim:
			return "dim/rank"
		case c.Sink < 0 || c.Sink > c.Tokens || c.Recent < 0 || c.Recent > c.Tokens || c.Heavy < 0 || c.Heavy > c.Tokens:
			return "budget"
		case c.ChunkSize < 1 || c.ChunkSize > c.Tokens || c.DropShare < 0 || c.DropShare > 0.95:
			return "chunk"
		case c.Residual < 0 || c.Residual > c.Tokens || c.GroupSize < 1:
			return "storage"
		case c.Layers < 1 || c.Layers > MaxLayers:
			return "layers"
		}
		okBits := false
		for _, b := range BitWidths {
			okBits = okBits || b == c.Bits
		}
		if !okBits {
			return "bits"
		}
	}
	if s.Layer < 0 || s.Layer >= MaxLayers || (!s.ModelMode() && s.Layer >= s.A.Layers) || s.At < 0 || s.At > s.Total() || s.Speed < 1 || s.Speed > 240 {
		return "view"
	}
	if s.Mode != ModeSynthetic && s.Mode != ModeModel || s.MaxTok < MinModelTokens || s.MaxTok > MaxModelTokens {
		return "mode"
	}
	if t, changed := SanitizePrompt(s.Text); changed || t != s.Text {
		return "text"
	}
	return ""
}

func FuzzDecode(f *testing.F) {
	for _, seed := range []string{"", "#heads=0", "tokens=16&prompt=4096&sink=-1", "cmp=1&b.policy=x&b.bits=7",
		"preset=h2o20&tokens=4096", "%", "a=b=c&&&=", "layers=8&layer=7&at=4096", "dim=8&rank=128&gran=group&group=999",
		"mode=model&text=%E2%80%AE%00x&mtokens=3&at=600&layer=9", "mode=model&layer=7&at=512"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, ns := Decode(in)
		if why := valid(&s); why != "" {
			t.Fatalf("Decode(%q) invalid %s: %+v", in, why, s)
		}
		if len(ns) > maxNotices {
			t.Fatalf("%d notices", len(ns))
		}
		again, ns2 := Decode(Encode(&s))
		if len(ns2) != 0 || again.A != s.A {
			t.Fatalf("re-decode of %q differs: %v", in, ns2)
		}
	})
}
