# kdiag corpus (KernelBench format, written for kdiag): GELU (tanh approximation) of a (batch, dim) input.
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 8
dim = 2048


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(x, approximate="tanh")


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
