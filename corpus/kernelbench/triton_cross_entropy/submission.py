# kdiag corpus (KernelBench format, written for kdiag): cross-entropy in Triton, one program per row:
# a max-shifted log-sum-exp over the (masked, -inf padded) classes minus the target's logit; the mean
# over the batch in PyTorch.  No bug.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def ce_row_kernel(logits_ptr, targets_ptr, loss_ptr, C, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < C
    z = tl.load(logits_ptr + row * stride_row + cols, mask=mask, other=-float("inf"))
    m = tl.max(z, axis=0)
    lse = m + tl.log(tl.sum(tl.exp(z - m), axis=0))
    t = tl.load(targets_ptr + row)
    zt = tl.load(logits_ptr + row * stride_row + t)
    tl.store(loss_ptr + row, lse - zt)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        predictions = predictions.contiguous()
        B, C = predictions.shape
        loss = torch.empty((B,), device=predictions.device, dtype=torch.float32)
        ce_row_kernel[(B,)](predictions, targets, loss, C, predictions.stride(0), BLOCK=triton.next_power_of_2(C))
        return loss.mean()
