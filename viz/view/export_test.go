package view

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/sim"
)

// The chart's CSV is kvscope -sweep's: the rows as the worker posts them
// (JSON), in any order, come out as sim.WriteCSV writes the sweep, each
// storage the chart holds a group in the order it was tried.
func TestSweepCSVIsTheSweeps(t *testing.T) {
	base := sim.DefaultConfig()
	base.Tokens, base.Prompt = 64, 16
	var want bytes.Buffer
	var all []sim.Row
	for i, st := range []sim.StorageVariant{{Bits: 8, Granularity: "token"}, {Bits: 2, Granularity: "kivi"}} {
		g := sim.DefaultGrid()
		g.Policies = []string{"window", "streaming", "h2o", "full"}
		g.Storage = []sim.StorageVariant{st}
		var rows []sim.Row
		if err := sim.Sweep(context.Background(), base, g, nil, func(r sim.Row) error { rows = append(rows, r); return nil }); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := sim.WriteCSV(&b, rows, false); err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			_, b2, _ := strings.Cut(b.String(), "\n") // one header
			want.WriteString(b2)
		} else {
			want.Write(b.Bytes())
		}
		// Within a storage the workers' rows arrive in any order.
		rand.New(rand.NewPCG(uint64(i), 1)).Shuffle(len(rows), func(a, b int) { rows[a], rows[b] = rows[b], rows[a] })
		all = append(all, rows...)
	}
	js, err := json.Marshal(all)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := SweepCSV(&got, js); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("chart CSV:\n%s\nwant the sweep's:\n%s", got.String(), want.String())
	}
	recs, err := csv.NewReader(&got).ReadAll()
	if err != nil || len(recs) != len(all)+1 || strings.Join(recs[0], ",") != strings.Join(sim.CSVHeader(false), ",") {
		t.Errorf("%d records, header %v, %v", len(recs), recs[0], err)
	}
}

func TestSweepCSVModelColumnsAndErrors(t *testing.T) {
	var b bytes.Buffer
	if err := SweepCSV(&b, []byte(`[{"policy":"h2o","bits":8,"gran":"token","bytes":10,"full_bytes":20,"ratio":2,"top1":0.5,"ppl":3.1,"ppl_full":3}]`)); err != nil {
		t.Fatal(err)
	}
	if head, _, _ := strings.Cut(b.String(), "\n"); head != strings.Join(sim.CSVHeader(true), ",") {
		t.Errorf("model header %q", head)
	}
	for _, bad := range []string{``, `{}`, `[1]`, `[{"policy":1}]`, `[{"nonsense":1}]`} {
		if err := SweepCSV(&b, []byte(bad)); err == nil || !strings.HasPrefix(err.Error(), "view: ") {
			t.Errorf("SweepCSV(%q) = %v", bad, err)
		}
	}
}

func TestCaption(t *testing.T) {
	st, _ := Decode("seed=7&tokens=256&prompt=32&policy=streaming")
	ps := PageState{Step: 100, Sides: []PageSide{{Name: "StreamingLLM · 4 sinks + 60 recent · INT8 per token"}}}
	want := "kvscope · synthetic stream seed 7, 256 tokens (prompt 32), 1 layer, 8 query / 8 KV heads, head dim 32 · StreamingLLM · 4 sinks + 60 recent · INT8 per token · step 100"
	if got := Caption(&ps, &st); got != want {
		t.Errorf("caption\n %q\nwant\n %q", got, want)
	}
	st, _ = Decode("mode=model&text=Once&mtokens=40")
	ps.Model.Name = "stories260K"
	if got := Caption(&ps, &st); !strings.HasPrefix(got, `kvscope · stories260K, prompt "Once", 40 tokens · `) {
		t.Errorf("model caption %q", got)
	}
}
