//go:build js && wasm

package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"syscall/js"
	"time"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/viz/view"
)

// maxModelBytes bounds a model file the page accepts: it is copied into
// the Go heap and decoded three times per token.
const maxModelBytes = 640 << 20

// modelSource is where real-model mode's model comes from and what is
// known about it.
type modelSource struct {
	m         *model.Model // nil until a file loaded
	raw       []byte       // the file's bytes, for the chart's worker
	requested bool         // the served copy was asked for
	loading   bool
	pendingAt int // step to replay to once the model is loaded

	conv     *modelConversion // a file being checked and converted, a slice of each frame
	progress float64          // the conversion's progress, 0..1; −1 when none runs

	name   string
	size   int
	sha256 string
	known  bool   // the stories260K file kvscope was made with
	err    string // why the last file did not load
	status string // what the page says about the model
	v      int    // bumps when status changes
}

// requestModel fetches the model served beside the page
// (static/stories260K.gguf), once. Without it the page shows the file
// picker and where to get the model.
func (a *app) requestModel() {
	if a.mdl.requested || a.mdl.m != nil {
		return
	}
	a.mdl.requested, a.mdl.loading = true, true
	a.setModelStatus("Loading " + view.KnownModelFile + "…")
	missing := func(why string) {
		a.post(func() {
			a.mdl.loading = false
			a.setModelStatus("No model is served with this page (" + why + "). Choose or drop a llama .gguf file below.")
		})
	}
	promise(window.Call("fetch", view.KnownModelFile), func(resp js.Value) {
		if !resp.Get("ok").Bool() {
			missing(fmt.Sprintf("%s: HTTP %d", view.KnownModelFile, resp.Get("status").Int()))
			return
		}
		a.readBuffer(resp.Call("arrayBuffer"), view.KnownModelFile, missing)
	}, missing)
}

// readBuffer copies the ArrayBuffer a promise yields into Go and loads it
// as a model in the game loop.
func (a *app) readBuffer(p js.Value, name string, fail func(string)) {
	promise(p, func(buf js.Value) {
		n := buf.Get("byteLength").Int()
		if n > maxModelBytes {
			fail(fmt.Sprintf("%s is %s; the page accepts at most %s", name, view.Bytes(float64(n)), view.Bytes(maxModelBytes)))
			return
		}
		b := make([]byte, n)
		js.CopyBytesToGo(b, js.Global().Get("Uint8Array").New(buf))
		a.post(func() { a.loadModel(b, name) })
	}, fail)
}

// loadFile loads a File the visitor picked or dropped.
func (a *app) loadFile(f js.Value) {
	name := f.Get("name").String()
	size := f.Get("size").Int()
	fail := func(why string) {
		a.post(func() {
			a.mdl.loading = false
			a.mdl.err = why
			a.setModelStatus("Could not read " + name + ": " + why)
		})
	}
	if size > maxModelBytes {
		fail(fmt.Sprintf("it is %s; the page accepts at most %s", view.Bytes(float64(size)), view.Bytes(maxModelBytes)))
		return
	}
	a.post(func() { a.mdl.loading = true; a.setModelStatus("Reading " + name + "…") })
	a.readBuffer(f.Call("arrayBuffer"), name, fail)
}

// modelConversion is a model file on its way in: its sha256 computed and
// its tensors converted a slice of each frame (modelTick), so a file of
// hundreds of megabytes loads with a progress bar instead of freezing the
// page.
type modelConversion struct {
	b      []byte
	name   string
	h      hash.Hash
	hashed int
	sum    string
	ld     *model.Loader
}

// loadModel starts checking and converting a model file; modelTick
// finishes it and switches to real-model mode. A file that does not load
// is reported and the page keeps the model it had.
func (a *app) loadModel(b []byte, name string) {
	a.mdl.loading = true
	a.mdl.conv = &modelConversion{b: b, name: name, h: sha256.New()}
	a.setModelStatus(fmt.Sprintf("Checking %s (%s)…", name, view.Bytes(float64(len(b)))))
	a.modelProgress(0)
}

