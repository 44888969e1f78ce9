# kdiag corpus (KernelBench format, written for kdiag): SiLU of a bfloat16 (batch, dim) input.
import torch
import torch.nn as nn

batch_size = 16
dim = 4096


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.silu(x)


def get_inputs():
    return [torch.randn(batch_size, dim, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
