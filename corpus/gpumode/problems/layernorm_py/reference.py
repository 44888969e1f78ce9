import torch
from task import input_t, output_t
from utils import make_verbose_match_reference

EPS = 1e-5


def ref_kernel(data: input_t) -> output_t:
    x, weight, bias = data
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), weight, bias, eps=EPS)


def generate_input(rows: int, cols: int, seed: int) -> input_t:
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    x = torch.randn(rows, cols, device="cuda", dtype=torch.float32, generator=gen) * 2.0 + 0.5
    weight = torch.rand(cols, device="cuda", dtype=torch.float32, generator=gen) + 0.5
    bias = torch.randn(cols, device="cuda", dtype=torch.float32, generator=gen)
    return x.contiguous(), weight, bias


check_implementation = make_verbose_match_reference(ref_kernel, rtol=1e-4, atol=1e-4)
