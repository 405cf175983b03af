//go:build js && wasm

package main

import (
	"errors"
	"fmt"
	"strconv"
	"syscall/js"
	"time"

	"github.com/kvscope/kvscope/viz/view"
)

// Model files reach the page three ways: downloaded (fetch, its body read
// with a ReadableStream reader), from the browser's Cache Storage (a
// download kept for the next visit), or from a file the visitor drops or
// picks (its Blob stream). Each is copied chunk by chunk into one Go
// []byte, allocated once at the announced size, so the file is never held
// twice. The work runs in goroutines that wait on JavaScript promises
// (await) and hand what they learn to the game loop with a.post.

// modelCacheName is the Cache Storage cache holding downloaded models.
const modelCacheName = "kvscope-models"

// errStale stops the reading of a load that another one replaced.
var errStale = errors.New("kvscope: replaced by another model")

// jsError is a JavaScript exception or rejection.
type jsError struct{ name, msg string }

func (e *jsError) Error() string {
	if e.name == "" {
		return e.msg
	}
	return e.name + ": " + e.msg
}

func toJSError(v js.Value) *jsError {
	if v.Type() == js.TypeObject {
		n, m := v.Get("name"), v.Get("message")
		if n.Type() == js.TypeString || m.Type() == js.TypeString {
			e := &jsError{}
			if n.Type() == js.TypeString {
				e.name = n.String()
			}
			if m.Type() == js.TypeString {
				e.msg = m.String()
			}
			return e
		}
	}
	return &jsError{msg: v.Call("toString").String()}
}

// await waits for a JavaScript promise and returns its value or its
// rejection. Only a goroutine other than the game loop's may call it.
func await(p js.Value) (js.Value, error) {
	type result struct {
		v   js.Value
		err error
	}
	ch := make(chan result, 1)
	var ok, fail js.Func
	release := func() { ok.Release(); fail.Release() }
	ok = js.FuncOf(func(_ js.Value, args []js.Value) any {
		v := js.Undefined()
		if len(args) > 0 {
			v = args[0]
		}
		ch <- result{v: v}
		release()
		return nil
	})
	fail = js.FuncOf(func(_ js.Value, args []js.Value) any {
		err := &jsError{msg: "unknown error"}
		if len(args) > 0 {
			err = toJSError(args[0])
		}
		ch <- result{err: err}
		release()
		return nil
	})
	p.Call("then", ok, fail)
	r := <-ch
	return r.v, r.err
}

// jsFile is a File the visitor dropped or picked.
type jsFile struct {
	v    js.Value
	name string
	size int64
}

func newJSFile(v js.Value) jsFile {
	return jsFile{v: v, name: v.Get("name").String(), size: int64(v.Get("size").Float())}
}

// openCache opens the models' cache, or returns undefined where the
// browser offers no Cache Storage (an insecure page, some private modes).
func openCache() js.Value {
	caches := window.Get("caches")
	if !caches.Truthy() {
		return js.Undefined()
	}
	c, err := await(caches.Call("open", modelCacheName))
	if err != nil {
		return js.Undefined()
	}
	return c
}

