"""scripts/gpu-capture runs here too (no GPU: Triton under the interpreter, .cu compile only)."""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "gpu-capture"


def test_lists_every_runnable_corpus_case() -> None:
    out = subprocess.run([sys.executable, str(SCRIPT), "--list"], capture_output=True, text=True, check=True).stdout
    names = [line.split()[0] for line in out.splitlines()]
    assert "gpu/oob_write_tail.cu" in names and "kernels/vector_add.py" in names
    assert len(names) >= 18


def test_one_case_end_to_end_writes_the_archive(tmp_path: Path) -> None:
    # a CUDA program: without a GPU (with or without nvcc) it cannot run, so the script records no-result and
    # the label as not reached, in seconds (a Triton case runs the interpreter and the probes: half a minute);
    # on a GPU it runs and reaches its label
    p = subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(tmp_path), "--only", "oob_write_tail", "--ladder", "none"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    (case,) = manifest["cases"]
    assert case["case"] == "gpu/oob_write_tail.cu" and case["label"]["failure_mode"] == "missing-mask-tail"
    expected = ("no-result", 4, False) if case["verdict"] == "no-result" else ("fail", 1, True)
    assert (case["verdict"], case["exit"], case["label_reached"]) == expected, case
    with tarfile.open(tmp_path / "kdiag-gpu-capture.tar.gz") as tar:
        names = tar.getnames()
    assert "kdiag-gpu-capture/manifest.json" in names
    assert any(n.endswith("evidence.json") for n in names)
