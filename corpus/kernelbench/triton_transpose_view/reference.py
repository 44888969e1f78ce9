# kdiag corpus (KernelBench format, written for kdiag): ReLU of the transpose of a matrix.
import torch
import torch.nn as nn

M = 96
N = 200


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A: torch.Tensor) -> torch.Tensor:
        return torch.relu(A.T)


def get_inputs():
    A = torch.randn(M, N)
    return [A]


def get_init_inputs():
    return []
