#!POPCORN leaderboard grayscale
# kdiag corpus (GPU MODE format, written for kdiag): grayscale in Helion, the PyTorch kernel DSL GPU MODE's
# Helion problems take submissions in. Helion is not installed with kdiag, and this machine has no GPU: the
# reference makes its inputs with a CUDA generator, which a CPU build of torch refuses before the kernel runs.
# Could not run here: no-result, never a failure of the kernel.
import torch
import helion
import helion.language as hl
from task import input_t, output_t


@helion.kernel(static_shapes=True)
def gray(rgb: torch.Tensor) -> torch.Tensor:
    h, w, _ = rgb.shape
    out = torch.empty((h, w), device=rgb.device, dtype=rgb.dtype)
    for tile_h, tile_w in hl.tile([h, w]):
        px = rgb[tile_h, tile_w, :]
        out[tile_h, tile_w] = 0.2989 * px[:, :, 0] + 0.5870 * px[:, :, 1] + 0.1140 * px[:, :, 2]
    return out


def custom_kernel(data: input_t) -> output_t:
    return gray(data)
