# kdiag corpus (KernelBench format, written for kdiag): argmin over dim 0 (int64 indices).
import torch
import torch.nn as nn

dim0 = 200
dim1 = 72
dim = 0


class Model(nn.Module):
    def __init__(self, dim: int):
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.argmin(x, dim=self.dim)


def get_inputs():
    return [torch.randn(dim0, dim1)]


def get_init_inputs():
    return [dim]
