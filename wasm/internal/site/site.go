//go:build !js

// Package site serves kvscope's static page the way a static host does:
// plain files, with a precompressed copy (name.gz, written by make build)
// sent instead of the file when the browser accepts gzip and the copy is
// not older than the file. The page's module shrinks about fourfold
// gzipped (README, wasm sizes), so this is what a visitor's download is
// like on any host that compresses. Every response asks the browser to revalidate (no-cache), so
// a rebuilt main.wasm is picked up on reload while an unchanged one is
// reused from the cache, and with it the browser's compiled code.
package site

import (
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// Handler returns the handler that serves the files under dir.
func Handler(dir string) http.Handler {
	files := http.FileServer(http.Dir(dir))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Add("Vary", "Accept-Encoding")
		if gz, ok := compressed(dir, r); ok {
			defer gz.Close()
			st, err := gz.Stat()
			if err == nil {
				ctype := mime.TypeByExtension(path.Ext(r.URL.Path))
				if ctype == "" {
					ctype = "application/octet-stream"
				}
				w.Header().Set("Content-Type", ctype)
				w.Header().Set("Content-Encoding", "gzip")
				http.ServeContent(w, r, "", st.ModTime(), gz)
				return
			}
		}
		files.ServeHTTP(w, r)
	})
}

// Clean returns prefix as a URL path that starts and ends with "/".
func Clean(prefix string) string {
	p := path.Clean("/" + prefix)
	if p != "/" {
		p += "/"
	}
	return p
}

// Under serves h under the URL path prefix, as a host serves a project
// site below its root (GitHub Pages: /<repo>/): a request below the prefix
// reaches h with the prefix removed, the prefix without its slash is
// redirected to it, and anything else is 404 — so a page that asks for an
// absolute URL fails visibly.
func Under(prefix string, h http.Handler) http.Handler {
	p := Clean(prefix)
	if p == "/" {
		return h
	}
	inner := http.StripPrefix(strings.TrimSuffix(p, "/"), h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == strings.TrimSuffix(p, "/"):
			http.Redirect(w, r, p, http.StatusMovedPermanently)
		case strings.HasPrefix(r.URL.Path, p):
			inner.ServeHTTP(w, r)
		default:
			http.NotFound(w, r)
		}
	})
}

// compressed opens the precompressed copy of the file r asks for, when the
// request accepts gzip and the copy is at least as new as the file.
func compressed(dir string, r *http.Request) (*os.File, bool) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return nil, false
	}
	if !acceptsGzip(r.Header.Get("Accept-Encoding")) {
		return nil, false
	}
	name := path.Clean("/" + r.URL.Path)
	if strings.HasSuffix(name, "/") || strings.HasSuffix(name, ".gz") {
		return nil, false
	}
	full := filepath.Join(dir, filepath.FromSlash(name))
	plain, err := os.Stat(full)
	if err != nil || plain.IsDir() {
		return nil, false
	}
	gz, err := os.Open(full + ".gz")
	if err != nil {
		return nil, false
	}
	if st, err := gz.Stat(); err != nil || st.ModTime().Before(plain.ModTime()) {
		gz.Close()
		return nil, false
	}
	return gz, true
}

// acceptsGzip reports whether an Accept-Encoding header allows gzip.
func acceptsGzip(h string) bool {
	for _, part := range strings.Split(h, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			q, ok := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q=")
			if !ok {
				return true
			}
			w, err := strconv.ParseFloat(q, 64)
			return err != nil || w > 0
		}
	}
	return false
}
