package kv

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// oldestFirst is a policy defined in this file only, through Register: it
// keeps the newest of the tokens outside its windows, scored by position
// alone. Every test in this package that loops over Policies() runs it
// beside the built-in ones.
var oldestFirst = func() Policy {
	p, err := Register(Description{
		Name: "oldest-first-test", Label: "oldest first (test)", Color: "#123456",
		Short: "a test's policy: evicts the oldest token outside the windows",
		Help:  "Registered by core/kv's tests to show that a policy plugs in from one file.",
		Reads: []Setting{{Param: ParamSink}, {Param: ParamRecent}, {Param: ParamHeavy}, {Param: ParamShared}, {Param: ParamAlloc}, {Param: ParamMerge}},
	}, func(t Token) float64 { return float64(t.Pos) })
	if err != nil {
		panic(err)
	}
	return p
}()

var hexColor = regexp.MustCompile(`^#[0-9a-f]{6}$`)

// Every policy describes itself: a name ParsePolicy reads back, a label
// and a colour no other policy has, a line and a paragraph of help, and
// settings it reads within their ranges.
func TestEveryPolicyDescribesItself(t *testing.T) {
	labels, colors := map[string]Policy{}, map[string]Policy{}
	for _, p := range Policies() {
		d := p.Describe()
		if q, err := ParsePolicy(d.Name); err != nil || q != p || p.String() != d.Name {
			t.Errorf("%v: ParsePolicy(%q) = %v, %v", p, d.Name, q, err)
		}
		if d.Label == "" || d.Title == "" || d.Short == "" || d.Help == "" || d.Scored == "" || d.Work <= 0 {
			t.Errorf("%s: incomplete description %+v", d.Name, d)
		}
		if !hexColor.MatchString(d.Color) {
			t.Errorf("%s: colour %q is not #rrggbb", d.Name, d.Color)
		}
		if o, dup := labels[d.Label]; dup {
			t.Errorf("%s and %s are both labelled %q", o, p, d.Label)
		}
		if o, dup := colors[d.Color]; dup {
			t.Errorf("%s and %s are both drawn in %s", o, p, d.Color)
		}
		labels[d.Label], colors[d.Color] = p, p
		var ps Param
		for _, s := range d.Reads {
			if ps&s.Param != 0 || s.Param == 0 || s.Param&(s.Param-1) != 0 {
				t.Errorf("%s: setting %v listed twice or not one setting", d.Name, s.Param)
			}
			ps |= s.Param
			if s.Budget && s.Param&budgetParams == 0 {
				t.Errorf("%s: %v counted in the budget", d.Name, s.Param)
			}
		}
		if ps != p.Params() {
			t.Errorf("%s: Params %v, Reads %v", d.Name, p.Params(), ps)
		}
		if d.Budgeted != p.budgeted() {
			t.Errorf("%s: Budgeted %v", d.Name, d.Budgeted)
		}
		if _, ok := d.Setting(ParamAlloc); ok != d.Budgeted {
			t.Errorf("%s: reads alloc %v, budgeted %v: an allocator splits a budget", d.Name, ok, d.Budgeted)
		}
	}
	if d := Policy(255).Describe(); d.Name != "" || Policy(255).Roles() != nil || Policy(255).Params() != 0 {
		t.Errorf("an unknown policy describes itself: %+v", d)
	}
}

// The ranges a description gives are the ones Validate checks: each
// bound is accepted and a step beyond it refused, naming the setting.
func TestRangesAreValidated(t *testing.T) {
	base := Config{Sink: 2, Recent: 8, Heavy: 6, ChunkSize: 16, DropShare: 0.25, Heads: 2, KVHeads: 2, Dim: 4, MaxTokens: 100}
	set := func(c *Config, p Param, v float64) {
		switch p {
		case ParamRecent:
			c.Recent = int(v)
		case ParamHeavy:
			c.Heavy = int(v)
		case ParamChunk:
			c.ChunkSize = int(v)
		case ParamDrop:
			c.DropShare = v
		case ParamPages:
			c.Pages = int(v)
		case ParamPageSize:
			c.PageSize = int(v)
		default:
			t.Fatalf("no setter for %v", p)
		}
	}
	checked := 0
	for _, p := range Policies() {
		for _, s := range p.Describe().Reads {
			if s.Min == 0 && s.Max == 0 {
				continue
			}
			step := 1.0
			if s.Param == ParamDrop {
				step = 0.01
			}
			bounds := []float64{s.Min}
			if s.Max != 0 {
				bounds = append(bounds, s.Max)
			}
			for i, v := range bounds {
				c := base
				c.Policy = p
				set(&c, s.Param, v)
				if err := c.Validate(); err != nil {
					t.Errorf("%v %v = %v (a bound) refused: %v", p, s.Param, v, err)
				}
				beyond := v - step
				if i == 1 {
					beyond = v + step
				}
				set(&c, s.Param, beyond)
				if err := c.Validate(); err == nil || !strings.Contains(err.Error(), s.Param.words()) {
					t.Errorf("%v %v = %v (beyond a bound): %v", p, s.Param, beyond, err)
				}
				checked++
			}
		}
	}
	if checked < 6 {
		t.Errorf("only %d bounds checked", checked)
	}
}

