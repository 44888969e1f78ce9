# kdiag corpus (KernelBench format, written for kdiag): correct - a persistent Triton kernel whose grid is
# the GPU's SM count (torch.cuda.get_device_properties) launched inside `with torch.cuda.device(...)`.
# Without a GPU kdiag's emulation answers for the target GPU (H100: 132 SMs).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def tanh_persistent(x_ptr, out_ptr, n_elements, NUM_SMS: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    start = tl.program_id(0)
    num_blocks = tl.cdiv(n_elements, BLOCK_SIZE)
    for b in range(start, num_blocks, NUM_SMS):
        offsets = b * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
        e = tl.exp(-2.0 * x)
        tl.store(out_ptr + offsets, (1.0 - e) / (1.0 + e), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.num_sms = torch.cuda.get_device_properties("cuda").multi_processor_count

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        with torch.cuda.device(x.device):
            tanh_persistent[(self.num_sms,)](x, out, n, NUM_SMS=self.num_sms, BLOCK_SIZE=1024)
        return out
