import torch
import triton
import triton.language as tl

@triton.autotune(
    configs=[
        triton.Config({'BLOCK_SIZE': 128, 'VECTOR_WIDTH': 4}, num_warps=4, num_stages=3),
        triton.Config({'BLOCK_SIZE': 256, 'VECTOR_WIDTH': 4}, num_warps=4, num_stages=3),
        triton.Config({'BLOCK_SIZE': 512, 'VECTOR_WIDTH': 4}, num_warps=8, num_stages=3),
        triton.Config({'BLOCK_SIZE': 1024, 'VECTOR_WIDTH': 4}, num_warps=8, num_stages=2),
        triton.Config({'BLOCK_SIZE': 2048, 'VECTOR_WIDTH': 4}, num_warps=16, num_stages=1),
        triton.Config({'BLOCK_SIZE': 128, 'VECTOR_WIDTH': 2}, num_warps=4, num_stages=4),
        triton.Config({'BLOCK_SIZE': 256, 'VECTOR_WIDTH': 2}, num_warps=4, num_stages=4),
        triton.Config({'BLOCK_SIZE': 512, 'VECTOR_WIDTH': 2}, num_warps=8, num_stages=4),
        triton.Config({'BLOCK_SIZE': 1024, 'VECTOR_WIDTH': 2}, num_warps=8, num_stages=3),
    ],
    key=['n_elements'],
)
@triton.jit
def _log1p_kernel(
    x_ptr,
    y_ptr,
    n_elements,
    BLOCK_SIZE: tl.constexpr,
    VECTOR_WIDTH: tl.constexpr,
):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    
    # Vectorized processing
    for i in tl.static_range(0, VECTOR_WIDTH):
        offsets = block_start + tl.arange(0, BLOCK_SIZE) * VECTOR_WIDTH + i
        mask = offsets < n_elements
        
        # Load with appropriate dtype
        if x_ptr.dtype.element_ty == tl.float16:
            x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float16)
            
            # For small values, use polynomial approximation for better accuracy
            small_mask = tl.abs(x) < 0.01
            
            # Polynomial: log1p(x) ≈ x - x²/2 + x³/3 for |x| < 0.01
            x_sq = x * x
            x_cu = x_sq * x
            approx = x - x_sq * 0.5 + x_cu * (1.0 / 3.0)
            
            # For larger values, compute directly
            direct = tl.math.log(x + 1.0)
            
            # Combine results
            y = tl.where(small_mask, approx, direct)
        else:
            x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
            
            # For small values, use polynomial approximation
            small_mask = tl.abs(x) < 0.01
            
            # Higher precision polynomial for float32
            x_sq = x * x
            x_cu = x_sq * x
            x_qu = x_cu * x
            approx = x - x_sq * 0.5 + x_cu * (1.0 / 3.0) - x_qu * 0.25
            
            # For larger values, compute directly
            direct = tl.math.log(x + 1.0)
            
            # Combine results
            y = tl.where(small_mask, approx, direct)
        
        # Store result
        tl.store(y_ptr + offsets, y, mask=mask)


def log1p(input: torch.Tensor, out: torch.Tensor = None):
    if not input.is_cuda:
        raise ValueError("Input tensor must be on GPU")
    
    if out is None:
        out = torch.empty_like(input)
    else:
        if out.shape != input.shape:
            raise ValueError("Output tensor must have same shape as input")
        if out.dtype != input.dtype:
            raise ValueError("Output tensor must have same dtype as input")
    
    # Ensure contiguous memory
    if not input.is_contiguous():
        input = input.contiguous()
    if not out.is_contiguous():
        out = out.contiguous()
    
    n_elements = input.numel()
    if n_elements == 0:
        return out
    
    # Launch kernel with auto-tuning
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE'] * meta['VECTOR_WIDTH']),)
    _log1p_kernel[grid](
        input,
        out,
        n_elements,
    )
    
    return out
##################################################################################################################################################



import torch
import sys
import os
sys.path.append(os.path.abspath("utils"))
sys.path.append(os.path.abspath(os.path.join(os.path.dirname(__file__), "../../../utils")))
from data_utils import rand_tensor

def test_log1p():
    results = {}

    # Test case 1: Basic test with a small positive tensor
    input1 = torch.tensor([0.1, 0.2, 0.3], device='cuda')
    results["test_case_1"] = log1p(input1)

    # Test case 2: Test with a tensor containing zero
    input2 = torch.tensor([0.0, 0.5, 1.0], device='cuda')
    results["test_case_2"] = log1p(input2)

    # Test case 3: Test with a tensor containing negative values
    input3 = torch.tensor([-0.1, -0.2, -0.3], device='cuda')
    results["test_case_3"] = log1p(input3)

    # Test case 4: Test with a larger tensor
    input4 = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0], device='cuda')
    results["test_case_4"] = log1p(input4)

    for mode in ("standard", "outlier"):
        x = rand_tensor((64, 64), dtype=torch.float32, mode=mode, outlier_prob=0.001, outlier_scale=10.0)
        x = x.clamp(-0.9, 10.0)
        results[f"test_random_{mode}"] = log1p(x)

    return results

test_results = test_log1p()
