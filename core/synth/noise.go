package synth

import (
	"math"
	"math/rand/v2"

	"github.com/kvscope/kvscope/core/internal/splitmix"
)

// mix is SplitMix64's finalizer: it turns a seed and a tag into a
// well-spread 64-bit stream key, so streams for different purposes (and
// different heads) never share a PCG state.
func mix(seed, tag uint64) uint64 {
	return splitmix.Mix(seed + tag*splitmix.Gamma + 0x632be59bd9b4e019)
}

// tail draws unit-variance noise from p: Gaussian when df is 0 (through
// r, which must draw from p), else Student-t with df > 2 degrees of
// freedom scaled by √((df−2)/df). Student-t variates use Bailey's polar
// method (one power per accepted pair, acceptance π/4); the uniforms are
// taken from p directly, as r.Float64 would compute them, so the stream is
// rand.Rand's without a call through its Source interface per draw. For
// df = 4, the default, the power w^(−1/2) is taken as 1/√w, which is what
// math.Pow computes for that exponent after its special-case checks: the
// stream is the same, without the checks.
func tail(p *rand.PCG, r *rand.Rand, df float64) float64 {
	if df == 0 {
		return r.NormFloat64()
	}
	for {
		// rand.Rand.Float64 over p, written out so that PCG.Uint64 inlines:
		// one of the 2^53 multiples of 2^−53 in [0, 1).
		u := 2*(float64(p.Uint64()<<11>>11)/(1<<53)) - 1
		w := 2*(float64(p.Uint64()<<11>>11)/(1<<53)) - 1
		w = u*u + w*w
		if w > 1 || w == 0 {
			continue
		}
		var pw float64
		if df == 4 {
			pw = 1 / math.Sqrt(w) // math.Pow(w, -0.5), 0 < w ≤ 1
		} else {
			pw = math.Pow(w, -2/df)
		}
		return u * math.Sqrt((pw-1)/w*(df-2))
	}
}
