package view

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/kvscope/kvscope/core/kv"
	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/core/store"
)

// Relevant reports whether setting key (a field's key, "b." allowed)
// matters for configuration c, so that the page can dim the controls that
// do not: an eviction setting matters when c's policy reads it (its
// kv.Description's Reads: DuoAttention reads no allocator, SnapKV no
// sinks, only Quest a page size), a quantization setting below 16 bits,
// a setting only the uniform quantizer takes (outliers, low rank) unless
// another quantizer codes the tokens; every other setting always matters.
func Relevant(c *sim.Config, key string) bool {
	f, _, ok := Lookup(key)
	switch {
	case !ok:
		return true
	case f.Param != 0:
		p, err := kv.ParsePolicy(c.Policy)
		return err != nil || p.Params()&f.Param != 0
	case f.UniformOnly && c.Bits < 16 && c.Quant != "" && c.Quant != store.Uniform.String():
		return false
	case f.Quantized:
		return c.Bits < 16
	}
	return true
}

// An Option is one entry of one of the page's menus.
type Option struct {
	Value string `json:"value"` // what the setting (and a link) holds
	Label string `json:"label"` // what the menu shows
	Title string `json:"title"` // a tooltip: one line on what it does ("" for none)
}

// granLabels, rotateLabels, modeLabels and taskLabels are the page's
// names of the settings that have no description of their own elsewhere.
var (
	granLabels   = map[string]string{"tensor": "per tensor", "channel": "per channel", "token": "per token", "group": "groups of channels", "kivi": "KIVI (K channel, V token)"}
	rotateLabels = map[string]string{"none": "none", "hadamard": "Hadamard"}
	modeLabels   = map[string]string{ModeSynthetic: "synthetic stream", ModeModel: "real model"}
	taskLabels   = map[string]string{sim.TaskCopy: "copy random tokens", sim.TaskName: "recall a name", sim.TaskMagic: "the magic word"}
)

// Menu returns the entries of the page's menu named key — the settings
// policy, quant, alloc, rotate, gran, mode and scale (a select's
// data-key), and the page's own preset, task and metric menus — each
// from its one description: the policies' and allocators' in core/kv,
// the quantizers' in core/store, the measures' in core/sim. It returns
// nil for another key.
func Menu(key string) []Option {
	var out []Option
	switch key {
	case "policy":
		for _, p := range kv.Policies() {
			d := p.Describe()
			out = append(out, Option{Value: d.Name, Label: d.Label, Title: d.Short})
		}
	case "quant":
		for _, name := range store.Quantizers {
			q, _ := store.ParseQuantizer(name)
			d, _ := q.Def()
			out = append(out, Option{Value: d.Name, Label: d.Label, Title: d.Help})
		}
	case "alloc":
		for _, a := range kv.Allocs() {
			out = append(out, Option{Value: a.String(), Label: a.Label()})
		}
	case "rotate":
		out = labelled(Rotations, rotateLabels)
	case "gran":
		out = labelled(Granularities, granLabels)
	case "mode":
		out = labelled(Modes, modeLabels)
	case "scale":
		for _, m := range Models {
			out = append(out, Option{Value: m.Key, Label: m.Name})
		}
	case "preset":
		for _, p := range sim.Presets {
			out = append(out, Option{Value: p.Name, Label: p.Title})
		}
	case "task":
		out = labelled(sim.TaskKinds, taskLabels)
	case "metric":
		for _, m := range sim.Measures {
			if m.Chart {
				out = append(out, Option{Value: m.Key, Label: m.Label})
			}
		}
	case "bits":
		for _, b := range BitWidths {
			o := Option{Value: strconv.Itoa(b), Label: strconv.Itoa(b), Title: "INT" + strconv.Itoa(b) + ": integer codes with a scale and zero point"}
			switch b {
			case 32:
				o.Title = "float32: stored exactly"
			case 16:
				o.Title = "FP16: half precision, the usual cache format"
			}
			out = append(out, o)
		}
	}
	return out
}

// labelled pairs values with their labels (a value without one is its
// own label).
func labelled(values []string, labels map[string]string) []Option {
	out := make([]Option, len(values))
	for i, v := range values {
		out[i] = Option{Value: v, Label: v}
		if l, ok := labels[v]; ok {
			out[i].Label = l
		}
	}
	return out
}

