import torch
import triton
import triton.language as tl


@triton.jit
def _exp_kernel(
    input_ptr,
    output_ptr,
    n_elements,
    stride_input,
    stride_output,
    BLOCK_SIZE: tl.constexpr,
):
    """Triton kernel for element-wise exponential."""
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    
    # Create mask to avoid out-of-bounds memory access
    mask = offsets < n_elements
    
    # Load input data
    input_offsets = offsets * stride_input
    x = tl.load(input_ptr + input_offsets, mask=mask)
    
    # Compute exponential
    y = tl.math.exp(x)
    
    # Store result
    output_offsets = offsets * stride_output
    tl.store(output_ptr + output_offsets, y, mask=mask)


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
    
    # Determine block size (must be power of 2)
    BLOCK_SIZE = 1024  # Good default for AMD GPUs
    
    # Compute grid size
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']),)
    
    # Launch kernel
    _exp_kernel[grid](
        input_1d,
        output_1d,
        n_elements,
        input_1d.stride(0),
        output_1d.stride(0),
        BLOCK_SIZE=BLOCK_SIZE,
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
