package view

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestEmbedControlsComeFromTheTable(t *testing.T) {
	ks := EmbedControls()
	for _, k := range []string{"policy", "sink", "recent", "heavy", "bits", "gran", "play", "speed", "seed", "mode", "text"} {
		if !slices.Contains(ks, k) {
			t.Errorf("EmbedControls lacks %s: %v", k, ks)
		}
	}
	for _, k := range []string{"at", KeyEmbed, KeyControls, KeyOrigin, "pagesize", "sketch", "b.sink"} {
		if slices.Contains(ks, k) || IsEmbedControl(k) {
			t.Errorf("EmbedControls accepts the link-only %s", k)
		}
	}
	// In the table's order, each once.
	var want []string
	for _, f := range Fields() {
		if !f.LinkOnly {
			want = append(want, f.Key)
		}
	}
	if !slices.Equal(ks, want) {
		t.Errorf("EmbedControls %v, want the table's %v", ks, want)
	}
}

func TestDecodeEmbed(t *testing.T) {
	tests := []struct {
		in       string
		embed    bool
		controls string
		origin   string
		notices  int
	}{
		{"", false, "", "", 0},
		{"embed=1&controls=sink,recent", true, "sink,recent", "", 0},
		{"embed=1&controls=sink%2Crecent", true, "sink,recent", "", 0},
		{"embed=1&controls= Sink , RECENT,,sink", true, "sink,recent", "", 0},
		{"embed=1&controls=sink,bogus,at,b.sink", true, "sink", "", 1},
		{"embed=yes&controls=play,policy", true, "play,policy", "", 0},
		{"embed=2", false, "", "", 1},
		{"origin=https://host.example", false, "", "https://host.example", 0},
		{"origin=HTTPS://Host.Example:443/", false, "", "https://host.example", 0},
		{"origin=http://127.0.0.1:8080", false, "", "http://127.0.0.1:8080", 0},
		{"origin=https://host.example/course", false, "", "", 1},
		{"origin=*", false, "", "", 1},
		{"origin=javascript:alert(1)", false, "", "", 1},
	}
	for _, tc := range tests {
		s, ns := Decode(tc.in)
		if s.Embed != tc.embed || s.Controls != tc.controls || s.Origin != tc.origin || len(ns) != tc.notices {
			t.Errorf("Decode(%q): embed %v controls %q origin %q notices %v; want %v %q %q and %d notices",
				tc.in, s.Embed, s.Controls, s.Origin, ns, tc.embed, tc.controls, tc.origin, tc.notices)
		}
		if !slices.Equal(s.ShownControls(), splitNonEmpty(tc.controls)) {
			t.Errorf("ShownControls of %q = %v", tc.in, s.ShownControls())
		}
		again, ns2 := Decode(Encode(&s))
		if len(ns2) != 0 || again.Embed != s.Embed || again.Controls != s.Controls || again.Origin != s.Origin {
			t.Errorf("round trip of %q through %q: %+v %v", tc.in, Encode(&s), again, ns2)
		}
	}
}

func splitNonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// A link without the embed's fields encodes as before; with them, it
// carries them.
func TestEncodeOmits(t *testing.T) {
	s := DefaultState()
	enc := Encode(&s)
	for _, k := range []string{KeyEmbed, KeyControls, KeyOrigin} {
		if strings.Contains("&"+enc, "&"+k+"=") {
			t.Errorf("Encode of the default state writes %s: %s", k, enc)
		}
	}
	Set(&s, KeyEmbed, "1")
	Set(&s, KeyControls, "recent")
	Set(&s, KeyOrigin, "https://host.example")
	enc = Encode(&s)
	for _, kv := range []string{"embed=1", "controls=recent", "origin=https%3A%2F%2Fhost.example"} {
		if !strings.Contains(enc, kv) {
			t.Errorf("Encode lacks %s: %s", kv, enc)
		}
	}
}

