package trace

import (
	"slices"
	"strings"
	"testing"
)

func TestAccessors(t *testing.T) {
	tr := testTrace(2, 3, 4, 2, 5)
	if err := tr.Validate(); err != nil {
		t.Fatal(err)
	}
	for l := range 2 {
		for tok := range 3 {
			for h := range 4 {
				i := ((l*3+tok)*4 + h) * 5
				if got := tr.QAt(l, tok, h); !slices.Equal(got, tr.Q[i:i+5]) || cap(got) != 5 {
					t.Fatalf("QAt(%d, %d, %d) = %v (cap %d); want %v", l, tok, h, got, cap(got), tr.Q[i:i+5])
				}
			}
			for h := range 2 {
				i := ((l*3+tok)*2 + h) * 5
				if got := tr.KAt(l, tok, h); !slices.Equal(got, tr.K[i:i+5]) || cap(got) != 5 {
					t.Fatalf("KAt(%d, %d, %d) = %v; want %v", l, tok, h, got, tr.K[i:i+5])
				}
				if got := tr.VAt(l, tok, h); !slices.Equal(got, tr.V[i:i+5]) || cap(got) != 5 {
					t.Fatalf("VAt(%d, %d, %d) = %v; want %v", l, tok, h, got, tr.V[i:i+5])
				}
			}
		}
	}
	if tr.Group() != 2 {
		t.Errorf("Group() = %d; want 2", tr.Group())
	}
	for h, want := range []int{0, 0, 1, 1} {
		if got := tr.KVHead(h); got != want {
			t.Errorf("KVHead(%d) = %d; want %d", h, got, want)
		}
	}
}

func TestAccessorsPanic(t *testing.T) {
	tr := testTrace(2, 3, 4, 2, 5)
	for _, f := range []func(){
		func() { tr.QAt(2, 0, 0) },
		func() { tr.QAt(0, 3, 0) },
		func() { tr.QAt(0, 0, 4) },
		func() { tr.KAt(0, 0, 2) },
		func() { tr.VAt(-1, 0, 0) },
	} {
		func() {
			defer func() {
				if msg, ok := recover().(string); !ok || !strings.HasPrefix(msg, "trace: ") {
					t.Errorf("recovered %v; want a trace panic", msg)
				}
			}()
			f()
		}()
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*Trace)
		want   string
	}{
		{"zero tokens", func(t *Trace) { t.Tokens = 0 }, "want all positive"},
		{"negative dim", func(t *Trace) { t.Dim = -1 }, "want all positive"},
		{"heads not a multiple", func(t *Trace) { t.KVHeads = 3 }, "not a multiple"},
		{"short Q", func(t *Trace) { t.Q = t.Q[1:] }, "Q has"},
		{"long K", func(t *Trace) { t.K = append(t.K, 0) }, "K has"},
		{"nil V", func(t *Trace) { t.V = nil }, "V has"},
		{"NaN", func(t *Trace) { t.V[3] = float32(nan()) }, "V[3] is NaN"},
		{"Inf", func(t *Trace) { t.Q[7] = float32(inf()) }, "Q[7] is +Inf"},
		{"too large", func(t *Trace) { t.Tokens = 1 << 30 }, "exceed"},
	}
	for _, tc := range tests {
		tr := testTrace(2, 3, 4, 2, 5)
		tc.modify(tr)
		err := tr.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), "trace: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Validate() = %v; want an error containing %q", tc.name, err, tc.want)
		}
	}
}
