# kdiag corpus (KernelBench format, written for kdiag) — expected: verdict=pass, with the note that the
# run used a smaller size than declared.  Without a GPU kdiag makes the inputs on torch's meta device
# first (6 GiB declared), halves the largest size constant until they fit in 64 MiB, runs both models
# there, and says so ("ran at dim=... instead of 393216: the declared size needs 6 GiB ...").
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.silu(x)
