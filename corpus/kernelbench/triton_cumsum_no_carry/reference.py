# kdiag corpus (KernelBench format, written for kdiag): inclusive cumulative sum along dim 1.
import torch
import torch.nn as nn

batch_size = 4
input_shape = (3000,)
dim = 1


class Model(nn.Module):
    def __init__(self, dim: int):
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cumsum(x, dim=self.dim)


def get_inputs():
    return [torch.randn(batch_size, *input_shape)]


def get_init_inputs():
    return [dim]
