// Package trace reads and writes recorded attention traces: the queries,
// keys and values of a real model's attention heads, saved from Python as
// an .npz archive so kvscope can replay them instead of a synthetic stream.
//
// A trace holds three float32 or float64 arrays, q, k and v, each shaped
// [T, H, D] (one layer) or [L, T, H, D], in C order. k and v may have fewer
// heads than q (grouped-query attention: query head h reads key/value head
// h / (QHeads/KVHeads)), and must have the same shape as each other; T and D
// match between q and k.
//
// Recording a trace from a Hugging Face Llama-style model (Llama, Mistral,
// Qwen2 and others with q_proj, k_proj and v_proj): hook the three
// projections of every layer. Their outputs are the query, key and value
// states before rotary position embedding (RoPE) is applied, which is what
// kvscope recommends: pre-RoPE keys keep their per-channel structure (the
// outlier channels that per-channel quantization exploits), while RoPE
// rotates channel pairs by an angle that depends on the position.
//
//	import numpy as np, torch
//	from transformers import AutoModelForCausalLM, AutoTokenizer
//
//	model_id = "Qwen/Qwen2.5-0.5B"  # any Llama-style model
//	tok = AutoTokenizer.from_pretrained(model_id)
//	model = AutoModelForCausalLM.from_pretrained(model_id)
//	cfg = model.config
//	D = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
//	rec = {"q": [], "k": [], "v": []}
//
//	def hook(key):
//	    def save(module, inputs, output):  # output: [1, T, heads * D]
//	        rec[key].append(output[0].detach().float().cpu().reshape(output.shape[1], -1, D).numpy())
//	    return save
//
//	for layer in model.model.layers:
//	    for key in "qkv":
//	        getattr(layer.self_attn, key + "_proj").register_forward_hook(hook(key))
//
//	ids = tok("Some text worth attending to ...", return_tensors="pt").input_ids
//	with torch.no_grad():
//	    model(ids)  # one forward pass over the prompt: one entry per layer
//	np.savez("trace.npz", **{key: np.stack(a) for key, a in rec.items()})  # each [L, T, H, D]
//
// Read and Open verify the archive against hostile input: they allocate no
// more than the data actually present justifies, check every declared shape
// against the bytes that arrive, cap a trace at MaxElements numbers, and
// reject NaN and ±Inf.
package trace
