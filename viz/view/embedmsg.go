package view

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// The messages a host page sends an embedded view (window.postMessage)
// and the answers it gets. A message is a plain object with kvscope: 1
// and a type:
//
//	{kvscope: 1, type: "set", key: "recent", value: 32, id: 1}  a control, as the page's control would
//	{kvscope: 1, type: "play"} / {kvscope: 1, type: "pause"}
//	{kvscope: 1, type: "step", n: 5}                             n steps forward (default 1), pausing
//	{kvscope: 1, type: "get"}                                    the figures
//
// id (optional: a number or a string) comes back in the answer. Each
// message the view obeys is answered, once it has taken effect (the
// engines caught up), with a Figures of type "figures"; a malformed one
// from an allowed origin with type "error". When it is first drawn the
// view sends type "ready". Messages from origins it does not obey
// (OriginAllowed) and objects without kvscope: 1 are ignored without an
// answer.

// Message types.
const (
	MsgSet   = "set"
	MsgPlay  = "play"
	MsgPause = "pause"
	MsgStep  = "step"
	MsgGet   = "get"
)

// Answer types.
const (
	AnsReady   = "ready"
	AnsFigures = "figures"
	AnsError   = "error"
)

// Limits of a message.
const (
	MaxMessageBytes = 4096 // its JSON
	MaxValueBytes   = 256  // a set's value as text
	MaxIDBytes      = 64   // a string id
)

// Message is a host page's message, validated.
type Message struct {
	Type  string // one of the Msg constants
	Key   string // set: a key IsEmbedControl accepts
	Value string // set: the value as a link writes it
	N     int    // step: steps forward, 1…MaxTokens
	ID    any    // nil, a float64 (an integer) or a string: echoed in the answer
}

// ErrNotForUs is ParseMessage's error for an object that is not a
// kvscope message at all (no kvscope: 1): the page ignores it silently,
// as it may be another script's traffic.
var ErrNotForUs = errors.New("view: not a kvscope message")

// fields each type allows besides kvscope, type and id.
var messageFields = map[string][]string{
	MsgSet:   {"key", "value"},
	MsgPlay:  nil,
	MsgPause: nil,
	MsgStep:  {"n"},
	MsgGet:   nil,
}

// ParseMessage validates a message's JSON (JSON.stringify of the posted
// object). It returns ErrNotForUs for anything without kvscope: 1, and an
// error naming the problem for a kvscope message with an unknown type, a
// field its type does not have, or a field of the wrong kind or out of
// range. It never panics and costs O(len(data)).
func ParseMessage(data []byte) (Message, error) {
	var m Message
	if len(data) > MaxMessageBytes {
		return m, fmt.Errorf("view: message longer than %d bytes", MaxMessageBytes)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
		return m, ErrNotForUs
	}
	if v, ok := obj["kvscope"]; !ok || string(bytes.TrimSpace(v)) != "1" {
		return m, ErrNotForUs
	}
	if raw, ok := obj["id"]; ok {
		id, err := parseID(raw)
		if err != nil {
			return m, err
		}
		m.ID = id
	}
	if err := json.Unmarshal(obj["type"], &m.Type); err != nil {
		return m, fmt.Errorf("view: message type is not a string")
	}
	allowed, ok := messageFields[m.Type]
	if !ok {
		return m, fmt.Errorf("view: unknown message type %q (set, play, pause, step, get)", short(m.Type))
	}
	for k := range obj {
		if k != "kvscope" && k != "type" && k != "id" && !slices.Contains(allowed, k) {
			return m, fmt.Errorf("view: a %s message has no field %q", m.Type, short(k))
		}
	}
	switch m.Type {
	case MsgSet:
		if err := json.Unmarshal(obj["key"], &m.Key); err != nil || !IsEmbedControl(m.Key) {
			return m, fmt.Errorf("view: set: key %s is not a control of the page", short(string(obj["key"])))
		}
		v, err := parseValue(obj["value"])
		if err != nil {
			return m, err
		}
		m.Value = v
	case MsgStep:
		m.N = 1
		if raw, ok := obj["n"]; ok {
			var f float64
			if err := json.Unmarshal(raw, &f); err != nil || f != math.Trunc(f) || f < 1 || f > MaxTokens {
				return m, fmt.Errorf("view: step: n must be a whole number from 1 to %d", MaxTokens)
			}
			m.N = int(f)
		}
	}
	return m, nil
}

// isNull reports whether a field is missing or JSON null (which
// json.Unmarshal accepts into any type, leaving it as it was).
func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// parseID reads an id: an integer within ±2^53 or a string of at most
// MaxIDBytes bytes.
func parseID(raw json.RawMessage) (any, error) {
	var s string
	if isNull(raw) {
		return nil, fmt.Errorf("view: id must be a whole number or a short string")
	}
	if json.Unmarshal(raw, &s) == nil {
		if len(s) > MaxIDBytes {
			return nil, fmt.Errorf("view: id longer than %d bytes", MaxIDBytes)
		}
		return s, nil
	}
	var f float64
	if json.Unmarshal(raw, &f) == nil && f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
		return f, nil
	}
	return nil, fmt.Errorf("view: id must be a whole number or a short string")
}

