import torch
import torch.nn as nn
import torch.nn.functional as F
import math
from torch.utils.cpp_extension import load_inline

# Define the custom CUDA kernel for 1D convolution
conv1d_cuda_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void conv1d_kernel(
    const float* __restrict__ input,
    const float* __restrict__ weight,
    const float* __restrict__ bias,
    float* __restrict__ output,
    int batch_size,
    int in_channels,
    int out_channels,
    int length_in,
    int length_out,
    int kernel_size,
    int stride,
    int dilation,
    bool has_bias) {

    // Grid Mapping:
    // x: Output Length Chunks (parallelized time steps)
    // y: Output Channels
    // z: Batch Size
    
    int ol = blockIdx.x * blockDim.x + threadIdx.x;
    int oc = blockIdx.y;
    int b = blockIdx.z;

    // We use shared memory to cache the weights for the current output channel.
    // Each block handles one output channel 'oc'.
    // Weights size for one oc: (in_channels * kernel_size).
    // Given in_channels=64, kernel_size=3, this is 192 floats, which fits easily.
    extern __shared__ float s_weight[];
    
    int weight_len = in_channels * kernel_size;
    // Weights are stored as (out_channels, in_channels, kernel_size)
    // Flat index offset for this oc: oc * weight_len
    const float* w_start = weight + oc * weight_len;
    
    // Cooperatively load weights into shared memory
    for (int i = threadIdx.x; i < weight_len; i += blockDim.x) {
        s_weight[i] = w_start[i];
    }
    
    __syncthreads();

    if (ol < length_out) {
        float val = 0.0f;
        if (has_bias) {
            val = bias[oc];
        }

        // Pointer to the specific batch in input
        // Using size_t to avoid overflow for large tensors
        size_t input_batch_offset = (size_t)b * in_channels * length_in;
        const float* input_batch = input + input_batch_offset;
        
        int base_pos = ol * stride;

        // Convolution loop
        // We iterate over input channels and kernel positions
        for (int ic = 0; ic < in_channels; ++ic) {
            // Point to the specific input channel
            const float* input_channel = input_batch + ic * length_in;
            
            // Offset in shared memory weights for this input channel
            // s_weight is flat [in_channels * kernel_size], conceptually [ic][k]
            int w_offset_base = ic * kernel_size;

            for (int k = 0; k < kernel_size; ++k) {
                int in_pos = base_pos + k * dilation;
                
                // Assuming valid convolution as per standard defaults (no padding logic needed for this input)
                // In a generic kernel, boundary checks for padding would go here.
                float w = s_weight[w_offset_base + k];
                float x = input_channel[in_pos];
                val += x * w;
            }
        }

        // Write output
        // Output shape: (batch_size, out_channels, length_out)
        size_t out_idx = (size_t)b * out_channels * length_out + (size_t)oc * length_out + ol;
        output[out_idx] = val;
    }
}

torch::Tensor custom_conv1d_cuda(
    torch::Tensor input, 
    torch::Tensor weight, 
    torch::optional<torch::Tensor> bias, 
    int stride, 
    int dilation) {
    
    const int batch_size = input.size(0);
    const int in_channels = input.size(1);
    const int length_in = input.size(2);
    
    const int out_channels = weight.size(0);
    const int kernel_size = weight.size(2);
    
    // Calculate output length
    // Standard formula: L_out = floor((L_in + 2*padding - dilation*(kernel_size-1) - 1)/stride + 1)
    // Here padding is 0.
    const int length_out = (length_in - dilation * (kernel_size - 1) - 1) / stride + 1;
    
    auto output = torch::zeros({batch_size, out_channels, length_out}, input.options());
    
    bool has_bias = false;
    const float* bias_ptr = nullptr;
    if (bias.has_value() && bias->defined()) {
        has_bias = true;
        bias_ptr = bias->data_ptr<float>();
    }
    
    const int block_size = 256;
    dim3 grid_dim(
        (length_out + block_size - 1) / block_size,
        out_channels,
        batch_size
    );
    
    // Shared memory size needed: float * in_channels * kernel_size
    int shared_mem_size = in_channels * kernel_size * sizeof(float);
    
    conv1d_kernel<<<grid_dim, block_size, shared_mem_size>>>(
        input.data_ptr<float>(),
        weight.data_ptr<float>(),
        bias_ptr,
        output.data_ptr<float>(),
        batch_size,
        in_channels,
        out_channels,
        length_in,
        length_out,
        kernel_size,
        stride,
        dilation,
        has_bias
    );
    
    return output;
}
"""

conv1d_cpp_source = r"""
torch::Tensor custom_conv1d_cuda(
    torch::Tensor input, 
    torch::Tensor weight, 
    torch::optional<torch::Tensor> bias, 
    int stride, 
    int dilation);
"""

# Compile the inline CUDA code
custom_conv1d_op = load_inline(
    name="custom_conv1d_op",
    cpp_sources=conv1d_cpp_source,
    cuda_sources=conv1d_cuda_source,
    functions=["custom_conv1d_cuda"],
    verbose=False,
)

class ModelNew(nn.Module):
    """
    Optimized Model using custom CUDA operators for 1D convolution.
    """
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1, dilation: int = 1, bias: bool = False):
        super(ModelNew, self).__init__()
        self.stride = stride
        self.dilation = dilation
        
        # Manually register parameters to mimic nn.Conv1d layout
        self.weight = nn.Parameter(torch.empty(out_channels, in_channels, kernel_size))
        
        if bias:
            self.bias = nn.Parameter(torch.empty(out_channels))
        else:
            self.register_parameter('bias', None)
            
        self.reset_parameters()

    def reset_parameters(self) -> None:
        # Mimic standard Conv1d initialization
        nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = nn.init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                nn.init.uniform_(self.bias, -bound, bound)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Performs the 1D convolution using custom CUDA kernel.
        """
        return custom_conv1d_op.custom_conv1d_cuda(x, self.weight, self.bias, self.stride, self.dilation)