# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=oob-global-write
# Writes the keys of a batch of new tokens into a paged KV cache by slot, cache[slot[t]] = key[t]
# (vLLM's reshape_and_cache pattern), out of place: the cache is cloned and the clone is updated and
# returned.  Padding tokens of the batch carry slot -1 and must be skipped (the reference writes only
# the tokens with slot >= 0).  The kernel has no such test: each program loads its token's slot and
# stores the token's (heads x head_dim) key at row `slot` of the cache, so every padding token stores
# its whole key at row -1, i.e. the heads*head_dim elements just BEFORE the start of the cache
# (1 KiB before it at 4x64 float32; 640 bytes at 2x80).  The declared batches end with padding tokens
# (8 of 64, 5 of 30): out-of-bounds writes before the output at every declared size.  The values
# inside the returned cache are all right (the padding keys land outside it), so the comparison alone
# passes; only bounds checks on the stores (or a guard region before the allocation) show it.  The
# plain interpreter writes over whatever precedes the clone, the allocator's metadata: here the process
# aborted with glibc's "free(): invalid next size (normal)", and before that the last row of the
# returned cache (224 elements at 256x4x64) had been overwritten through the corrupted heap.  On a GPU: memcheck "Invalid __global__ write" before the cache's base.
# `if slot >= 0` around the store (or mask=slot >= 0) fixes it.
from __future__ import annotations

import torch
import triton
import triton.language as tl

SIZES = [dict(tokens=64, pad=8, heads=4, head_dim=64, slots=256), dict(tokens=30, pad=5, heads=2, head_dim=80, slots=96)]


@triton.jit
def store_kv(key_ptr, slot_ptr, cache_ptr, H, D, skt, skh, skd, scs, sch, scd,
             BLOCK_H: tl.constexpr, BLOCK_D: tl.constexpr):
    t = tl.program_id(0)
    slot = tl.load(slot_ptr + t)  # -1 for padding tokens: must be skipped
    h = tl.arange(0, BLOCK_H)
    d = tl.arange(0, BLOCK_D)
    m = (h[:, None] < H) & (d[None, :] < D)
    k = tl.load(key_ptr + t * skt + h[:, None] * skh + d[None, :] * skd, mask=m, other=0.0)
    tl.store(cache_ptr + slot * scs + h[:, None] * sch + d[None, :] * scd, k, mask=m)


def make_inputs(device: str, seed: int = 0, tokens: int = 64, pad: int = 8, heads: int = 4, head_dim: int = 64,
                slots: int = 256) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    key = torch.randn(tokens, heads, head_dim, generator=g)
    cache = torch.randn(slots, heads, head_dim, generator=g)
    slot = torch.randperm(slots, generator=g)[:tokens].to(torch.int64)
    slot[tokens - pad:] = -1  # padding tokens at the end of the batch
    return key.to(device), slot.to(device), cache.to(device)


def kernel(key: torch.Tensor, slot: torch.Tensor, cache: torch.Tensor) -> torch.Tensor:
    T, H, D = key.shape
    out = cache.clone()
    store_kv[(T,)](key, slot, out, H, D, *key.stride(), *out.stride(),
                   BLOCK_H=triton.next_power_of_2(H), BLOCK_D=triton.next_power_of_2(D))
    return out


def reference(key: torch.Tensor, slot: torch.Tensor, cache: torch.Tensor) -> torch.Tensor:
    out = cache.clone()
    valid = slot >= 0
    out[slot[valid]] = key[valid]
    return out
