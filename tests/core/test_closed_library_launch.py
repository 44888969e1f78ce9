"""A compute-sanitizer report whose kernel a closed NVIDIA library launched is not the reader's kernel's fault."""

from __future__ import annotations

from pathlib import Path

import yaml

from diagnose.classify import classify_records
from diagnose.inputs import read_inputs

ROOT = Path(__file__).resolve().parents[2]


def _diagnose(path: str, case_id: str, tmp_path: Path):
    cases = yaml.safe_load((ROOT / path).read_text(encoding="utf-8"))
    log = tmp_path / "run.log"
    log.write_text(next(c["log"] for c in cases if c["id"] == case_id))
    (report,) = classify_records(read_inputs([str(log)]))
    return report.diagnosis


def test_a_kernel_cusolver_launched_leaves_the_librarys_bug_and_the_callers_arguments(tmp_path: Path) -> None:
    # cupy/cupy#4628 (corpus/holdout35): cuSOLVER 10.0's larf_minus_tau, launched from cusolverDnZgesvd
    d = _diagnose("corpus/holdout35/issues.yaml", "h35b-cupy-batched-svd-cusolver100-oob", tmp_path)
    assert d.category == "unknown"
    owners = [f.category for f in d.findings]
    assert owners[:2] == ["environment", "runtime-assumption"]
    assert "kernel-logic" not in owners


def test_an_address_in_another_mapping_keeps_the_callers_code(tmp_path: Path) -> None:
    # ggml-org/llama.cpp#24489 (corpus/holdout10): NCCL's kernel wrote one high address bit past the caller's
    # buffer, which the caller's own memory pool had not mapped for the peer
    d = _diagnose("corpus/holdout10/issues.yaml", "ggml-nccl-allreduce-oob-write-vmm-pool-peer-access", tmp_path)
    assert d.category == "kernel-logic"
