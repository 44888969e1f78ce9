import torch
import torch.nn.functional as F
from task import input_t, output_t
from utils import make_verbose_match_reference


def ref_kernel(data: input_t) -> output_t:
    x, mask, w, config = data
    dim, hidden = config["dim"], config["hidden_dim"]
    x = F.layer_norm(x.float(), (dim,), w["norm.weight"], w["norm.bias"])
    left = (x @ w["left_proj.weight"].T) * mask.unsqueeze(-1)
    right = (x @ w["right_proj.weight"].T) * mask.unsqueeze(-1)
    left = left * torch.sigmoid(x @ w["left_gate.weight"].T)
    right = right * torch.sigmoid(x @ w["right_gate.weight"].T)
    out = torch.einsum("bikh,bjkh->bijh", left, right)
    out = F.layer_norm(out, (hidden,), w["to_out_norm.weight"], w["to_out_norm.bias"])
    out = out * torch.sigmoid(x @ w["out_gate.weight"].T)
    return out @ w["to_out.weight"].T


def generate_input(seqlen: int, bs: int, dim: int, hiddendim: int, seed: int, nomask: bool) -> input_t:
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    config = {"dim": dim, "hidden_dim": hiddendim}
    x = torch.randn(bs, seqlen, seqlen, dim, device="cuda", dtype=torch.float32, generator=gen)
    if nomask:
        mask = torch.ones(bs, seqlen, seqlen, device="cuda")
    else:
        mask = torch.randint(0, 2, (bs, seqlen, seqlen), device="cuda", generator=gen).float()

    def lin(o, i):
        return torch.randn(o, i, device="cuda", dtype=torch.float32, generator=gen) / i**0.5

    w = {
        "norm.weight": torch.ones(dim, device="cuda"),
        "norm.bias": torch.zeros(dim, device="cuda"),
        "left_proj.weight": lin(hiddendim, dim),
        "right_proj.weight": lin(hiddendim, dim),
        "left_gate.weight": lin(hiddendim, dim),
        "right_gate.weight": lin(hiddendim, dim),
        "out_gate.weight": lin(hiddendim, dim),
        "to_out_norm.weight": torch.ones(hiddendim, device="cuda"),
        "to_out_norm.bias": torch.zeros(hiddendim, device="cuda"),
        "to_out.weight": lin(dim, hiddendim),
    }
    return x, mask, w, config


check_implementation = make_verbose_match_reference(ref_kernel, rtol=2e-2, atol=2e-2)
