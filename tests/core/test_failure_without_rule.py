"""A log that shows a failure no rule decides is ``unknown``, never ``no-failure``: the shapes in which tools
print failures that are not errors by severity (CPython's unraisable-exception hook, a test's bare verdict,
Numba's typing error without its head, a "Fail to ..." statement with its reason, a reference check that
miscompared, an all-ones sentinel printed as a process id).

Each family is tested on the log of a development case (corpus/holdout11, public reports: the thread named in
the case's ``source``) and on another wording of the same family from the tool's own sources, with healthy
look-alikes that must stay silent."""

from __future__ import annotations

import pytest
from corpus_logs import classify_text, corpus_log

from diagnose.collectors import collect
from diagnose.failure_lines import is_failure_line
from diagnose.sentinels import sentinel_pid_lines
from diagnose.unmatched import hint_for


def _case(case_id: str) -> str:
    return corpus_log("holdout11", case_id)


@pytest.mark.parametrize(
    "text",
    [
        # holdout11 apex-fused-layernorm-batch-65536-wrong-result (NVIDIA/apex): the test script's verdict line
        _case("apex-fused-layernorm-batch-65536-wrong-result"),
        # holdout11 cupy-thrust-sort-swallowed-oom-corrupts-output (cupy/cupy): Cython's noexcept callback
        _case("cupy-thrust-sort-swallowed-oom-corrupts-output"),
        # holdout11 nvitop-pids-scrambled-after-driver-update (XuehaiPan/nvitop): PIDs 4294967295 from pynvml
        _case("nvitop-pids-scrambled-after-driver-update"),
    ],
)
def test_a_visible_failure_no_rule_decides_is_unknown(text: str) -> None:
    assert classify_text(text).status == "unknown"


@pytest.mark.parametrize(
    "line",
    [
        # CPython 3.11 Python/errors.c (PyErr_WriteUnraisable -> sys.unraisablehook): "Exception ignored in: %R"
        "Exception ignored in: <function Pool.__del__ at 0x7f2a1c0b9d30>",
        # CPython 3.13 Python/errors.c: the unraisable hook's message given by the caller
        "Exception ignored while calling deallocator <function Stream.__del__ at 0x7f0c>:",
        # CPython Modules/_ctypes/callbacks.c: an exception in a ctypes callback
        "Exception ignored on calling ctypes callback function: <function cb at 0x7f>",
        # numba 0.68.1 numba/core/errors.py UntypedAttributeError, the message alone
        "Unknown attribute 'shape' of type int64",
        # a test program's bare verdict (the apex case's spelling; cuda-samples print "FAILED", an earlier family)
        "Failure",
        # CUTLASS examples' reference check (examples/*/ : "ERROR - results miscompared.")
        "Results miscompared.",
        # the xinference case's statement with another reason: NVML's nvmlErrorString for NVML_ERROR_UNKNOWN
        "Fail to get GPU info: Unknown Error",
        # inside a logger's prefix (loguru / Python logging with brackets)
        "[xinference.core.worker] Fail to query device memory: Not Supported",
    ],
)
def test_failure_shapes_without_an_error_severity(line: str) -> None:
    assert is_failure_line(line)


@pytest.mark.parametrize(
    "line",
    [
        "All tests passed. No failure.",
        "Failure rate: 0.00",
        "exception ignored list: []",
        "Tests that fail to build: none",  # prose, not a statement of this run
        "Fail to get root directory.",  # a statement with no reason is not this family
        "max pid: 4194304",
    ],
)
def test_healthy_look_alikes_stay_silent(line: str) -> None:
    assert not is_failure_line(line)


def test_an_all_ones_pid_needs_a_pid_field_nearby() -> None:
    # nvidia-smi --query-compute-apps=pid,used_memory prints a "pid" header above its rows
    smi = "pid, used_memory [MiB]\n1184, 512 MiB\n4294967295, 0 MiB\n"
    assert [n for n, _ in sentinel_pid_lines(smi, 3)] == [3]
    # the same number as a size or a mask says nothing
    assert sentinel_pid_lines("max_alloc: 4294967295 bytes\nmask 0xFFFFFFFF\n", 3) == []
    assert sentinel_pid_lines("pid 1184\n" + "x\n" * 20 + "limit 4294967295\n", 3) == []


