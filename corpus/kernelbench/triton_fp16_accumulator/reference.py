# kdiag corpus (KernelBench format, written for kdiag): a matrix-vector product C = A @ B, A (M, K), B (K, 1),
# in the shape of KernelBench's level-1 matrix-vector problem (one declared size: module-level constants).
import torch
import torch.nn as nn

M = 64
K = 8192


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


def get_inputs():
    A = torch.randn(M, K)
    B = torch.randn(K, 1)
    return [A, B]


def get_init_inputs():
    return []
