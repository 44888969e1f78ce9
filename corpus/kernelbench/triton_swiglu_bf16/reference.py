# kdiag corpus (KernelBench format, written for kdiag): SwiGLU gate, silu(x @ W1.T) * (x @ W2.T), bfloat16.
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 64
hidden = 96
intermediate = 160


class Model(nn.Module):
    def __init__(self, hidden: int, intermediate: int):
        super(Model, self).__init__()
        self.gate = nn.Linear(hidden, intermediate, bias=False).to(torch.bfloat16)
        self.up = nn.Linear(hidden, intermediate, bias=False).to(torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.silu(self.gate(x)) * self.up(x)


def get_inputs():
    return [torch.randn(batch_size, hidden, dtype=torch.bfloat16)]


def get_init_inputs():
    return [hidden, intermediate]
