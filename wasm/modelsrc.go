//go:build js && wasm

package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"strings"
	"time"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/model/gguf"
	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/viz/view"
)

// loadOptions is how the page loads a model: Q8_0 and Q4_0 matrices stay
// in their blocks (see view.MaxModelMemory).
var loadOptions = model.Options{KeepQuantized: true}

// modelSource is where real-model mode's model comes from and what is
// known about it.
type modelSource struct {
	m         *model.Model // nil until a file loaded
	raw       []byte       // the file's bytes, for the chart's worker
	src       string       // the loaded model's address (view.State.Source; "" the built-in file)
	dropped   bool         // the loaded model came from a file the visitor dropped or chose
	failed    *string      // the address that last failed, not asked for again by itself (nil: none)
	loading   bool
	pendingAt int          // step to replay to once the model is loaded
	noticed   *model.Model // the model whose run length notice was last shown (applyModel)

	dl   *download // the download under way (its progress as the game loop last heard it)
	conv *modelConversion
	// progress is the download's or the conversion's progress, 0..1; −1
	// when neither runs.
	progress float64

	name   string
	size   int
	sha256 string
	known  bool             // the stories260K file kvscope was made with
	facts  *view.ModelFacts // the loaded model's facts
	err    string           // why the last file did not load
	status string           // what the page says about the model
	v      int              // bumps when status, facts or sinks change

	meterFor *model.Model // the model whose sink heads the worker was asked for
	meterID  int          // that request's id
	sinks    *sim.Sinks   // its sink heads, once measured

	cache modelCache
}

// download is a model file on its way from the network, the browser's
// cache or a dropped file, as the game loop knows it.
type download struct {
	src, name   string
	got, total  int64
	fromCache   bool
	dropped     bool
	lastShownMs float64
}

// openSource starts loading the model at src (view.State.Source; "" the
// stories260K file beside the page), replacing any load under way. The
// model loaded so far keeps running until the new one is in.
func (a *app) openSource(src string) {
	a.cancelLoad()
	gen := int(a.loadGen.Add(1))
	a.mdl.failed = nil
	a.mdl.loading = true
	d := &download{src: src, name: view.SourceName(src)}
	a.mdl.dl = d
	url := src
	if src == "" {
		url = view.KnownModelFile
	}
	a.setModelStatus("Looking for " + view.SourceTitle(src) + "…")
	a.modelProgress(0)
	go a.fetchModel(gen, url, src != "")
}

// openFile loads a File the visitor picked or dropped.
func (a *app) openFile(f jsFile) {
	a.cancelLoad()
	gen := int(a.loadGen.Add(1))
	a.mdl.loading = true
	d := &download{name: f.name, total: f.size, dropped: true}
	a.mdl.dl = d
	a.setModelStatus("Reading " + f.name + "…")
	a.modelProgress(0)
	go a.readFile(gen, f)
}

// cancelLoad drops the download or conversion under way (its goroutine
// sees the generation move on and stops).
func (a *app) cancelLoad() {
	a.loadGen.Add(1)
	a.mdl.dl, a.mdl.conv = nil, nil
	a.mdl.loading = false
	a.modelProgress(-1)
}

// current reports whether a post from the load of generation gen still matters.
func (a *app) current(gen int) bool { return gen == int(a.loadGen.Load()) && a.mdl.dl != nil }

// downloadProgress shows how far the download of generation gen is.
func (a *app) downloadProgress(gen int, got, total int64) {
	if !a.current(gen) {
		return
	}
	d := a.mdl.dl
	d.got, d.total = got, total
	from := "Downloading"
	switch {
	case d.fromCache:
		from = "Reading from the browser's cache"
	case d.dropped:
		from = "Reading"
	}
	msg := fmt.Sprintf("%s %s: %s", from, d.displayName(), view.Bytes(float64(got)))
	if total > 0 {
		msg += " of " + view.Bytes(float64(total))
		a.modelProgress(0.5 * float64(got) / float64(total))
	}
	a.setModelStatus(msg + "…")
}

func (d *download) displayName() string {
	if d.dropped {
		return d.name
	}
	return view.SourceTitle(d.src)
}

// downloadFailed reports a download that did not arrive; the model loaded
// before stays.
func (a *app) downloadFailed(gen int, why string) {
	if !a.current(gen) {
		return
	}
	d := a.mdl.dl
	a.cancelLoad()
	a.refuse(d.displayName(), d.src, d.dropped, why)
}