@pytest.mark.parametrize(
    "case_id",
    [
        # no failure text at all: values printed without a reference, a launch on a view; the review itself
        # calls these not visible failures, and a detector of them would fire on healthy output
        "cupy-rawkernel-slice-view-ignored",
        "cupy-divide-dtype-arg-casts-to-int8",
    ],
)
def test_printed_values_without_a_failure_word_stay_no_failure(case_id: str) -> None:
    assert classify_text(_case(case_id)).status == "no-failure"


@pytest.mark.parametrize(
    ("text", "kind", "word"),
    [
        # holdout11 cupy-thrust-sort-swallowed-oom-corrupts-output; CPython 3.13's other wording of the hook
        (_case("cupy-thrust-sort-swallowed-oom-corrupts-output"), "swallowed-exception", "-X dev"),
        (
            "Exception ignored while calling deallocator <function Stream.__del__ at 0x7f0c>:\n",
            "swallowed-exception",
            "-X dev",
        ),
        # holdout11 nvitop-pids-scrambled-after-driver-update; nvidia-smi's CSV query with a "pid" header
        (_case("nvitop-pids-scrambled-after-driver-update"), "impossible-process-id", "nvidia-ml-py"),
        ("pid, used_memory [MiB]\n4294967295, 0 MiB\n", "impossible-process-id", "nvidia-ml-py"),
        # holdout11 kur-nvml-device-utilization-unsupported and xinference-gb10-nvml-memory-info-not-supported:
        # two tools' wordings of one failed query (pynvml's NVMLError_NotSupported has a rule of its own)
        (_case("kur-nvml-device-utilization-unsupported"), "monitoring-query-failed", "nvidia-smi -q"),
        # the query failing with another NVML reason than Not Supported (nvmlErrorString of NVML_ERROR_UNKNOWN)
        ("Fail to get GPU info: Unknown Error\n", "monitoring-query-failed", "nvidia-smi -q"),
        # FlashInfer's DISPATCH_HEAD_DIM wording for a caller's parameter, its value not printed (include/flashinfer/utils.cuh;
        # the tile sizes FlashInfer derives itself, holdout11's max_frags_z, are decided: see below)
        ("ValueError: Unsupported head_dim:\n", "dispatch-unsupported-value", "dispatch"),
        # holdout11 warp-fem-lookup-fp64-overload-mismatch; Warp's codegen wording for a builtin
        # (warp/_src/codegen.py: "Couldn't find function overload for '{name}' that matched inputs with types: ...")
        (_case("warp-fem-lookup-fp64-overload-mismatch"), "jit-type-overload-missing", "float64"),
        (
            'warp.codegen.WarpCodegenError: Error while parsing function "k" at k.py:9:\n'
            "Couldn't find function overload for 'length' that matched inputs with types: [vec3d]\n",
            "jit-type-overload-missing",
            "float64",
        ),
        # a reference check's bare verdict (CUTLASS examples' own "ERROR - results miscompared." is read as a
        # comparison that failed: numerics-mismatch answers it) and the apex size-boundary case
        ("Results miscompared.\n", "wrong-result", "racecheck"),
        (_case("apex-fused-layernorm-batch-65536-wrong-result"), "wrong-result", "65535"),
    ],
)
def test_the_check_of_an_unknown_follows_the_messages_form(text: str, kind: str, word: str) -> None:
    report = classify_text(text)
    assert report.status == "unknown"
    hint = hint_for(collect(text))
    assert hint is not None and hint.kind == kind
    assert word in hint.check and "capture" not in hint.check


@pytest.mark.parametrize(
    ("case_id", "category"),
    [
        # a failed query ending in NVML's own "Not Supported" (nvmlErrorString of NVML_ERROR_NOT_SUPPORTED)
        ("xinference-gb10-nvml-memory-info-not-supported", "runtime-assumption"),
        # a tile size FlashInfer derives itself has no dispatch case: the library's own configuration
        ("vllm-gemma2-flashinfer-unsupported-max-frags-z-sm86", "kernel-logic"),
    ],
)
def test_a_failure_line_a_catalogue_family_decides_is_answered(case_id: str, category: str) -> None:
    assert classify_text(_case(case_id)).category == category
