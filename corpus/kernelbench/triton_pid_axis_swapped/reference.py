# kdiag corpus (KernelBench format, written for kdiag): a row-wise scaling, out[i, j] = x[i, j] * s[i].
import torch
import torch.nn as nn

M = 256
N = 96


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
        return x * s[:, None]


def get_inputs():
    return [torch.randn(M, N), torch.rand(M) + 0.5]


def get_init_inputs():
    return []