// StorageName says in a few words how c stores what it keeps: "FP16",
// "INT4 per channel, FP16 residual 32", "4-bit TurboQuant", with the
// rank when low rank is on.
func StorageName(c *sim.Config) string {
	var s string
	switch {
	case c.Bits >= 32:
		s = "float32"
	case c.Bits == 16:
		s = "FP16"
	default:
		q, err := store.ParseQuantizer(c.Quant)
		d, _ := q.Def()
		switch {
		case err != nil || q != store.Uniform:
			label := c.Quant
			if err == nil {
				label = d.Label
			}
			s = strconv.Itoa(c.Bits) + "-bit " + label
		case c.Granularity == "kivi":
			s = "INT" + strconv.Itoa(c.Bits) + " KIVI"
		default:
			s = "INT" + strconv.Itoa(c.Bits) + " per " + c.Granularity
		}
		if c.Residual > 0 {
			s += ", FP16 residual " + strconv.Itoa(c.Residual)
		}
	}
	if c.Rank > 0 {
		s += ", rank " + strconv.Itoa(c.Rank)
	}
	return s
}

// ConfigName is the one-line title of a configuration: its policy, what
// each head keeps and how it is stored.
func ConfigName(c *sim.Config) string {
	return PolicyName(c.Policy) + " · " + BudgetText(c) + " · " + StorageName(c)
}

// A Catalog is what the page's JavaScript (the chart, its menus and
// legends) knows of kvscope's techniques and measures, exported once at
// start-up from their Go descriptions (window.kvscope.catalog()).
type Catalog struct {
	Policies   []CatalogPolicy  `json:"policies"`
	Quantizers []Option         `json:"quantizers"`
	Measures   []CatalogMeasure `json:"measures"`
}

// CatalogPolicy is one policy as the page's JavaScript draws it.
type CatalogPolicy struct {
	Name  string `json:"name"`
	Label string `json:"label"`
	Title string `json:"title"`
	Help  string `json:"help"`
	Paper string `json:"paper,omitempty"`
	Color string `json:"color"`
	// Reads are the keys of the eviction settings it reads (Field.Param):
	// the settings that tell two of its points apart.
	Reads []string `json:"reads"`
}

// CatalogMeasure is one fidelity measure (sim.Measure) as the chart
// plots it.
type CatalogMeasure struct {
	Key        string   `json:"key"`
	Label      string   `json:"label"`
	Up         bool     `json:"up"`
	Unit       string   `json:"unit"`
	Perfect    *float64 `json:"perfect"` // null: the row's PerfectKey holds it
	PerfectKey string   `json:"perfectKey,omitempty"`
	Model      bool     `json:"model"`
	Chart      bool     `json:"chart"`
}

// Catalogue returns the catalog of every policy (built-in and registered),
// quantizer and measure.
func Catalogue() Catalog {
	var c Catalog
	for _, p := range kv.Policies() {
		d := p.Describe()
		cp := CatalogPolicy{Name: d.Name, Label: d.Label, Title: d.Title, Help: d.Help, Paper: d.Paper, Color: d.Color, Reads: []string{}}
		for _, f := range Fields() {
			if f.Param != 0 && p.Params()&f.Param != 0 {
				cp.Reads = append(cp.Reads, f.Key)
			}
		}
		c.Policies = append(c.Policies, cp)
	}
	c.Quantizers = Menu("quant")
	for _, m := range sim.Measures {
		cm := CatalogMeasure{Key: m.Key, Label: m.Label, Up: m.Up, Unit: m.Unit, PerfectKey: m.PerfectKey, Model: m.Model, Chart: m.Chart}
		if !math.IsNaN(m.Perfect) {
			cm.Perfect = &m.Perfect
		}
		c.Measures = append(c.Measures, cm)
	}
	return c
}

// JSON is the catalog as the page's JavaScript reads it.
func (c Catalog) JSON() string {
	b, err := json.Marshal(c)
	if err != nil {
		return "{}" // a catalog of strings, bools and finite numbers always marshals
	}
	return string(b)
}
