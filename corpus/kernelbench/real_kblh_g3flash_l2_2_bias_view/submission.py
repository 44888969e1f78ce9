import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# Define the custom CUDA kernel for fused pointwise operations:
# Bias addition, Clamp(0,1), Scaling, Clamp(0,1), and Rescaling.
fused_ops_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void fused_ops_kernel(float* data, const float* bias, float scaling_factor, 
                                 int channels, int hw, int size) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < size) {
        // Calculate channel index for bias broadcasting (Shape: N, C, H, W)
        int c = (idx / hw) % channels;
        
        float val = data[idx] + bias[c];
        
        // First clamp
        val = fmaxf(0.0f, fminf(1.0f, val));
        
        // Scaling
        val = val * scaling_factor;
        
        // Second clamp
        val = fmaxf(0.0f, fminf(1.0f, val));
        
        // Final division
        data[idx] = val / scaling_factor;
    }
}

torch::Tensor fused_ops_cuda(torch::Tensor x, torch::Tensor bias, float scaling_factor) {
    auto n = x.size(0);
    auto c = x.size(1);
    auto h = x.size(2);
    auto w = x.size(3);
    auto size = x.numel();
    int hw = h * w;

    const int block_size = 256;
    const int num_blocks = (size + block_size - 1) / block_size;

    fused_ops_kernel<<<num_blocks, block_size>>>(
        x.data_ptr<float>(), 
        bias.data_ptr<float>(), 
        scaling_factor, 
        (int)c, 
        (int)hw, 
        (int)size
    );

    return x;
}
"""

fused_ops_cpp_source = (
    "torch::Tensor fused_ops_cuda(torch::Tensor x, torch::Tensor bias, float scaling_factor);"
)

# Compile the inline CUDA code
fused_ops_lib = load_inline(
    name="fused_ops",
    cpp_sources=fused_ops_cpp_source,
    cuda_sources=fused_ops_source,
    functions=["fused_ops_cuda"],
    verbose=False,
)

class ModelNew(nn.Module):
    """
    Optimized Model that performs a transposed convolution followed by 
    fused pointwise operations (bias addition, double clamping, and scaling).
    """
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, output_padding, bias_shape, scaling_factor):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose2d(
            in_channels, out_channels, kernel_size, 
            stride=stride, padding=padding, output_padding=output_padding
        )
        self.bias = nn.Parameter(torch.randn(bias_shape)) 
        self.scaling_factor = float(scaling_factor)

    def forward(self, x):
        # Transposed convolution - utilizes highly optimized cuDNN
        x = self.conv_transpose(x)
        
        # Fuse remaining pointwise operations into a single CUDA kernel
        # Operations: x = x + bias; x = clamp(x, 0, 1); x = x * sf; x = clamp(x, 0, 1); x = x / sf
        # We perform this in-place on the output of conv_transpose to maximize efficiency.
        x = fused_ops_lib.fused_ops_cuda(x, self.bias.view(-1), self.scaling_factor)
        
        return x