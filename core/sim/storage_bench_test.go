package sim

import (
	"fmt"
	"testing"
)

// BenchmarkStepStorage is BenchmarkStep's default configuration with each
// rotation, codebook, sketch, outlier and sink storage (and plain INT4 and
// INT3 beside them), decoding at a 4,096-token history with the reference
// off and every 8th step.
func BenchmarkStepStorage(b *testing.B) {
	cases := append([]struct {
		name string
		mod  func(*Config)
	}{
		{"int4", func(c *Config) { c.Bits = 4 }},
		{"int3", func(c *Config) { c.Bits = 3 }},
	}, newStorages...)
	for _, st := range cases {
		for _, stride := range []int{0, 8} {
			b.Run(fmt.Sprintf("%s/history=4096/ref=%d", st.name, stride), func(b *testing.B) {
				cfg := DefaultConfig()
				cfg.RefStride = stride
				st.mod(&cfg)
				benchSteps(b, cfg, 4096, false)
			})
		}
	}
}
