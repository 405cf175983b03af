// Package model runs a small pretrained Llama language model in pure Go for
// kvscope's real-model mode: it loads a GGUF file (package gguf), tokenizes
// text as llama.cpp does (SentencePiece or byte-level BPE vocabularies), and
// decodes token by token with its keys and values held by a pluggable Cache —
// the uncompressed FullCache as the reference, or a compressed cache whose
// effect Compare and Perplexity measure.
//
// # Architectures
//
// general.architecture llama (SmolLM2, TinyLlama, Llama 3.x with its
// rope_freqs.weight factors), qwen2 (Q/K/V biases), qwen3 (per-head q/k
// RMSNorm, a head width that is not dim/heads) and gemma3 (five
// sliding-window layers in six with their own rope base, q/k norm,
// post-norms, GELU gating, √dim embedding scale), each with its own RoPE
// pairing (llama adjacent, the others NEOX). A Gemma 3 local layer's window
// is the architecture's own eviction: under every policy its cache drops
// what left the window (kv.Config.ArchWindow), and the page draws those
// tokens apart from the policy's evictions. Any other architecture,
// partial rotary embeddings or rope scaling is an error that names it
// (ConfigFromGGUF).
//
// # Tensors
//
// GGUF v1–v3 with F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q4_K, Q5_K
// and Q6_K (the types of the small models' Q8_0 and Q4_K_M files), each with
// one gguf.Codec that dequantizes as llama.cpp's dequantize_row_* does,
// dots a stored row with a vector, and encodes; other ggml types are
// listed and sized, and named in the error. With Options.KeepQuantized
// every non-F32 matrix stays in its stored blocks, and loaded from a byte
// slice (LoadBytes) it aliases the file, so the page holds a Q4_K_M file
// once (the 1B shape: 0.8 GB, not 4.9 GB widened). F32, Q8_0 and Q4_0
// products and FullCache's attention run on core/internal/kernels
// (WebAssembly SIMD in the page); Runner.Prefill runs a prompt in one pass
// per layer, each weight matrix multiplying every position at once and the
// classifier only the last, bit-identical to feeding F32 tokens one by one.
//
// # Tokenizers
//
// Both kinds of vocabulary small GGUF models use tokenize exactly as
// llama.cpp's llama_tokenize does (no specials added or parsed):
// SentencePiece (tokenizer.ggml.model "llama": Llama 2, TinyLlama, and
// Gemma's without a space prefix) and byte-level BPE ("gpt2": GPT-2,
// Llama 3, Qwen, SmolLM, with the gpt-2, llama-bpe, qwen2,
// smollm/starcoder and default pre-tokenizers).
//
// # Checked against llama.cpp
//
// Package llamacpp runs llama.cpp itself (node-llama-cpp, pinned in
// llamacpp/package-lock.json; make llamacpp installs it and make test runs
// it, F32 KV cache, one thread) as the tests' reference: token ids on
// hand-picked and random texts for six real vocabularies
// (TestTokenizeMatchesLlamaCpp), next-token log-probabilities of
// stories260K (TestLogProbsMatchLlamaCpp), of F32 files at the real widths
// of each architecture (TestArchLogProbsMatchLlamaCpp), of every block
// layout (TestBlockLayoutsMatchLlamaCpp) and of files with every matrix
// quantized. Where llama.cpp is the less exact side (its GELU is an fp16
// table; it rounds activations to a quantized weight's type), kvscope is
// held to a float64 pass of its own instead (TestArchForwardMatchesNaive,
// TestLlamaEveryType). ggufwrite synthesizes the test files.
package model
