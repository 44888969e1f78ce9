import torch
from task import input_t, output_t
from utils import get_device, make_match_reference


def ref_kernel(data: input_t) -> output_t:
    return data.double().sum()


def generate_input(size: int, seed: int) -> input_t:
    gen = torch.Generator(device=get_device().type)
    gen.manual_seed(seed)
    return torch.rand(size, device=get_device(), dtype=torch.float32, generator=gen)


check_implementation = make_match_reference(ref_kernel, rtol=1e-5, atol=1e-5)
