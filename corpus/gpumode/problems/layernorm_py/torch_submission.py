# expected: verdict=pass, category=none, failure_mode=none
# Not a failure: no kernel of its own, the submission calls the same PyTorch function as the reference
# (torch.nn.functional.layer_norm). Its output is the reference's; whether a leaderboard accepts it is a
# rule of the competition, not a defect of the code. Without a GPU it runs as plain PyTorch on the CPU
# and all three tests pass.
import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    x, weight, bias = data
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), weight, bias, eps=1e-5)
