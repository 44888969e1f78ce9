# kdiag corpus (KernelBench format, written for kdiag): Conv2d, 3x3 kernel, stride 1, padding 1, with bias.
import torch
import torch.nn as nn

batch_size = 2
in_channels = 3
out_channels = 8
height = 12
width = 10
kernel_size = 3


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int):
        super(Model, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
