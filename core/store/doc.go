// Package store holds one attention head's cached keys (or values) at a
// chosen precision, addressed by slot, and reports the bytes it really holds.
//
// The eviction layer decides which tokens stay; a Store decides how they are
// kept: float32, FP16, or b-bit integer codes with FP16 params per token,
// per group of channels, per channel or per tensor, optionally behind an
// FP16 residual window of the newest tokens (KIVI) and optionally reduced to
// coefficients on a low-rank basis. Scores are computed from the codes
// directly (Dots), folding scale and zero point into the query.
//
// The frontier options (storeopts.go) add a Hadamard rotation before any
// quantizer (QuaRot), codebook and sketch quantizers without scales
// (TurboQuant-MSE, TurboQuant-prod, QJL), FP16 outliers with their indices
// (KVQuant) and FP16 sink tokens; Items counts every byte they hold.
//
// How sealed tokens are coded is a Codec, one per quantizer and layout,
// each in its own file and described by its QuantizerDef (codec.go); the
// Store keeps the slots, the FP16 residual and sinks, the basis and the
// rotations, and the outliers, and asks the Codec for the rest.
//
// Adding a quantizer is one file: a Codec type and a QuantizerDef (its
// name, help, per-store Tables, constructor) given to Register from init.
// Config.Quantizer, ParseQuantizer, Quantizers, Validate, Items and
// Config.Tables then know it, and so do the simulator's runs and
// model-scale projection and the command line's -quant;
// core/sim/quantizer_plugin_test.go registers one from a test file (and
// core/cmd/kvscope/plugin_test.go finds one in the page's menus too).
//
// A Store preallocates everything in New; Append, Evict, Read and Dots
// allocate nothing. A Store is not safe for concurrent use.
//
// # The storages
//
//   - Quantization (Bits 2–8, uniform.go and its layouts): b-bit codes
//     with an FP16 scale and zero point per token, group, channel
//     (calibrated), tensor (calibrated), or KIVI's split (keys per channel,
//     values per token, with an FP16 residual of the newest tokens). Key
//     channels carry outliers ~10× larger than the rest: per-token ranges
//     waste their levels on them.
//   - Low rank (Basis): each token as Rank coefficients on a per-head SVD
//     basis; keys live near a low-dimensional subspace — until the rank is
//     too small.
//   - Rotation (Rotate Hadamard, QuaRot, SpinQuant): keys and values
//     rotated by the normalised Walsh–Hadamard matrix H/√d before any
//     quantizer, the query alike at attention time, so q·k is unchanged
//     while an outlier channel is spread over all d channels. O(d log d)
//     per vector; a head dim that is not a power of two is rotated
//     block-diagonally over the powers of two of its binary expansion (96
//     = 64 + 32). Adds no memory: the matrix is defined by d.
//   - TurboQuant-MSE (turbo.go): per token ‖x‖ in FP16; x/‖x‖ rotated by one
//     seeded random orthogonal matrix (dense, O(d²) per token and query);
//     each coordinate the nearest of the 2^b Lloyd–Max levels of N(0,1)
//     scaled by 1/√d. No scale, no zero point. Adds an FP16 norm per token
//     and, per store, a d×d FP16 rotation and the codebook.
//   - TurboQuant-prod (turbo.go): keys as (b−1)-bit TurboQuant-MSE + a 1-bit
//     QJL sketch of the residual + ‖r‖ in FP16, so q·k is unbiased over the
//     sketch; values TurboQuant-MSE at b bits. Adds two FP16 norms per key
//     and, per key store, the rotation, the d×d sketch and the codebook.
//   - QJL (qjl.go): keys as sign(S·k) for a seeded Gaussian (b·d)×d matrix
//     S and ‖k‖ in FP16; q·k ≈ √(π/2)/m·‖k‖·⟨S·q, sign(S·k)⟩, unbiased over
//     S; values stay uniform. Adds an FP16 norm per key and the sketch per
//     key store.
//   - Dense-and-sparse outliers (Outliers, KVQuant): the ⌈share·d⌉ values
//     of largest magnitude of each token kept exactly in FP16 with their
//     indices (2 bytes per value, 1 per index, 2 above 256 dims), left out
//     of the range the rest is quantized with.
//   - FP16 sinks (Sinks, KVSink): the first n tokens stay FP16 whatever the
//     bits (2·d bytes per sink and store); quantizing the sink bends every
//     softmax.
//
// The sketch estimators are linear in the query, so a sketched store's
// Read returns the vector whose dot with q is the estimate: Dots,
// WeightedSum and every fidelity metric work unchanged. Items itemizes
// every byte (sketches, norms, codebooks, random matrices, outliers and
// their indices, sinks); random matrices are held and counted per store.
package store