// refuse reports a model that did not load, keeps the one loaded before
// (and its address in the link), and forgets a cached copy of a file
// that cannot run.
func (a *app) refuse(name, src string, dropped bool, why string) {
	a.mdl.err = why
	msg := fmt.Sprintf("Could not load %s: %s.", name, strings.TrimRight(why, ". "))
	if a.mdl.m != nil {
		msg += " The previous model stays loaded."
	} else {
		msg += " Choose another model below, or drop a .gguf file."
	}
	a.setModelStatus(msg)
	a.addNotices(view.Notice{Msg: msg})
	if !dropped {
		a.mdl.failed = &src
		if a.st.Source == src && a.mdl.m != nil {
			a.st.Source, a.good.Source = a.mdl.src, a.mdl.src // the link names the model that runs
		}
	}
	a.reflect()
}

// fileArrived starts checking and converting a model file that arrived
// whole; modelTick does the work a slice of each frame.
func (a *app) fileArrived(gen int, b []byte) {
	if !a.current(gen) {
		return
	}
	d := a.mdl.dl
	a.mdl.dl = nil
	a.mdl.conv = &modelConversion{b: b, d: *d, h: sha256.New()}
	a.setModelStatus(fmt.Sprintf("Checking %s (%s)…", d.displayName(), view.Bytes(float64(len(b)))))
	a.modelProgress(0.5)
}

// modelConversion is a model file on its way in: its sha256 computed and
// its tensors converted a slice of each frame (modelTick), so a file of
// hundreds of megabytes loads with a progress bar instead of freezing the
// page.
type modelConversion struct {
	b      []byte
	d      download
	h      hash.Hash
	hashed int
	sum    string
	facts  view.ModelFacts
	ld     *model.Loader
}

// modelTick does up to budget of the loading model's work: hashing, then
// reading the header (refusing a model that would not fit), then
// converting tensors, and finishes the load when it is done.
func (a *app) modelTick(budget time.Duration) {
	a.sinkTick()
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
		a.modelProgress(0.5 + 0.05*float64(c.hashed)/float64(len(c.b)))
		return
	}
	if c.sum == "" {
		c.sum = hex.EncodeToString(c.h.Sum(nil))
		if err := a.readHeader(c); err != nil {
			a.refuseConversion(c, err.Error())
			return
		}
		a.setModelStatus(fmt.Sprintf("Converting %s: %s…", c.d.displayName(), describeShape(c.ld.Config())))
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
	if stepErr == nil {
		stepErr = c.ld.Err()
	}
	if stepErr != nil {
		a.refuseConversion(c, view.LoadRefused(stepErr))
		return
	}
	done, total := c.ld.Progress()
	if done < total {
		a.modelProgress(0.55 + 0.45*float64(done)/float64(max(total, 1)))
		return
	}
	m, err := c.ld.Model()
	if err != nil {
		a.refuseConversion(c, view.LoadRefused(err))
		return
	}
	a.mdl.conv, a.mdl.loading = nil, false
	a.modelProgress(-1)
	a.finishModel(m, c)
}

