"""Problem sizes: --size on the native protocol, and a KernelBench problem fitted to what the machine holds."""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any

import pytest

from diagnose.run import sizes as Z


def test_size_override_sets_a_make_inputs_keyword_in_every_declared_size(write, tmp_path: Path, kdiag_run) -> None:
    mod = write(
        tmp_path,
        "add.py",
        """
        import torch

        SIZES = [dict(n=64, m=2), dict(n=1000, m=2)]


        def make_inputs(device, seed=0, n=64, m=1):
            return (torch.arange(n * m, dtype=torch.float32, device=device),)


        def kernel(x):
            return x + 1


        def reference(x):
            return x + 1
        """,
    )
    code, out, _ = kdiag_run(str(mod), "--size", "n=7", "--probes", "none", "--ladder", "none")
    assert out is not None and code == 0, out
    assert [s["label"] for s in out["sizes"]] == ["n=7,m=2"]  # both declared sizes became one
    assert "ran with --size n=7" in out["notes"]


def test_fit_halves_the_largest_constant_until_the_inputs_fit() -> None:
    torch = pytest.importorskip("torch")
    from harness import sizes as H

    ref: Any = types.ModuleType("ref")
    ref.batch_size, ref.dim, ref.kernel_size = 64, 1 << 20, 3  # 256 MiB of float32
    ref.get_inputs = lambda: [torch.randn(ref.batch_size, ref.dim)]
    got = H.fit(ref, set(), 4 << 20)
    assert got is not None and got["declared"] == {"dim": 1 << 20} and got["declared_bytes"] == 64 * 4 << 20
    assert got["bytes"] <= 4 << 20 and ref.kernel_size == 3 and ref.batch_size == 64  # never a kernel_size
    assert ref.dim == got["ran"]["dim"] == 1 << 14
    fixed: Any = types.ModuleType("fixed")
    fixed.n = 1 << 30
    fixed.get_inputs = lambda: [torch.randn(fixed.n)]
    assert H.fit(fixed, {"n"}, 1 << 20) is None  # given with --size: left as given
    cuda: Any = types.ModuleType("cuda")
    cuda.n = 1 << 30
    cuda.get_inputs = lambda: [torch.randn(cuda.n).cuda()]
    assert H.fit(cuda, set(), 1 << 20) is None  # no estimate on the meta device: nothing changed
    assert cuda.n == 1 << 30


def test_size_check_names_the_constants_a_reference_has(tmp_path: Path) -> None:
    ref = tmp_path / "ref.py"
    ref.write_text("batch_size = 16\ndim = 1 << 10\nM = dim * 2 + batch_size\nscale = 0.5\nflag = True\nname = 'x'\n")
    assert Z.constants(ref) == {"batch_size": 16, "dim": 1024, "M": 2064, "scale": 0.5}  # bools are not sizes
    assert Z.check("kernelbench", ref, {"batch_size": 4}) is None
    assert "(it has: batch_size=16, dim=1024, M=2064, scale=0.5)" in str(Z.check("kernelbench", ref, {"rows": 4}))
    assert Z.check("cuda-file", None, {"n": 4}) is not None
