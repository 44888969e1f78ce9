"""A fix speaks to the framework and the layer of the log: one framework's install is not given for another's
message (the stream executor's cuDNN check is printed by TensorFlow as well as jaxlib), an error NCCL reports
from its own CUDA call is not answered with the program's launch limits, and a driver version the log prints is
acted on first.  The logs are development cases (corpus/holdout11, public reports); the lint check is
:func:`diagnose.lint_language.check_rule_language`."""

from __future__ import annotations

import dataclasses

from corpus_logs import classify_text, corpus_log

from diagnose.collectors import collect
from diagnose.lint_language import check_rule_language, foreign_packaging
from diagnose.rule_model import Rule
from diagnose.rules import default_rules


def _case(case_id: str) -> str:
    return corpus_log("holdout11", case_id)


def _rule(rule_id: str) -> Rule:
    return next(r for r in default_rules() if r.id == rule_id)


# TensorFlow 2.4-2.10 prints the check from tensorflow/stream_executor/cuda/cuda_dnn.cc (jax-ml/jax#6517's line,
# without jaxlib's external/org_tensorflow/ prefix)
TF_LINE = (
    "2021-04-20 23:10:23.094910: E tensorflow/stream_executor/cuda/cuda_dnn.cc:352] Loaded runtime CuDNN library: "
    "8.0.5 but source was compiled with: 8.1.0.\n"
)


def test_foreign_packaging_names_another_frameworks_install() -> None:
    assert foreign_packaging('`pip install -U "jax[cuda12]"`', None) == ["jax[cuda12]"]
    assert foreign_packaging('`pip install -U "jax[cuda12]"`', "jax") == []
    assert foreign_packaging("pip install torch --index-url https://download.pytorch.org/whl/cu118", "jax") == [
        "pip install torch",
        "download.pytorch.org/whl",
    ]
    # a torch wheel pins the Triton it runs: installing torch is advice for a Triton log too
    assert foreign_packaging("`pip install torch==2.4` brings its Triton", "triton") == []
    assert foreign_packaging("install `cupy-cuda12x`", "torch") == ["cupy-cuda12x"]


def test_lint_flags_a_jax_install_for_a_tensorflow_log() -> None:
    rule = _rule("xla-cudnn-runtime-older-than-build")
    ctx = collect(TF_LINE).context()
    assert check_rule_language(rule, [(1, ctx)]) == []
    leaking = dataclasses.replace(
        rule,
        explain=dataclasses.replace(
            rule.explain, fix='Install the cuDNN version jaxlib wants (pip install -U "jax[cuda12]").', fixes=()
        ),
    )
    problems = check_rule_language(leaking, [(1, ctx)])
    assert problems and "jax[cuda12]" in problems[0].message


def test_the_cudnn_check_gets_no_jax_install_without_jax_in_the_log() -> None:
    for text in (_case("tf-text-cudnn-runtime-older-than-build"), TF_LINE):
        report = classify_text(text)
        assert report.category == "environment"
        best = report.diagnosis.best if report.diagnosis else None
        assert best is not None and "jax" not in best.fix.lower()


def test_the_printed_driver_is_acted_on_first() -> None:
    # holdout11 triton-nightly-kernel-image-invalid-driver-470 (triton-lang/triton#2971)
    report = classify_text(_case("triton-nightly-kernel-image-invalid-driver-470"))
    best = report.diagnosis.best if report.diagnosis else None
    assert best is not None and best.fix.startswith("The log prints driver 470.182.03")
    # without an nvidia-smi line the fix starts where it did
    bare = classify_text("RuntimeError: Triton Error [CUDA]: device kernel image is invalid.\n")
    best = bare.diagnosis.best if bare.diagnosis else None
    assert best is not None and "prints driver" not in best.fix


def test_an_invalid_value_inside_nccl_is_not_the_programs_launch() -> None:
    # holdout11 vllm-custom-allreduce-nccl-2-18-invalid-argument (vllm-project/vllm#3688)
    report = classify_text(_case("vllm-custom-allreduce-nccl-2-18-invalid-argument"))
    assert report.status == "unknown"
    assert report.diagnosis is not None and report.diagnosis.rule != "cuda-invalid-value"
    best = report.diagnosis.findings[0]
    assert best.category == "environment"
    # the program's own "invalid argument" with no NCCL in it still reaches the launch-limit rule
    own = classify_text("RuntimeError: CUDA error: invalid argument\n")
    assert own.diagnosis is not None and any(f.rule == "cuda-invalid-value" for f in own.diagnosis.findings)
