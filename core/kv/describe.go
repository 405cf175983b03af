package kv

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A Description is everything a policy says about itself, written once in
// its own file: the simulator, the page (its menus, controls, titles,
// definitions and chart) and the command line (its flags and help) read
// it instead of keeping their own copies.
type Description struct {
	Name  string // what ParsePolicy accepts and a link or a flag writes: lower case, no spaces
	Label string // a short name for menus and legends: "H2O", "StreamingLLM"
	Title string // the heading of its definition on the page ("" is Label)
	Short string // one line: what it keeps (the command line's help)
	Help  string // a few sentences for a learner: its idea and what to watch for
	Paper string // where it comes from ("" for a baseline)
	Color string // "#rrggbb": its colour in the page's charts, distinct from every other policy's

	// Scored names the tokens it keeps for their score, beyond its sinks
	// and recent window (the Heavy setting): "heavy hitters", "lowest key
	// norms"; "" is "heavy hitters".
	Scored string
	// Reads lists the settings it reads, with their ranges; the others
	// change nothing it does (Params is their union).
	Reads []Setting
	// Budgeted reports that it evicts down to a token budget per head
	// after every step: the sum of its Budget settings (Config.Budget).
	Budgeted bool
	// KeysAsStored reports that it reads the cached keys as they were
	// stored (page bounds, a mean key), so a cache that re-positions keys
	// by their slot cannot run it.
	KeysAsStored bool
	// Landmark reports that it is one of the few policies a quick
	// comparison shows: a window alone, sinks and a window, accumulated
	// and latest attention (a real model's chart, where every point
	// decodes a text three times, runs only these).
	Landmark bool
	// Reconstructs reports that it compresses the prompt by scores a real
	// model's reconstruction pass gives it (Layer.Zip: KVzip); without a
	// model, the prompt's own attention stands in.
	Reconstructs bool
	// Work is the relative work of a decoding step per token it holds
	// (1 when 0), for estimating a sweep's share of work: ExpectedAttention
	// rescoring against its query window costs more, Quest attending to
	// its best pages less.
	Work float64
}

// A Setting is one Config setting a policy reads.
type Setting struct {
	Param Param
	// Min and Max bound the values the policy accepts, inclusive (Max 0:
	// no bound beyond Config.Validate's own); Config.Validate checks them.
	Min, Max float64
	// Budget reports that the setting counts toward the policy's token
	// budget per head (Config.TokenBudget): SetBudget sets it.
	Budget bool
	// Means says what the setting is to this policy when it is not its
	// usual meaning ("the prompt's observation window").
	Means string
}

// scorerReads are the settings a scorer reads: the sink, recent and heavy
// settings making its budget, an allocator, merging, and extra.
func scorerReads(extra ...Param) []Setting {
	s := []Setting{{Param: ParamSink, Budget: true}, {Param: ParamRecent, Budget: true}, {Param: ParamHeavy, Budget: true}, {Param: ParamAlloc}, {Param: ParamMerge}}
	for _, p := range extra {
		s = append(s, Setting{Param: p})
	}
	return s
}

// sortReads orders settings as Param's bits are.
func sortReads(s []Setting) {
	slices.SortFunc(s, func(a, b Setting) int { return int(a.Param) - int(b.Param) })
}

// Describe returns p's description (a copy), with Roles filled in; the
// zero Description for an unknown policy.
func (p Policy) Describe() Description {
	if !p.valid() {
		return Description{}
	}
	d := p.def().desc
	d.Reads = append([]Setting(nil), d.Reads...)
	if d.Title == "" {
		d.Title = d.Label
	}
	if d.Scored == "" {
		d.Scored = "heavy hitters"
	}
	if d.Work == 0 {
		d.Work = 1
	}
	return d
}

// Setting returns the description of setting s of d, false when d does
// not read it.
func (d Description) Setting(s Param) (Setting, bool) {
	for _, r := range d.Reads {
		if r.Param == s {
			return r, true
		}
	}
	return Setting{}, false
}

