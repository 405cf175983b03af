package view

import (
	"net/url"
	"path"
	"strings"
	"unicode"
)

// Where real-model mode's model comes from: the link's model field (State.Source)
// holds the address of a GGUF file, "" for the stories260K file served beside
// the page.

// MaxSourceBytes bounds a model address in a link.
const MaxSourceBytes = 2048

// NormalizeSource returns the address raw names as the page fetches it:
// spaces trimmed; "" for the built-in model; a Hugging Face file page
// (huggingface.co/<org>/<repo>/blob/<rev>/<file>) rewritten to its
// download address (…/resolve/<rev>/<file>), which is the one Hugging Face
// serves with cross-origin headers (a page address fails the browser's
// CORS check). note says what was rewritten, else "". An address that is
// neither an absolute http(s) URL nor a relative path (another scheme,
// control characters, longer than MaxSourceBytes, a Hugging Face
// repository page rather than a file) is an error saying why. It never
// panics and costs O(len(raw)).
func NormalizeSource(raw string) (src, note string, err error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return "", "", nil
	}
	if len(s) > MaxSourceBytes {
		return "", "", sourceError("longer than " + itoa(MaxSourceBytes) + " bytes")
	}
	for _, r := range s {
		if unicode.IsControl(r) || unicode.IsSpace(r) {
			return "", "", sourceError("spaces or control characters in the address")
		}
	}
	u, perr := url.Parse(s)
	if perr != nil {
		return "", "", sourceError("not a readable address")
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		if u.Host == "" {
			return "", "", sourceError("no host in the address")
		}
	case "":
		if u.Host != "" || u.Opaque != "" {
			return "", "", sourceError("not a readable address")
		}
		if u.Path == "" {
			return "", "", sourceError("no file in the address")
		}
		return s, "", nil // a file beside the page
	default:
		return "", "", sourceError("a " + u.Scheme + ": address; the page downloads http and https only")
	}
	if isHuggingFace(u.Host) {
		parts := strings.Split(strings.Trim(u.Path, "/"), "/")
		switch {
		case len(parts) >= 5 && parts[2] == "blob":
			parts[2] = "resolve"
			u.Path = "/" + strings.Join(parts, "/")
			u.RawPath = ""
			return u.String(), "a Hugging Face file page; downloading its file from /resolve/", nil
		case len(parts) >= 5 && parts[2] == "resolve":
			return s, "", nil
		case len(parts) >= 2 && len(parts) < 5:
			return "", "", sourceError("a Hugging Face repository page, not a file; link to …/resolve/main/<file>.gguf")
		}
	}
	return s, "", nil
}

func isHuggingFace(host string) bool {
	h := strings.ToLower(host)
	return h == "huggingface.co" || h == "www.huggingface.co" || h == "hf.co"
}

// sourceError is why a model address was refused.
type sourceError string

func (e sourceError) Error() string { return string(e) }

// SourceName returns the file name a model address ends in ("stories260K.gguf"
// for the built-in model): its path's last element, unescaped.
func SourceName(src string) string {
	if src == "" {
		return KnownModelFile
	}
	p := src
	if u, err := url.Parse(src); err == nil {
		p = u.Path
	}
	name := path.Base(p)
	if name == "." || name == "/" || name == "" {
		return src
	}
	return name
}

// SourceHost returns the host a model address is downloaded from, or ""
// for a file beside the page.
func SourceHost(src string) string {
	u, err := url.Parse(src)
	if err != nil {
		return ""
	}
	return u.Host
}

// A SuggestedModel is a model the page offers to download with one click.
type SuggestedModel struct {
	Key     string `json:"key"`     // a short stable name
	Name    string `json:"name"`    // the model as its makers name it
	Quant   string `json:"quant"`   // the file's quantization (llama.cpp's name)
	Arch    string `json:"arch"`    // its general.architecture
	Bytes   int64  `json:"bytes"`   // the file's size
	Approx  bool   `json:"approx"`  // Bytes is an estimate (from the shapes and llama.cpp's rules)
	Licence string `json:"licence"` // the weights' licence
	Source  string `json:"source"`  // the download address ("" = the built-in file)
}

// Size returns the file's size as the list shows it: "≈138 MiB" when
// estimated.
func (m SuggestedModel) Size() string {
	s := Bytes(float64(m.Bytes))
	if m.Approx {
		s = "≈" + s
	}
	return s
}

