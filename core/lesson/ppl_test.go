package lesson

import (
	"testing"

	"github.com/kvscope/kvscope/core/internal/testenv"
	"github.com/kvscope/kvscope/core/internal/testmodel"
	"github.com/kvscope/kvscope/core/sim"
)

// A lesson's perplexity is the command line's: the run's decoded tokens
// scored under the compressed cache (sim.ModelRun.Perplexity), not its
// text encoded again, which need not give the same tokens (greedy
// decoding need not pick the tokenizer's merges).
func TestLessonPerplexityIsTheRuns(t *testing.T) {
	testenv.NativeOnly(t)
	m := testmodel.Model(t)
	for _, tc := range []struct {
		n   int
		set []Setting
	}{
		{DefaultModelTokens, []Setting{{"mode", "model"}}},
		// 400 decoded tokens of stories260K re-encode to 401; 512, the
		// whole context, to 513, which no perplexity of the text can take.
		{400, []Setting{{"mode", "model"}, {"policy", "window"}, {"recent", "16"}, {"bits", "16"}, {"mtokens", "400"}}},
		{512, []Setting{{"mode", "model"}, {"policy", "h2o"}, {"mtokens", "512"}}},
	} {
		set := tc.set
		got, err := Measure(sim.DefaultConfig(), set, m)
		if err != nil {
			t.Fatalf("%v: %v", set, err)
		}
		c, err := Config(sim.DefaultConfig(), set)
		if err != nil {
			t.Fatal(err)
		}
		r, err := sim.NewModelRun(m, c, DefaultPrompt, tc.n, false)
		if err != nil {
			t.Fatal(err)
		}
		for r.Step() {
		}
		toks, _ := r.Tokens()
		text, _ := r.Texts()
		_, want, err := sim.PerplexityTokens(m, c, toks, false)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%v: %d tokens decoded, %d re-encoded; lesson %.5f, decoded tokens %.5f", set, len(toks), len(m.Tokenizer.Encode(text, true, false)), got.PPL, want)
		if got.PPL != want {
			t.Errorf("%v: the lesson's perplexity %v, the run's decoded tokens' %v", set, got.PPL, want)
		}
	}
}
