import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({'BLOCK_SIZE': 128, 'VECTORIZE': 1}, num_warps=4),
        triton.Config({'BLOCK_SIZE': 256, 'VECTORIZE': 1}, num_warps=4),
        triton.Config({'BLOCK_SIZE': 512, 'VECTORIZE': 1}, num_warps=4),
        triton.Config({'BLOCK_SIZE': 1024, 'VECTORIZE': 1}, num_warps=8),
        triton.Config({'BLOCK_SIZE': 2048, 'VECTORIZE': 1}, num_warps=8),
        triton.Config({'BLOCK_SIZE': 128, 'VECTORIZE': 2}, num_warps=4),
        triton.Config({'BLOCK_SIZE': 256, 'VECTORIZE': 2}, num_warps=4),
        triton.Config({'BLOCK_SIZE': 512, 'VECTORIZE': 2}, num_warps=4),
        triton.Config({'BLOCK_SIZE': 1024, 'VECTORIZE': 2}, num_warps=8),
    ],
    key=['n_elements'],
)
@triton.jit
def _exp_kernel(
    input_ptr,
    output_ptr,
    n_elements,
    stride_input,
    stride_output,
    BLOCK_SIZE: tl.constexpr,
    VECTORIZE: tl.constexpr,
):
    """Triton kernel for element-wise exponential with auto-tuning."""
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    
    if VECTORIZE == 1:
        # Standard vectorization
        offsets = block_start + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_elements
        
        # Load input data
        x = tl.load(input_ptr + offsets * stride_input, mask=mask)
        
        # Compute exponential with dtype specialization
        if x.dtype == tl.float16:
            x_f32 = x.to(tl.float32)
            y = tl.math.exp(x_f32).to(tl.float16)
        else:
            y = tl.math.exp(x)
        
        # Store result
        tl.store(output_ptr + offsets * stride_output, y, mask=mask)
    else:
        # Enhanced vectorization for better memory throughput
        offsets = block_start + tl.arange(0, BLOCK_SIZE) * VECTORIZE
        mask = offsets[:, None] + tl.arange(0, VECTORIZE)[None, :] < n_elements
        
        # Create block pointer for vectorized load
        block_ptr = tl.make_block_ptr(
            base=input_ptr,
            shape=(n_elements,),
            strides=(stride_input,),
            offsets=(block_start,),
            block_shape=(BLOCK_SIZE * VECTORIZE,),
            order=(0,)
        )
        
        # Load vectorized data
        x_vec = tl.load(block_ptr, boundary_check=(0,), padding_option="zero")
        
        # Compute exponential
        if x_vec.dtype == tl.float16:
            x_vec_f32 = x_vec.to(tl.float32)
            y_vec = tl.math.exp(x_vec_f32).to(tl.float16)
        else:
            y_vec = tl.math.exp(x_vec)
        
        # Store vectorized result
        output_block_ptr = tl.make_block_ptr(
            base=output_ptr,
            shape=(n_elements,),
            strides=(stride_output,),
            offsets=(block_start,),
            block_shape=(BLOCK_SIZE * VECTORIZE,),
            order=(0,)
        )
        tl.store(output_block_ptr, y_vec, boundary_check=(0,))


def exp(input_tensor, out=None):
    """
    Returns a new tensor with the exponential of the elements of the input tensor.
    
    Args:
        input_tensor (Tensor): the input tensor
        out (Tensor, optional): the output tensor
    
    Returns:
        Tensor: tensor with exponential of input elements
    """
    # Validate input
    if not isinstance(input_tensor, torch.Tensor):
        raise TypeError(f"input must be a Tensor, got {type(input_tensor)}")
    
    # Handle output tensor
    if out is not None:
        if not isinstance(out, torch.Tensor):
            raise TypeError(f"out must be a Tensor or None, got {type(out)}")
        if out.shape != input_tensor.shape:
            raise RuntimeError(f"The size of tensor out {out.shape} must match the size of tensor input {input_tensor.shape}")
        if out.dtype != input_tensor.dtype:
            raise RuntimeError(f"Expected out tensor to have dtype {input_tensor.dtype}, but got {out.dtype} instead")
        output = out
    else:
        output = torch.empty_like(input_tensor)
    
    # Skip kernel launch for empty tensors
    if input_tensor.numel() == 0:
        return output
    
    # Reshape to 1D for kernel processing
    input_1d = input_tensor.view(-1)
    output_1d = output.view(-1)
    
    n_elements = input_1d.numel()
    
    # Compute grid size
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE'] * meta['VECTORIZE']),)
    
    # Launch kernel with auto-tuning
    _exp_kernel[grid](
        input_1d,
        output_1d,
        n_elements,
        input_1d.stride(0),
        output_1d.stride(0),
    )
    
    return output
##################################################################################################################################################



import torch
import sys
import os
sys.path.append(os.path.abspath("utils"))
sys.path.append(os.path.abspath(os.path.join(os.path.dirname(__file__), "../../../utils")))
from data_utils import rand_tensor

def test_exp():
    results = {}

    # Test case 1: Basic test with a simple tensor
    input_tensor_1 = torch.tensor([1.0, 2.0, 3.0], device='cuda')
    results["test_case_1"] = exp(input_tensor_1)

    # Test case 2: Test with a tensor containing negative values
    input_tensor_2 = torch.tensor([-1.0, -2.0, -3.0], device='cuda')
    results["test_case_2"] = exp(input_tensor_2)

    # Test case 3: Test with a tensor containing zero
    input_tensor_3 = torch.tensor([0.0, 0.0, 0.0], device='cuda')
    results["test_case_3"] = exp(input_tensor_3)

    # Test case 4: Test with a larger tensor
    input_tensor_4 = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0], device='cuda')
    results["test_case_4"] = exp(input_tensor_4)

    for mode in ("standard", "outlier"):
        outs = []
        for shape in ((1024,), (64, 64)):
            x = rand_tensor(shape, dtype=torch.float32, mode=mode, outlier_prob=0.001, outlier_scale=10.0)
            x = x.clamp(-10.0, 10.0)
            outs.append(exp(x))
        results[f"test_random_{mode}"] = outs

    return results

test_results = test_exp()