// fetchModel gets the file at url for the load of generation gen: from the
// models' cache when useCache and it is there, else downloaded (and then
// kept in the cache when useCache). Failures are posted as notices.
func (a *app) fetchModel(gen int, url string, useCache bool) {
	src := url
	if !useCache {
		src = ""
	}
	fail := func(why string) { a.post(func() { a.downloadFailed(gen, why) }) }
	var cache js.Value
	if useCache {
		cache = openCache()
	}
	var resp js.Value
	fromCache := false
	if cache.Truthy() {
		if r, err := await(cache.Call("match", url)); err == nil && r.Truthy() {
			resp, fromCache = r, true
		}
	}
	if !fromCache {
		opts := js.Global().Get("Object").New()
		opts.Set("credentials", "omit")
		r, err := await(window.Call("fetch", url, opts))
		if err != nil {
			fail(view.FetchRefused(src, err.Error()))
			return
		}
		if !r.Get("ok").Bool() {
			r.Get("body").Call("cancel")
			fail(view.HTTPRefused(r.Get("status").Int(), r.Get("statusText").String()))
			return
		}
		resp = r
	}
	total := contentLength(resp)
	if why := view.ModelTooLarge(total, -1); why != "" {
		if b := resp.Get("body"); b.Truthy() {
			b.Call("cancel")
		}
		fail(why)
		return
	}
	a.post(func() {
		if a.current(gen) {
			a.mdl.dl.fromCache, a.mdl.dl.total = fromCache, total
			a.downloadProgress(gen, 0, total)
		}
	})
	if cache.Truthy() && !fromCache {
		clone := resp.Call("clone") // the cache reads its own copy of the stream
		go a.keepCached(cache, url, clone)
	}
	b, err := a.readStream(gen, resp.Get("body"), total)
	if err == errStale {
		return
	}
	if err != nil {
		if fromCache {
			// A cached copy that cannot be read: forget it, so that the
			// next visit downloads the file again.
			a.post(func() { a.forgetCached(url, true) })
		}
		fail(err.Error())
		return
	}
	a.post(func() { a.fileArrived(gen, b) })
}

// readFile reads a dropped or picked file for the load of generation gen.
func (a *app) readFile(gen int, f jsFile) {
	fail := func(why string) { a.post(func() { a.downloadFailed(gen, why) }) }
	if why := view.ModelTooLarge(f.size, -1); why != "" {
		fail(why)
		return
	}
	if !f.v.Get("stream").Truthy() {
		fail("this browser cannot read files as streams")
		return
	}
	b, err := a.readStream(gen, f.v.Call("stream"), f.size)
	if err == errStale {
		return
	}
	if err != nil {
		fail(err.Error())
		return
	}
	a.post(func() { a.fileArrived(gen, b) })
}

