# kdiag corpus (KernelBench format, written for kdiag): LayerNorm over the last dim of a bfloat16 input.
import torch
import torch.nn as nn

batch_size = 32
features = 384


class Model(nn.Module):
    def __init__(self, features: int):
        super(Model, self).__init__()
        self.ln = nn.LayerNorm(features).to(torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.ln(x)


def get_inputs():
    return [torch.randn(batch_size, features, dtype=torch.bfloat16)]


def get_init_inputs():
    return [features]
