"""Triton submissions written for a GPU (assert x.is_cuda, .cuda(), device="cuda") run on a machine
without one: the children emulate CUDA on the CPU (harness/emulate.py) and the report says so."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent.parent
CASES = ROOT / "corpus" / "kernelbench-pairs"
LABELS = yaml.safe_load((CASES / "labels.yaml").read_text())

PROGRAM = """
from harness import emulate
emulate.install()
import torch
g = torch.Generator(device="cuda")
g.manual_seed(3)
x = torch.randn(4, device="cuda", generator=g).cuda().to("cuda")
m = torch.nn.Linear(4, 2).cuda()
assert x.is_cuda and x.device.type == "cpu" and not torch.cuda.is_available()
torch.cuda.synchronize()
with torch.device("meta"):  # how the inputs child measures a problem before making it (harness/sizes.py)
    big = torch.randn(4096, 393216).cuda()  # 6 GiB, if it were made
assert big.device.type == "meta", f"made on {big.device}, memory and all"
print(sorted(emulate.USED), next(m.parameters()).device)
"""


def test_the_emulation_maps_cuda_to_the_cpu_and_counts_what_it_stood_in_for() -> None:
    # and leaves torch's meta device alone: a tensor made there is on it, with no memory behind it
    out = subprocess.run([sys.executable, "-c", PROGRAM], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['.cuda()', 'device=\"cuda\"', 'x.is_cuda'] cpu"


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(LABELS))
def test_kernelbench_triton_pair_runs_under_the_emulation(name: str, kdiag_run) -> None:
    label = LABELS[name]
    code, out, err = kdiag_run(
        str(CASES / name), "--reference", str(CASES / label["reference"]), "--ladder", "none", "--probes", "none"
    )
    assert out is not None, err
    assert out["verdict"] == label["verdict"], (out["title"], out.get("notes"))
    assert code == (0 if label["verdict"] == "pass" else 1)
    if "category" in label:
        assert out["category"] == label["category"]
    assert any(n.startswith("CUDA emulated on the CPU") and "x.is_cuda" in n for n in out["notes"]), out["notes"]
