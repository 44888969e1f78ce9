import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# CUDA kernel for direct 2D convolution with support for groups, padding, stride, and dilation.
# Each thread calculates one pixel of the output tensor.
conv2d_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void conv2d_kernel(
    const float* __restrict__ input,
    const float* __restrict__ weight,
    const float* __restrict__ bias,
    float* __restrict__ output,
    int batch_size, int in_c, int out_c,
    int in_h, int in_w, int out_h, int out_w,
    int k_h, int k_w,
    int stride_h, int stride_w,
    int pad_h, int pad_w,
    int dil_h, int dil_w,
    int groups, int out_c_per_group, int in_c_per_group) {

    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int total_elements = batch_size * out_c * out_h * out_w;
    if (idx >= total_elements) return;

    // Decompose index into batch, channel, height, width
    int ow = idx % out_w;
    int oh = (idx / out_w) % out_h;
    int oc = (idx / (out_w * out_h)) % out_c;
    int n = idx / (out_w * out_h * out_c);

    // Group logic
    int g = oc / out_c_per_group;
    int in_c_start = g * in_c_per_group;

    float sum = 0.0f;

    // Direct convolution loops
    for (int ic = 0; ic < in_c_per_group; ++ic) {
        int in_channel_idx = in_c_start + ic;
        for (int kh = 0; kh < k_h; ++kh) {
            int ih = oh * stride_h - pad_h + kh * dil_h;
            if (ih >= 0 && ih < in_h) {
                for (int kw = 0; kw < k_w; ++kw) {
                    int iw = ow * stride_w - pad_w + kw * dil_w;
                    if (iw >= 0 && iw < in_w) {
                        int input_idx = ((n * in_c + in_channel_idx) * in_h + ih) * in_w + iw;
                        int weight_idx = ((oc * in_c_per_group + ic) * k_h + kh) * k_w + kw;
                        sum += input[input_idx] * weight[weight_idx];
                    }
                }
            }
        }
    }

    if (bias != nullptr) {
        sum += bias[oc];
    }
    output[idx] = sum;
}

torch::Tensor conv2d_cuda_forward(
    torch::Tensor input,
    torch::Tensor weight,
    torch::Tensor bias,
    int stride_h, int stride_w,
    int padding_h, int padding_w,
    int dilation_h, int dilation_w,
    int groups) {
    
    auto batch_size = input.size(0);
    auto in_c = input.size(1);
    auto in_h = input.size(2);
    auto in_w = input.size(3);
    
    auto out_c = weight.size(0);
    auto k_h = weight.size(2);
    auto k_w = weight.size(3);
    
    int out_h = (in_h + 2 * padding_h - dilation_h * (k_h - 1) - 1) / stride_h + 1;
    int out_w = (in_w + 2 * padding_w - dilation_w * (k_w - 1) - 1) / stride_w + 1;
    
    auto output = torch::empty({batch_size, out_c, out_h, out_w}, input.options());
    
    int total_elements = batch_size * out_c * out_h * out_w;
    const int block_size = 256;
    const int num_blocks = (total_elements + block_size - 1) / block_size;
    
    float* bias_ptr = (bias.numel() > 0) ? bias.data_ptr<float>() : nullptr;

    conv2d_kernel<<<num_blocks, block_size>>>(
        input.data_ptr<float>(),
        weight.data_ptr<float>(),
        bias_ptr,
        output.data_ptr<float>(),
        batch_size, (int)in_c, (int)out_c,
        (int)in_h, (int)in_w, out_h, out_w,
        (int)k_h, (int)k_w,
        stride_h, stride_w,
        padding_h, padding_w,
        dilation_h, dilation_w,
        groups,
        (int)(out_c / groups),
        (int)(in_c / groups)
    );
    
    return output;
}
"""

conv2d_cpp_source = """
torch::Tensor conv2d_cuda_forward(
    torch::Tensor input,
    torch::Tensor weight,
    torch::Tensor bias,
    int stride_h, int stride_w,
    int padding_h, int padding_w,
    int dilation_h, int dilation_w,
    int groups);
"""

# Compile the inline CUDA code
conv2d_cuda_lib = load_inline(
    name="conv2d_cuda",
    cpp_sources=conv2d_cpp_source,
    cuda_sources=conv2d_source,
    functions=["conv2d_cuda_forward"],
    verbose=False,
    extra_cflags=["-O3"]
)

def _pair(x):
    if isinstance(x, (list, tuple)):
        return x
    return (x, x)

class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: tuple, stride: tuple = (1, 1), padding: tuple = (0, 0), dilation: tuple = (1, 1), groups: int = 1, bias: bool = False):
        super(ModelNew, self).__init__()
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _pair(kernel_size)
        self.stride = _pair(stride)
        self.padding = _pair(padding)
        self.dilation = _pair(dilation)
        self.groups = groups
        
        # Initialize parameters as they would be in nn.Conv2d
        self.weight = nn.Parameter(torch.randn(out_channels, in_channels // groups, self.kernel_size[0], self.kernel_size[1]))
        if bias:
            self.bias = nn.Parameter(torch.randn(out_channels))
        else:
            self.register_parameter('bias', None)
        
        self.conv2d_cuda = conv2d_cuda_lib

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Pass parameters and dimensions to the CUDA kernel wrapper
        return self.conv2d_cuda.conv2d_cuda_forward(
            x.contiguous(),
            self.weight.contiguous(),
            self.bias.contiguous() if self.bias is not None else torch.empty(0, device=x.device, dtype=x.dtype),
            self.stride[0], self.stride[1],
            self.padding[0], self.padding[1],
            self.dilation[0], self.dilation[1],
            self.groups
        )