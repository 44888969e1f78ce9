# kdiag corpus (KernelBench format, written for kdiag): argmax over dim 1; an int64 output.
import torch
import torch.nn as nn

batch_size = 16
dim1 = 300
dim2 = 7


class Model(nn.Module):
    def __init__(self, dim: int):
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.argmax(x, dim=self.dim)


def get_inputs():
    return [torch.randn(batch_size, dim1, dim2)]


def get_init_inputs():
    return [1]
