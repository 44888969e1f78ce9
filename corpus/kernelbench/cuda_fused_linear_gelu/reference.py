# kdiag corpus (KernelBench format, written for kdiag): a level-2 style problem - a linear layer
# followed by GELU (tanh approximation); init arguments, CUDA-made inputs.
import torch
import torch.nn as nn

batch_size = 128
in_features = 1024
out_features = 512


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super(Model, self).__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.nn.functional.gelu(self.linear(x), approximate="tanh")


def get_inputs():
    return [torch.randn(batch_size, in_features).cuda()]


def get_init_inputs():
    return [in_features, out_features]
