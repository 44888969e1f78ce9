# kdiag corpus (KernelBench format, written for kdiag): x * scale + bias, the bias broadcast along rows.
import torch
import torch.nn as nn

rows = 64
cols = 1000
scale = 0.5


class Model(nn.Module):
    def __init__(self, cols: int, scale: float):
        super(Model, self).__init__()
        self.bias = nn.Parameter(torch.randn(cols))
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.scale + self.bias


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return [cols, scale]
