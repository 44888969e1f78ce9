# kdiag corpus (KernelBench format, written for kdiag): sum over dim 1 of a (batch, dim1, dim2) tensor.
import torch
import torch.nn as nn

batch_size = 4
dim1 = 96
dim2 = 80
reduce_dim = 1


class Model(nn.Module):
    def __init__(self, dim: int):
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sum(x, dim=self.dim, keepdim=True)


def get_inputs():
    return [torch.randn(batch_size, dim1, dim2)]


def get_init_inputs():
    return [reduce_dim]
