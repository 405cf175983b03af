// Package splitmix holds SplitMix64's mixing function (Steele, Lea and
// Flood, "Fast Splittable Pseudorandom Number Generators", OOPSLA 2014),
// with which kvscope turns a seed and a tag into well-spread, independent
// 64-bit keys: a policy's per-token random scores (kv), the synthetic
// stream's per-purpose generators (synth) and each store's sketch seed
// (sim).
package splitmix

// Gamma is SplitMix64's increment, the odd integer nearest 2^64/φ: the
// generator's state advances by Gamma and each output is Mix of the state.
const Gamma = 0x9e3779b97f4a7c15

// Mix is SplitMix64's finalizer (Stafford's Mix13): a bijection of the
// 64-bit integers in which every input bit changes every output bit with
// probability close to one half. Mix(s + k·Gamma) is the k-th output of a
// SplitMix64 generator started at state s.
func Mix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
