# kdiag corpus (KernelBench format, written for kdiag): a square matrix multiplication C = A @ B, in the
# shape of KernelBench's level-1 square-matmul problem (one size constant N for every dimension).
import torch
import torch.nn as nn

N = 256


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


def get_inputs():
    A = torch.randn(N, N)
    B = torch.randn(N, N)
    return [A, B]


def get_init_inputs():
    return []
