# kdiag corpus (KernelBench format, written for kdiag): a level-2 style problem with two inputs and
# an init argument - out = (x * scale + y) followed by a sigmoid.
import torch
import torch.nn as nn

batch_size = 128
hidden = 768
scale = 0.125


class Model(nn.Module):
    def __init__(self, scale):
        super(Model, self).__init__()
        self.scale = scale

    def forward(self, x, y):
        return torch.sigmoid(x * self.scale + y)


def get_inputs():
    return [torch.randn(batch_size, hidden), torch.randn(batch_size, hidden)]


def get_init_inputs():
    return [scale]
