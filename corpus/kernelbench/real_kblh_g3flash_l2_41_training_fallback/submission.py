import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.cpp_extension import load_inline

# CUDA source for the fused BatchNorm + GELU + ReLU kernel.
# This kernel fuses three element-wise operations into a single CUDA pass,
# significantly reducing memory bandwidth pressure and kernel launch overhead.
fused_cuda_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <math.h>

__global__ void fused_bn_gelu_relu_kernel(
    float* x, 
    const float* scale, 
    const float* shift, 
    int total, 
    int cols) {
    
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < total) {
        int c = idx % cols;
        
        // 1. BatchNorm (inference mode fusion): y = x * scale + shift
        float val = x[idx] * scale[c] + shift[c];
        
        // 2. GELU (exact version): 0.5 * val * (1 + erf(val / sqrt(2)))
        // 0.7071067811865476f is 1.0f / sqrtf(2.0f)
        float gelu_res = 0.5f * val * (1.0f + erff(val * 0.7071067811865476f));
        
        // 3. ReLU: max(0, gelu_res)
        x[idx] = fmaxf(0.0f, gelu_res);
    }
}

torch::Tensor fused_bn_gelu_relu_cuda(torch::Tensor x, torch::Tensor scale, torch::Tensor shift) {
    // Ensure the input is contiguous for efficient flattened access
    if (!x.is_contiguous()) {
        x = x.contiguous();
    }
    int total = x.numel();
    int cols = x.size(-1);
    
    const int block_size = 256;
    const int num_blocks = (total + block_size - 1) / block_size;

    fused_bn_gelu_relu_kernel<<<num_blocks, block_size>>>(
        x.data_ptr<float>(),
        scale.data_ptr<float>(),
        shift.data_ptr<float>(),
        total,
        cols
    );
    return x;
}
"""

fused_cpp_source = (
    "torch::Tensor fused_bn_gelu_relu_cuda(torch::Tensor x, torch::Tensor scale, torch::Tensor shift);"
)

# Compile the inline CUDA code
fused_op = load_inline(
    name="fused_op",
    cpp_sources=fused_cpp_source,
    cuda_sources=fused_cuda_source,
    functions=["fused_bn_gelu_relu_cuda"],
    verbose=False,
)

class ModelNew(nn.Module):
    """
    Optimized model that fuses BatchNorm, GELU, and ReLU into a single custom CUDA kernel
    applied after the GEMM (nn.Linear).
    """
    def __init__(self, in_features, out_features):
        super(ModelNew, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.batch_norm = nn.BatchNorm1d(out_features)
        self.fused_op = fused_op

    def forward(self, x):
        # GEMM projection
        x = self.gemm(x)
        
        if self.training:
            # Fallback to standard PyTorch during training to handle running stats updates
            x = self.batch_norm(x)
            x = F.gelu(x)
            x = torch.relu(x)
            return x
        else:
            # High-performance fused inference path.
            # BatchNorm logic: y = (x - mean) / sqrt(var + eps) * gamma + beta
            # Rewritten as: y = x * (gamma / sqrt(var + eps)) + (beta - (mean * gamma / sqrt(var + eps)))
            # We precompute 'scale' and 'shift' vectors to reduce arithmetic in the kernel.
            
            # Extract parameters for fusion
            gamma = self.batch_norm.weight
            beta = self.batch_norm.bias
            mean = self.batch_norm.running_mean
            var = self.batch_norm.running_var
            eps = self.batch_norm.eps
            
            # Precompute scale and shift vectors of shape (out_features,)
            scale = gamma / torch.sqrt(var + eps)
            shift = beta - (mean * scale)
            
            # Call the custom fused kernel
            # The kernel modifies x in-place for memory efficiency
            return self.fused_op.fused_bn_gelu_relu_cuda(x, scale, shift)

def get_inputs():
    batch_size = 16384
    in_features = 4096
    return [torch.randn(batch_size, in_features).cuda()]

def get_init_inputs():
    in_features = 4096
    out_features = 4096
    return [in_features, out_features]