"""Submissions that try to pass without being right cannot get `pass` (real children, no GPU)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

HEAD = """
    import torch

    SIZES = [dict(n=1000)]

    def make_inputs(device, seed=0, n=1024):
        g = torch.Generator().manual_seed(seed)
        return torch.randn(n, generator=g).to(device), torch.randn(n, generator=g).to(device)

    def reference(x, y):
        return x + y
"""

CASES = {
    # every comparison and timer the submission could reach is patched; the output is wrong
    "patches-checks": """
        import time
        import numpy
        torch.allclose = lambda *a, **k: True
        torch.testing.assert_close = lambda *a, **k: None
        numpy.allclose = lambda *a, **k: True
        time.perf_counter = lambda: 0.0
        time.time = lambda: 0.0

        def kernel(x, y):
            return x * 0
    """,
    # right values, but written into the first input and that input returned
    "mutates-inputs": """
        def kernel(x, y):
            x.add_(y)
            return x
    """,
    # the right answer computed and freed, then a never-written buffer of the same size returned:
    # with a plain allocator it can hold exactly that answer
    "returns-empty": """
        def kernel(x, y):
            tmp = x + y
            del tmp
            return torch.empty_like(x)
    """,
    "exits-zero": """
        import os

        def kernel(x, y):
            os._exit(0)
    """,
    "sys-exit-zero": """
        import sys

        def kernel(x, y):
            sys.exit(0)
    """,
}
EXPECTED = {
    "patches-checks": ("fail", "kernel-logic"),
    "mutates-inputs": ("fail", "kernel-logic", "inputs-mutated"),
    "returns-empty": ("fail", "kernel-logic", "output-never-written"),
    "exits-zero": ("no-result", "kernel-logic", "no-result"),
    "sys-exit-zero": ("no-result", "kernel-logic", "no-result"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_cheats_do_not_pass(case: str, write, tmp_path: Path, kdiag_run) -> None:
    import textwrap

    source = textwrap.dedent(HEAD) + textwrap.dedent(CASES[case])
    code, out, _ = kdiag_run(str(write(tmp_path, f"{case.replace('-', '_')}.py", source)), "--ladder", "none")
    assert out is not None
    want = EXPECTED[case]
    assert code == (4 if want[0] == "no-result" else 1)
    assert out["verdict"] == want[0] and out["category"] == want[1], out["title"]
    if len(want) > 2:
        assert out["failure_mode"] == want[2]
    run = json.loads((Path(out["run_dir"]) / "evidence.json").read_text())["evidence"]["run"]
    if case == "mutates-inputs":
        assert run["mutated_inputs"] == ["in0"]
    if case == "returns-empty":
        assert run["output_unwritten"] and run["unwritten_pattern"] == "all"
    if case.endswith("exits-zero") or case == "exits-zero":
        assert run["result_missing"] and run["sizes_missing"] == ["n=1000"]