// Suggested are the models the page lists, smallest first: the built-in
// stories260K, then public GGUF files of small instruction-tuned models
// on Hugging Face, downloaded from their /resolve/ addresses. Sizes
// marked Approx are estimates (shared notes on model shapes); the others
// are published file sizes. Whether kvscope runs a model depends on its
// architecture, tokenizer and tensor types; the page says so when it
// loads one.
var Suggested = []SuggestedModel{
	{Key: "stories260k", Name: "stories260K", Quant: "F32", Arch: "llama", Bytes: KnownModelSize, Licence: "MIT", Source: ""},
	{Key: "smollm2-135m-q8", Name: "SmolLM2-135M-Instruct", Quant: "Q8_0", Arch: "llama", Bytes: 145e6, Approx: true, Licence: "Apache-2.0", Source: hfResolve("HuggingFaceTB/SmolLM2-135M-Instruct-GGUF", "smollm2-135m-instruct-q8_0.gguf")},
	{Key: "gemma3-270m-q8", Name: "Gemma-3-270M-it", Quant: "Q8_0", Arch: "gemma3", Bytes: 290e6, Approx: true, Licence: "Gemma Terms of Use", Source: hfResolve("unsloth/gemma-3-270m-it-GGUF", "gemma-3-270m-it-Q8_0.gguf")},
	{Key: "qwen2.5-0.5b-q4km", Name: "Qwen2.5-0.5B-Instruct", Quant: "Q4_K_M", Arch: "qwen2", Bytes: 398e6, Licence: "Apache-2.0", Source: hfResolve("Qwen/Qwen2.5-0.5B-Instruct-GGUF", "qwen2.5-0.5b-instruct-q4_k_m.gguf")},
	{Key: "qwen3-0.6b-q8", Name: "Qwen3-0.6B", Quant: "Q8_0", Arch: "qwen3", Bytes: 639e6, Approx: true, Licence: "Apache-2.0", Source: hfResolve("Qwen/Qwen3-0.6B-GGUF", "Qwen3-0.6B-Q8_0.gguf")},
	{Key: "tinyllama-1.1b-q4km", Name: "TinyLlama-1.1B-Chat-v1.0", Quant: "Q4_K_M", Arch: "llama", Bytes: 670e6, Approx: true, Licence: "Apache-2.0", Source: hfResolve("TheBloke/TinyLlama-1.1B-Chat-v1.0-GGUF", "tinyllama-1.1b-chat-v1.0.Q4_K_M.gguf")},
	// Qwen's own Q8_0 file is larger than the shapes' estimate (≈531 MB):
	// public download lists give 675,710,816 bytes for it.
	{Key: "qwen2.5-0.5b-q8", Name: "Qwen2.5-0.5B-Instruct", Quant: "Q8_0", Arch: "qwen2", Bytes: 676e6, Approx: true, Licence: "Apache-2.0", Source: hfResolve("Qwen/Qwen2.5-0.5B-Instruct-GGUF", "qwen2.5-0.5b-instruct-q8_0.gguf")},
	{Key: "llama3.2-1b-q4km", Name: "Llama-3.2-1B-Instruct", Quant: "Q4_K_M", Arch: "llama", Bytes: 810e6, Licence: "Llama 3.2 Community License", Source: hfResolve("bartowski/Llama-3.2-1B-Instruct-GGUF", "Llama-3.2-1B-Instruct-Q4_K_M.gguf")},
}

// FindSuggested returns the suggested model downloaded from src.
func FindSuggested(src string) (SuggestedModel, bool) {
	for _, m := range Suggested {
		if m.Source == src {
			return m, true
		}
	}
	return SuggestedModel{}, false
}

// SourceTitle names the model at src for the page: the suggested model's
// name and quantization ("SmolLM2-135M-Instruct Q8_0"), else the file name.
func SourceTitle(src string) string {
	if m, ok := FindSuggested(src); ok {
		return m.Name + " " + m.Quant
	}
	return SourceName(src)
}

// SourcePage returns the web page about the model at src: for a Hugging
// Face download address its repository's page, else "".
func SourcePage(src string) string {
	u, err := url.Parse(src)
	if err != nil || !isHuggingFace(u.Host) {
		return ""
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) < 2 {
		return ""
	}
	return hfSite + parts[0] + "/" + parts[1]
}

// hfSite is Hugging Face's address; a repository's page is hfSite + its
// "org/name".
const hfSite = "https://huggingface.co/"

// hfResolve returns the download address of file on the main branch of
// Hugging Face's repository repo ("org/name").
func hfResolve(repo, file string) string { return hfSite + repo + "/resolve/main/" + file }
