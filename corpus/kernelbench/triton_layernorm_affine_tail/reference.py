# kdiag corpus (KernelBench format, written for kdiag): LayerNorm over the last dim with weight and bias.
import torch
import torch.nn as nn

batch_size = 8
features = 700


class Model(nn.Module):
    def __init__(self, features: int):
        super(Model, self).__init__()
        self.ln = nn.LayerNorm(features)
        with torch.no_grad():
            self.ln.weight.uniform_(0.5, 1.5)
            self.ln.bias.uniform_(-0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.ln(x)


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [features]
