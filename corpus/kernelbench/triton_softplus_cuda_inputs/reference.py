# kdiag corpus (KernelBench format, written for kdiag): softplus over a GPU-scale input that the
# problem itself creates on the GPU (`.cuda()` in get_inputs), as some KernelBench-style problems do.
import torch
import torch.nn as nn

batch_size = 4096
dim = 393216


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.softplus(x)


def get_inputs():
    x = torch.randn(batch_size, dim).cuda()
    return [x]


def get_init_inputs():
    return []  # No special initialization inputs needed
