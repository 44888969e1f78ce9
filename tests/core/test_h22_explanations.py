"""Explanations of the twenty-second set's right answers, fixed for their families: the line a rule quotes is the
message that decided it (not a wrapper's line, not a traceback's quoted ``raise`` source), the fix names what the
log itself lists, built-without-CUDA and forward-compatibility failures get their own modes, a library's Triton
kernel over the shared-memory limit is fixed on the library's side, and a contested answer shows one confidence.

Fixture lines are the logs of labelled dev cases (corpus id given) or messages from the tools' own catalogues
(source named beside them), quoted verbatim.
"""

from __future__ import annotations

import pytest
from corpus_logs import classify_text, corpus_log, decided

from diagnose.catalogue import source_echo
from diagnose.collectors import collect
from diagnose.explain import explain_finding
from diagnose.matcher import Finding
from diagnose.rules import default_rules

WAN = corpus_log("holdout22", "h22a-wan-fp8e4nv-inductor-on-3090")  # kijai/ComfyUI-WanVideoWrapper#184
KTRANSFORMERS = corpus_log("holdout5", "ktransformers-fp8e4nv-on-sm80")
FP8_OLD_WORDING = corpus_log("holdout3", "triton-fp8e4nv-needs-sm89")  # triton 2.x semantic.py's assert
CUDA_HOME = corpus_log("holdout22", "h22a-extension-cpp-cuda-home-not-set")  # pytorch/extension-cpp#26
CUDA_HOME_CAPTURED = corpus_log("captured/cases.yaml", "environment-captured-cuda-home-not-set")
DETECTRON2 = corpus_log("holdout22", "h22b-detectron2-built-without-cuda")  # facebookresearch/detectron2#55
TORCH_CPU = corpus_log("captured/cases.yaml", "environment-captured-torch-cpu-build")
QUIP = corpus_log("holdout22", "h22b-quip-miner-forward-compat-consumer-gpu")  # QuipNetwork/quip-miner#24
SAM_FAST = corpus_log("holdout22", "h22a-sam-fast-flash4-smem-non-a100")  # meta-pytorch/segment-anything-fast#63
SPCONV = corpus_log("holdout22", "h22b-spconv-zero-valid-voxels-launch")  # traveller59/spconv#406


def _best(text: str) -> Finding:
    report = classify_text(text)
    assert report.diagnosis is not None and report.diagnosis.best is not None
    return report.diagnosis.best


# --- the quoted line is the message that decided -----------------------------------------------------------------


def test_fp8_quotes_tritons_message_not_the_wrappers_line_and_names_the_supported_format() -> None:
    best = _best(WAN)
    assert best.rule == "triton-fp8-type-unsupported-arch"
    assert "type fp8e4nv not supported" in best.what
    assert "Exception during processing" not in best.what
    assert "('fp8e4b15', 'fp8e5')" in best.fix and "float8_e5m2" in best.fix


@pytest.mark.parametrize("text", [KTRANSFORMERS, FP8_OLD_WORDING])
def test_fp8_fix_names_e5m2_on_other_wordings(text: str) -> None:
    best = _best(text)
    assert best.rule == "triton-fp8-type-unsupported-arch"
    assert "fp8e5" in best.fix and "float8_e5m2" in best.fix


@pytest.mark.parametrize("text", [CUDA_HOME, CUDA_HOME_CAPTURED])
def test_cuda_home_cites_the_exception_line_not_the_raise_source(text: str) -> None:
    best = _best(text)
    assert best.rule == "torch-ext-cuda-home-missing"
    assert best.evidence, best
    assert all(not c.text.strip().startswith("raise ") for c in best.evidence)
    assert any("Error: CUDA_HOME environment variable is not set" in c.text for c in best.evidence)
    assert "raise " not in best.what


def test_source_echo_is_the_line_under_a_traceback_frame() -> None:
    pos = CUDA_HOME.index("raise EnvironmentError")
    assert source_echo(CUDA_HOME, pos)
    assert not source_echo(CUDA_HOME, CUDA_HOME.index("EnvironmentError: CUDA_HOME"))
    assert not source_echo(CUDA_HOME, 0)


# --- modes and fixes of the family ------------------------------------------------------------------------------


def test_extension_built_without_cuda_has_its_mode_and_a_fix_that_makes_cuda_visible_to_the_build() -> None:
    assert decided(DETECTRON2) == ("environment", "extension-built-without-cuda", "concept-built-without-cuda")
    fix = _best(DETECTRON2).fix
    assert "FORCE_CUDA=1" in fix and "CUDA_HOME" in fix and "torch.cuda.is_available()" in fix


@pytest.mark.parametrize(
    "text",
    [
        # KeOps's C++ binder, the branch built without CUDA (its `throw std::runtime_error`)
        "[KeOps] This KeOps shared object has been compiled without cuda support: try to set tagHostDevice to 0 or "
        "recompile the formula with a working version of cuda.\n",
    ],
)
def test_built_without_cuda_on_another_wording(text: str) -> None:
    assert decided(text)[:2] == ("environment", "extension-built-without-cuda")


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        (TORCH_CPU, "torch-not-compiled-with-cuda"),  # torch's own CPU wheel keeps its rule
        ("XLA compiled without GPU collectives support\n", "shape-built-without-feature"),  # jaxlib's strings
    ],
)
def test_other_built_without_messages_keep_their_rules(text: str, rule: str) -> None:
    assert decided(text)[2] == rule


@pytest.mark.parametrize(
    "text",
    [QUIP, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE\n"],  # the second: CUresult's name in include/cuda.h (804)
)
def test_forward_compat_on_an_unsupported_gpu_has_its_own_mode(text: str) -> None:
    assert decided(text) == (
        "environment",
        "forward-compat-lib-on-unsupported-gpu",
        "cudart-forward-compat-unsupported-gpu",
    )


def test_smem_over_the_limit_leads_with_the_packages_remedy_when_the_log_names_no_frame() -> None:
    fix = _best(SAM_FAST).fix
    assert fix.startswith("Whose kernel it is decides the fix")
    assert fix.index("switch") < fix.index("num_stages")
    assert "libraries often expose" not in fix


def test_smem_over_the_limit_in_a_library_frame_names_the_library_first() -> None:
    # the same log, with the location facts a traceback through the package's frame gives (diagnose.placement)
    ev = collect(SAM_FAST)
    context = {
        **ev.context(),
        "location_kind": "library",
        "location_library": "segment_anything_fast",
        "location_frame": "segment_anything_fast/flash_4.py",
    }
    rule = next(r for r in default_rules().rules if r.id == "triton-out-of-resources-smem")
    fix = explain_finding(rule, ev, context).fix
    assert fix.startswith("The kernel that does not fit is segment_anything_fast's, not yours")
    assert fix.index("switch") < fix.index("num_stages")
    assert "Whose kernel it is decides" not in fix


# --- one confidence per rule ------------------------------------------------------------------------------------


def test_a_contested_abstention_shows_the_same_confidence_in_its_status_and_its_candidates() -> None:
    report = classify_text(SPCONV)
    d = report.diagnosis
    assert d is not None and d.abstained and d.contested
    assert d.findings[0].rule == d.rule
    assert d.findings[0].confidence == d.confidence
    assert all(f.confidence <= d.confidence for f in d.findings)
    facts = dict(d.findings[0].facts)
    assert "for this rule in general" in facts.get("confidence", "")
