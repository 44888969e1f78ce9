# kdiag corpus (KernelBench format, written for kdiag): SiLU over a GPU-scale input.  The declared
# size (4096 x 393216 float32: 6 GiB) is what a GPU benchmark would use; a CPU run cannot hold it.
import torch
import torch.nn as nn

batch_size = 4096
dim = 393216


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.sigmoid(x)


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
