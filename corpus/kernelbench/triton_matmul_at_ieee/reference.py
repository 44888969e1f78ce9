# kdiag corpus (KernelBench format, written for kdiag): C = A.T @ B with A stored as (K, M).
import torch
import torch.nn as nn

M = 96
K = 160
N = 80


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A.T, B)


def get_inputs():
    A = torch.randn(K, M)
    B = torch.randn(K, N)
    return [A, B]


def get_init_inputs():
    return []
