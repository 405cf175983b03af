//go:build !js

package site

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kvscope/kvscope/viz/view"
)

func write(t *testing.T, name string, data []byte, mod time.Time) {
	t.Helper()
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(name, mod, mod); err != nil {
		t.Fatal(err)
	}
}

func gzipped(t *testing.T, data []byte) []byte {
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	z.Write(data)
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestHandlerServesPrecompressedCopies(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	module := bytes.Repeat([]byte("\x00asm kvscope "), 1000)
	write(t, filepath.Join(dir, "main.wasm"), module, now.Add(-time.Minute))
	write(t, filepath.Join(dir, "main.wasm.gz"), gzipped(t, module), now)
	write(t, filepath.Join(dir, "stale.js"), []byte("new"), now)
	write(t, filepath.Join(dir, "stale.js.gz"), gzipped(t, []byte("old")), now.Add(-time.Hour))
	write(t, filepath.Join(dir, "index.html"), []byte("<p>kvscope</p>"), now)
	h := Handler(dir)

	for _, c := range []struct {
		name, path, accept string
		encoding, ctype    string
		body               []byte
	}{
		{"gzip accepted", "/main.wasm", "gzip, deflate, br", "gzip", "application/wasm", module},
		{"gzip refused", "/main.wasm", "gzip;q=0, br", "", "application/wasm", module},
		{"no gzip", "/main.wasm", "br", "", "application/wasm", module},
		{"copy older than the file", "/stale.js", "gzip", "", "text/javascript; charset=utf-8", []byte("new")},
		{"no copy", "/", "gzip", "", "text/html; charset=utf-8", []byte("<p>kvscope</p>")},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, c.path, nil)
			req.Header.Set("Accept-Encoding", c.accept)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			res := rec.Result()
			if res.StatusCode != http.StatusOK {
				t.Fatalf("status %d", res.StatusCode)
			}
			if got := res.Header.Get("Content-Encoding"); got != c.encoding {
				t.Errorf("Content-Encoding %q, want %q", got, c.encoding)
			}
			if got := res.Header.Get("Content-Type"); got != c.ctype {
				t.Errorf("Content-Type %q, want %q", got, c.ctype)
			}
			if got := res.Header.Get("Cache-Control"); got != "no-cache" {
				t.Errorf("Cache-Control %q", got)
			}
			var body io.Reader = res.Body
			if c.encoding == "gzip" {
				z, err := gzip.NewReader(res.Body)
				if err != nil {
					t.Fatal(err)
				}
				body = z
			}
			got, err := io.ReadAll(body)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, c.body) {
				t.Errorf("body of %d bytes, want the %d of the file", len(got), len(c.body))
			}
		})
	}
}

func TestHandlerRefusesPathsOutsideDir(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "index.html"), []byte("x"), time.Now())
	req := httptest.NewRequest(http.MethodGet, "/../../etc/passwd", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	rec := httptest.NewRecorder()
	Handler(dir).ServeHTTP(rec, req)
	if rec.Code == http.StatusOK {
		t.Fatalf("served a path outside the directory: %d", rec.Code)
	}
}

func TestAcceptsGzip(t *testing.T) {
	for _, c := range []struct {
		header string
		want   bool
	}{
		{"", false},
		{"gzip", true},
		{"GZIP", true},
		{"deflate, gzip;q=1.0, *;q=0.5", true},
		{"gzip;q=0.5", true},
		{"gzip; q=0", false},
		{"gzip;q=0.000", false},
		{"br, deflate", false},
		{"x-gzip", false},
		{"identity", false},
	} {
		if got := acceptsGzip(c.header); got != c.want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", c.header, got, c.want)
		}
	}
}

func TestUnder(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "index.html"), []byte("page"), time.Now())
	h := Under("course/kvscope", Handler(dir))
	tests := []struct {
		path string
		code int
		body string
	}{
		{"/course/kvscope/", 200, "page"},
		{"/course/kvscope/index.html", 301, ""}, // FileServer's own redirect to the folder
		{"/course/kvscope", 301, ""},
		{"/index.html", 404, ""},
		{"/", 404, ""},
		{"/course/kvscopeX/", 404, ""},
	}
	for _, tc := range tests {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tc.path, nil))
		if rec.Code != tc.code || (tc.body != "" && rec.Body.String() != tc.body) {
			t.Errorf("%s: %d %q, want %d %q", tc.path, rec.Code, rec.Body.String(), tc.code, tc.body)
		}
	}
	if got := rec301(h, "/course/kvscope"); got != "/course/kvscope/" {
		t.Errorf("redirect to %q", got)
	}
	for in, want := range map[string]string{"": "/", "/": "/", "a": "/a/", "/a/b/": "/a/b/", "a//b": "/a/b/"} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}

func rec301(h http.Handler, p string) string {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, p, nil))
	return rec.Header().Get("Location")
}

// TestPagesWorkflowModel: the Pages workflow fetches the model the page
// knows (its sha256 is the page's), through the script make test-site runs.
func TestPagesWorkflowModel(t *testing.T) {
	wf, err := os.ReadFile("../../../.github/workflows/pages.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"MODEL_SHA256: " + view.KnownModelSHA256, ".github/scripts/fetch-model.sh", "make site", "actions/deploy-pages", "actions/upload-pages-artifact"} {
		if !bytes.Contains(wf, []byte(want)) {
			t.Errorf("pages.yml lacks %q", want)
		}
	}
}
