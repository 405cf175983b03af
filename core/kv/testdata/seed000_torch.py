"""Seed 000's CompressedKVCache.update timed in PyTorch: the baseline that
BenchmarkSeed000Update is compared with.

The class below performs the same tensor operations as seed 000's
CompressedKVCache (sink + H2O + recent, one decision for all heads); its
per-channel INT8 quantizer stands in for PerChannelQuantizedCache, which the
seed names without defining: asymmetric, scale and zero point per channel
over the cached tokens. Inputs are generated before timing, as in the Go
benchmark. Run on one thread:

    /usr/bin/python3 core/kv/testdata/seed000_torch.py

(Debian: apt-get install python3-torch.)
"""
import time

import torch


class PerChannelInt8:
    def store(self, keys, values):
        self.keys_quantized, self.key_params = self._quantize(keys)
        self.values_quantized, self.value_params = self._quantize(values)

    @staticmethod
    def _quantize(x):
        lo = x.amin(dim=2, keepdim=True)
        hi = x.amax(dim=2, keepdim=True)
        scale = (hi - lo).clamp(min=1e-8) / 255
        q = torch.round((x - lo) / scale).clamp(0, 255).to(torch.uint8)
        return q, (scale, lo)


class CompressedKVCache:
    def __init__(self, sink_size=4, recent_size=32, heavy_hitter_size=28):
        self.sink_size, self.recent_size, self.heavy_hitter_size = sink_size, recent_size, heavy_hitter_size
        self.quantizer = PerChannelInt8()
        self.keys = self.values = self.cumulative_attention = self.positions = None

    @property
    def max_cache_size(self):
        return self.sink_size + self.recent_size + self.heavy_hitter_size

    def update(self, new_key, new_value, attention_weights=None):
        if self.keys is None:
            self.keys, self.values = new_key, new_value
            self.cumulative_attention = torch.zeros(new_key.size(0), 1)
            self.positions = torch.tensor([[0]])
            return
        if attention_weights is not None:
            attn_update = attention_weights.mean(dim=1).squeeze(-2)
            self.cumulative_attention = self.cumulative_attention + attn_update
        new_pos = self.positions.max() + 1
        self.keys = torch.cat([self.keys, new_key], dim=2)
        self.values = torch.cat([self.values, new_value], dim=2)
        self.cumulative_attention = torch.cat([self.cumulative_attention, torch.zeros(new_key.size(0), 1)], dim=1)
        self.positions = torch.cat([self.positions, torch.tensor([[new_pos]])], dim=1)
        if self.keys.size(2) > self.max_cache_size:
            self._evict()

    def _evict(self):
        current_size = self.keys.size(2)
        positions = self.positions[0]
        sink_mask = positions < self.sink_size
        non_sink_positions = positions.clone()
        non_sink_positions[sink_mask] = -1
        _, recent_indices = non_sink_positions.topk(self.recent_size)
        recent_mask = torch.zeros(current_size, dtype=torch.bool)
        recent_mask[recent_indices] = True
        remaining_mask = ~(sink_mask | recent_mask)
        remaining_attention = self.cumulative_attention[0].clone()
        remaining_attention[~remaining_mask] = float("-inf")
        n_heavy = min(self.heavy_hitter_size, remaining_mask.sum().item())
        heavy_mask = torch.zeros(current_size, dtype=torch.bool)
        if n_heavy > 0:
            _, heavy_indices = remaining_attention.topk(n_heavy)
            heavy_mask[heavy_indices] = True
        keep_mask = sink_mask | recent_mask | heavy_mask
        self.keys = self.keys[:, :, keep_mask, :]
        self.values = self.values[:, :, keep_mask, :]
        self.cumulative_attention = self.cumulative_attention[:, keep_mask]
        self.positions = self.positions[:, keep_mask]

    def get_quantized_state(self):
        self.quantizer.store(self.keys, self.values)
        return self.quantizer.keys_quantized, self.quantizer.values_quantized


def inputs(steps, heads=32, dim=128):
    g = torch.Generator().manual_seed(0)
    out, size = [], 0
    for _ in range(steps):
        k = torch.randn(1, heads, 1, dim, generator=g)
        v = torch.randn(1, heads, 1, dim, generator=g)
        a = torch.softmax(torch.randn(1, heads, 1, size, generator=g), dim=-1) if size else None
        out.append((k, v, a))
        size = min(size + 1, 64)
    return out


def main():
    torch.set_num_threads(1)
    warm, timed = 200, 2000
    steps = inputs(warm + timed)
    for quantize in (False, True):
        best = float("inf")
        for _ in range(5):
            cache = CompressedKVCache()
            for k, v, a in steps[:warm]:
                cache.update(k, v, a)
            t0 = time.perf_counter()
            for k, v, a in steps[warm:]:
                cache.update(k, v, a)
                if quantize:
                    cache.get_quantized_state()
            best = min(best, (time.perf_counter() - t0) / timed)
        what = "update + get_quantized_state" if quantize else "update"
        print(f"PyTorch {torch.__version__}, 1 thread, {what}: {best * 1e6:.1f} us per token (best of 5 x {timed} steps)")


if __name__ == "__main__":
    main()
