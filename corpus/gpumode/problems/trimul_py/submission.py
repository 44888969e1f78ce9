#!POPCORN leaderboard trimul
# kdiag corpus (GPU MODE format, written for kdiag): the triangle update with the five projections fused
# into one bfloat16 matmul and the pairwise contraction as a batched float32 matmul.
# No bug: within the problem's bfloat16 tolerance.
import torch
import torch.nn.functional as F
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    x, mask, w, config = data
    dim, hidden = config["dim"], config["hidden_dim"]
    B, N, _, _ = x.shape
    x = F.layer_norm(x.float(), (dim,), w["norm.weight"], w["norm.bias"])
    fused = torch.cat([w["left_proj.weight"], w["right_proj.weight"], w["left_gate.weight"],
                       w["right_gate.weight"], w["out_gate.weight"]], dim=0)
    proj = (x.to(torch.bfloat16) @ fused.to(torch.bfloat16).T).float()
    lp, rp, lg, rg, og = proj.split(hidden, dim=-1)
    m = mask.unsqueeze(-1)
    left = lp * m * torch.sigmoid(lg)
    right = rp * m * torch.sigmoid(rg)
    # (B, H, N_i, K) @ (B, H, K, N_j)
    lh = left.permute(0, 3, 1, 2)
    rh = right.permute(0, 3, 2, 1)
    out = torch.matmul(lh, rh).permute(0, 2, 3, 1)
    out = F.layer_norm(out, (hidden,), w["to_out_norm.weight"], w["to_out_norm.bias"])
    out = out * torch.sigmoid(og)
    return out @ w["to_out.weight"].T
