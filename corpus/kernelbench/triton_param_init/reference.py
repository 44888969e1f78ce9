# kdiag corpus (KernelBench format, written for kdiag): a per-channel affine map whose weight and
# bias are parameters made with torch.randn in __init__ (the harness seeds before building each model).
import torch
import torch.nn as nn

batch_size = 32
channels = 64
length = 300


class Model(nn.Module):
    def __init__(self, channels):
        super(Model, self).__init__()
        self.weight = nn.Parameter(torch.randn(channels))
        self.bias = nn.Parameter(torch.randn(channels))

    def forward(self, x):
        return x * self.weight[None, :, None] + self.bias[None, :, None]


def get_inputs():
    x = torch.randn(batch_size, channels, length)
    return [x]


def get_init_inputs():
    return [channels]
