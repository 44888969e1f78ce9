# kdiag corpus (KernelBench format, written for kdiag): mean over dim 1 of a (batch, dim1, dim2) tensor,
# dim1 = 300 (not a power of two).
import torch
import torch.nn as nn

batch_size = 8
dim1 = 300
dim2 = 40


class Model(nn.Module):
    def __init__(self, dim: int):
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.mean(x, dim=self.dim)


def get_inputs():
    return [torch.randn(batch_size, dim1, dim2)]


def get_init_inputs():
    return [1]