// parseValue reads a set's value: a string, a finite number or a boolean.
func parseValue(raw json.RawMessage) (string, error) {
	var s string
	if isNull(raw) {
		return "", fmt.Errorf("view: set: value must be a string, a number or true/false")
	}
	if json.Unmarshal(raw, &s) == nil {
		if len(s) > MaxValueBytes {
			return "", fmt.Errorf("view: set: value longer than %d bytes", MaxValueBytes)
		}
		return s, nil
	}
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		if b {
			return "1", nil
		}
		return "0", nil
	}
	var f float64
	if json.Unmarshal(raw, &f) == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
		return strconv.FormatFloat(f, 'g', -1, 64), nil
	}
	return "", fmt.Errorf("view: set: value must be a string, a number or true/false")
}

// Figures is an embedded view's answer to its host page: its state and
// the figures it shows, as numbers. Bytes are what the cache holds at the
// step shown; fidelity is the step's, Mean the run's so far (as the chart's
// points). Non-finite values are −1.
type Figures struct {
	Kvscope int    `json:"kvscope"` // always 1
	Type    string `json:"type"`    // AnsReady, AnsFigures or AnsError
	ID      any    `json:"id,omitempty"`
	Error   string `json:"error,omitempty"` // AnsError: what was wrong

	Step     int               `json:"step"`
	Tokens   int               `json:"tokens"`
	Playing  bool              `json:"playing"`
	Mode     string            `json:"mode"`
	Name     string            `json:"name"`     // the configuration as the map's title says it
	Settings map[string]string `json:"settings"` // every control's value (EmbedControls), as a link writes it
	Memory   FigMemory         `json:"memory"`
	Fidelity FigFidelity       `json:"fidelity"`
	Mean     FigFidelity       `json:"mean"`
	Notices  []string          `json:"notices"`
}

// FigMemory is the memory line: bytes of the FP16 history, of what
// eviction keeps (in FP16), of what the cache stores, and history/stored.
type FigMemory struct {
	Full    int64   `json:"full"`
	Evicted int64   `json:"evicted"`
	Stored  int64   `json:"stored"`
	Ratio   float64 `json:"ratio"`
}

// FigFidelity is the fidelity figures (see sim.Metrics; in real-model
// mode also the model's top-1 agreement and next-token KL so far).
type FigFidelity struct {
	Mass    float64  `json:"mass"`
	OutErr  float64  `json:"output_error"`
	KL      float64  `json:"kl"`
	KeyErr  float64  `json:"key_error"`
	ValErr  float64  `json:"value_error"`
	Top1    *float64 `json:"top1,omitempty"`
	NextKL  *float64 `json:"next_kl,omitempty"`
	Measure bool     `json:"measured"` // false when the page shows "–" (re-positioned keys)
}

// NewFigures builds an answer of type kind for id from the page's numbers
// ps and its state st. A page without a side yet (a model still loading)
// answers zeros.
func NewFigures(kind string, id any, ps *PageState, st *State) Figures {
	f := Figures{Kvscope: 1, Type: kind, ID: id, Step: ps.Step, Tokens: ps.Tokens, Playing: ps.Playing, Mode: ps.Mode,
		Settings: map[string]string{}, Notices: ps.Notices}
	if f.Notices == nil {
		f.Notices = []string{}
	}
	for _, k := range EmbedControls() {
		f.Settings[k] = Get(st, k)
	}
	if len(ps.Sides) == 0 {
		return f
	}
	sd := &ps.Sides[0]
	fin := func(v float64) float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return -1
		}
		return v
	}
	f.Name = sd.Name
	f.Memory = FigMemory{Full: sd.Full, Evicted: sd.Evict, Stored: sd.Stored}
	if sd.Stored > 0 {
		f.Memory.Ratio = fin(float64(sd.Full) / float64(sd.Stored))
	}
	m, mean := &sd.Metrics, &sd.Mean
	f.Fidelity = FigFidelity{Mass: fin(m.Mass), OutErr: fin(m.OutErr), KL: fin(m.KL), KeyErr: fin(m.KErr), ValErr: fin(m.VErr), Measure: st.Measured()}
	f.Mean = FigFidelity{Mass: fin(mean.Mass), OutErr: fin(mean.OutErr), KL: fin(mean.KL), KeyErr: fin(mean.KErr), ValErr: fin(mean.VErr), Measure: st.Measured()}
	if ps.Text != nil {
		top1, kl := fin(ps.Text.Agreement), fin(ps.Text.MeanKL)
		f.Mean.Top1, f.Mean.NextKL = &top1, &kl
	}
	return f
}

// EmbedFoot is the embedded view's line under the map: the step, the
// memory line and the main fidelity figure (attention mass kept; in
// real-model mode top-1 agreement), as the full page words them.
func EmbedFoot(ps *PageState, st *State) string {
	s := fmt.Sprintf("step %d / %d", ps.Step, ps.Tokens)
	if len(ps.Sides) == 0 {
		return s
	}
	sd := &ps.Sides[0]
	s += " · stored " + Bytes(float64(sd.Stored)) + " of " + Bytes(float64(sd.Full)) + " FP16"
	if sd.Stored > 0 && sd.Full > 0 {
		s += " (" + Ratio(float64(sd.Full), float64(sd.Stored)) + " smaller)"
	}
	switch {
	case !st.Measured():
		s += " · attention mass kept –"
	case ps.Text != nil:
		s += " · top-1 agreement " + Percent(ps.Text.Agreement)
	default:
		s += " · attention mass kept " + Percent(sd.Metrics.Mass)
	}
	return s
}
