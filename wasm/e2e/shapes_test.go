//go:build !js

package e2e

import (
	"math"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kvscope/kvscope/core/model/bench"
	"github.com/kvscope/kvscope/core/model/gguf"
	"github.com/kvscope/kvscope/core/model/ggufwrite"
)

// pageShapes are the real models' shapes the page is measured on
// (synthesized weights, real widths, layers and vocabularies).
var pageShapes = []struct {
	name string
	spec ggufwrite.LlamaSpec
}{
	{"SmolLM2-135M Q8_0", ggufwrite.SmolLM2_135M},
	{"SmolLM2-135M F16", func() ggufwrite.LlamaSpec {
		s := ggufwrite.SmolLM2_135M
		s.Type, s.EmbedType = gguf.TypeF16, gguf.TypeF16
		return s
	}()},
	{"Qwen2.5-0.5B Q8_0", func() ggufwrite.LlamaSpec {
		// A spread of logits that keeps the greedy text off EOS for a
		// while (with the default the synthesized run ended at step 13).
		s := ggufwrite.Qwen25_05B
		s.EmbedStd = 4 / math.Sqrt(float64(s.Dim))
		return s
	}()},
	{"Llama-3.2-1B Q4_K (Q6_K embedding)", func() ggufwrite.LlamaSpec {
		s := ggufwrite.Llama32_1B
		s.Type, s.EmbedType = gguf.TypeQ4_K, gguf.TypeQ6_K
		return s
	}()},
}

// shapeFile returns s's GGUF file, synthesized once into the temporary
// directory (bench.Path; synthesizing the 1B shape takes minutes).
func shapeFile(t *testing.T, s ggufwrite.LlamaSpec) string {
	t.Helper()
	t0 := time.Now()
	path, err := bench.Path(s)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(t0); d > time.Second {
		t.Logf("synthesized %s in %.0f s", path, d.Seconds())
	}
	return path
}

// TestRealShapesInPage (make measure) opens each shape by a link from a
// second local server in a fresh tab, as a visitor would, and reports the
// time from the link to the first decoded step, the decode rate of the
// page's three decoders while it plays, and the Go heap. Figures, not
// assertions: it fails only if a shape does not load or decode.
func TestRealShapesInPage(t *testing.T) {
	if os.Getenv("KVSCOPE_MEASURE") == "" {
		t.Skip("a measurement: make measure (KVSCOPE_MEASURE=1)")
	}
	if skipReason != "" {
		t.Skip(skipReason)
	}
	for _, sh := range pageShapes {
		t.Run(sh.name, func(t *testing.T) {
			path := shapeFile(t, sh.spec)
			src := serveFile(t, path)
			st, _ := os.Stat(path)
			tb := freshTab(t, viewW, viewH, 1, 10*time.Minute)
			t0 := time.Now()
			if err := chromedp.Do(tb.ctx, chromedp.Navigate(serverURL+"/#play=1&speed=240&mtokens=256&model="+src)); err != nil {
				t.Fatal(err)
			}
			tb.waitJS(`window.kvscope && (s => s.mode === "model" && s.model.loaded && s.step > s.runPrompt)(JSON.parse(window.kvscope.state()))`, 8*time.Minute)
			first := time.Since(t0)
			// The rate over at most 15 s of play, from the step seen first
			// to the last step seen to change (the run may end sooner:
			// time after its end does not count), sampled every 250 ms.
			tb.do(`window.kvscopeRAF = 0; (function tick() { window.kvscopeRAF++; requestAnimationFrame(tick); })()`)
			s0, t1 := tb.state(), time.Now()
			s, tLast := s0, t1
			for time.Since(t1) < 15*time.Second && s.Step < s.Tokens {
				time.Sleep(250 * time.Millisecond)
				if n := tb.state(); n.Step != s.Step {
					s, tLast = n, time.Now()
				}
			}
			frames, _ := strconv.Atoi(tb.eval(`String(window.kvscopeRAF)`))
			fps := float64(frames) / time.Since(t1).Seconds()
			rate := 0.0
			if tLast.After(t1) {
				rate = float64(s.Step-s0.Step) / tLast.Sub(t1).Seconds()
			}
			t.Logf("%s: %d MB file; link to first decoded step %.1f s; %.2f steps/s over %d steps (page's own figure, per second of stepping: %.2f; three decoders a step); %.1f frames/s drawn meanwhile; Update %.0f ms, Draw %.0f ms (moving averages); Go heap %.0f MB; kernels %s",
				sh.name, st.Size()>>20, first.Seconds(), rate, s.Step-s0.Step, s.StepsPerS, fps, s.UpdMs, s.DrawMs, s.HeapMB, s.Kernels)
			if s.Step <= s0.Step && s.Step < s.Tokens {
				// The synthesized weights' greedy text can reach EOS in both
				// runs, which ends the run: the page's own stepping rate is
				// then the figure.
				if s.Text == nil || s.StepsPerS <= 0 {
					t.Errorf("%s did not decode: step %d then %d, text %+v", sh.name, s0.Step, s.Step, s.Text)
				}
				t.Logf("%s: the synthesized text ended at step %d (%q); steps/s is the page's stepping rate", sh.name, s.Step, s.Text.Full)
			}
			tb.close()
			if st.Size() < dropLimit {
				dropped := dropToFirstStep(t, src)
				t.Logf("%s: dropped file to first decoded step %.1f s", sh.name, dropped.Seconds())
			}
		})
	}
}

// dropLimit is the largest shape file dropToFirstStep drops: the page
// then holds the file's bytes twice for a moment (the dropped blob and
// the model), which a 1B shape's 730 MB would take past 2 GB.
const dropLimit = 600 << 20

// dropToFirstStep opens the page in a fresh tab, lets it fetch src as a
// blob (a visitor's file, already in memory), drops it on the page as a
// visitor would and returns the page's own time (performance.now) from the
// drop to its first decoded step of the dropped model.
func dropToFirstStep(t *testing.T, src string) time.Duration {
	t.Helper()
	tb := freshTab(t, viewW, viewH, 1, 10*time.Minute)
	defer tb.close()
	if err := chromedp.Do(tb.ctx, chromedp.Navigate(serverURL+"/#mode=model&play=1&speed=240&mtokens=256")); err != nil {
		t.Fatal(err)
	}
	tb.waitJS(`window.kvscope && JSON.parse(window.kvscope.state()).model.loaded`, 2*time.Minute)
	ms := tb.evalAsync(`fetch(` + strconv.Quote(src) + `).then(r => r.blob()).then(b => new Promise(done => {
		const dt = new DataTransfer();
		dt.items.add(new File([b], "dropped.gguf"));
		const t0 = performance.now();
		document.dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
		const poll = () => {
			const s = JSON.parse(window.kvscope.state());
			if (s.model.error) done("error: " + s.model.error);
			else if (s.model.loaded && s.model.name === "dropped.gguf" && s.step > s.runPrompt) done(String(performance.now() - t0));
			else setTimeout(poll, 20);
		};
		poll();
	}))`)
	v, err := strconv.ParseFloat(ms, 64)
	if err != nil {
		t.Fatalf("the dropped file: %s", ms)
	}
	return time.Duration(v * float64(time.Millisecond))
}
