# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-result
# Row top-2 without a sort (a top-2 MoE router's expert choice): one program per row, the row in one
# block; the first pick is v1 = max(x), i1 = the smallest column holding v1; the second removes column
# i1 (x2 = where(col == i1, -inf, x)), takes v2 = max(x2), and then looks up its column as the
# smallest column where x == v2, searching the ORIGINAL row instead of x2.  When the row's maximum
# is tied (v2 == v1) that search finds i1 again: both returned indices are the same column (an expert
# chosen twice, the other tied one never).  The values are right in every row.  The reference is a
# stable descending sort (ties in column order), so its indices are the two smallest tied columns.  The
# declared scores are quantized (integers 0..15, as int8-quantized router logits are), so ties at the
# maximum are the rule: 63 of 64 rows at 64x100 and 55 of 64 at 64x64 (the padding lanes of the
# 100-wide row load -inf) return index[r, 1] == index[r, 0] (63 of 128 and 55 of 128 index elements
# wrong, all in the second column); rows without a tie are exact.  int64 indices compared exactly, float
# values bit-exact; nothing out of bounds, every element written.
from __future__ import annotations

import torch
import triton
import triton.language as tl

SIZES = [dict(rows=64, cols=100), dict(rows=64, cols=64)]


@triton.jit
def top2_rows(x_ptr, val_ptr, idx_ptr, cols, sxr, sxc, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + r * sxr + c * sxc, mask=c < cols, other=float("-inf")).to(tl.float32)
    big = BLOCK + 1
    v1 = tl.max(x, axis=0)
    i1 = tl.min(tl.where(x == v1, c, big), axis=0)
    x2 = tl.where(c == i1, float("-inf"), x)
    v2 = tl.max(x2, axis=0)
    i2 = tl.min(tl.where(x == v2, c, big), axis=0)
    tl.store(val_ptr + r * 2, v1)
    tl.store(val_ptr + r * 2 + 1, v2)
    tl.store(idx_ptr + r * 2, i1.to(tl.int64))
    tl.store(idx_ptr + r * 2 + 1, i2.to(tl.int64))


def make_inputs(device: str, seed: int = 0, rows: int = 64, cols: int = 100) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.randint(0, 16, (rows, cols), generator=g).to(torch.float32).to(device),)


def kernel(x: torch.Tensor):
    rows, cols = x.shape
    vals = torch.empty((rows, 2), dtype=torch.float32, device=x.device)
    idx = torch.empty((rows, 2), dtype=torch.int64, device=x.device)
    top2_rows[(rows,)](x, vals, idx, cols, x.stride(0), x.stride(1), BLOCK=triton.next_power_of_2(cols))
    return vals, idx


def reference(x: torch.Tensor):
    vals, idx = torch.sort(x.float(), dim=1, descending=True, stable=True)
    return vals[:, :2].contiguous(), idx[:, :2].contiguous()
