from typing import TypedDict, TypeVar

import torch

input_t = TypeVar("input_t", bound=tuple[torch.Tensor, torch.Tensor, dict[str, torch.Tensor], dict])
output_t = TypeVar("output_t", bound=torch.Tensor)


class TestSpec(TypedDict):
    seqlen: int
    bs: int
    dim: int
    hiddendim: int
    seed: int
    nomask: bool
