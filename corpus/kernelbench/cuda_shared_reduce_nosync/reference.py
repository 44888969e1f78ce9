# kdiag corpus (KernelBench format, written for kdiag): sum over the last dim, keepdim.
import torch
import torch.nn as nn

batch_size = 16
dim = 4096


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sum(x, dim=1, keepdim=True)


def get_inputs():
    return [torch.randn(batch_size, dim).cuda()]


def get_init_inputs():
    return []
