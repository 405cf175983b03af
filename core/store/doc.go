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
//
// # What each storage keeps
//
// The page's default stream (core/synth: 512 tokens, 8 heads × 32 dims,
// two outlier key channels at 10× the typical one), every token kept, so
// that only storage differs (kvscope -policy full FLAGS; "honest total" is
// every byte Items counts, against FP16):
//
//	flags                                honest total     output error  KL     key error  value error  q·k bias
//	-bits 16                             0.500 MB (1.0x)  0.001         0.000  0.0002     0.0002       −0.0001
//	-bits 3                              0.125 MB (4.0x)  0.693         1.868  0.2350     0.1839       +0.1340
//	-bits 3 -rotate hadamard             0.125 MB (4.0x)  0.515         0.990  0.1444     0.1670       −0.0421
//	-bits 3 -outliers-fp16 0.06          0.172 MB (2.9x)  0.183         0.129  0.0609     0.1238       −0.0458
//	-bits 3 -sink-fp16 4                 0.128 MB (3.9x)  0.667         1.851  0.2286     0.1804       +0.1275
//	-bits 3 -granularity kivi -residual 32
//	                                     0.148 MB (3.4x)  0.103         0.025  0.0225     0.1539       −0.0055
//	-bits 3 -quant turbo                 0.141 MB (3.5x)  0.702         1.623  0.1823     0.1824       +0.5474
//	-bits 3 -quant turbo-prod            0.164 MB (3.0x)  1.327         4.117  0.4153     0.1824       −0.1128
//	-bits 3 -quant qjl                   0.164 MB (3.0x)  0.743         2.327  0.6686     0.1839       −1.1257
//	-bits 2 -quant turbo                 0.109 MB (4.6x)  0.849         2.823  0.3375     0.3388       +0.9662
//	-bits 2 -quant turbo-prod            0.133 MB (3.8x)  0.986         4.930  0.6841     0.3388       +0.8840
//	-bits 2 -quant qjl                   0.117 MB (4.3x)  0.876         2.835  0.8649     0.4292       −3.8421
//
// On this stream, whose outlier channels are constant offsets, per-channel
// keys (KIVI) win; unbiased is not the same as accurate: TurboQuant-prod
// and QJL trade the MSE quantizer's shrinkage for a sketch's variance,
// which the softmax does not average away within one step.
//
// The lessons behind it, each asserted by a test of core/sim (go test
// -count=1 -run NAME -v ./core/sim prints the figures):
//
//   - Granularity (TestStorageTeachesTheLesson): INT4 keys with two outlier
//     channels have a key error of 0.1061 per token, 0.0294 per channel and
//     0.1449 per tensor, and a mean q·k bias per cached token of −0.0527,
//     −0.0007 and −0.1561 logits: calibrated per-tensor ranges on
//     heavy-tailed keys bias every q·k the same way, so the summed bias
//     grows with the cache (seed 004's warning).
//   - Bits (TestStorageErrorPerBit): values at 8, 4 and 2 bits in groups of
//     32 keep an SNR of 45.9, 21.3 and 7.4 dB.
//   - Rotation (TestHadamardTeachesTheLesson): Hadamard cuts INT4 per-token
//     key error 3.98× at head dim 128 with outlier channels at 30× the
//     typical one (asserted: at least 3×), 2.34× at the stream's 10×, 1.56–1.91×
//     at head dim 32 (a pair of outliers can shrink the range by at most
//     about √d/2), and 1.06–1.08× without outlier channels.
//   - Sketches (TestSketchesTeachUnbiasedness, on a stream without outlier
//     channels): at 2 bits the mean q·k bias over 16 sketch seeds is
//     +1.5217 for TurboQuant-MSE (its levels are cell means, so it shrinks
//     every q·k), +0.1806 for TurboQuant-prod and +0.0629 for QJL, while one
//     seed's bias reaches 2.0176, 1.0192 and 1.1263: unbiased on average over
//     sketches, not for one sketch. With outlier channels keys are long and
//     one sketch's error grows with ‖k‖: kvscope -policy full -bits 3 -quant
//     qjl -sketch-seed s for s = 0…15 gives q·k biases from −3.16 to +4.76
//     logits (mean −0.24, standard deviation 2.05), -quant turbo +0.03 to
//     +0.88 (mean +0.42) — the QJL paper keeps outlier channels apart for
//     this reason.
//   - Outliers (TestOutliersAndSinksTeachTheLesson): INT3 per-token key
//     error falls from 0.2354 to 0.0610 (3.86×) with 6 % of values in FP16.
package store