// Roles returns the roles policy p gives the tokens it caches, in the
// order Sink, Recent, Heavy, Kept.
func (p Policy) Roles() []Role {
	if !p.valid() {
		return nil
	}
	d := p.def()
	has := map[Role]bool{}
	if d.role != nil {
		for _, r := range d.roles {
			has[r] = true
		}
	} else {
		has[Sink], has[Recent] = d.sinks, d.recent
		has[d.scoredRole] = d.params&ParamHeavy != 0 || !d.sinks && !d.recent
	}
	var out []Role
	for _, r := range []Role{Sink, Recent, Heavy, Kept} {
		if has[r] {
			out = append(out, r)
		}
	}
	return out
}

// value returns the Config field setting s stands for.
func (c Config) value(s Param) float64 {
	switch s {
	case ParamSink:
		return float64(c.Sink)
	case ParamRecent:
		return float64(c.Recent)
	case ParamHeavy:
		return float64(c.Heavy)
	case ParamChunk:
		return float64(c.ChunkSize)
	case ParamDrop:
		return c.DropShare
	case ParamPages:
		return float64(c.Pages)
	case ParamPageSize:
		return float64(c.PageSize)
	}
	return 0
}

// checkRanges checks the settings c's policy reads against their ranges.
func (c Config) checkRanges() error {
	d := c.Policy.def()
	for _, s := range d.desc.Reads {
		if s.Min == 0 && s.Max == 0 {
			continue
		}
		v := c.value(s.Param)
		if math.IsNaN(v) || v < s.Min || s.Max != 0 && v > s.Max {
			want := "of at least " + num(s.Min)
			if s.Max != 0 {
				want = "in [" + num(s.Min) + ", " + num(s.Max) + "]"
			}
			what := s.Param.words()
			if s.Means != "" {
				what += " (" + s.Means + ")"
			}
			return fmt.Errorf("kv: %s needs a %s %s, got %s", c.Policy, what, want, num(v))
		}
	}
	return nil
}

