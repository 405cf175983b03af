package view

import "github.com/kvscope/kvscope/core/sim"

// PageState is the page's numbers as its window.kvscope.state() returns
// them (as JSON), for tests and tools: the page fills it, the browser
// tests read it back. Non-finite metrics are reported as -1.
type PageState struct {
	Ready    bool       `json:"ready"`     // the first picture is drawn
	Step     int        `json:"step"`      // tokens in the history
	Tokens   int        `json:"tokens"`    // the run's length
	Playing  bool       `json:"playing"`   //
	Compare  bool       `json:"compare"`   // configuration B is shown
	Frames   int        `json:"frames"`    // frames drawn
	Version  int        `json:"version"`   // bumps whenever anything shown changes
	Scale    float64    `json:"scale"`     // device px per CSS px
	URL      string     `json:"url"`       // the settings as a link (Encode)
	Notices  []string   `json:"notices"`   // the notices shown
	Sides    []PageSide `json:"sides"`     // the configurations shown
	Broken   bool       `json:"broken"`    // repeated internal errors stopped the simulation
	ScaleTxt string     `json:"scaleText"` // A's model-scale readout
	Replay   bool       `json:"replaying"` // the engines are catching up with the step shown
	UpdMs    float64    `json:"updateMs"`  // moving average of a frame's Update, ms
	DrawMs   float64    `json:"drawMs"`    // moving average of a drawn frame's Draw, ms
	GCs      uint32     `json:"gcs"`       // garbage collections so far
	GCMs     float64    `json:"gcMs"`      // their total pause, ms
	HeapMB   float64    `json:"heapMB"`    // live heap, MiB
	Kernels  string     `json:"kernels"`   // the matrix kernels' path (model.KernelPath)

	Mode      string      `json:"mode"`      // ModeSynthetic or ModeModel
	Model     PageModel   `json:"model"`     // the real model's file
	Text      *PageText   `json:"text"`      // real-model mode: the two texts; nil otherwise
	StepsPerS float64     `json:"stepsPerS"` // engine steps per second of stepping time since the engines were last built
	RunPrompt int         `json:"runPrompt"` // positions of the prompt (real model: BOS + prompt tokens)
	Lesson    *PageLesson `json:"lesson"`    // the open lesson; nil when none
	Breaks    *PageBreaks `json:"breaks"`    // the task heatmap; nil before one is asked for
}

// PageLesson is the open guided lesson (core/lesson).
type PageLesson struct {
	N     int    `json:"n"`     // the lesson's number
	Phase int    `json:"phase"` // 1 measuring the start, 2 asking, 3 measuring the change, 4 answer shown (core/lesson.Phase)
	Claim string `json:"claim"` // the answer written from the measured numbers (phase 4), or what to do before the start can be measured (phase 1)
	Move  string `json:"move"`  // phases 2 and 4: where the asked control stands (core/lesson.Move: still, toward, reached, beyond, away)
	Value string `json:"value"` // phases 2 and 4: the asked settings' values the answer is about, joined by '&'
}

// PageBreaks is the real-model mode's task heatmap (what compression breaks).
type PageBreaks struct {
	Task, Policy string
	Done, Len    int          // cells measured, cells in all
	Cells        []BreaksCell // the measured ones
	Err          string
}

// BreaksCell is one measured cell of the task heatmap: mean log-probability
// of the answer under the compressed and the full cache, nats per token.
type BreaksCell struct {
	Depth       float64
	Budget      int
	Score, Full float64
}

// PageSide is one configuration shown.
type PageSide struct {
	Config   sim.Config         `json:"config"`      // what the engine runs
	Step     int                `json:"step"`        // the step this side shows (its snapshot's history length)
	Name     string             `json:"name"`        // the title above its map
	Kept     float64            `json:"kept"`        // tokens kept per head (KeptPerHead)
	Full     int64              `json:"fullBytes"`   // FP16 bytes of the history
	Evict    int64              `json:"evictBytes"`  // FP16 bytes of what eviction keeps
	Stored   int64              `json:"storedBytes"` // bytes the cache holds
	Metrics  sim.Metrics        `json:"metrics"`     // this step's fidelity
	Mean     sim.Metrics        `json:"mean"`        // the fidelity averaged over the run's reference steps so far (as the chart's rows)
	Measures map[string]float64 `json:"measures"`    // Mean by measure key (sim.Measures), as the chart's rows name them
	CellCSS  float64            `json:"cellCSS"`     // token width on the map, CSS px
	Columns  int                `json:"columns"`     // columns drawn
	Probes   map[string]Probe   `json:"probes"`      // per role name: a cell drawn alone in its column
	Roles    map[string]int     `json:"roles"`       // cells per role name
	Storages map[string]int     `json:"storages"`    // cached cells per storage name
}

// MeasuresOf returns m's measures by their keys (the Metrics ones of
// sim.Measures), as the sweep's rows and the chart name them.
func MeasuresOf(m sim.Metrics) map[string]float64 {
	out := map[string]float64{}
	for _, me := range sim.Measures {
		if v, ok := me.Of(&m); ok {
			out[me.Key] = v
		}
	}
	return out
}

// Probe is a cell on screen: where its centre is (CSS px, viewport) and
// the colour it should be drawn in.
type Probe struct {
	X, Y      float64
	Head, Pos int
	RGB       [3]uint8
}

// PageModel describes the real model's file.
type PageModel struct {
	Loaded bool   `json:"loaded"`
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
	Known  bool   `json:"known"`  // the file is the one the page is made for
	Error  string `json:"error"`  // why loading failed
	Status string `json:"status"` // what the page says about it

	Progress float64 `json:"progress"` // a file downloading (0..0.5) or being converted (0.5..1); −1 (or 0 before any) when none
	Layers   int     `json:"layers"`   // the loaded model's shape
	Vocab    int     `json:"vocab"`

	Source   string        `json:"source"`   // the loaded model's address (State.Source)
	Dropped  bool          `json:"dropped"`  // the loaded model came from a dropped or picked file
	Download *PageDownload `json:"download"` // a file on its way in; nil when none
	Facts    *ModelFacts   `json:"facts"`    // the loaded model's facts
	Sinks    string        `json:"sinks"`    // its sink heads (SinkSummary) once measured
	Cached   []PageCached  `json:"cached"`   // the models kept in the browser's cache
	CacheOK  bool          `json:"cacheOK"`  // the cache was listed
}

// PageDownload is a model file on its way in.
type PageDownload struct {
	Source    string `json:"source"`
	Got       int64  `json:"got"`       // bytes so far
	Total     int64  `json:"total"`     // bytes announced (0: unknown)
	FromCache bool   `json:"fromCache"` // read from the browser's cache, not the network
}

// PageCached is a model kept in the browser's cache.
type PageCached struct {
	Source string `json:"source"`
	Name   string `json:"name"`
	Bytes  int64  `json:"bytes"`
}

// PageText is the real model's two texts and how far they agree.
type PageText struct {
	Full       string  `json:"full"`       // decoded with the uncompressed cache
	Compressed string  `json:"compressed"` // decoded with the compressed cache
	Diverge    int     `json:"diverge"`    // first position where they differ; -1 while identical
	NextKL     float64 `json:"nextKL"`     // this step's next-token KL
	MeanKL     float64 `json:"meanKL"`
	Agreement  float64 `json:"agreement"` // share of steps whose top-1 tokens agree
	// CompressedB is, in compare mode, side B's compressed text; DivergeB
	// where it parts from the uncompressed text (-1 while identical).
	CompressedB string `json:"compressedB,omitempty"`
	DivergeB    int    `json:"divergeB,omitempty"`
}
