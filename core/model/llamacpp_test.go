package model_test

import (
	"bytes"
	"math"
	"testing"

	"github.com/kvscope/kvscope/core/internal/fastmath"
	"github.com/kvscope/kvscope/core/internal/testmodel"
	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/model/llamacpp"
)

// logSoftmax returns log-probabilities of logits in float64.
func logSoftmax(logits []float32) []float64 {
	lse := fastmath.LogSumExp(logits)
	out := make([]float64, len(logits))
	for i, x := range logits {
		out[i] = float64(x) - lse
	}
	return out
}

// stories260K (rewritten as GGUF v3, which llama.cpp needs) gives the same
// next-token log-probabilities through kvscope's Runner with the uncompressed
// cache as through llama.cpp, at every one of 64 fed positions.
func TestLogProbsMatchLlamaCpp(t *testing.T) {
	llamacpp.Require(t)
	m := realModel(t)
	ids := m.Tokenizer.Encode(referenceText+" "+referenceText, true, false)[:64]
	worst, _ := archLogProbs(t, m, testmodel.Bytes(t), ids)
	t.Logf("max |Δ log-prob| over %d positions × %d tokens: %.3g", len(ids), m.Config.Vocab, worst)
	if worst > 1e-4 || math.IsNaN(worst) {
		t.Errorf("max |Δ log-prob| = %g, want ≤ 1e-4", worst)
	}
}

// The v3 rewrite keeps the metadata, tensors and data: kvscope loads it to
// the same model.
func TestAsV3(t *testing.T) {
	data := testmodel.Bytes(t)
	v3, err := llamacpp.AsV3(data)
	if err != nil {
		t.Fatal(err)
	}
	if v3[4] != 3 {
		t.Fatalf("version byte %d, want 3", v3[4])
	}
	a, b := loadBytes(t, data), loadBytes(t, v3)
	if !a.Config.Equal(b.Config) || a.Tokenizer.VocabSize() != b.Tokenizer.VocabSize() {
		t.Fatalf("config %+v vs %+v", a.Config, b.Config)
	}
	la, _ := a.NewRunner(fullCache(t, a.Config)).Forward(1)
	lb, _ := b.NewRunner(fullCache(t, b.Config)).Forward(1)
	if d := maxAbsDiff(la, lb); d != 0 {
		t.Fatalf("logits differ by %g after the rewrite", d)
	}
	if _, err := llamacpp.AsV3([]byte("not gguf")); err == nil {
		t.Error("AsV3 accepted a non-GGUF file")
	}
}

func loadBytes(t *testing.T, b []byte) *model.Model {
	t.Helper()
	m, err := model.Load(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}
