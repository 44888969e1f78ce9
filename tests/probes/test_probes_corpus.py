"""Probes on the corpus kernels, end to end (real children, the Triton interpreter): contract vs probe.

The runs come from the session's ``corpus_run`` (tests/conftest.py), shared with the corpus label tests.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from probe_fixtures import CORPUS


def _matrix(out: dict) -> dict[str, dict]:
    probes = json.loads((Path(out["run_dir"]) / "probes.json").read_text())
    return {p["label"]: p for p in probes["probes"]}


def test_block_multiple_only_breaks_only_outside_its_sizes(corpus_run) -> None:
    code, out, _ = corpus_run(CORPUS / "block_multiple_only.py", probes="quick")
    assert (code, out["verdict"], out["category"], out["failure_mode"]) == (
        1,
        "assumption",
        "runtime-assumption",
        "shape-not-multiple-of-block",
    )
    assert all(s["ok"] for s in out["sizes"])  # the contract holds
    m = _matrix(out)
    p = m["n=4097"]
    # out-of-bounds lanes found at the probe size, though the in-range numbers are right
    assert p["verdict"] == "oob" and p["kind"] == "nonmultiple"
    assert p["figures"]["oob_stores"] > 0 and p["figures"]["mismatched"] == 0
    run = out["findings"][0]
    assert run["rule"] == "run-probe-shape-not-multiple-of-block"
    assert out["probes"]["level"] == "quick" and "n=4097" in out["probes"]["failed"]


def test_a_kernel_ignoring_strides_is_a_noncontiguous_assumption(corpus_run) -> None:
    code, out, _ = corpus_run(CORPUS / "ignores_strides.py", probes="quick")
    assert (code, out["verdict"], out["category"], out["failure_mode"]) == (
        1,
        "assumption",
        "runtime-assumption",
        "noncontiguous-input",
    )
    m = _matrix(out)
    assert all(p["verdict"] == "ok" for p in m.values() if p["kind"] in ("nonmultiple", "size-one"))
    bad = [p for p in m.values() if p["verdict"] == "mismatch"]
    assert bad and {p["kind"] for p in bad} == {"noncontiguous"}
    assert any(p["entry"]["layout"]["kind"] == "transpose" for p in bad)


def test_a_correct_kernel_passes_every_quick_probe(corpus_run) -> None:
    code, out, _ = corpus_run(CORPUS / "vector_add.py", probes="quick")
    assert (code, out["verdict"]) == (0, "pass")
    m = _matrix(out)
    assert len(m) >= 5 and all(p["verdict"] == "ok" for p in m.values())
    # n=1 is declared already (no size-one probe); 1-D inputs get no layout probe but the misaligned one
    assert {p["kind"] for p in m.values()} == {"nonmultiple", "misaligned"}


def test_a_failure_inside_the_contract_outranks_the_probe_and_shrinks(tmp_path: Path, corpus_run) -> None:
    code, out, _ = corpus_run(CORPUS / "missing_mask_tail.py", probes="quick", extra=("--shrink",))
    assert (code, out["verdict"], out["category"]) == (1, "fail", "kernel-logic")
    rules = [f["rule"] for f in out["findings"]]
    assert rules[0] != "run-probe-shape-not-multiple-of-block"
    assert "run-probe-shape-not-multiple-of-block" in rules[1:]  # reported, as an alternative
    sh = out["shrink"]
    assert sh["source"] == "declared n=1000" and sh["failure"] == "oob"
    assert sh["smallest"] == {"n": 1}
    assert sh["rules"] == ["fails whenever n % 256 != 0"]
    repro = Path(sh["repro"])
    assert repro.parent == Path(out["run_dir"])
    # the repro runs without kdiag: from another folder, with the venv's python
    got = subprocess.run(
        [sys.executable, str(repro)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert got.returncode == 1, got.stdout + got.stderr
    assert "written past its end" in got.stdout and "TRITON_INTERPRET=1" in got.stdout
