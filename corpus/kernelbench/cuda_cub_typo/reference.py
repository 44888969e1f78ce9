# kdiag corpus (KernelBench format, written for kdiag): sum of each row of a (batch, dim) input.
import torch
import torch.nn as nn

batch_size = 64
dim = 8192


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sum(x, dim=1)


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
