package view

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/sim"
)

// TestPageStateJSON checks the names window.kvscope.state() uses and that
// a state survives the trip through JSON that the browser tests make.
func TestPageStateJSON(t *testing.T) {
	in := PageState{Ready: true, Step: 200, Tokens: 512, Replay: true, UpdMs: 1.5, Mode: ModeModel,
		Model: PageModel{Loaded: true, SHA256: "ab"}, Text: &PageText{Full: "a", Diverge: -1, NextKL: 0.25},
		Sides: []PageSide{{Config: sim.DefaultConfig(), CellCSS: 1.25, Metrics: sim.Metrics{Mass: 0.9},
			Probes: map[string]Probe{"sink": {X: 1, Y: 2, Head: 3, Pos: 4, RGB: [3]uint8{5, 6, 7}}}, Roles: map[string]int{"sink": 4}}}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"ready":true`, `"replaying":true`, `"updateMs":1.5`, `"cellCSS":1.25`, `"nextKL":0.25`, `"sha256":"ab"`, `"Policy":"h2o"`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON lacks %s: %s", key, b)
		}
	}
	var out PageState
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("round trip:\n got %+v\nwant %+v", out, in)
	}
}
