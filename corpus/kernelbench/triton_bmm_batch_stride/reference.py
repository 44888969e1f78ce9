# kdiag corpus (KernelBench format, written for kdiag): batched matmul, (b, m, k) @ (b, k, n).
import torch
import torch.nn as nn

batch_size = 4
m = 48
k = 64
n = 80


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.bmm(A, B)


def get_inputs():
    A = torch.randn(batch_size, m, k, dtype=torch.float16)
    B = torch.randn(batch_size, k, n, dtype=torch.float16)
    return [A, B]


def get_init_inputs():
    return []
