# kdiag corpus (KernelBench format, written for kdiag): elementwise x * y of two float16 tensors.
import torch
import torch.nn as nn

batch_size = 16
dim = 2048


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, a, b):
        return a * b


def get_inputs():
    return [torch.randn(batch_size, dim, dtype=torch.float16), torch.randn(batch_size, dim, dtype=torch.float16)]


def get_init_inputs():
    return []
