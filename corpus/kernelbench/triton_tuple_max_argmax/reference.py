# kdiag corpus (KernelBench format, written for kdiag): max over dim 0, returning (values, indices).
import torch
import torch.nn as nn

dim0 = 50
dim1 = 40


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor):
        values, indices = torch.max(x, dim=0)
        return values, indices


def get_inputs():
    return [torch.randn(dim0, dim1)]


def get_init_inputs():
    return []