func TestNormalizeOrigin(t *testing.T) {
	tests := []struct{ in, want, err string }{
		{"", "", ""},
		{"  https://host.example  ", "https://host.example", ""},
		{"https://host.example/", "https://host.example", ""},
		{"HTTP://LOCALHOST:80", "http://localhost", ""},
		{"http://localhost:0080", "http://localhost", ""},
		{"https://host.example:8443", "https://host.example:8443", ""},
		{"http://[::1]:8080", "http://[::1]:8080", ""},
		{"https://host.example/page", "", "without a path"},
		{"https://host.example?x=1", "", "without a path"},
		{"https://host.example#x", "", "without a path"},
		{"https://user@host.example", "", "without a path"},
		{"ftp://host.example", "", "http or https"},
		{"host.example", "", "not an origin"},
		{"*", "", "not an origin"},
		{"null", "", "not an origin"},
		{"https://host.example:99999", "", "port"},
		{"https://" + strings.Repeat("a", 300) + ".example", "", "longer than"},
	}
	for _, tc := range tests {
		got, err := NormalizeOrigin(tc.in)
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("NormalizeOrigin(%q) = %q, %v; want %q, error containing %q", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestOriginAllowed(t *testing.T) {
	own := "https://kvscope.example"
	tests := []struct {
		named, from string
		want        bool
	}{
		{"", own, true},
		{"", "https://host.example", false},
		{"https://host.example", "https://host.example", true},
		{"https://host.example", own, true},
		{"https://host.example", "https://other.example", false},
		{"https://host.example", "http://host.example", false},
		{"https://host.example", "https://host.example:444", false},
		{"", "null", false},
		{"", "", false},
	}
	for _, tc := range tests {
		if got := OriginAllowed(tc.named, own, tc.from); got != tc.want {
			t.Errorf("OriginAllowed(%q, own, %q) = %v", tc.named, tc.from, got)
		}
	}
	if OriginAllowed("", "null", "null") {
		t.Error("an opaque origin obeys an opaque origin")
	}
}

func TestWithAndWithoutEmbed(t *testing.T) {
	tests := []struct{ in, without, with string }{
		{"", "", "embed=1&controls=sink,recent"},
		{"#policy=streaming&sink=4", "policy=streaming&sink=4", "policy=streaming&sink=4&embed=1&controls=sink,recent"},
		{"?embed=1&policy=window&controls=x&origin=https%3A%2F%2Fa.example&lesson=3", "policy=window&lesson=3",
			"policy=window&lesson=3&embed=1&controls=sink,recent"},
		{"emb%65d=1&sink=2", "sink=2", "sink=2&embed=1&controls=sink,recent"},
		{"&&sink=2&", "sink=2", "sink=2&embed=1&controls=sink,recent"},
	}
	for _, tc := range tests {
		if got := WithoutEmbed(tc.in); got != tc.without {
			t.Errorf("WithoutEmbed(%q) = %q, want %q", tc.in, got, tc.without)
		}
		if got := WithEmbed(tc.in, []string{"sink", "recent", "sink", "at", "nonsense"}, ""); got != tc.with {
			t.Errorf("WithEmbed(%q) = %q, want %q", tc.in, got, tc.with)
		}
	}
	// The embed's link decodes to the same state, embedded.
	link := "policy=streaming&sink=2&recent=40&bits=4&at=100&play=0"
	want, _ := Decode(link)
	got, ns := Decode(WithEmbed(link, []string{"recent"}, "https://Host.example"))
	if len(ns) != 0 || !got.Embed || got.Controls != "recent" || got.Origin != "https://host.example" {
		t.Fatalf("embed link decodes to %+v, %v", got, ns)
	}
	got.Embed, got.Controls, got.Origin = false, "", ""
	if got != want {
		t.Errorf("the embed's state differs from the link's:\n got %+v\nwant %+v", got, want)
	}
}

func ExampleWithEmbed() {
	link := WithEmbed("policy=streaming&sink=4&recent=60", []string{"sink", "recent"}, "https://course.example")
	fmt.Println(link)
	fmt.Println(WithoutEmbed(link))
	fmt.Println(EmbedSnippet("https://kvscope.example/#"+link, `kvscope: "StreamingLLM"`, EmbedWidth, EmbedHeight))
	// Output:
	// policy=streaming&sink=4&recent=60&embed=1&controls=sink,recent&origin=https%3A%2F%2Fcourse.example
	// policy=streaming&sink=4&recent=60
	// <iframe src="https://kvscope.example/#policy=streaming&amp;sink=4&amp;recent=60&amp;embed=1&amp;controls=sink,recent&amp;origin=https%3A%2F%2Fcourse.example" width="640" height="360" title="kvscope: &#34;StreamingLLM&#34;" loading="lazy" style="border:0;max-width:100%"></iframe>
}

func TestParseMessage(t *testing.T) {
	tests := []struct {
		in   string
		want Message
		err  string // "" accepted; "-" ErrNotForUs
	}{
		{`{"kvscope":1,"type":"set","key":"recent","value":32,"id":1}`, Message{Type: MsgSet, Key: "recent", Value: "32", ID: 1.0}, ""},
		{`{"kvscope":1,"type":"set","key":"policy","value":"window"}`, Message{Type: MsgSet, Key: "policy", Value: "window"}, ""},
		{`{"kvscope":1,"type":"set","key":"shared","value":true,"id":"a"}`, Message{Type: MsgSet, Key: "shared", Value: "1", ID: "a"}, ""},
		{`{"kvscope":1,"type":"set","key":"drop","value":0.25}`, Message{Type: MsgSet, Key: "drop", Value: "0.25"}, ""},
		{`{"kvscope":1,"type":"play"}`, Message{Type: MsgPlay}, ""},
		{`{"kvscope":1,"type":"pause"}`, Message{Type: MsgPause}, ""},
		{`{"kvscope":1,"type":"step"}`, Message{Type: MsgStep, N: 1}, ""},
		{`{"kvscope":1,"type":"step","n":5}`, Message{Type: MsgStep, N: 5}, ""},
		{`{"kvscope":1,"type":"get","id":-7}`, Message{Type: MsgGet, ID: -7.0}, ""},
		{`{"type":"set","key":"recent","value":32}`, Message{}, "-"},
		{`{"kvscope":"1","type":"get"}`, Message{}, "-"},
		{`{"kvscope":2,"type":"get"}`, Message{}, "-"},
		{`[1,2]`, Message{}, "-"},
		{`null`, Message{}, "-"},
		{`"kvscope"`, Message{}, "-"},
		{`not json`, Message{}, "-"},
		{`{"kvscope":1}`, Message{}, "type"},
		{`{"kvscope":1,"type":"explode"}`, Message{}, "unknown message type"},
		{`{"kvscope":1,"type":"get","key":"x"}`, Message{}, "no field"},
		{`{"kvscope":1,"type":"play","n":3}`, Message{}, "no field"},
		{`{"kvscope":1,"type":"set","key":"at","value":3}`, Message{}, "not a control"},
		{`{"kvscope":1,"type":"set","key":"b.sink","value":3}`, Message{}, "not a control"},
		{`{"kvscope":1,"type":"set","key":"origin","value":"https://evil.example"}`, Message{}, "not a control"},
		{`{"kvscope":1,"type":"set","key":3,"value":3}`, Message{}, "not a control"},
		{`{"kvscope":1,"type":"set","key":"sink"}`, Message{}, "value must be"},
		{`{"kvscope":1,"type":"set","key":"sink","value":{"a":1}}`, Message{}, "value must be"},
		{`{"kvscope":1,"type":"set","key":"sink","value":null}`, Message{}, "value must be"},
		{`{"kvscope":1,"type":"set","key":"text","value":"` + strings.Repeat("x", 300) + `"}`, Message{}, "longer than"},
		{`{"kvscope":1,"type":"step","n":0}`, Message{}, "whole number"},
		{`{"kvscope":1,"type":"step","n":1.5}`, Message{}, "whole number"},
		{`{"kvscope":1,"type":"step","n":1e9}`, Message{}, "whole number"},
		{`{"kvscope":1,"type":"step","n":"2"}`, Message{}, "whole number"},
		{`{"kvscope":1,"type":"get","id":1.5}`, Message{}, "id"},
		{`{"kvscope":1,"type":"get","id":{}}`, Message{}, "id"},
		{`{"kvscope":1,"type":"get","id":"` + strings.Repeat("i", 65) + `"}`, Message{}, "id longer"},
		{`{"kvscope":1,"type":"get","pad":"` + strings.Repeat("x", MaxMessageBytes) + `"}`, Message{}, "longer than"},
	}
	for _, tc := range tests {
		got, err := ParseMessage([]byte(tc.in))
		switch {
		case tc.err == "-":
			if !errors.Is(err, ErrNotForUs) {
				t.Errorf("ParseMessage(%.60s) = %+v, %v; want ErrNotForUs", tc.in, got, err)
			}
		case tc.err != "":
			if err == nil || errors.Is(err, ErrNotForUs) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseMessage(%.60s) = %+v, %v; want an error containing %q", tc.in, got, err, tc.err)
			}
		case err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want):
			t.Errorf("ParseMessage(%.60s) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

// Whatever arrives, ParseMessage does not panic, and what it accepts is
// a message the page can act on.
func FuzzParseMessage(f *testing.F) {
	for _, s := range []string{`{"kvscope":1,"type":"set","key":"recent","value":32,"id":1}`, `{"kvscope":1,"type":"step","n":4096}`,
		`{"kvscope":1,"type":"get","id":"x"}`, `{"kvscope":1,"type":"set","key":"text","value":"\u0000"}`, `{}`, `[`, `{"kvscope":1e0,"type":"play"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseMessage(data)
		if err != nil {
			return
		}
		if _, ok := messageFields[m.Type]; !ok {
			t.Fatalf("accepted type %q", m.Type)
		}
		if m.Type == MsgSet && (!IsEmbedControl(m.Key) || len(m.Value) > MaxValueBytes) {
			t.Fatalf("accepted set %+v", m)
		}
		if m.Type == MsgStep && (m.N < 1 || m.N > MaxTokens) {
			t.Fatalf("accepted step %+v", m)
		}
		switch id := m.ID.(type) {
		case nil, float64:
		case string:
			if len(id) > MaxIDBytes {
				t.Fatalf("accepted id %q", id)
			}
		default:
			t.Fatalf("id %T", id)
		}
		if m.Type == MsgSet {
			s := DefaultState()
			Set(&s, m.Key, m.Value) // never panics, always normalized
			if why := valid(&s); why != "" {
				t.Fatalf("set %+v: invalid %s", m, why)
			}
		}
	})
}

func TestFiguresAndFoot(t *testing.T) {
	st, _ := Decode("policy=streaming&sink=4&recent=60&embed=1&controls=sink,recent")
	ps := PageState{Step: 300, Tokens: 512, Mode: ModeSynthetic, Sides: []PageSide{{Name: "StreamingLLM", Full: 1 << 20, Evict: 1 << 17, Stored: 1 << 16}}}
	ps.Sides[0].Metrics.Mass = 0.852
	ps.Sides[0].Mean.Mass = 0.9
	f := NewFigures(AnsFigures, 3.0, &ps, &st)
	if f.Kvscope != 1 || f.Type != AnsFigures || f.ID != 3.0 || f.Step != 300 || f.Memory.Ratio != 16 || f.Fidelity.Mass != 0.852 || f.Mean.Mass != 0.9 {
		t.Errorf("figures %+v", f)
	}
	if f.Settings["sink"] != "4" || f.Settings["recent"] != "60" || f.Settings["policy"] != "streaming" {
		t.Errorf("settings %v", f.Settings)
	}
	if _, ok := f.Settings["at"]; ok {
		t.Error("settings carry a link-only field")
	}
	b, err := json.Marshal(f)
	if err != nil || !strings.Contains(string(b), `"output_error":0`) || strings.Contains(string(b), "top1") {
		t.Errorf("JSON %s, %v", b, err)
	}
	if got, want := EmbedFoot(&ps, &st), "step 300 / 512 · stored 64 KiB of 1 MiB FP16 (16× smaller) · attention mass kept 85.2%"; got != want {
		t.Errorf("foot %q, want %q", got, want)
	}
	ps.Text = &PageText{Agreement: 0.75}
	if got := EmbedFoot(&ps, &st); !strings.HasSuffix(got, "top-1 agreement 75%") {
		t.Errorf("model foot %q", got)
	}
	if f := NewFigures(AnsReady, nil, &PageState{}, &st); f.Notices == nil || f.Memory.Stored != 0 {
		t.Errorf("empty page figures %+v", f)
	}
}
