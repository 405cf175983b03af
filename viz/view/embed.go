package view

import (
	"fmt"
	"html"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// An embedded view is the page in an <iframe> of another page (a course
// page, a slide): the map, the controls its link names, the memory line
// and the main fidelity figure. Its link is the page's link with three
// more fields, all in the settings table (Fields):
//
//	embed=1                  show the reduced view
//	controls=sink,recent     the controls it shows (EmbedControls)
//	origin=https://host.example
//	                         a host page whose messages it obeys (Message)
//
// Without origin it obeys pages of its own origin only.

// The URL keys of an embedded view.
const (
	KeyEmbed    = "embed"
	KeyControls = "controls"
	KeyOrigin   = "origin"
)

// MaxOriginBytes bounds an origin= value.
const MaxOriginBytes = 256

// EmbedControls returns the keys controls= accepts, in the settings
// table's order: every setting that a control of the page edits, which is
// every Field that is not LinkOnly ("play" is the play button). The page
// binds its controls to the same table (wasm/dom.go, by data-key).
func EmbedControls() []string {
	var ks []string
	fields := table()
	for i := range fields {
		if !fields[i].LinkOnly {
			ks = append(ks, fields[i].Key)
		}
	}
	return ks
}

// IsEmbedControl reports whether controls= accepts key.
func IsEmbedControl(key string) bool {
	f, side, ok := Lookup(key)
	return ok && side == 0 && !f.LinkOnly
}

// ParseControls reads a controls= value: keys separated by commas (spaces
// around them and letter case ignored), each one IsEmbedControl accepts.
// It returns the accepted keys in the order given without repeats, and
// the others as given (each shortened).
func ParseControls(v string) (keys, unknown []string) {
	for part := range strings.SplitSeq(v, ",") {
		k := strings.ToLower(strings.TrimSpace(part))
		switch {
		case k == "":
		case !IsEmbedControl(k):
			if len(unknown) < maxNotices {
				unknown = append(unknown, short(strings.TrimSpace(part)))
			}
		case !slices.Contains(keys, k):
			keys = append(keys, k)
		}
	}
	return keys, unknown
}

// NormalizeOrigin returns raw as a web origin as browsers write it
// (MessageEvent.origin): "scheme://host" or "scheme://host:port", scheme
// http or https, both lower case, without a default port. "" stays "". An
// address with a path, query, fragment or user name, another scheme, "*",
// "null", or more than MaxOriginBytes bytes is an error saying why. It
// never panics.
func NormalizeOrigin(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return "", nil
	}
	if len(s) > MaxOriginBytes {
		return "", fmt.Errorf("longer than %d bytes", MaxOriginBytes)
	}
	u, err := url.Parse(s)
	if err != nil || u.Opaque != "" || u.Host == "" {
		return "", fmt.Errorf("not an origin such as https://host.example")
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", fmt.Errorf("not an http or https origin")
	}
	if u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(s, "#") {
		return "", fmt.Errorf("an origin is scheme://host[:port], without a path, query or user")
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if host == "" || strings.ContainsAny(host, " %\\") {
		return "", fmt.Errorf("not an origin such as https://host.example")
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("port %q is not 1–65535", port)
		}
		port = strconv.Itoa(n)
	}
	if (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]" // IPv6
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host, nil
}

// OriginAllowed reports whether an embedded view obeys a message from
// origin from: its own origin always, the origin its link names (named,
// normalized) too; nothing else, and never an opaque origin ("null").
func OriginAllowed(named, own, from string) bool {
	if from == "" || from == "null" {
		return false
	}
	return from == own || (named != "" && from == named)
}

// setEmbedField sets a Names or Origin field (see set).
func setEmbedField(f *Field, s *State, key, value string) []Notice {
	switch f.Kind {
	case Names:
		keys, unknown := ParseControls(value)
		*f.s(s, s.Side(0)) = strings.Join(keys, ",")
		if len(unknown) > 0 {
			return []Notice{{Key: key, Value: short(value), Msg: "not controls of the page: " + strings.Join(unknown, ", ") + "; left out"}}
		}
	case Origin:
		o, err := NormalizeOrigin(value)
		if err != nil {
			return []Notice{{Key: key, Value: short(value), Msg: err.Error() + "; ignored"}}
		}
		*f.s(s, s.Side(0)) = o
	}
	return nil
}

// ShownControls returns the keys of the controls s's embedded view shows.
func (s *State) ShownControls() []string {
	keys, _ := ParseControls(s.Controls)
	return keys
}

// isEmbedKey reports whether a link's key is one of an embedded view's.
func isEmbedKey(k string) bool {
	return k == KeyEmbed || k == KeyControls || k == KeyOrigin
}

// WithoutEmbed returns a link (query or fragment, a leading '?' or '#'
// dropped) without its embedded view's keys: the full page in the same
// state, every other pair as it was, in its order.
func WithoutEmbed(link string) string {
	link = strings.TrimLeft(link, "?#")
	var b strings.Builder
	for part := range strings.SplitSeq(link, "&") {
		if part == "" {
			continue
		}
		k, _, _ := strings.Cut(part, "=")
		if uk, err := url.QueryUnescape(k); err == nil && isEmbedKey(uk) {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString(part)
	}
	return b.String()
}

// WithEmbed returns link (see WithoutEmbed) as an embedded view showing
// controls (keys IsEmbedControl accepts; others are dropped) and obeying
// origin (normalized; "" or an invalid one for its own only).
func WithEmbed(link string, controls []string, origin string) string {
	var ks []string
	for _, k := range controls {
		if IsEmbedControl(k) && !slices.Contains(ks, k) {
			ks = append(ks, k)
		}
	}
	out := WithoutEmbed(link)
	if out != "" {
		out += "&"
	}
	out += KeyEmbed + "=1"
	if len(ks) > 0 {
		out += "&" + KeyControls + "=" + strings.Join(ks, ",") // keys are [a-z0-9.]: nothing to escape
	}
	if o, err := NormalizeOrigin(origin); err == nil && o != "" {
		out += "&" + KeyOrigin + "=" + url.QueryEscape(o)
	}
	return out
}

// EmbedOriginExample is the host origin a copied embed code carries for
// the teacher to replace with their course page's: the embedded view obeys
// messages only from its own origin and the one its link names.
const EmbedOriginExample = "https://course.example"

// Default size of an embedded view's <iframe>, CSS px: 16:9, the size of
// a slide's figure.
const (
	EmbedWidth  = 640
	EmbedHeight = 360
)

// EmbedSnippet returns the <iframe> element that embeds src (an absolute
// address) at w×h CSS px, titled title: lazily loaded, borderless,
// attributes escaped.
func EmbedSnippet(src, title string, w, h int) string {
	return fmt.Sprintf(`<iframe src="%s" width="%d" height="%d" title="%s" loading="lazy" style="border:0;max-width:100%%"></iframe>`,
		html.EscapeString(src), w, h, html.EscapeString(title))
}
