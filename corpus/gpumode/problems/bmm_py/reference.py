import torch
from task import input_t, output_t
from utils import make_verbose_match_reference


def ref_kernel(data: input_t) -> output_t:
    a, b = data
    return torch.bmm(a.float(), b.float()).to(torch.float16)


def generate_input(batch: int, m: int, n: int, k: int, seed: int) -> input_t:
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    a = torch.randn(batch, m, k, device="cuda", dtype=torch.float16, generator=gen).contiguous()
    b_nk = torch.randn(batch, n, k, device="cuda", dtype=torch.float16, generator=gen).contiguous()
    return a, b_nk.transpose(1, 2)


check_implementation = make_verbose_match_reference(ref_kernel, rtol=2e-3, atol=2e-2)
