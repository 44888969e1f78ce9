# kdiag corpus (KernelBench level-2 format, written for kdiag): x * scale + bias, then tanh.
import torch
import torch.nn as nn

batch_size = 32
features = 1024


class Model(nn.Module):
    def __init__(self, features, scale):
        super(Model, self).__init__()
        self.bias = nn.Parameter(torch.randn(features))
        self.scale = scale

    def forward(self, x):
        return torch.tanh(x * self.scale + self.bias)


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [features, 0.5]
