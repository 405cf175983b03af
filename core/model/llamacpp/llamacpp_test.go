package llamacpp_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/internal/testmodel"
	"github.com/kvscope/kvscope/core/model/llamacpp"
)

func TestDir(t *testing.T) {
	dir, err := llamacpp.Dir()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"oracle.mjs", "package.json", "package-lock.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// GPT-2's ids of a few texts, as its tokenizer publishes them.
func TestTokenize(t *testing.T) {
	llamacpp.Require(t)
	path := testmodel.VocabPath(t, "gpt2")
	plain, special, err := llamacpp.TokenizeBoth(path, []string{"Hello world", "", "<|endoftext|>"}, []string{"<|endoftext|>"})
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]int{{15496, 995}, {}, {27, 91, 437, 1659, 5239, 91, 29}}; !slices.EqualFunc(plain, want, slices.Equal) {
		t.Errorf("plain: %v, want %v", plain, want)
	}
	if want := [][]int{{50256}}; !slices.EqualFunc(special, want, slices.Equal) {
		t.Errorf("special: %v, want %v", special, want)
	}
}

func TestOracleErrors(t *testing.T) {
	llamacpp.Require(t)
	if _, err := llamacpp.Tokenize("/nonexistent.gguf", []string{"x"}); err == nil || !strings.HasPrefix(err.Error(), "llamacpp: ") {
		t.Errorf("a missing model: %v", err)
	}
	if _, err := llamacpp.LogProbs("/nonexistent.gguf", nil); err == nil {
		t.Error("LogProbs fed no ids")
	}
	if _, err := llamacpp.LogProbs("/nonexistent.gguf", []int{1}); err == nil {
		t.Error("LogProbs of a missing model")
	}
}