// contentLength returns a response's announced length, or 0.
func contentLength(resp js.Value) int64 {
	h := resp.Get("headers").Call("get", "Content-Length")
	if h.Type() != js.TypeString {
		return 0
	}
	n, err := strconv.ParseInt(h.String(), 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// readStream copies a ReadableStream of Uint8Array chunks into one []byte,
// allocated once when total (the announced length) is known, and posts
// the progress a few times a second. A stream that fails, or ends before
// total bytes, is an error naming it truncated; one that grows past
// view.MaxModelFile is refused.
func (a *app) readStream(gen int, body js.Value, total int64) ([]byte, error) {
	if !body.Truthy() {
		return nil, errors.New("the response has no body")
	}
	reader := body.Call("getReader")
	var buf []byte
	if total > 0 {
		buf = make([]byte, 0, total)
	}
	last := time.Now()
	for {
		if int(a.loadGen.Load()) != gen {
			reader.Call("cancel")
			return nil, errStale
		}
		res, err := await(reader.Call("read"))
		if err != nil {
			return nil, errors.New(view.Truncated(int64(len(buf)), total, err.Error()))
		}
		if res.Get("done").Bool() {
			break
		}
		chunk := res.Get("value")
		n := chunk.Get("length").Int()
		if int64(len(buf)+n) > view.MaxModelFile {
			reader.Call("cancel")
			return nil, errors.New(view.ModelTooLarge(int64(len(buf)+n), -1))
		}
		if len(buf)+n > cap(buf) {
			// No length announced (or more than announced: a compressed
			// transfer): grow.
			grown := make([]byte, len(buf), min(max(2*cap(buf), len(buf)+n, 16<<20), view.MaxModelFile))
			copy(grown, buf)
			buf = grown
		}
		at := len(buf)
		buf = buf[:at+n]
		js.CopyBytesToGo(buf[at:], chunk)
		if time.Since(last) > 100*time.Millisecond {
			last = time.Now()
			got := int64(len(buf))
			a.post(func() { a.downloadProgress(gen, got, total) })
		}
	}
	if total > 0 && int64(len(buf)) < total {
		return nil, errors.New(view.Truncated(int64(len(buf)), total, "the connection closed early"))
	}
	if len(buf) == 0 {
		return nil, errors.New("the file is empty")
	}
	return buf, nil
}

// keepCached stores a downloaded response in the models' cache for the
// next visit. A full quota is a notice; the model loads all the same.
func (a *app) keepCached(cache js.Value, url string, resp js.Value) {
	_, err := await(cache.Call("put", url, resp))
	a.post(func() {
		var je *jsError
		if errors.As(err, &je) && je.name == "QuotaExceededError" {
			a.addNotices(view.Notice{Msg: "Not kept for your next visit: the browser's storage quota is full (a private window allows little). The model loads all the same."})
		} else if err != nil && !a.mdl.failedOn(url) {
			window.Get("console").Call("warn", "kvscope: the model was not cached: "+err.Error())
		}
		if err == nil && a.mdl.failedOn(url) {
			a.forgetCached(url, true) // it arrived after the file was refused
			return
		}
		a.refreshCache()
	})
}

// cachedModel is one model kept in the browser's cache.
type cachedModel struct {
	Source string `json:"source"`
	Name   string `json:"name"`
	Bytes  int64  `json:"bytes"`
}

// modelCache is what the page knows of the models' cache.
type modelCache struct {
	list         []cachedModel
	usage, quota int64 // the origin's storage, from navigator.storage.estimate (0 unknown)
	known        bool  // the cache was listed at least once
	unavailable  bool  // the browser offers no Cache Storage here
	v            int   // bumps when the list changes
	shownV       int   // the version written to the page
}

// refreshCache lists the models' cache again.
func (a *app) refreshCache() {
	go func() {
		var list []cachedModel
		cache := openCache()
		if !cache.Truthy() {
			a.post(func() { a.mdl.cache.unavailable, a.mdl.cache.known = true, true; a.mdl.cache.v++; a.mdl.v++ })
			return
		}
		reqs, err := await(cache.Call("keys"))
		if err == nil {
			for i := 0; i < reqs.Length(); i++ {
				url := reqs.Index(i).Get("url").String()
				c := cachedModel{Source: url, Name: view.SourceTitle(url)}
				if r, err := await(cache.Call("match", reqs.Index(i))); err == nil && r.Truthy() {
					c.Bytes = contentLength(r)
				}
				list = append(list, c)
			}
		}
		var usage, quota int64
		if st := window.Get("navigator").Get("storage"); st.Truthy() && st.Get("estimate").Truthy() {
			if e, err := await(st.Call("estimate")); err == nil {
				usage, quota = int64(e.Get("usage").Float()), int64(e.Get("quota").Float())
			}
		}
		a.post(func() {
			mc := &a.mdl.cache
			mc.list, mc.usage, mc.quota, mc.known, mc.unavailable = list, usage, quota, true, false
			mc.v++
			a.mdl.v++
		})
	}()
}

// forgetCached removes one model from the cache (src as the cache keys
// it, an absolute address), then lists the cache again when refresh.
func (a *app) forgetCached(src string, refresh bool) {
	go func() {
		if cache := openCache(); cache.Truthy() {
			await(cache.Call("delete", src))
		}
		if refresh {
			a.post(a.refreshCache)
		}
	}()
}

// forgetAllCached empties the models' cache.
func (a *app) forgetAllCached() {
	go func() {
		if caches := window.Get("caches"); caches.Truthy() {
			await(caches.Call("delete", modelCacheName))
		}
		a.post(a.refreshCache)
	}()
}

// cacheLine says what the cache holds, for the page.
func (mc *modelCache) line() string {
	switch {
	case mc.unavailable:
		return "This browser keeps no downloads here (no Cache Storage): each visit downloads the model again."
	case !mc.known:
		return ""
	case len(mc.list) == 0:
		return "No downloaded model is kept in this browser."
	}
	var sum int64
	for _, c := range mc.list {
		sum += c.Bytes
	}
	s := fmt.Sprintf("Kept in this browser for your next visit (%s", view.Bytes(float64(sum)))
	if mc.quota > 0 {
		s += fmt.Sprintf("; the site may keep up to %s", view.Bytes(float64(mc.quota)))
	}
	return s + "):"
}
