package view

import (
	"net/url"
	"slices"
	"strings"
)

// maxNotices bounds the notices Decode returns, so a hostile link cannot
// flood the page; the last notice then says how many were left out.
const maxNotices = 12

// Decode reads a state from a link's query or fragment (a leading '?' or
// '#' is skipped): key=value pairs joined by '&', keys as in Fields, "b."
// prefixes for B's eviction and storage, optionally preset=<name> and
// b.preset=<name> (a sim.Presets name, applied before the other keys),
// and doc=<key> for a built-in document as the prompt (Documents), or
// doc=local-<hash> for one kept in the browser (State.LocalDoc).
// A link that gives a model file (model=<address>) and no mode opens
// real-model mode.
// Values out of range are clamped and unreadable ones ignored; each
// adjustment of a setting the link gives yields a notice (settings it does
// not give are adjusted silently). Any string gives a normalized state; Decode
// never panics. Costs are linear in len(s).
func Decode(s string) (State, []Notice) {
	st := DefaultState()
	s = strings.TrimLeft(s, "?#")
	if s == "" {
		return st, nil
	}
	var ns []Notice
	type kv struct{ k, v string }
	var pairs []kv
	for part := range strings.SplitSeq(s, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		uk, err1 := url.QueryUnescape(k)
		uv, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil {
			ns = append(ns, Notice{Key: short(k), Value: short(v), Msg: "badly escaped; ignored"})
			continue
		}
		pairs = append(pairs, kv{uk, uv})
	}
	// Presets first, so that explicit keys refine them.
	for _, p := range pairs {
		if p.k != "preset" && p.k != "b.preset" {
			continue
		}
		side := 0
		if p.k == "b.preset" {
			side = 1
		}
		if !ApplyPreset(st.Side(side), p.v) {
			ns = append(ns, Notice{Key: p.k, Value: short(p.v), Msg: "unknown preset; ignored"})
		}
	}
	// Stream fields before per-side ones, so that limits such as "at most
	// tokens" are judged against the link's own stream.
	slices.SortStableFunc(pairs, func(a, b kv) int { return rank(a.k) - rank(b.k) })
	given := make(map[string]bool, len(pairs))
	for _, p := range pairs {
		if p.k == "preset" || p.k == "b.preset" {
			continue
		}
		if p.k == "doc" && IsLocalDocID(p.v) {
			st.LocalDoc = p.v // the page looks it up in the browser
			continue
		}
		if p.k == "doc" {
			// A built-in document by name (Encode writes it so).
			d, ok := DocumentByKey(p.v)
			if !ok {
				ns = append(ns, Notice{Key: "doc", Value: short(p.v), Msg: "no built-in document of that name; ignored"})
				continue
			}
			p.k, p.v = "text", d.Text
		}
		given[p.k] = true
		ns = append(ns, set(&st, p.k, p.v)...)
	}
	// A link that names a model file opens it: real-model mode, unless
	// the link sets the mode itself.
	if given["model"] && st.Source != "" && !given["mode"] {
		st.Mode = ModeModel
	}
	// Adjustments of settings the link did not give are silent: the
	// visitor sees them in the controls.
	for _, n := range Normalize(&st) {
		if given[n.Key] {
			ns = append(ns, n)
		}
	}
	if len(ns) > maxNotices {
		more := len(ns) - (maxNotices - 1)
		ns = append(ns[:maxNotices-1], Notice{Msg: "and " + itoa(more) + " more adjustments"})
	}
	return st, ns
}

// rank orders keys for Decode: the stream's shape first, then everything else.
func rank(key string) int {
	switch key {
	case "tokens", "heads", "dim", "layers":
		return 0
	}
	return 1
}

// Encode writes every setting of s as a query string (no leading '?'), in
// the order of Fields; B's per-side settings follow, prefixed "b.", only in
// compare mode. A prompt that is a built-in document is written as its
// name, doc=<key>; one longer than MaxLinkText as the name it is kept
// under in the browser, doc=local-<hash> (LocalDocID). Decode(Encode(s)) reproduces a normalized s (B's settings
// only when s.Compare).
func Encode(s *State) string {
	var b strings.Builder
	for side := 0; side < 2; side++ {
		if side == 1 && !s.Compare {
			break
		}
		fields := table()
		for i := range fields {
			f := &fields[i]
			key := f.Key
			if side == 1 {
				if !f.PerSide {
					continue
				}
				key = "b." + key
			}
			if v := Get(s, key); f.Omit && (v == "" || v == "0") {
				continue
			}
			if key == "text" {
				// A built-in document goes by its name, and one too long
				// for a link by the name it is kept under in the browser.
				name := ""
				if d, ok := FindDocument(s.Text); ok {
					name = d.Key
				} else if len(s.Text) > MaxLinkText {
					name = LocalDocID(s.Text)
				} else if s.LocalDoc != "" {
					name = s.LocalDoc // not found here: the link still names it
				}
				if name != "" {
					if b.Len() > 0 {
						b.WriteByte('&')
					}
					b.WriteString("doc=" + url.QueryEscape(name))
					continue
				}
			}
			if b.Len() > 0 {
				b.WriteByte('&')
			}
			b.WriteString(key)
			b.WriteByte('=')
			b.WriteString(url.QueryEscape(Get(s, key)))
		}
	}
	return b.String()
}

func itoa(n int) string { return toString(n) }