// words names a single setting in an error message.
func (p Param) words() string {
	switch p {
	case ParamSink:
		return "sink count"
	case ParamRecent:
		return "recent window"
	case ParamHeavy:
		return "heavy count"
	case ParamChunk:
		return "chunk size"
	case ParamDrop:
		return "drop share"
	case ParamPages:
		return "page count"
	case ParamPageSize:
		return "page size"
	}
	return p.String()
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// TokenBudget is the sum of the budget settings c's policy reads (see
// Setting.Budget): the tokens a head keeps once the cache is full for a
// budgeted policy, DuoAttention's streaming heads' sinks and window; 0
// for a policy without budget settings (full, chunk, snapkv, quest).
func (c Config) TokenBudget() int {
	if !c.Policy.valid() {
		return 0
	}
	return c.sumOf(c.Policy.def().budget, c.Heavy)
}

// sumOf adds up the settings of ps among the sink, recent and heavy, with
// heavy as the heavy setting.
func (c Config) sumOf(ps Param, heavy int) int {
	n := 0
	if ps&ParamSink != 0 {
		n += c.Sink
	}
	if ps&ParamRecent != 0 {
		n += c.Recent
	}
	if ps&ParamHeavy != 0 {
		n += heavy
	}
	return n
}

// Keeps says in a few words what each head of a layer of c keeps, from
// the settings its policy reads: "each head keeps 64 tokens: 4 sinks +
// 28 heavy hitters + 32 recent", or for Quest "nothing is evicted; each
// query reads only its 4 best pages of 16 tokens and the newest". It is
// the one text: the page's titles and the command line both print it.
func (c Config) Keeps() string {
	if !c.Policy.valid() {
		return c.Policy.String()
	}
	d := c.Policy.def()
	if d.keeps != nil {
		return d.keeps(c)
	}
	if d.budget == 0 {
		return "each head keeps every token"
	}
	var terms []string
	if d.budget&ParamSink != 0 {
		terms = append(terms, strconv.Itoa(c.Sink)+" sinks")
	}
	if d.budget&ParamHeavy != 0 {
		terms = append(terms, strconv.Itoa(c.Heavy)+" "+c.Policy.Describe().Scored)
	}
	if d.budget&ParamRecent != 0 {
		terms = append(terms, strconv.Itoa(c.Recent)+" recent")
	}
	return fmt.Sprintf("each head keeps %d tokens: %s", c.TokenBudget(), strings.Join(terms, " + "))
}

// A Token is what a policy registered with Register sees of one cached
// token when it ranks it.
type Token struct {
	Pos       int     // its position in the text
	Attention float64 // the attention it received, summed over the steps it was cached, averaged over its head's query heads
	KeyNorm   float32 // ‖k‖ as it arrived
	ValueNorm float32 // ‖v‖ as it arrived
}

// registrable are the settings a registered policy may read.
const registrable = budgetParams | ParamShared | ParamAlloc | ParamMerge | ParamValueWeight

var colorRE = regexp.MustCompile(`^#[0-9a-f]{6}$`)

// Register adds a budgeted scoring policy defined outside kv and returns
// it: keep ranks a cached token (higher keeps) and must allocate nothing.
// Over budget, the token with the lowest keep outside the sinks (if it
// reads Sink) and the recent window (if it reads Recent) goes, as for the
// built-in scorers; every allocator, Merge and a shared decision compose
// with it. d.Reads may name the sink, recent and heavy settings (each
// counts toward the budget), Shared, Alloc, Merge and ValueWeight (which
// rescales keep by ‖v‖); it must read Recent or Heavy. ParsePolicy,
// Policies, Describe and everything that reads them then know the policy
// as they know the built-in ones. Register returns an error, registering
// nothing, for a name that is empty, not lower case, holds spaces or is
// taken, an empty label, a colour that is not "#rrggbb" (lower case) or is
// another policy's, a nil keep or settings it cannot read. Call it from an
// init function: it is not safe for concurrent use.
func Register(d Description, keep func(Token) float64) (Policy, error) {
	d.Reads = append([]Setting(nil), d.Reads...)
	var ps Param
	for i, s := range d.Reads {
		ps |= s.Param
		d.Reads[i].Budget = s.Param&budgetParams != 0
	}
	switch {
	case d.Name == "" || d.Name != strings.ToLower(d.Name) || strings.ContainsAny(d.Name, " \t\n,&=#"):
		return 0, fmt.Errorf("kv: policy name %q must be lower case without spaces", d.Name)
	case d.Label == "":
		return 0, fmt.Errorf("kv: policy %q has no label", d.Name)
	case !colorRE.MatchString(d.Color):
		return 0, fmt.Errorf("kv: policy %q: colour %q is not #rrggbb in lower case", d.Name, d.Color)
	case keep == nil:
		return 0, fmt.Errorf("kv: policy %q has no keep rule", d.Name)
	case ps&^registrable != 0:
		return 0, fmt.Errorf("kv: policy %q reads %v; a registered policy reads only %v", d.Name, ps&^registrable, registrable)
	case ps&(ParamRecent|ParamHeavy) == 0:
		return 0, fmt.Errorf("kv: policy %q must read recent or heavy to have a budget", d.Name)
	case len(registry) >= 255:
		return 0, fmt.Errorf("kv: too many policies")
	}
	for _, p := range Policies() {
		o := p.def().desc
		if strings.EqualFold(o.Name, d.Name) {
			return 0, fmt.Errorf("kv: policy %q is already defined", d.Name)
		}
		if strings.EqualFold(o.Color, d.Color) {
			return 0, fmt.Errorf("kv: policy %q: colour %s is %s's", d.Name, d.Color, o.Name)
		}
	}
	sortReads(d.Reads)
	p := Policy(max(len(registry), int(numPolicies))) // after the built-in ones, even before their init
	define(p, &policyDef{
		desc: d, budgeted: true, sinks: ps&ParamSink != 0, recent: ps&ParamRecent != 0,
		scoredRole: Heavy, keyNorms: true, valueNorms: true, stateBytes: 16,
		observe: accumulateAttention,
		keep: func(_ *Layer, h *head, i int) float64 {
			return keep(Token{Pos: int(h.pos[i]), Attention: h.score[i], KeyNorm: h.norm[i], ValueNorm: h.vnorm[i]})
		},
	})
	return p, nil
}
