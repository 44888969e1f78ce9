# kdiag corpus (KernelBench format, written for kdiag): a bfloat16 matmul (M, K) @ (K, N).
import torch
import torch.nn as nn

M = 128
K = 192
N = 96


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


def get_inputs():
    A = torch.randn(M, K, dtype=torch.bfloat16)
    B = torch.randn(K, N, dtype=torch.bfloat16)
    return [A, B]


def get_init_inputs():
    return []
