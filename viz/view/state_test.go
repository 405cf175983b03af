package view

import "testing"

func TestMeasured(t *testing.T) {
	tests := []struct {
		mode  string
		repos bool
		want  bool
	}{
		{ModeSynthetic, false, true},
		{ModeSynthetic, true, true}, // re-positioning is a real-model setting
		{ModeModel, false, true},
		{ModeModel, true, false},
	}
	for _, tc := range tests {
		s := DefaultState()
		s.Mode, s.Repos = tc.mode, tc.repos
		if got := s.Measured(); got != tc.want {
			t.Errorf("mode %s, repos %v: Measured = %v, want %v", tc.mode, tc.repos, got, tc.want)
		}
	}
}