// Keeps reads the settings a policy reads, and only those: Quest's pages
// are the configuration's, not a default written into a text.
func TestKeeps(t *testing.T) {
	c := Config{Sink: 4, Recent: 32, Heavy: 28, ChunkSize: 128, DropShare: 0.3, Pages: 2, PageSize: 8}
	for _, tc := range []struct {
		p    Policy
		want string
	}{
		{Full, "each head keeps every token"},
		{Window, "each head keeps 32 tokens: 32 recent"},
		{Streaming, "each head keeps 36 tokens: 4 sinks + 32 recent"},
		{H2O, "each head keeps 64 tokens: 4 sinks + 28 heavy hitters + 32 recent"},
		{Random, "each head keeps 64 tokens: 4 sinks + 28 random picks + 32 recent"},
		{Chunk, "each head drops 30% of every chunk of 128 tokens"},
		{SnapKV, "the prompt's last 32 queries choose 28 prompt tokens per head; every generated token stays"},
		{Duo, "streaming heads keep 4 sinks + 32 recent, retrieval heads every token (told apart after 64 tokens)"},
		{Quest, "nothing is evicted; each query reads only its 2 best pages of 8 tokens and the newest"},
		{oldestFirst, "each head keeps 64 tokens: 4 sinks + 28 heavy hitters + 32 recent"},
	} {
		c.Policy = tc.p
		if got := c.Keeps(); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.p, got, tc.want)
		}
	}
	c.Policy, c.Pages, c.PageSize = Quest, 0, 0
	if got := c.Keeps(); !strings.Contains(got, fmt.Sprintf("its %d best pages of %d tokens", DefaultPages, DefaultPageSize)) {
		t.Errorf("Quest's defaults: %q", got)
	}
}

// TokenBudget is what SetBudget sets: the budget settings' sum, Duo's
// streaming heads' sinks and window included, nothing for the policies
// without budget settings.
func TestTokenBudgetIsWhatSetBudgetSets(t *testing.T) {
	for _, p := range Policies() {
		c := Config{Policy: p, Heads: 2, KVHeads: 2, Dim: 4, MaxTokens: 200, MaxPrompt: 50, ChunkSize: 16}
		got, ok := c.SetBudget(40, 4)
		hasBudget := p.def().budget != 0
		if hasBudget && (!ok || got.TokenBudget() != 40) {
			t.Errorf("%v: SetBudget(40) gives a token budget of %d (%v)", p, got.TokenBudget(), ok)
		}
		if !hasBudget && got.TokenBudget() != 0 {
			t.Errorf("%v: a token budget of %d without budget settings", p, got.TokenBudget())
		}
	}
}

// A policy's tokens take only the roles it says.
func TestRolesAreWhatARunShows(t *testing.T) {
	for _, p := range Policies() {
		cfg := Config{Policy: p, Sink: 2, Recent: 6, Heavy: 5, ChunkSize: 8, DropShare: 0.3, Seed: 2,
			Heads: 4, KVHeads: 2, Dim: 8, MaxTokens: 90, MaxPrompt: 30}
		l, _ := runPolicy(t, cfg, 90)
		says := map[Role]bool{}
		for _, r := range p.Roles() {
			says[r] = true
		}
		seen := map[Role]bool{}
		for g := range cfg.KVHeads {
			for i := range l.Len(g) {
				seen[l.Role(g, i)] = true
			}
		}
		for r := range seen {
			if !says[r] {
				t.Errorf("%v gives role %v, not among its Roles %v", p, r, p.Roles())
			}
		}
		if len(seen) == 0 {
			t.Errorf("%v: no tokens", p)
		}
	}
}