// modelTick does up to budget of the loading model's work: hashing, then
// converting tensors, and finishes the load when it is done.
func (a *app) modelTick(budget time.Duration) {
	c := a.mdl.conv
	if c == nil {
		return
	}
	t0 := time.Now()
	const chunk = 4 << 20
	for c.hashed < len(c.b) && time.Since(t0) < budget {
		n := min(chunk, len(c.b)-c.hashed)
		c.h.Write(c.b[c.hashed : c.hashed+n])
		c.hashed += n
	}
	if c.hashed < len(c.b) {
		a.modelProgress(0.1 * float64(c.hashed) / float64(len(c.b)))
		return
	}
	if c.sum == "" {
		c.sum = hex.EncodeToString(c.h.Sum(nil))
		ld, err := newLoaderSafe(c.b)
		if err != nil {
			a.refuseModel(c, err)
			return
		}
		c.ld = ld
		a.setModelStatus(fmt.Sprintf("Converting %s: %s…", c.name, describeShape(ld.Config())))
	}
	var stepErr error
	for time.Since(t0) < budget {
		more, err := stepLoaderSafe(c.ld)
		if err != nil {
			stepErr = err
			break
		}
		if !more {
			break
		}
	}
	if stepErr != nil {
		a.refuseModel(c, stepErr)
		return
	}
	if err := c.ld.Err(); err != nil {
		a.refuseModel(c, err)
		return
	}
	done, total := c.ld.Progress()
	if done < total {
		a.modelProgress(0.1 + 0.9*float64(done)/float64(max(total, 1)))
		return
	}
	m, err := c.ld.Model()
	if err != nil {
		a.refuseModel(c, err)
		return
	}
	a.modelProgress(-1)
	a.mdl.conv, a.mdl.loading = nil, false
	a.finishModel(m, c.b, c.name, c.sum)
}

// modelProgress shows the loading model's progress (0..1), or hides the
// bar (v < 0).
func (a *app) modelProgress(v float64) {
	bar := byID("model-progress")
	if !bar.Truthy() {
		return
	}
	bar.Set("hidden", v < 0)
	if v >= 0 {
		bar.Set("value", v)
	}
	a.mdl.progress = v
}

// refuseModel reports a file that is not a model kvscope can run.
func (a *app) refuseModel(c *modelConversion, err error) {
	a.mdl.conv, a.mdl.loading = nil, false
	a.modelProgress(-1)
	a.mdl.err = err.Error()
	short := c.sum
	if len(short) > 12 {
		short = short[:12]
	}
	msg := fmt.Sprintf("%s (%s, sha256 %s…) is not a model kvscope can run: %v", c.name, view.Bytes(float64(len(c.b))), short, err)
	if a.mdl.m != nil {
		msg += ". The previous model stays loaded."
	}
	a.setModelStatus(msg)
	a.addNotices(view.Notice{Msg: "Model file refused: " + err.Error()})
}

func describeShape(mc model.Config) string {
	return fmt.Sprintf("%d layers, %d query heads sharing %d KV heads, head dim %d, vocabulary %d, context %d",
		mc.Layers, mc.Heads, mc.KVHeads, mc.HeadDim, mc.Vocab, mc.ContextLength)
}

// finishModel makes a loaded model the page's and switches to real-model mode.
func (a *app) finishModel(m *model.Model, b []byte, name, hexSum string) {
	a.mdl.m, a.mdl.err, a.mdl.raw = m, "", b
	a.mdl.name, a.mdl.size, a.mdl.sha256 = name, len(b), hexSum
	a.mdl.known = view.IsKnownModel(hexSum)
	// The legend names the model's own sliding window when it has one.
	byID("legend-windowed").Set("hidden", m.Config.SlidingWindow == 0)
	shape := describeShape(m.Config)
	if a.mdl.known {
		a.setModelStatus(fmt.Sprintf("%s · %s · sha256 %s…%s ✓ the known stories260K file (Karpathy's tinyllamas, MIT): %s.",
			name, view.Bytes(float64(len(b))), hexSum[:8], hexSum[len(hexSum)-4:], shape))
	} else {
		a.setModelStatus(fmt.Sprintf("%s · %s · sha256 %s…%s: not the stories260K file kvscope was made with. It loaded as a %s model (%s) and runs, but the page's texts were written about stories260K.",
			name, view.Bytes(float64(len(b))), hexSum[:8], hexSum[len(hexSum)-4:], m.Config.Arch, shape))
	}
	next := a.st
	next.Mode = view.ModeModel
	target := a.mdl.pendingAt
	if a.st.ModelMode() && a.sides[0].eng != nil {
		target = a.cur()
	}
	for i := range a.sides {
		a.sides[i].vp = view.Viewport{}
	}
	a.apply(next, target)
	a.reflect()
}

