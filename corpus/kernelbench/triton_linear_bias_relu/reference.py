# kdiag corpus (KernelBench format, written for kdiag): a level-2 style fused problem - a linear
# layer, then add a bias parameter and apply ReLU; init arguments and a parameter made from randn.
import torch
import torch.nn as nn

batch_size = 64
in_features = 512
out_features = 256
bias_shape = (out_features,)


class Model(nn.Module):
    def __init__(self, in_features, out_features, bias_shape):
        super(Model, self).__init__()
        self.gemm = nn.Linear(in_features, out_features, bias=False)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        x = self.gemm(x)
        x = x + self.bias
        x = torch.relu(x)
        return x


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, bias_shape]
