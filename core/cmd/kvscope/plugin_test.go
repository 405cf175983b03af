package main

import (
	"bytes"
	"flag"
	"slices"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/kv"
	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/core/store"
	"github.com/kvscope/kvscope/viz/view"
)

// A policy and a quantizer defined in this file only, each through its
// package's registration: nothing else in the repository names them.
// keyNormFirst keeps the tokens with the largest key norms (the opposite
// of Knorm); exactCodec stores every stored coordinate as a float32.
var (
	keyNormFirst = func() kv.Policy {
		p, err := kv.Register(kv.Description{
			Name: "plugged-test", Label: "plugged (test)", Color: "#0a0b0c",
			Short: "keeps the keys with the largest L2 norm (a test's policy)",
			Help:  "Registered by the command line's tests to show that a policy plugs in from one file.",
			Reads: []kv.Setting{{Param: kv.ParamSink}, {Param: kv.ParamRecent}, {Param: kv.ParamHeavy}, {Param: kv.ParamShared}, {Param: kv.ParamAlloc}},
		}, func(t kv.Token) float64 { return float64(t.KeyNorm) })
		if err != nil {
			panic(err)
		}
		return p
	}()
	exactQuantizer = func() store.Quantizer {
		q, err := store.Register(store.QuantizerDef{
			Name: "plugged-q-test", Label: "float32 copy (test)", Help: "every coordinate as a float32 (a test's quantizer)",
			New: func(c store.Config, stored, capacity int) (store.Codec, error) {
				return &exactCodec{sd: stored, x: make([]float32, capacity*stored)}, nil
			},
		})
		if err != nil {
			panic(err)
		}
		return q
	}()
)

type exactCodec struct {
	store.CodecDefaults
	sd int
	x  []float32
}

func (e *exactCodec) Encode(slot int, c []float32) { copy(e.x[slot*e.sd:(slot+1)*e.sd], c) }
func (e *exactCodec) Decode(slot int, dst []float32) {
	copy(dst, e.x[slot*e.sd:(slot+1)*e.sd])
}
func (e *exactCodec) Dot(q []float32, slot int) float32 {
	var t float32
	for j, v := range e.x[slot*e.sd : (slot+1)*e.sd] {
		t += q[j] * v
	}
	return t
}
func (e *exactCodec) Add(acc []float32, w float32, slot int) {
	for j, v := range e.x[slot*e.sd : (slot+1)*e.sd] {
		acc[j] += w * v
	}
}
func (e *exactCodec) Items(sealed int) store.Items {
	return store.Items{Payload: int64(4 * sealed * e.sd)}
}

// A policy and a quantizer defined in one test file are found everywhere
// the built-in ones are, with no other file changed: in the command
// line's help and runs, the page's menus, controls and links, the chart's
// catalog (its names, colours and settings) and the model-scale
// projection.
func TestAPolicyAndAQuantizerPlugIn(t *testing.T) {
	// The command line's help.
	var help bytes.Buffer
	if err := run([]string{"-help"}, &help, &help); err != flag.ErrHelp {
		t.Fatalf("-help returned %v", err)
	}
	for _, want := range []string{"plugged-test -sink -recent -heavy -shared -alloc", "plugged (test): keeps the keys with the largest L2 norm",
		"plugged-q-test", "every coordinate as a float32"} {
		if !strings.Contains(help.String(), want) {
			t.Errorf("help lacks %q", want)
		}
	}
	// A run with both.
	var out, errOut bytes.Buffer
	if err := run(strings.Fields("-policy plugged-test -sink 4 -recent 20 -heavy 8 -quant plugged-q-test -bits 4 -tokens 200"), &out, &errOut); err != nil {
		t.Fatal(err, errOut.String())
	}
	if !strings.Contains(out.String(), "plugged-test: each head keeps 32 tokens: 4 sinks + 8 heavy hitters + 20 recent") {
		t.Errorf("the run's summary:\n%s", out.String())
	}

	// The page: its menus, a link naming them, its controls and titles.
	if !slices.ContainsFunc(view.Menu("policy"), func(o view.Option) bool { return o.Value == "plugged-test" && o.Label == "plugged (test)" }) {
		t.Errorf("the policy menu lacks the policy: %v", view.Menu("policy"))
	}
	if !slices.ContainsFunc(view.Menu("quant"), func(o view.Option) bool { return o.Value == "plugged-q-test" && o.Label == "float32 copy (test)" }) {
		t.Errorf("the quantizer menu lacks the quantizer: %v", view.Menu("quant"))
	}
	s, ns := view.Decode("policy=plugged-test&sink=4&recent=20&heavy=8&quant=plugged-q-test&bits=4")
	if len(ns) > 0 || s.A.Policy != "plugged-test" || s.A.Quant != "plugged-q-test" {
		t.Fatalf("a link naming them reads %q, %q: %v", s.A.Policy, s.A.Quant, ns)
	}
	if !view.Relevant(&s.A, "heavy") || view.Relevant(&s.A, "chunk") || view.Relevant(&s.A, "vweight") {
		t.Error("the controls the policy reads are not the active ones")
	}
	if got := view.ConfigName(&s.A); got != "plugged (test) · each head keeps 32 tokens: 4 sinks + 8 heavy hitters + 20 recent · 4-bit float32 copy (test)" {
		t.Errorf("title %q", got)
	}
	// The chart's catalog.
	cat := view.Catalogue()
	i := slices.IndexFunc(cat.Policies, func(p view.CatalogPolicy) bool { return p.Name == "plugged-test" })
	if i < 0 || cat.Policies[i].Label != "plugged (test)" || cat.Policies[i].Color != "#0a0b0c" || !slices.Contains(cat.Policies[i].Reads, "heavy") {
		t.Errorf("the catalog's entry: %+v", cat.Policies)
	}
	if !slices.ContainsFunc(cat.Quantizers, func(o view.Option) bool { return o.Value == "plugged-q-test" }) {
		t.Error("the catalog lacks the quantizer")
	}
	if d := view.Definitions()["ctl-quant"]; !strings.Contains(d.Formula, "float32 copy (test)") {
		t.Errorf("the quantizer's definition lacks it: %q", d.Formula)
	}

	// The simulator and its projection.
	c := s.A
	c.Tokens, c.RefStride = 300, 4
	e, err := sim.New(c)
	if err != nil {
		t.Fatal(err)
	}
	e.RunTo(c.Tokens)
	m := sim.Models[0]
	p := e.ProjectTo(m, 128<<10)
	if p.Kept != 32 || p.Stored <= p.Index || p.Stored >= p.Full {
		t.Errorf("projection %+v: want 32 tokens kept per head, stored within the FP16 history", p)
	}
	if q := c.ProjectSnapshot(e.Snapshot(0), m, 128<<10); q != p {
		t.Errorf("the page's projection %+v, the engine's %+v", q, p)
	}
	if last, _ := e.Metrics(); !(last.KErr < 1e-6) {
		t.Errorf("the exact codec bends keys by %v", last.KErr)
	}
	if kv.Policies()[len(kv.Policies())-1] != keyNormFirst || store.Quantizers[exactQuantizer] != "plugged-q-test" {
		t.Error("registered in the wrong place")
	}
}
