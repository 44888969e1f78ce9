"""The next check of a log from a GPU runtime other than CUDA (diagnose.collectors.log_words.gpu_runtime, the
``gpu-other`` texts of diagnose/data/unmatched.yaml): HIP/ROCm, OpenCL, SYCL, Metal and chipStar programs get
their runtime's own checks, never CUDA's tools (compute-sanitizer, CUDA_LAUNCH_BLOCKING, nvidia-smi).

The logs are real reports quoted from the dev corpus.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from diagnose.collectors import collect
from diagnose.collectors.log_words import gpu_runtime
from diagnose.lint_language import CUDA_ONLY
from diagnose.unmatched import default_kinds, hint_for

ROOT = Path(__file__).resolve().parent.parent.parent


def _log(path: str, case_id: str) -> str:
    cases = yaml.safe_load((ROOT / path).read_text(encoding="utf-8"))
    return str(next(c["log"] for c in cases if c["id"] == case_id))


# jax-ml/jax#34689 (corpus/holdout27 h27b-pallas-mosaic-gpu-rocm-arch-string): an AMD target name
ROCM = _log("corpus/holdout27/issues.yaml", "h27b-pallas-mosaic-gpu-rocm-arch-string")
# CHIP-SPV/chipStar#600 (corpus/holdout31 h31c-chipstar-minimod-oob-fail): an explicit FAIL, the runtime only
# in the report's context
CHIPSTAR_FAIL = _log("corpus/holdout31/issues.yaml", "h31c-chipstar-minimod-oob-fail")
# openmm/openmm#2392 (corpus/holdout27 h27b-openmm-drude-lone-pair-virtual-sites-nan): CUDA and OpenCL both ran
BOTH = _log("corpus/holdout27/issues.yaml", "h27b-openmm-drude-lone-pair-virtual-sites-nan")


def test_the_runtime_is_read_from_its_own_names() -> None:
    assert gpu_runtime(ROCM) == "HIP/ROCm"
    assert collect(ROCM).log.gpu_runtime == "HIP/ROCm"
    assert gpu_runtime(BOTH) is None  # CUDA named too: its tools may apply
    assert gpu_runtime(CHIPSTAR_FAIL) is None  # the log alone does not say


def test_a_wrong_result_on_another_runtime_gets_that_runtimes_checks() -> None:
    ev = collect(CHIPSTAR_FAIL)
    plain = hint_for(ev)
    assert plain is not None and plain.kind == "wrong-result"
    assert "compute-sanitizer" in plain.check  # a log that does not name its runtime keeps the CUDA steps
    other = hint_for(ev, {**ev.context(), "log_gpu_runtime": "chipStar"})
    assert other is not None and other.kind == "wrong-result"
    assert "This ran on chipStar" in other.check and "CHIP_BE" in other.check and "Oclgrind" in other.check
    assert not CUDA_ONLY.search(other.check)


def test_no_check_for_another_runtime_names_a_cuda_tool() -> None:
    for kind in default_kinds():
        if kind.platform == "cuda":
            continue
        for fw in (None, "cuda", "torch"):
            text = kind.check_for(fw, "gpu-other")
            assert not CUDA_ONLY.search(text), (kind.kind, fw)
