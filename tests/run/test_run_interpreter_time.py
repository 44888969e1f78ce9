"""A Triton KernelBench pair whose kernel loops element by element: at the size kdiag first fits it to, Triton's
interpreter runs out of time; kdiag fits it again smaller and judges it there instead of calling it a hang.
(The real case is corpus/kernelbench/real_gpt5_cumprod_baseline, minutes long; the limits are made small here.)"""

from __future__ import annotations

from pathlib import Path

import pytest

REFERENCE = """
import torch
import torch.nn as nn

batch_size = 8192
dim = 512


class Model(nn.Module):
    def forward(self, x):
        return x * 2.0


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return []
"""

SUBMISSION = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def double_rowwise(x_ptr, y_ptr, N):
    row = tl.program_id(0)
    i = 0
    while i < N:  # one element at a time: Python per element under the interpreter
        v = tl.load(x_ptr + row * N + i)
        tl.store(y_ptr + row * N + i, v * 2.0)
        i += 1


class ModelNew(nn.Module):
    def forward(self, x):
        assert x.is_cuda
        x = x.contiguous()
        y = torch.empty_like(x)
        double_rowwise[(x.shape[0],)](x, y, x.shape[1])
        return y
"""


@pytest.mark.slow
def test_a_slow_interpreter_run_is_fitted_again_not_called_a_hang(
    write, tmp_path: Path, kdiag_run, monkeypatch
) -> None:
    from diagnose.run import target_kernel

    monkeypatch.setattr(target_kernel, "INTERPRETER_FIRST_TRY_S", 2.0)
    monkeypatch.setattr(target_kernel, "INTERPRETER_RETRY_BYTES", 4 * 2**10)
    ref = write(tmp_path, "reference.py", REFERENCE)
    sub = write(tmp_path, "submission.py", SUBMISSION)
    code, out, err = kdiag_run(str(sub), "--reference", str(ref), "--probes", "none", "--ladder", "none")
    assert out is not None, err
    assert (code, out["verdict"]) == (0, "pass"), (out["title"], out["notes"])
    (rung,) = out["rungs"]  # the run the verdict comes from; the first try is in the notes
    assert not rung["timed_out"] and rung["verdict"] == "pass"
    notes = " | ".join(out["notes"])
    assert "did not finish in 2 s under Triton's interpreter" in notes and "fitted to 4 KiB" in notes
    assert "ran at batch_size=32, dim=32 instead of 8192, 512" in notes  # halved in turn until 4 KiB
    assert "timed out" not in notes  # what the first try concluded from its timeout is gone (no "probes not run")


@pytest.mark.slow
def test_a_declared_size_that_fits_the_budget_and_runs_out_of_time_is_fitted_again(
    write, tmp_path: Path, kdiag_run, monkeypatch
) -> None:
    # inputs that fit the first budget (no "ran at" note) can still take the interpreter too long (a large output or
    # grid: corpus/kernelbench/real_kmn_l1_9_tall_skinny_fp16_dot's 16384 x 16384 result from 2 MiB of inputs)
    from diagnose.run import target_kernel

    monkeypatch.setattr(target_kernel, "INTERPRETER_FIRST_TRY_S", 2.0)
    monkeypatch.setattr(target_kernel, "INTERPRETER_RETRY_BYTES", 4 * 2**10)
    ref = write(tmp_path, "reference.py", REFERENCE.replace("batch_size = 8192", "batch_size = 256"))
    sub = write(tmp_path, "submission.py", SUBMISSION)
    code, out, err = kdiag_run(str(sub), "--reference", str(ref), "--probes", "none", "--ladder", "none")
    assert out is not None, err
    assert (code, out["verdict"]) == (0, "pass"), (out["title"], out["notes"])
    notes = " | ".join(out["notes"])
    assert "the run at the declared size did not finish in 2 s under Triton's interpreter" in notes, notes
    assert "instead of 256, 512" in notes, notes
