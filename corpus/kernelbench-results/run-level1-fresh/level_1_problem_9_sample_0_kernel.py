# kdiag corpus (KernelBench format, written for kdiag) -- bug: a tall-skinny matmul (A (M, 16) @ B (16, M))
# that casts B to float16 "for speed" and multiplies it with the float32 A: torch refuses the
# mixed-dtype matmul.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B.half())
