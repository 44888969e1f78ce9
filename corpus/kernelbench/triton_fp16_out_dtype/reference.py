# kdiag corpus (KernelBench format, written for kdiag): GELU (tanh approximation) on float16 inputs.
import torch
import torch.nn as nn

batch_size = 64
dim = 4096


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.gelu(x, approximate="tanh")


def get_inputs():
    x = torch.randn(batch_size, dim, dtype=torch.float16)
    return [x]


def get_init_inputs():
    return []