// readHeader parses the file's header for its facts and the memory its
// weights will take, refuses a model that would not fit, and plans the
// conversion.
func (a *app) readHeader(c *modelConversion) error {
	f, err := ggufLoadSafe(c.b)
	if err != nil {
		return fmt.Errorf("%s", view.LoadRefused(err))
	}
	weights := model.PlannedAlloc(f, loadOptions)
	cfg, cerr := model.ConfigFromGGUF(f)
	var cp *model.Config
	if cerr == nil {
		cp = &cfg
	}
	c.facts = view.FactsOf(f, cp, int64(len(c.b)), weights)
	c.facts.Kernels = model.KernelPath()
	a.mdl.v++ // the facts of the file being converted are shown
	if why := view.ModelTooLarge(int64(len(c.b)), weights); why != "" {
		return fmt.Errorf("%s", why)
	}
	ld, err := newLoaderSafe(c.b)
	if err != nil {
		return fmt.Errorf("%s", view.LoadRefused(err))
	}
	c.ld = ld
	return nil
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

// refuseConversion reports a file that is not a model kvscope can run.
func (a *app) refuseConversion(c *modelConversion, why string) {
	a.mdl.conv, a.mdl.loading = nil, false
	a.modelProgress(-1)
	short := c.sum
	if len(short) > 12 {
		short = short[:12]
	}
	if !c.d.dropped && c.d.src != "" {
		a.forgetCached(c.d.src, true)
	}
	a.mdl.v++
	a.refuse(fmt.Sprintf("%s (%s, sha256 %s…)", c.d.displayName(), view.Bytes(float64(len(c.b))), short), c.d.src, c.d.dropped, why)
}

func describeShape(mc model.Config) string {
	return fmt.Sprintf("%d layers, %d query heads sharing %d KV heads, head dim %d, vocabulary %d, context %d",
		mc.Layers, mc.Heads, mc.KVHeads, mc.HeadDim, mc.Vocab, mc.ContextLength)
}

// finishModel makes a loaded model the page's and switches to real-model mode.
func (a *app) finishModel(m *model.Model, c *modelConversion) {
	b, hexSum := c.b, c.sum
	name := c.d.displayName()
	a.mdl.m, a.mdl.err, a.mdl.raw = m, "", b
	a.emb.ready = false // an embed says ready again, with this model
	a.mdl.name, a.mdl.size, a.mdl.sha256 = name, len(b), hexSum
	a.mdl.src, a.mdl.dropped, a.mdl.failed = c.d.src, c.d.dropped, nil
	a.mdl.known = view.IsKnownModel(hexSum)
	// The legend names the model's own sliding window when it has one.
	byID("legend-windowed").Set("hidden", m.Config.SlidingWindow == 0)
	facts := c.facts
	a.mdl.facts = &facts
	a.mdl.meterFor, a.mdl.sinks = nil, nil
	from := ""
	if c.d.fromCache {
		from = " (from the browser's cache)"
	}
	if a.mdl.known {
		a.setModelStatus(fmt.Sprintf("%s%s · %s · sha256 %s…%s ✓ the known stories260K file (Karpathy's tinyllamas, MIT).",
			name, from, view.Bytes(float64(len(b))), hexSum[:8], hexSum[len(hexSum)-4:]))
	} else {
		a.setModelStatus(fmt.Sprintf("%s%s · %s · sha256 %s…%s: loaded as a %s model and running. The page's texts were written about stories260K, the model it was made with.",
			name, from, view.Bytes(float64(len(b))), hexSum[:8], hexSum[len(hexSum)-4:], m.Config.Arch))
	}
	if !c.d.fromCache && !c.d.dropped && c.d.src != "" {
		a.refreshCache()
	}
	next := a.st
	next.Mode = view.ModeModel
	next.Source = a.mdl.src
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

// sinkTick asks the decoding worker to measure the loaded model's sink
// heads (Gu et al.) on sim.SinkPrompt tokens, the prompt continued
// greedily as the run's uncompressed side decodes it. The worker measures
// while its run is not stepping (wasm/worker/decode.go), and onSinks takes
// the result in.
func (a *app) sinkTick() {
	m := a.mdl.m
	if m == nil || a.mdl.sinks != nil || a.mdl.conv != nil || a.mdl.meterFor == m {
		return
	}
	d := a.decodeWorker(0)
	d.sendModel(m, a.mdl.raw)
	d.nextID += 2
	a.mdl.meterFor, a.mdl.meterID = m, d.nextID
	d.send("sinkmeter", map[string]any{"id": d.nextID, "text": a.st.Text})
}

// onSinks takes in the worker's sink measure of request id.
func (a *app) onSinks(id int, s *sim.Sinks) {
	if id != a.mdl.meterID || a.mdl.m != a.mdl.meterFor {
		return // a model since replaced
	}
	a.mdl.sinks = s
	a.mdl.v++
	a.les.v++ // a lesson card that speaks of sinks says what this model shows
}

// newLoaderSafe is model.NewLoader that turns a panic on a hostile file
// into an error.
func newLoaderSafe(b []byte) (ld *model.Loader, err error) {
	defer func() {
		if r := recover(); r != nil {
			ld, err = nil, fmt.Errorf("kvscope: the model loader failed on this file (%v)", r)
		}
	}()
	return model.NewLoaderBytes(b, loadOptions)
}

// ggufLoadSafe parses a file's header, turning a panic into an error.
func ggufLoadSafe(b []byte) (f *gguf.File, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("kvscope: the GGUF reader failed on this file (%v)", r)
		}
	}()
	return gguf.Load(bytes.NewReader(b), int64(len(b)))
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