// newLoaderSafe is model.NewLoader that turns a panic on a hostile file
// into an error.
func newLoaderSafe(b []byte) (ld *model.Loader, err error) {
	defer func() {
		if r := recover(); r != nil {
			ld, err = nil, fmt.Errorf("kvscope: the model loader failed on this file (%v)", r)
		}
	}()
	return model.NewLoader(bytes.NewReader(b), int64(len(b)), model.Options{})
}

// stepLoaderSafe converts the loader's next tensor, turning a panic on a
// hostile file into an error.
func stepLoaderSafe(ld *model.Loader) (more bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			more, err = false, fmt.Errorf("kvscope: the model loader failed on this file (%v)", r)
		}
	}()
	return ld.Next(), nil
}

func (a *app) setModelStatus(s string) {
	if s != a.mdl.status {
		a.mdl.status = s
		a.mdl.v++
	}
}

// bindModelInputs wires the file picker and drag-and-drop: a dropped or
// chosen file loads as the model and switches to real-model mode.
func (a *app) bindModelInputs() {
	input := byID("model-file")
	a.on(input, "change", func(js.Value, []js.Value) {
		files := input.Get("files")
		if files.Truthy() && files.Length() > 0 {
			a.loadFile(files.Index(0))
		}
		input.Set("value", "")
	})
	zone := byID("model-drop")
	hasFiles := func(ev js.Value) bool {
		dt := ev.Get("dataTransfer")
		if !dt.Truthy() {
			return false
		}
		types := dt.Get("types")
		for i := 0; i < types.Length(); i++ {
			if types.Index(i).String() == "Files" {
				return true
			}
		}
		return false
	}
	// Anywhere on the page: a dropped file must not replace the page.
	a.on(document, "dragover", func(_ js.Value, args []js.Value) {
		if ev := args[0]; hasFiles(ev) {
			ev.Call("preventDefault")
			zone.Get("classList").Call("add", "over")
		}
	})
	a.on(document, "dragleave", func(_ js.Value, args []js.Value) {
		if !args[0].Get("relatedTarget").Truthy() {
			zone.Get("classList").Call("remove", "over")
		}
	})
	a.on(document, "drop", func(_ js.Value, args []js.Value) {
		ev := args[0]
		zone.Get("classList").Call("remove", "over")
		if !hasFiles(ev) {
			return
		}
		ev.Call("preventDefault")
		files := ev.Get("dataTransfer").Get("files")
		if files.Length() > 0 {
			a.loadFile(files.Index(0))
		}
	})
}

// writeModelStatus shows what is known about the model.
func (a *app) writeModelStatus() {
	if a.pg.modelV == a.mdl.v {
		return
	}
	a.pg.modelV = a.mdl.v
	el := byID("model-status")
	el.Set("textContent", a.mdl.status)
	el.Get("classList").Call("toggle", "error", a.mdl.err != "")
	el.Get("classList").Call("toggle", "unknown", a.mdl.m != nil && !a.mdl.known)
	byID("model-get").Set("hidden", a.mdl.m != nil && a.mdl.known)
}

// publicModel describes the model in window.kvscope.state().
func (a *app) publicModel() view.PageModel {
	return view.PageModel{Loaded: a.mdl.m != nil, Name: a.mdl.name, SHA256: a.mdl.sha256, Known: a.mdl.known, Error: a.mdl.err, Status: a.mdl.status,
		Progress: a.mdl.progress, Layers: a.modelLayers(), Vocab: a.modelVocab()}
}

// promise calls ok with a JavaScript promise's value, or fail with its
// error's text. The callbacks run on the JavaScript event loop and must
// not block.
func promise(p js.Value, ok func(js.Value), fail func(string)) {
	var onOK, onErr js.Func
	release := func() { onOK.Release(); onErr.Release() }
	onOK = js.FuncOf(func(_ js.Value, args []js.Value) any {
		release()
		v := js.Undefined()
		if len(args) > 0 {
			v = args[0]
		}
		ok(v)
		return nil
	})
	onErr = js.FuncOf(func(_ js.Value, args []js.Value) any {
		release()
		why := "unknown error"
		if len(args) > 0 {
			why = args[0].Call("toString").String()
		}
		fail(why)
		return nil
	})
	p.Call("then", onOK, onErr)
}

func (a *app) modelLayers() int {
	if a.mdl.m == nil {
		return 0
	}
	return a.mdl.m.Config.Layers
}

func (a *app) modelVocab() int {
	if a.mdl.m == nil {
		return 0
	}
	return a.mdl.m.Config.Vocab
}
