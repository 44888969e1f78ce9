# kdiag corpus (KernelBench format, written for kdiag): scaled dot-product attention on float16 inputs.
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 2
num_heads = 2
seq_len = 64
head_dim = 32


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v)


def get_inputs():
    shape = (batch_size, num_heads, seq_len, head_dim)
    return [torch.randn(shape, dtype=torch.float16) for _ in range(3)]


def get_init_inputs():
    return []
