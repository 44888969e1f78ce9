"""KernelBench and GPU MODE pairs: the reference file is only ever imported by the trusted children."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

KB_REF = """
    import torch
    import torch.nn as nn

    class Model(nn.Module):
        def __init__(self, features):
            super().__init__()
            self.linear = nn.Linear(features, features)

        def forward(self, x):
            return torch.relu(self.linear(x))

    batch_size, features = 16, 32

    def get_inputs():
        return [torch.randn(batch_size, features)]

    def get_init_inputs():
        return [features]
"""

KB_SUB = """
    import torch
    import torch.nn as nn

    class ModelNew(nn.Module):
        def __init__(self, features):
            super().__init__()
            self.linear = nn.Linear(features, features)

        def forward(self, x):
            return (x @ self.linear.weight.t() + self.linear.bias).clamp_min(0)
"""

GM_REF = """
    import torch

    def generate_input(size, seed):
        g = torch.Generator().manual_seed(seed)
        return torch.randn(size, generator=g), torch.empty(size)

    def ref_kernel(data):
        x, out = data
        out.copy_(torch.cumsum(x, 0))
        return out
"""

GM_SUB_WRONG = """
    import torch

    def custom_kernel(data):
        x, out = data
        out[:] = torch.cumsum(x, 0)
        out[-1] = 0.0                      # off by one at the end
        return out
"""


def test_kernelbench_pair_passes(write, tmp_path: Path, kdiag_run) -> None:
    ref = write(tmp_path, "ref.py", KB_REF)
    sub = write(tmp_path, "sub.py", KB_SUB)
    code, out, _ = kdiag_run(str(sub), "--reference", str(ref))
    assert out is not None
    assert (code, out["verdict"]) == (0, "pass"), out["title"]
    assert out["target"]["kind"] == "kernelbench"


def test_gpumode_pair_with_task_yml_fails_at_a_test_size(write, tmp_path: Path, kdiag_run) -> None:
    ref = write(tmp_path, "reference.py", GM_REF)
    sub = write(tmp_path, "submission.py", GM_SUB_WRONG)
    write(tmp_path, "task.yml", "tests:\n  - {size: 64, seed: 1}\n  - {size: 100, seed: 2}\n")
    code, out, _ = kdiag_run(str(sub), "--reference", str(ref), "--ladder", "none")
    assert out is not None
    assert (code, out["verdict"], out["category"]) == (1, "fail", "kernel-logic")
    assert [s["label"] for s in out["sizes"]] == ["size=64,seed=1", "size=100,seed=2"]
    # the output buffer passed in `data` is the protocol's, not a mutated input
    assert all(s["mutated"] == [] for s in out["sizes"])
    assert out["sizes"][0]["outputs"][0]["where"] == "tail"
