# kdiag corpus (KernelBench format, written for kdiag): a scaled ReLU, y = max(x, 0) * alpha.
import torch
import torch.nn as nn

batch_size = 8
dim = 1024
alpha = 0.5


class Model(nn.Module):
    def __init__(self, alpha: float) -> None:
        super().__init__()
        self.alpha = alpha

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x) * self.alpha


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [alpha]
