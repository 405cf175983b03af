package sim

import "testing"

func TestModelFP16Bytes(t *testing.T) {
	// Llama-2-7B in FP16: 512 KiB per token, about 5 GB at 10k tokens.
	m := Models[0]
	if got := m.FP16Bytes(1); got != 512*1024 {
		t.Errorf("Llama-2-7B per token: %d bytes, want 524288", got)
	}
	if got := Models[1].FP16Bytes(1); got != 128*1024 {
		t.Errorf("Llama-3-8B per token: %d bytes, want 131072 (GQA: 8 kv heads)", got)
	}
}

func TestProject(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Policy, cfg.Bits, cfg.Granularity, cfg.Tokens, cfg.RefStride = "streaming", 16, "token", 200, 0
	cfg.Sink, cfg.Recent, cfg.Heavy = 4, 60, 0 // StreamingLLM's budget is sink + recent
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if e.Project(Models[0], 1000) != 0 {
		t.Error("projection before the first step")
	}
	e.RunTo(cfg.Tokens)
	// FP16 storage, budget 64: 64 tokens × 512 KiB plus 4 bytes per token per head.
	m := Models[0]
	want := m.FP16Bytes(64) + 4*64*32*32
	if got := e.Project(m, 32768); got != want {
		t.Errorf("projection %d, want %d", got, want)
	}
	if got := e.Project(m, 10); got != m.FP16Bytes(10)+4*10*32*32 {
		t.Errorf("short history projection %d", got)
	}
}
