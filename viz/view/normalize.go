package view

import (
	"math"
	"slices"
	"strconv"

	"github.com/kvscope/kvscope/core/kv"
	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/core/store"
)

// Normalize brings every value of s into range and enforces the rules
// between fields, returning a notice for each change:
//
//   - numbers within their Field's [Min, Max], bits one of BitWidths,
//     enums one of their Choices (else the default);
//   - Prompt < Tokens; KVHeads divides Heads; OutlierChannels and Rank
//     at most HeadDim; group size at most HeadDim for the group granularity;
//     sink, recent, heavy, chunk and residual at most Tokens;
//   - B's stream settings equal A's;
//   - Layer < Layers (synthetic mode; the page clamps it to a real
//     model's layers) and At ≤ the run's length (State.Total);
//   - the prompt text sanitized (SanitizePrompt).
//
// A normalized state is a fixed point: Normalize returns no notices for it.
func Normalize(s *State) []Notice {
	var ns []Notice
	note := func(key string, old, now any, why string) {
		ns = append(ns, Notice{Key: key, Value: short(toString(old)), Msg: why + "; using " + toString(now)})
	}
	fields := table()
	for i := range fields {
		f := &fields[i]
		sides := 1
		if f.PerSide {
			sides = 2
		}
		for side := 0; side < sides; side++ {
			key := f.Key
			if side == 1 {
				key = "b." + key
			}
			c := s.Side(side)
			switch f.Kind {
			case Int:
				p := f.i(s, c)
				v := float64(*p)
				if f.in != nil {
					v = f.in(v)
				}
				v = math.Max(f.Min, math.Min(f.Max, v))
				if int(v) != *p {
					note(key, *p, int(v), "out of range")
					*p = int(v)
				}
			case Float:
				p := f.f(s, c)
				v := *p
				if math.IsNaN(v) {
					v = f.Min
				}
				v = math.Max(f.Min, math.Min(f.Max, v))
				if v != *p {
					note(key, *p, v, "out of range")
					*p = v
				}
			case Text:
				p := f.s(s, c)
				if v, changed := SanitizePrompt(*p); changed {
					note(key, *p, v, "not a usable prompt")
					*p = v
				}
			case Source:
				p := f.s(s, c)
				if v, _, err := NormalizeSource(*p); err != nil || v != *p {
					note(key, *p, v, "not a usable model address")
					*p = v
				}
			case Enum:
				p := f.s(s, c)
				if !slices.Contains(f.Choices, *p) && !(*p == "" && f.Empty) {
					d := f.Choices[0]
					if def := defaultEnum(f.Key); def != "" {
						d = def
					}
					note(key, *p, d, "unknown value")
					*p = d
				}
			}
		}
	}
	for side := 0; side < 2; side++ {
		c := s.Side(side)
		pre := ""
		if side == 1 {
			copyStream(c, &s.A)
			pre = "b."
		} else {
			if c.Prompt >= c.Tokens {
				note("prompt", c.Prompt, c.Tokens-1, "must be below tokens")
				c.Prompt = c.Tokens - 1
			}
			if c.KVHeads > c.Heads || c.Heads%c.KVHeads != 0 {
				k := min(c.KVHeads, c.Heads)
				for c.Heads%k != 0 {
					k--
				}
				note("kvheads", c.KVHeads, k, "must divide the query heads")
				c.KVHeads = k
			}
			if c.OutlierChannels > c.HeadDim {
				note("outliers", c.OutlierChannels, c.HeadDim, "at most the head dim")
				c.OutlierChannels = c.HeadDim
			}
		}
		if c.Rank > c.HeadDim {
			note(pre+"rank", c.Rank, c.HeadDim, "at most the head dim")
			c.Rank = c.HeadDim
		}
		if c.Granularity == "group" && c.GroupSize > c.HeadDim {
			note(pre+"group", c.GroupSize, c.HeadDim, "channels per group at most the head dim")
			c.GroupSize = c.HeadDim
		}
		for _, t := range []struct {
			key string
			p   *int
		}{{"sink", &c.Sink}, {"recent", &c.Recent}, {"heavy", &c.Heavy}, {"chunk", &c.ChunkSize}, {"residual", &c.Residual}} {
			if *t.p > c.Tokens {
				note(pre+t.key, *t.p, c.Tokens, "at most tokens")
				*t.p = c.Tokens
			}
		}
	}
	// The real model's layer count is known only once it is loaded; the
	// page clamps Layer to it then.
	if !s.ModelMode() && s.Layer >= s.A.Layers {
		note("layer", s.Layer, s.A.Layers-1, "below the layer count")
		s.Layer = s.A.Layers - 1
	}
	if t := s.Total(); s.At > t {
		note("at", s.At, t, "at most tokens")
		s.At = t
	}
	return ns
}

func defaultEnum(key string) string {
	d := sim.DefaultConfig()
	switch key {
	case "policy":
		return d.Policy
	case "gran":
		return d.Granularity
	case "scale":
		return Models[0].Key
	case "mode":
		return ModeSynthetic
	case "alloc":
		return kv.Uniform.String()
	case "quant":
		return store.Uniform.String()
	case "rotate":
		return Rotations[0]
	}
	return ""
}

func toString(v any) string {
	switch v := v.(type) {
	case int:
		return strconv.Itoa(v)
	case float64:
		return fmtNum(v)
	case string:
		return v
	}
	return "?"
}
