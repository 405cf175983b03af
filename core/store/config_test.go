package store

import (
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/quant"
)

func TestParseGranularity(t *testing.T) {
	for g := range PerTensor + 1 {
		got, err := ParseGranularity(g.String())
		if err != nil || got != g {
			t.Errorf("ParseGranularity(%q) = %v, %v; want %v", g.String(), got, err, g)
		}
	}
	for _, s := range []string{"", "kivi", "Token", "channels"} {
		if _, err := ParseGranularity(s); err == nil {
			t.Errorf("ParseGranularity(%q) returned no error", s)
		}
	}
	if s := Granularity(9).String(); s != "Granularity(9)" {
		t.Errorf("Granularity(9).String() = %q", s)
	}
}

func TestValidate(t *testing.T) {
	calib1 := &quant.Calibration{Lo: []float32{-1}, Hi: []float32{1}}
	calib4 := &quant.Calibration{Lo: []float32{-1, -1, -1, -1}, Hi: []float32{1, 1, 1, 1}}
	basis2x4 := []float32{1, 0, 0, 0, 0, 1, 0, 0} // rows e0, e1
	tests := []struct {
		name string
		cfg  Config
		dim  int
		want string // "" = valid
	}{
		{"float32", Config{Bits: 32}, 4, ""},
		{"fp16", Config{Bits: 16}, 4, ""},
		{"token 4", Config{Bits: 4}, 4, ""},
		{"group", Config{Bits: 3, Granularity: PerGroup, GroupSize: 2}, 4, ""},
		{"kivi keys", Config{Bits: 2, Granularity: PerChannel, GroupSize: 32, Residual: 128}, 4, ""},
		{"calibrated channel", Config{Bits: 8, Granularity: PerChannel, Calib: calib4}, 4, ""},
		{"calibrated tensor", Config{Bits: 8, Granularity: PerTensor, Calib: calib1}, 4, ""},
		{"low rank fp16 residual", Config{Bits: 16, Basis: basis2x4, Residual: 3}, 4, ""},
		{"low rank group", Config{Bits: 4, Granularity: PerGroup, GroupSize: 2, Basis: basis2x4}, 4, ""},
		{"low rank calibrated", Config{Bits: 4, Granularity: PerChannel, Calib: &quant.Calibration{Lo: []float32{0, 0}, Hi: []float32{1, 1}}, Basis: basis2x4}, 4, ""},

		{"dim 0", Config{Bits: 32}, 0, "dimension 0"},
		{"bits 0", Config{}, 4, "Bits 0"},
		{"bits 1", Config{Bits: 1}, 4, "Bits 1"},
		{"bits 12", Config{Bits: 12}, 4, "Bits 12"},
		{"granularity", Config{Bits: 4, Granularity: 7}, 4, "unknown granularity"},
		{"group size 0", Config{Bits: 4, Granularity: PerGroup}, 4, "GroupSize 0"},
		{"group size 3 of 4", Config{Bits: 4, Granularity: PerGroup, GroupSize: 3}, 4, "divide the stored dimension 4"},
		{"group of rank", Config{Bits: 4, Granularity: PerGroup, GroupSize: 4, Basis: basis2x4}, 4, "stored dimension 2"},
		{"channel block 0", Config{Bits: 4, Granularity: PerChannel}, 4, "GroupSize ≥ 1 tokens"},
		{"tensor no calib", Config{Bits: 4, Granularity: PerTensor}, 4, "needs a calibration"},
		{"residual negative", Config{Bits: 4, Residual: -1}, 4, "Residual -1"},
		{"residual float32", Config{Bits: 32, Residual: 4}, 4, "compresses nothing"},
		{"calib with fp16", Config{Bits: 16, Calib: calib1}, 4, "Calib with Bits 16"},
		{"calib with token", Config{Bits: 4, Calib: calib1}, 4, "needs tensor or channel"},
		{"calib channels", Config{Bits: 4, Granularity: PerChannel, Calib: calib1}, 4, "1 channels, want 4"},
		{"calib tensor shape", Config{Bits: 4, Granularity: PerTensor, Calib: calib4}, 4, "4 channels, want 1"},
		{"calib invalid", Config{Bits: 4, Granularity: PerTensor, Calib: &quant.Calibration{Lo: []float32{2}, Hi: []float32{1}}}, 4, "empty range"},
		{"basis ragged", Config{Bits: 32, Basis: []float32{1, 0, 0}}, 4, "basis has 3 values"},
		{"basis too tall", Config{Bits: 32, Basis: []float32{1, 0, 0, 1, 1, 1}}, 2, "Rank ≤ 2"},
		{"basis not unit", Config{Bits: 32, Basis: []float32{2, 0, 0, 0}}, 4, "orthonormal"},
		{"basis not orthogonal", Config{Bits: 32, Basis: []float32{1, 0, 0, 0, 0.6, 0.8, 0, 0}}, 4, "rows 0 and 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate(tt.dim)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				if _, err := New(tt.cfg, tt.dim, 4); err != nil {
					t.Fatalf("New: %v", err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), "store: ") || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate error %v, want one containing %q", err, tt.want)
			}
			if _, err2 := New(tt.cfg, tt.dim, 4); err2 == nil {
				t.Fatal("New accepted what Validate rejects")
			}
		})
	}
	if _, err := New(Config{Bits: 8}, 4, 0); err == nil || !strings.Contains(err.Error(), "capacity 0") {
		t.Errorf("New with capacity 0: error %v", err)
	}
}
