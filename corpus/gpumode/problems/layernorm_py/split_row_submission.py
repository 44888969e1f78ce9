# expected: verdict=fail, category=kernel-logic, failure_mode=race-global
# Bug: to get more programs for few rows, each row is split between two programs (grid (rows, 2)). Each
# adds its partial sum and sum of squares to a per-row slot in global memory with atomic adds, then
# reads the slot back at once, as if the other half had already added its part: there is no grid-wide
# synchronisation between the two programs. On a GPU whichever half runs first sees only its own part
# (wrong statistics, changing between runs). Under the interpreter the programs run in order, so in
# every test the columns of program (row, 0) (the first HALF = next_power_of_2(cdiv(cols, 2)) columns
# of each row: 512 of 768, 2048 of 3000, 64 of 97) are normalised with partial sums and are wrong in
# every row, and the rest of the row is right; deterministic.
import torch
import triton
import triton.language as tl
from task import input_t, output_t


@triton.jit
def layernorm_split_kernel(x_ptr, w_ptr, b_ptr, out_ptr, stats_ptr, n_cols, stride_x, stride_out, eps,
                           HALF: tl.constexpr):
    row = tl.program_id(0)
    part = tl.program_id(1)
    cols = part * HALF + tl.arange(0, HALF)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0)
    tl.atomic_add(stats_ptr + row * 2, tl.sum(x, axis=0))
    tl.atomic_add(stats_ptr + row * 2 + 1, tl.sum(x * x, axis=0))
    # both halves of the row are assumed to have added their partial sums by now
    s = tl.load(stats_ptr + row * 2)
    ss = tl.load(stats_ptr + row * 2 + 1)
    mean = s / n_cols
    var = ss / n_cols - mean * mean
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row * stride_out + cols, (x - mean) * rstd * w + b, mask=mask)


def custom_kernel(data: input_t) -> output_t:
    x, weight, bias = data
    rows, cols = x.shape
    out = torch.empty_like(x)
    stats = torch.zeros(rows, 2, dtype=torch.float32, device=x.device)
    half = triton.next_power_of_2(triton.cdiv(cols, 2))
    layernorm_split_kernel[(rows, 2)](x, weight, bias, out, stats, cols, x.stride(0), out.stride(0), 1e-5,
                                      HALF=half)
    return out
