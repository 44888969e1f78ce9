# kdiag corpus (KernelBench format, written for kdiag): softmax over the last dimension.
import torch
import torch.nn as nn

batch_size = 32
dim = 500


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=1)


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return []