// A registered policy runs as the built-in scorers do: it keeps its
// budget, protects its windows, composes with AdaKV and merging, and
// decodes without allocating.
func TestRegisteredPolicyRuns(t *testing.T) {
	if q, err := ParsePolicy("Oldest-First-Test"); err != nil || q != oldestFirst {
		t.Fatalf("ParsePolicy: %v, %v", q, err)
	}
	if got := Policies(); got[len(got)-1] != oldestFirst {
		t.Fatalf("Policies() ends with %v", got[len(got)-1])
	}
	for _, alloc := range []Alloc{Uniform, AdaKV} {
		cfg := Config{Policy: oldestFirst, Sink: 2, Recent: 4, Heavy: 6, Alloc: alloc, Merge: alloc == Uniform,
			Heads: 4, KVHeads: 2, Dim: 8, MaxTokens: 80, Seed: 1}
		l, _ := runPolicy(t, cfg, 80)
		total := 0
		for g := range cfg.KVHeads {
			total += l.Len(g)
			if ps := l.Positions(g); ps[0] != 0 || ps[1] != 1 {
				t.Errorf("%v: head %d lost a sink", alloc, g)
			}
		}
		if total != 2*12 {
			t.Errorf("%v: the heads keep %d tokens, want %d", alloc, total, 24)
		}
		if alloc == Uniform {
			// Oldest first: the heavy part is the 6 tokens just before the window.
			for i, want := range []int{0, 1, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79} {
				if got := int(l.Positions(0)[i]); got != want {
					t.Errorf("token %d at position %d, want %d", i, got, want)
				}
			}
		}
	}
	cfg := Config{Policy: oldestFirst, Sink: 2, Recent: 4, Heavy: 6, Heads: 2, KVHeads: 2, Dim: 8, MaxTokens: 400}
	l, s := runPolicy(t, cfg, 100)
	out := make([]float32, cfg.Heads*cfg.Dim)
	pos := 100
	if a := testing.AllocsPerRun(100, func() {
		_ = l.Step(pos, s.q, s.k, s.v, out)
		pos++
	}); a != 0 {
		t.Errorf("a step allocates %v times", a)
	}
	if err := (Config{Policy: oldestFirst, Recent: 4, ValueWeight: true, Heads: 2, KVHeads: 2, Dim: 8, MaxTokens: 40}).Validate(); err == nil {
		t.Error("value weighting accepted for a policy that does not read it")
	}
}

// Register refuses a description it could not show or run.
func TestRegisterRefuses(t *testing.T) {
	keep := func(Token) float64 { return 0 }
	ok := Description{Name: "x-test", Label: "x", Color: "#abcdef", Reads: []Setting{{Param: ParamRecent}}}
	for _, tc := range []struct {
		name string
		mod  func(d *Description)
		keep func(Token) float64
		want string
	}{
		{"taken name", func(d *Description) { d.Name = "h2o" }, keep, "already defined"},
		{"upper case", func(d *Description) { d.Name = "X-test" }, keep, "lower case"},
		{"no label", func(d *Description) { d.Label = "" }, keep, "no label"},
		{"bad colour", func(d *Description) { d.Color = "red" }, keep, "#rrggbb"},
		{"taken colour", func(d *Description) { d.Color = "#009e73" }, keep, "h2o's"},
		{"no keep", func(d *Description) {}, nil, "no keep rule"},
		{"chunk setting", func(d *Description) { d.Reads = append(d.Reads, Setting{Param: ParamChunk}) }, keep, "reads chunk"},
		{"no budget", func(d *Description) { d.Reads = []Setting{{Param: ParamSink}} }, keep, "recent or heavy"},
	} {
		d := ok
		d.Reads = append([]Setting(nil), ok.Reads...)
		tc.mod(&d)
		n := len(Policies())
		if _, err := Register(d, tc.keep); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.name, err, tc.want)
		}
		if len(Policies()) != n {
			t.Errorf("%s: registered anyway", tc.name)
		}
	}
}

func ExampleConfig_Keeps() {
	c := Config{Policy: Quest, Pages: 8, PageSize: 32}
	fmt.Println(c.Keeps())
	c = Config{Policy: H2O, Sink: 4, Recent: 32, Heavy: 28}
	fmt.Println(c.Keeps())
	// Output:
	// nothing is evicted; each query reads only its 8 best pages of 32 tokens and the newest
	// each head keeps 64 tokens: 4 sinks + 28 heavy hitters + 32 recent
}
