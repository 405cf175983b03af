package main

import (
	"bytes"
	"encoding/csv"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/internal/testmodel"
	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/sim"
)

// -task writes one CSV row per policy × depth × budget whose score is the
// single run's and whose full_score is the full cache's on the same
// instance.
func TestTaskCSV(t *testing.T) {
	m := testmodel.Model(t)
	path, err := testmodel.Path()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	args := "-task name -task-length 96 -policies window,h2o -budgets 8,32 -depths 0,1 -bits 32 -seed 3"
	if err := run(append([]string{"-model", path}, strings.Fields(args)...), &out, &out); err != nil {
		t.Fatal(err, out.String())
	}
	rows, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rows[0], ","); got != "task,policy,budget,bits,depth,score,full_score" || len(rows) != 9 {
		t.Fatalf("header %q and %d rows:\n%v", got, len(rows), rows)
	}
	cfg := sim.DefaultConfig()
	cfg.Bits, cfg.Seed = 32, 3
	for i, row := range rows[1:] {
		policy, depth := []string{"window", "h2o"}[i/4], []float64{0, 1}[i/2%2]
		budget := []int{8, 32}[i%2]
		if row[0] != "name" || row[1] != policy || row[2] != strconv.Itoa(budget) || row[3] != "32" || row[4] != strconv.FormatFloat(depth, 'g', -1, 64) {
			t.Fatalf("row %d: %v", i, row)
		}
		task, err := sim.BuildTask(m.Tokenizer, m.Config.ContextLength, sim.TaskSpec{Kind: sim.TaskName, Seed: 3, Length: 96, Depth: depth})
		if err != nil {
			t.Fatal(err)
		}
		c := cfg
		c.Policy = policy
		single, err := sim.RunTask(m, c, task, budget, false)
		if err != nil {
			t.Fatal(err)
		}
		fc, _ := model.NewFullCache(m.Config, 0)
		full, err := sim.ScoreTask(m, fc, task)
		if err != nil {
			t.Fatal(err)
		}
		score, _ := strconv.ParseFloat(row[5], 64)
		fullScore, _ := strconv.ParseFloat(row[6], 64)
		if math.Abs(score-single.LogProb) > 1e-6 || math.Abs(fullScore-full.LogProb) > 1e-6 {
			t.Fatalf("row %d: %v; single run %.6f, full %.6f", i, row, single.LogProb, full.LogProb)
		}
	}
}

func TestTaskArguments(t *testing.T) {
	testmodel.Bytes(t)
	path, err := testmodel.Path()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ args, want string }{
		{"-task name", "needs -model"},
		{"-task fetch -model " + path, "unknown task"},
		{"-task copy -depths 0,x -model " + path, "-depths"},
		{"-task copy -budgets 8,,16 -model " + path, "-budgets"},
		{"-task copy -policies lru -model " + path, "lru"},
		{"-task copy -task-seeds 0 -model " + path, "-task-seeds"},
		{"-task copy -task-length 600 -model " + path, "length"},
	} {
		var out bytes.Buffer
		err := run(strings.Fields(tc.args), &out, &out)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.args, err, tc.want)
		}
	}
}

// -task-seeds averages the instances of consecutive seeds.
func TestTaskSeedsAverage(t *testing.T) {
	m := testmodel.Model(t)
	path, err := testmodel.Path()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	args := "-task magic -task-length 80 -policies streaming -budgets 16 -depths 0.5 -bits 32 -seed 10 -task-seeds 2"
	if err := run(append([]string{"-model", path}, strings.Fields(args)...), &out, &out); err != nil {
		t.Fatal(err, out.String())
	}
	rows, err := csv.NewReader(&out).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("rows %v, err %v", rows, err)
	}
	cfg := sim.DefaultConfig()
	cfg.Policy, cfg.Bits = "streaming", 32
	var want float64
	for seed := uint64(10); seed < 12; seed++ {
		task, err := sim.BuildTask(m.Tokenizer, m.Config.ContextLength, sim.TaskSpec{Kind: sim.TaskMagic, Seed: seed, Length: 80, Depth: 0.5})
		if err != nil {
			t.Fatal(err)
		}
		s, err := sim.RunTask(m, cfg, task, 16, false)
		if err != nil {
			t.Fatal(err)
		}
		want += s.LogProb / 2
	}
	if got, _ := strconv.ParseFloat(rows[1][5], 64); math.Abs(got-want) > 1e-6 {
		t.Fatalf("score %v, mean of the two seeds %v", got, want)
	}
}
