"""A CUDA status in a framework's wording gets the fix for a framework's own kernel too, not only the kernel
author's steps; `kdiag rules lint` flags a rule whose fix gives only the author's steps there.

The logs are development cases (each with its repo#issue) and other wordings of the same statuses from the
tools: PyTorch's c10 check (`RuntimeError: CUDA error: MESSAGE`, and `torch.AcceleratorError: CUDA error:
MESSAGE`, the exception type PyTorch 2.8+ raises for it), and CuPy's `CUDARuntimeError`, whose text is
`str(cupy_backends.cuda.api.runtime.CUDARuntimeError(status))` of cupy-cuda13x 14.2 (run here without a GPU)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml

from diagnose import explain as X
from diagnose.classify import classify_record
from diagnose.collectors import collect
from diagnose.inputs import InputRecord
from diagnose.lint import _contexts
from diagnose.lint_owner import author_advice, check_fix_owner, owner_named
from diagnose.matcher import Matcher
from diagnose.rules import default_rules

ROOT = Path(__file__).resolve().parents[2]
RULES = default_rules()
MATCHER = Matcher(RULES)


def _log(corpus: str, cid: str) -> str:
    cases = yaml.safe_load((ROOT / "corpus" / corpus / "issues.yaml").read_text(encoding="utf-8"))
    return next(c["log"] for c in cases if c["id"] == cid)


def _best(text: str):
    report = classify_record(InputRecord(id="t", text=text), MATCHER)
    assert report.diagnosis is not None and report.diagnosis.best is not None, report.status
    return report.diagnosis.best


def _candidate(text: str, rule: str):
    """The finding of ``rule`` on a status kdiag abstains on: its fix is still shown among the candidates."""
    report = classify_record(InputRecord(id="t", text=text), MATCHER)
    assert report.status == "unknown" and report.diagnosis is not None
    return next(f for f in report.diagnosis.findings if f.rule == rule)


CUPY_9 = (
    "cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorInvalidConfiguration: invalid configuration argument\n"
)
CUPY_701 = (
    "cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorLaunchOutOfResources: "
    "too many resources requested for launch\n"
)


# --- the fix a report shows, per wording ---------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        _log("holdout13", "h13a-torch-reduce-config-too-many-blocks"),  # pytorch/pytorch#48573 (a stock reduction)
        "torch.AcceleratorError: CUDA error: invalid configuration argument\n",
    ],
)
def test_torch_invalid_configuration_names_pytorchs_own_op(text: str) -> None:
    f = _best(text)
    assert f.rule == "cuda-invalid-configuration"
    assert "PyTorch's own" in f.fix and "upstream" in f.fix and "validate the input" in f.fix
    assert "Only in your own extension's kernel" in f.fix  # the author's steps, said to be for one's own kernel


def test_cpp_invalid_configuration_keeps_the_authors_steps() -> None:
    f = _best("Check failed: error == cudaSuccess (9 vs. 0) invalid configuration argument\n")  # BVLC/caffe#1793
    assert "grid-stride" in f.fix and "PyTorch" not in f.fix and "CuPy" not in f.fix


def test_cupy_invalid_configuration_names_cupys_own_routines() -> None:
    f = _best(CUPY_9)
    assert f.rule == "cuda-invalid-configuration"
    assert "CuPy's own routines" in f.fix and "upstream" in f.fix and "RawKernel" in f.fix


@pytest.mark.parametrize(
    ("text", "framework"),
    [
        # pytorch/pytorch#52002 (PyTorch's CI: EmbeddingBag.cu's launch)
        (_log("holdout13", "h13a-torch-embeddingbag-too-many-resources-win-cu112"), "torch"),
        (_log("holdout2", "helixsurf-fusion-image-over-1024"), "torch"),  # Gorilla-Lab-SCUT/HelixSurf#2
        (CUPY_701, "cupy"),
    ],
)
def test_out_of_resources_in_a_framework_names_its_own_kernels(text: str, framework: str) -> None:
    f = _candidate(text, "cuda-launch-out-of-resources")
    assert "upstream" in f.fix
    assert ("PyTorch's own op" if framework == "torch" else "CuPy's own routines") in f.fix


def test_out_of_resources_in_an_extension_names_the_input_size() -> None:
    # HelixSurf's fusion kernel takes its block from the image: the thread's fix was smaller images
    f = _candidate(_log("holdout2", "helixsurf-fusion-image-over-1024"), "cuda-launch-out-of-resources")
    assert "image resolution" in f.fix


def test_cpp_out_of_resources_keeps_the_authors_steps() -> None:
    f = _candidate(_log("holdout5", "llmc-debug-build-too-many-resources"), "cuda-launch-out-of-resources")
    assert "__launch_bounds__" in f.fix and "PyTorch" not in f.fix


# --- the framework of CuPy's own exception ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "framework"),
    [
        (CUPY_701, "cupy"),
        # CuPy's driver-API error (cupy_backends/cuda/api/driver.pyx), as in the rule base's examples
        ("cupy_backends.cuda.api.driver.CUDADriverError: CUDA_ERROR_INVALID_VALUE: invalid argument\n", "cupy"),
        ("RuntimeError: CUDA error: invalid configuration argument\n", "torch"),
        ("Check failed: error == cudaSuccess (9 vs. 0) invalid configuration argument\n", "cuda"),
    ],
)
def test_framework_of_the_status(text: str, framework: str) -> None:
    assert X.framework(collect(text).context()) == framework


# --- the lint check -------------------------------------------------------------------------------------


def test_author_advice_and_owner_words() -> None:
    assert author_advice("Fold large dimensions into x and use grid-stride loops.") == [
        "Fold large dimensions into x",
        "grid-stride",
    ]
    assert author_advice("Rerun with CUDA_LAUNCH_BLOCKING=1 and print the shapes.") == []
    assert owner_named("upgrade PyTorch and report it upstream")
    assert not owner_named("cap the registers with `-maxrregcount=N`")


def test_lint_flags_author_only_steps_in_a_framework_wording() -> None:
    rule = RULES.get("cuda-invalid-configuration")
    assert rule is not None
    contexts = _contexts(rule)
    assert check_fix_owner(rule, contexts) == []
    # the fix as it was: the author's steps for every wording (the caffe example reads as CUDA C++)
    broken = dataclasses.replace(rule, explain=dataclasses.replace(rule.explain, fixes=()))
    problems = check_fix_owner(broken, contexts)
    assert {p.message.split(" on this status in ")[1].split("'s")[0] for p in problems} == {"torch", "cupy"}
    assert all("grid-stride" in p.message for p in problems)
    # a default that says what to do with a framework's kernel passes
    owned = dataclasses.replace(
        broken,
        explain=dataclasses.replace(
            broken.explain, fix=f"{broken.explain.fix} When the kernel is a library's, report it upstream."
        ),
    )
    assert check_fix_owner(owned, contexts) == []


def test_lint_owner_check_never_raises_on_odd_contexts() -> None:
    rule = RULES.get("cuda-launch-out-of-resources")
    assert rule is not None
    odd = [(1, {"cuda_error": "cudaErrorLaunchOutOfResources", "cuda_message": "\x00{}[[ ]]"}), (2, {})]
    assert isinstance(check_fix_owner(rule, odd), list)
