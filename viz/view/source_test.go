package view

import (
	"strings"
	"testing"
)

func TestNormalizeSource(t *testing.T) {
	hf := "https://huggingface.co/HuggingFaceTB/SmolLM2-135M-Instruct-GGUF/"
	tests := []struct {
		in, want string
		note     bool
		err      string // a part of the error; "" for none
	}{
		{"", "", false, ""},
		{"   ", "", false, ""},
		{hf + "resolve/main/smollm2-135m-instruct-q8_0.gguf", hf + "resolve/main/smollm2-135m-instruct-q8_0.gguf", false, ""},
		{" " + hf + "blob/main/smollm2-135m-instruct-q8_0.gguf ", hf + "resolve/main/smollm2-135m-instruct-q8_0.gguf", true, ""},
		{"https://hf.co/a/b/blob/v1.0/dir/x.gguf?download=true", "https://hf.co/a/b/resolve/v1.0/dir/x.gguf?download=true", true, ""},
		{"https://huggingface.co/a/b", "", false, "repository page"},
		{"https://huggingface.co/a/b/tree/main", "", false, "repository page"},
		{"http://127.0.0.1:8081/x.gguf", "http://127.0.0.1:8081/x.gguf", false, ""},
		{"HTTPS://example.com/m.gguf", "HTTPS://example.com/m.gguf", false, ""},
		{"stories260K.gguf", "stories260K.gguf", false, ""},
		{"models/a b.gguf", "", false, "spaces"},
		{"javascript:alert(1)", "", false, "javascript: address"},
		{"file:///etc/passwd", "", false, "file: address"},
		{"data:application/octet-stream;base64,R0dVRg==", "", false, "data: address"},
		{"http:///x.gguf", "", false, "no host"},
		{"//evil.example/x.gguf", "", false, "not a readable address"},
		{"https://a.example/%zz", "", false, "not a readable"},
		{"https://a.example/\x00", "", false, "control"},
		{"https://a.example/" + strings.Repeat("a", MaxSourceBytes), "", false, "longer than"},
	}
	for _, tc := range tests {
		got, note, err := NormalizeSource(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || got != "" {
				t.Errorf("NormalizeSource(%q) = %q, %v; want an error with %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want || (note != "") != tc.note {
			t.Errorf("NormalizeSource(%q) = %q, %q, %v; want %q (note %v)", tc.in, got, note, err, tc.want, tc.note)
		}
		// Normalizing twice changes nothing.
		if again, note2, err2 := NormalizeSource(got); again != got || note2 != "" || err2 != nil {
			t.Errorf("NormalizeSource(%q) = %q, %q, %v: not a fixed point", got, again, note2, err2)
		}
	}
}

func FuzzNormalizeSource(f *testing.F) {
	for _, s := range []string{"", "https://huggingface.co/a/b/blob/main/c.gguf", "x.gguf", "javascript:1", "http://[::1]:80/a", "%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got, _, err := NormalizeSource(raw)
		if err != nil {
			if got != "" {
				t.Fatalf("error %v with address %q", err, got)
			}
			return
		}
		if again, _, err := NormalizeSource(got); err != nil || again != got {
			t.Fatalf("%q normalizes to %q, then to %q (%v)", raw, got, again, err)
		}
		// What the page fetches round-trips through a link.
		s := DefaultState()
		s.Source = got
		if d, ns := Decode(Encode(&s)); d.Source != got || len(ns) != 0 {
			t.Fatalf("link of %q decodes to %q, notices %v", got, d.Source, ns)
		}
	})
}

func TestSourceRoundTrip(t *testing.T) {
	for _, m := range Suggested {
		s := DefaultState()
		s.Mode, s.Source = ModeModel, m.Source
		d, ns := Decode(Encode(&s))
		if d != s || len(ns) != 0 {
			t.Errorf("%s: decoded %q mode %s, notices %v", m.Key, d.Source, d.Mode, ns)
		}
	}
}

func TestSuggested(t *testing.T) {
	seen := map[string]bool{}
	for i, m := range Suggested {
		if seen[m.Key] || seen[m.Source] {
			t.Errorf("%s: repeated key or address", m.Key)
		}
		seen[m.Key], seen[m.Source] = true, true
		if src, note, err := NormalizeSource(m.Source); src != m.Source || note != "" || err != nil {
			t.Errorf("%s: address %q normalizes to %q (%q, %v)", m.Key, m.Source, src, note, err)
		}
		if m.Source != "" && (!strings.HasPrefix(m.Source, "https://huggingface.co/") || !strings.Contains(m.Source, "/resolve/main/") || !strings.HasSuffix(m.Source, ".gguf")) {
			t.Errorf("%s: %q is not a Hugging Face download address", m.Key, m.Source)
		}
		if m.Name == "" || m.Quant == "" || m.Licence == "" || m.Arch == "" || m.Bytes <= 0 {
			t.Errorf("%s: incomplete %+v", m.Key, m)
		}
		if i > 0 && m.Bytes < Suggested[i-1].Bytes {
			t.Errorf("%s: listed after the larger %s", m.Key, Suggested[i-1].Key)
		}
		if r := ModelTooLarge(m.Bytes, -1); r != "" {
			t.Errorf("%s: suggested but too large: %s", m.Key, r)
		}
		if got, ok := FindSuggested(m.Source); !ok || got != m {
			t.Errorf("FindSuggested(%q) = %v, %v", m.Source, got, ok)
		}
	}
	if Suggested[0].Source != "" || Suggested[0].Bytes != KnownModelSize {
		t.Errorf("the built-in model is not listed first: %+v", Suggested[0])
	}
}

func TestSourceName(t *testing.T) {
	tests := []struct{ in, name, title, host string }{
		{"", KnownModelFile, "stories260K F32", ""},
		{"http://127.0.0.1:9/d/x%20y.gguf?a=1", "x y.gguf", "x y.gguf", "127.0.0.1:9"},
		{"models/m.gguf", "m.gguf", "m.gguf", ""},
		{Suggested[1].Source, "smollm2-135m-instruct-q8_0.gguf", "SmolLM2-135M-Instruct Q8_0", "huggingface.co"},
	}
	for _, tc := range tests {
		if n, ti, h := SourceName(tc.in), SourceTitle(tc.in), SourceHost(tc.in); n != tc.name || ti != tc.title || h != tc.host {
			t.Errorf("%q: name %q, title %q, host %q; want %q, %q, %q", tc.in, n, ti, h, tc.name, tc.title, tc.host)
		}
	}
}

func TestSourcePage(t *testing.T) {
	for in, want := range map[string]string{
		Suggested[1].Source:                     "https://huggingface.co/HuggingFaceTB/SmolLM2-135M-Instruct-GGUF",
		"https://hf.co/a/b/resolve/main/c.gguf": "https://huggingface.co/a/b",
		"":                                      "",
		"http://127.0.0.1:9/x.gguf":             "",
	} {
		if got := SourcePage(in); got != want {
			t.Errorf("SourcePage(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSizeLabel(t *testing.T) {
	if got := (SuggestedModel{Bytes: 145e6, Approx: true}).Size(); got != "≈138 MiB" {
		t.Errorf("approx size %q", got)
	}
	if got := (SuggestedModel{Bytes: KnownModelSize}).Size(); got != "1.13 MiB" {
		t.Errorf("size %q", got)
	}
}
