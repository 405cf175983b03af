package main

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/internal/testmodel"
	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/sim"
)

// readSweep runs kvscope with args and returns the CSV's header and rows
// as maps from column to value.
func readSweep(t *testing.T, args string) ([]string, []map[string]string) {
	t.Helper()
	var out, errOut bytes.Buffer
	if err := run(strings.Fields(args), &out, &errOut); err != nil {
		t.Fatal(err, errOut.String())
	}
	recs, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) < 2 {
		t.Fatalf("no rows:\n%s", out.String())
	}
	var rows []map[string]string
	for _, rec := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = rec[i]
		}
		rows = append(rows, m)
	}
	return recs[0], rows
}

func num(t *testing.T, row map[string]string, col string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(row[col], 64)
	if err != nil {
		t.Fatalf("column %s: %v", col, err)
	}
	return v
}

// rowConfig is the configuration a CSV row names, over base.
func rowConfig(t *testing.T, base sim.Config, row map[string]string) sim.Config {
	c := base
	c.Policy, c.Granularity = row["policy"], row["granularity"]
	c.Sink, c.Recent, c.Heavy, c.Bits = int(num(t, row, "sink")), int(num(t, row, "recent")), int(num(t, row, "heavy")), int(num(t, row, "bits"))
	c.DropShare = num(t, row, "drop")
	return c
}

// kvscope -sweep prints a header and one row per configuration, and
// every row's numbers are those of the same configuration run on its own.
func TestSweepCSV(t *testing.T) {
	header, rows := readSweep(t, "-sweep -tokens 96 -seed 3 -sweep-budgets 6,24,96 -sweep-bits 8,2 -sweep-policies window,streaming,h2o,full")
	want := strings.Split("policy,sink,recent,heavy,bits,granularity,bytes,ratio,mass,output_error,kl", ",")
	for _, col := range want {
		if !slices.Contains(header, col) {
			t.Errorf("header %v lacks %q", header, col)
		}
	}
	if slices.Contains(header, "top1") {
		t.Errorf("a synthetic sweep prints model columns: %v", header)
	}
	if len(rows) != 2*(3*3+1) {
		t.Fatalf("%d rows, want 2 storages × (3 policies × 3 budgets + full)", len(rows))
	}
	base := sim.DefaultConfig()
	base.Tokens, base.Seed = 96, 3
	for i, row := range rows {
		c := rowConfig(t, base, row)
		e, err := sim.New(c)
		if err != nil {
			t.Fatal(err)
		}
		e.RunTo(c.Tokens)
		_, hist := e.Metrics()
		var m sim.Metrics // the summary's means: summed in order, divided by the count
		for _, h := range hist {
			m.Mass, m.OutErr, m.KL = m.Mass+h.Mass, m.OutErr+h.OutErr, m.KL+h.KL
		}
		n := float64(len(hist))
		m.Mass, m.OutErr, m.KL = m.Mass/n, m.OutErr/n, m.KL/n
		total := e.Memory().Total()
		if num(t, row, "bytes") != float64(total) || num(t, row, "ratio") != float64(e.FullBytes())/float64(total) ||
			num(t, row, "mass") != m.Mass || num(t, row, "output_error") != m.OutErr || num(t, row, "kl") != m.KL {
			t.Errorf("row %d %v differs from its single run: bytes %d, mass %v, output error %v, KL %v", i, row, total, m.Mass, m.OutErr, m.KL)
		}
	}
	// The budget split: the same total for every policy.
	for _, row := range rows {
		b := num(t, row, "budget")
		switch row["policy"] {
		case "window":
			if num(t, row, "recent") != b || num(t, row, "sink") != 0 {
				t.Errorf("window row %v", row)
			}
		case "streaming", "h2o":
			if num(t, row, "sink")+num(t, row, "recent")+num(t, row, "heavy") != b {
				t.Errorf("%s row %v does not add up to its budget", row["policy"], row)
			}
		}
	}
}

// With -model the sweep adds top-1 agreement, next-token KL and
// perplexity, equal to kvscope -model's run of the same configuration.
func TestSweepCSVModel(t *testing.T) {
	b := testmodel.Bytes(t)
	path, err := testmodel.Path()
	if err != nil {
		t.Fatal(err)
	}
	header, rows := readSweep(t, "-sweep -model "+path+" -tokens 40 -sweep-budgets 8 -sweep-policies window,h2o")
	for _, col := range []string{"top1", "next_kl", "ppl"} {
		if !slices.Contains(header, col) {
			t.Errorf("header %v lacks %q", header, col)
		}
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	m, err := model.Load(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		c := rowConfig(t, sim.DefaultConfig(), row)
		r, err := sim.NewModelRun(m, c, "Once upon a time", 40, false)
		if err != nil {
			t.Fatal(err)
		}
		for r.Step() {
		}
		s := r.Snapshot(0)
		_, ppl, err := sim.Perplexity(m, c, s.Text.Full, false)
		if err != nil {
			t.Fatal(err)
		}
		if num(t, row, "top1") != s.Text.Agreement || num(t, row, "next_kl") != s.Text.MeanKL || num(t, row, "ppl") != ppl ||
			num(t, row, "bytes") != float64(s.Mem.Total()) {
			t.Errorf("row %v: single run top-1 %v, next KL %v, perplexity %v, bytes %d", row, s.Text.Agreement, s.Text.MeanKL, ppl, s.Mem.Total())
		}
	}
}

func TestSweepBadArguments(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{"-sweep -sweep-budgets 8,x", "-sweep-budgets"},
		{"-sweep -sweep-budgets 0", "-sweep-budgets"},
		{"-sweep -sweep-bits eight", "-sweep-bits"},
		{"-sweep -sweep-bits 9", "Bits 9"},
		{"-sweep -sweep-gran diagonal", "granularity"},
		{"-sweep -sweep-policies lru", "unknown policy"},
		{"-sweep -sweep-sink -1", "-sweep-sink"},
		{"-sweep -trace x.npz", "-trace"},
	} {
		var out, errOut bytes.Buffer
		err := run(strings.Fields(tc.args), &out, &errOut)
		if err == nil || !strings.Contains(err.Error()+errOut.String(), tc.want) {
			t.Errorf("%s: got %v / %q, want an error mentioning %q", tc.args, err, errOut.String(), tc.want)
		}
	}
}
