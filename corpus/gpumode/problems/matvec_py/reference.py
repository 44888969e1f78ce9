import torch
from task import input_t, output_t
from utils import get_device, make_match_reference


def ref_kernel(data: input_t) -> output_t:
    a, x = data
    return a.float() @ x.float()


def generate_input(m: int, k: int, seed: int) -> input_t:
    gen = torch.Generator(device=get_device().type)
    gen.manual_seed(seed)
    a = torch.randn(m, k, device=get_device(), dtype=torch.float16, generator=gen)
    x = torch.randn(k, device=get_device(), dtype=torch.float16, generator=gen)
    return a, x


check_implementation = make_match_reference(ref_kernel, rtol=1e-4, atol=1e-4)
