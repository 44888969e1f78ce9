"""The full probe set on small pure-torch kernel modules (real children, no Triton): fast, and every verdict."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from probe_fixtures import kdiag_runner

# asserts contiguity (a stated assumption: `rejected`, not a failure), crashes on empty inputs, and its
# reference only takes float32 (other dtypes are outside the contract: skipped)
STRICT = """
    import torch

    SIZES = [dict(n=64)]

    def make_inputs(device, seed=0, n=64):
        g = torch.Generator().manual_seed(seed)
        return (torch.randn(n, generator=g).to(device),)

    def kernel(x):
        assert x.is_contiguous(), "contiguous inputs only"
        first = x[0]  # IndexError for n=0
        return x * 2.0 + first * 0.0

    def reference(x):
        if x.dtype != torch.float32:
            raise TypeError("float32 only")
        return x * 2.0
"""


def test_full_probes_reject_skip_and_crash(tmp_path: Path) -> None:
    path = tmp_path / "strict.py"
    path.write_text(textwrap.dedent(STRICT).lstrip())
    code, out, _ = kdiag_runner(tmp_path)(str(path), "--probes", "full")
    assert (code, out["verdict"], out["category"], out["failure_mode"]) == (
        1,
        "assumption",
        "runtime-assumption",
        "empty-input",
    )
    probes = json.loads((Path(out["run_dir"]) / "probes.json").read_text())["probes"]
    by_kind: dict[str, set[str]] = {}
    for p in probes:
        by_kind.setdefault(p["kind"], set()).add(p["verdict"])
    assert by_kind["empty"] == {"crash"}
    assert by_kind["noncontiguous"] == {"rejected"}  # the submission's own assert: a check
    assert by_kind["dtype"] == {"skipped-outside-contract"}  # the reference refuses float16/bfloat16
    assert by_kind["nonmultiple"] == {"ok"} and by_kind["large"] == {"ok"}
    assert by_kind["repeat"] == {"ok"} and by_kind["seed"] == {"ok"}
    ev = json.loads((Path(out["run_dir"]) / "evidence.json").read_text())["evidence"]["run"]
    assert ev["probe_empty_failed"] and not ev["probe_noncontiguous_failed"]
    assert ev["probe_skipped"] == 2 and ev["probes"] == "full"


def test_probes_none_runs_no_probe(tmp_path: Path) -> None:
    path = tmp_path / "strict.py"
    path.write_text(textwrap.dedent(STRICT).lstrip())
    code, out, _ = kdiag_runner(tmp_path)(str(path), "--probes", "none")
    assert (code, out["verdict"], out["probes"]) == (0, "pass", None)
    assert not (Path(out["run_dir"]) / "probes.json").exists()
