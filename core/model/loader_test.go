package model_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/model/gguf"
	"github.com/kvscope/kvscope/core/model/ggufwrite"
)

// A Loader converts one tensor per call, reports its progress in bytes and
// ends with the model LoadOptions builds; an undecodable tensor stops it
// with an error naming the tensor and its type.
func TestLoader(t *testing.T) {
	s := ggufwrite.LlamaSpec{Dim: 64, Layers: 2, Heads: 4, KVHeads: 2, Hidden: 96, Vocab: 500, Context: 64,
		NormEps: 1e-5, RopeBase: 10000, Version: 3, Type: gguf.TypeQ8_0, Untied: true, Seed: 4}
	data := ggufwrite.Llama(s)
	opts := model.Options{KeepQuantized: true}
	want, err := model.LoadOptions(bytes.NewReader(data), int64(len(data)), opts)
	if err != nil {
		t.Fatal(err)
	}
	l, err := model.NewLoader(bytes.NewReader(data), int64(len(data)), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !l.Config().Equal(want.Config) {
		t.Fatalf("config %+v, want %+v", l.Config(), want.Config)
	}
	if _, err := l.Model(); err == nil {
		t.Fatal("a model before any tensor was loaded")
	}
	calls, last := 0, int64(0)
	for l.Next() {
		calls++
		done, total := l.Progress()
		if done <= last || done >= total {
			t.Fatalf("call %d: progress %d of %d after %d", calls, done, total, last)
		}
		last = done
	}
	if l.Err() != nil {
		t.Fatal(l.Err())
	}
	if done, total := l.Progress(); done != total || calls != 3+2*9-1 {
		t.Fatalf("after %d calls: %d of %d bytes", calls, done, total)
	}
	got, err := l.Model()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Weights, want.Weights) || !got.Config.Equal(want.Config) {
		t.Fatal("the loader's model differs from LoadOptions'")
	}

	ts := ggufwrite.LlamaWeights(s)
	for i, tn := range ts {
		if tn.Name == "blk.1.attn_k.weight" {
			ts[i] = ggufwrite.Tensor{Name: tn.Name, Dims: tn.Dims, Type: gguf.TypeIQ4_NL, Data: make([]byte, 64*32/32*18)}
		}
	}
	bad := ggufwrite.Encode(3, ggufwrite.LlamaKVs(s), ts)
	l, err = model.NewLoader(bytes.NewReader(bad), int64(len(bad)), opts)
	if err != nil {
		t.Fatal(err)
	}
	for l.Next() {
	}
	if err := l.Err(); err == nil || !strings.Contains(err.Error(), "IQ4_NL") || !strings.Contains(err.Error(), "blk.1.attn_k.weight") {
		t.Fatalf("err = %v", err)
	}
	if _, err := l.Model(); err == nil {
		t.Fatal("a model after an error")
	}
	if _, err := model.NewLoader(bytes.NewReader(data[:100]), 100, opts); err == nil {
		t.Fatal("a truncated file was accepted")
	}
}
