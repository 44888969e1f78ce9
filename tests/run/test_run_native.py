"""Kernel modules in the native protocol, run for real (inputs, kernel and reference children), no GPU."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # real children: each imports torch (~1-2 s)

CORRECT = """
    import torch

    SIZES = [dict(n=4096), dict(n=1000)]

    def make_inputs(device, seed=0, n=1024):
        g = torch.Generator().manual_seed(seed)
        return torch.randn(n, 64, generator=g).to(device), torch.randn(64, generator=g).to(device)

    def kernel(x, w):
        # another summation order than the reference: float32 results differ in the last bits
        return (x.reshape(-1, 8, 8) * w.reshape(8, 8)).sum(-1).sum(-1)

    def reference(x, w):
        return x @ w
"""

WRONG_TAIL = """
    import torch

    SIZES = [dict(n=4096), dict(n=1000)]
    BLOCK = 256

    def make_inputs(device, seed=0, n=1024):
        g = torch.Generator().manual_seed(seed)
        return torch.randn(n, generator=g).to(device), torch.randn(n, generator=g).to(device)

    def kernel(x, y):
        out = torch.zeros_like(x)
        full = (x.numel() // BLOCK) * BLOCK          # the last partial block is computed wrongly
        out[:full] = x[:full] + y[:full]
        out[full:] = x[full:] - y[full:]
        return out

    def reference(x, y):
        return x + y
"""

TRITON_ADD = """
    import torch
    import triton
    import triton.language as tl

    SIZES = [dict(n=1000)]

    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)

    def make_inputs(device, seed=0, n=1024):
        g = torch.Generator().manual_seed(seed)
        return torch.randn(n, generator=g).to(device), torch.randn(n, generator=g).to(device)

    def kernel(x, y):
        out = torch.empty_like(x)
        add_kernel[(triton.cdiv(x.numel(), 256),)](x, y, out, x.numel(), BLOCK=256)
        return out

    def reference(x, y):
        return x + y
"""


def test_correct_kernel_passes_with_summation_order_differences(write, tmp_path: Path, kdiag_run) -> None:
    code, out, _ = kdiag_run(str(write(tmp_path, "matvec.py", CORRECT)), "--probes", "none")
    assert out is not None
    assert (code, out["verdict"], out["category"]) == (0, "pass", "none")
    assert [s["label"] for s in out["sizes"]] == ["n=4096", "n=1000"]
    assert all(s["ok"] for s in out["sizes"])
    assert out["device"] == "cpu" and out["interpreter"] is False
    assert [r["name"] for r in out["rungs"]] == ["plain"]
    # the JSON object carries at least these
    for key in ("verdict", "category", "failure_mode", "rule", "confidence", "findings", "run_dir"):
        assert key in out
    run_dir = Path(out["run_dir"])
    for name in ("evidence.json", "report.json", "env.json", "inputs/manifest.json", "reference/manifest.json",
                 "rungs/1-plain/stdout", "rungs/1-plain/stderr", "rungs/1-plain/result.json"):  # fmt: skip
        assert (run_dir / name).is_file(), name
    assert json.loads((run_dir / "report.json").read_text())["verdict"] == "pass"


def test_wrong_result_at_a_declared_size_is_kernel_logic(write, tmp_path: Path, kdiag_run) -> None:
    code, out, _ = kdiag_run(str(write(tmp_path, "tail.py", WRONG_TAIL)), "--probes", "none")
    assert out is not None
    assert (code, out["verdict"], out["category"]) == (1, "fail", "kernel-logic")
    assert out["failure_mode"] == "missing-mask-tail" and out["rule"] == "run-wrong-result-tail"
    ok = {s["label"]: s["ok"] for s in out["sizes"]}
    assert ok == {"n=4096": True, "n=1000": False}
    ev = json.loads((Path(out["run_dir"]) / "evidence.json").read_text())["evidence"]
    assert ev["run"]["sizes_failed"] == ["n=1000"] and ev["numerics"]["where"] == "tail"
    assert ev["numerics"]["mismatch"] is True
    # the run's own comparison explains it: no reason to climb the ladder
    assert [r["name"] for r in out["rungs"]] == ["plain"] and out["rungs"][0]["explained"] is True
    findings = [f["rule"] for f in out["findings"]]
    assert findings[0] == "run-wrong-result-tail" and "run-wrong-result-declared-size" in findings


def test_triton_kernel_runs_in_the_interpreter(write, tmp_path: Path, kdiag_run) -> None:
    code, out, _ = kdiag_run(str(write(tmp_path, "add.py", TRITON_ADD)), "--probes", "none")
    assert out is not None
    assert (code, out["verdict"]) == (0, "pass")
    assert out["interpreter"] is True and out["target_gpu"] == "H100"
    run = json.loads((Path(out["run_dir"]) / "evidence.json").read_text())["evidence"]["run"]
    assert run["interpreter"] is True and run["device"] == "cpu"


def test_text_report(write, tmp_path: Path) -> None:
    import io

    from diagnose.cli import main

    buf = io.StringIO()
    code = main(["run", str(write(tmp_path, "tail.py", WRONG_TAIL)), "--runs-dir", str(tmp_path / "r"), "--cpu",
                 "--ladder", "none", "--probes", "none", "--db", str(tmp_path / "kb.sqlite")], out=buf)  # fmt: skip
    text = buf.getvalue()
    assert code == 1
    assert "verdict: FAIL — kernel-logic / missing-mask-tail" in text
    assert "size n=1000: FAIL" in text and "size n=4096: ok" in text
    assert "run dir: " in text


HANG = """
    import torch

    def make_inputs(device, seed=0, n=16):
        return (torch.ones(n, device=device),)

    def kernel(x):
        while True:  # a loop whose exit condition never becomes true
            x = x + 0

    def reference(x):
        return x
