# kdiag corpus (KernelBench format, written for kdiag): masked_fill with a bool mask input and an int
# constant; bool and float inputs.
import torch
import torch.nn as nn

rows = 24
cols = 130


class Model(nn.Module):
    def __init__(self, value: float):
        super(Model, self).__init__()
        self.value = value

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return x.masked_fill(mask, self.value)


def get_inputs():
    x = torch.randn(rows, cols)
    mask = torch.rand(rows, cols) > 0.7
    return [x, mask]


def get_init_inputs():
    return [-1e4]