"""


def test_a_hanging_kernel_is_stopped_and_called_a_hang(write, tmp_path: Path, kdiag_run) -> None:
    code, out, _ = kdiag_run("--timeout", "8", "--probes", "none", str(write(tmp_path, "hang.py", HANG)))
    assert out is not None
    assert (code, out["verdict"], out["category"], out["failure_mode"]) == (1, "fail", "kernel-logic", "hang")
    assert out["rungs"][0]["timed_out"] is True
    assert "synccheck: no GPU" in out["rungs_unavailable"]  # a GPU machine would try synccheck next


def test_the_parent_never_imports_gpu_frameworks_or_the_harness(tmp_path: Path) -> None:
    import subprocess
    import sys

    probe = (
        "import io, sys, json\n"
        "from diagnose.cli import main\n"
        f"main(['run', '--cpu', '--runs-dir', {str(tmp_path)!r}, '--', sys.executable, '-c', 'pass'], out=io.StringIO())\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    mods = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    loaded = set(__import__("json").loads(mods.strip().splitlines()[-1]))
    assert not loaded & {"torch", "triton", "cupy", "harness", "numpy"}


REFERENCE_DIES = """
    import os
    import signal

    import torch

    SIZES = [dict(n=64), dict(n=100)]

    def make_inputs(device, seed=0, n=64):
        g = torch.Generator().manual_seed(seed)
        return (torch.randn(n, generator=g).to(device),)

    def kernel(x):
        return x * 2

    def reference(x):
        if x.numel() == 100:  # dies as a crashing extension would, once the first size's expected output is saved
            os.kill(os.getpid(), signal.SIGSEGV)
        return x * 2
"""


def test_a_reference_that_dies_part_way_keeps_the_inputs_and_the_sizes_it_finished(
    write, tmp_path: Path, kdiag_run
) -> None:
    # the reference runs in the inputs child after the inputs are saved: its crash is not "no inputs", the kernel
    # still runs, the size the reference finished is compared, and the one it did not reach says why
    code, out, err = kdiag_run(str(write(tmp_path, "refdies.py", REFERENCE_DIES)), "--probes", "none")
    assert out is not None, err
    assert (code, out["verdict"]) == (4, "no-result"), out["title"]
    first, second = out["sizes"]
    assert (first["label"], first["ok"], first["reference_error"]) == ("n=64", True, None)
    assert second["label"] == "n=100" and not second["ok"]
    assert second["reference_error"] == "the reference did not reach this size: its child died (SIGSEGV)"
    assert [r["name"] for r in out["rungs"]] == ["plain"]  # the kernel ran: the inputs were there
