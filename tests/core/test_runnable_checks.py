"""What an abstention tells the reader to run, and failures printed without a failure word.

- A CUDA library that prints what failed and ``cudaGetErrorString``'s text (Thrust's ``system_error``,
  CUB) shows a failure: it is never ``no-failure``, and its check asks how the program was compiled.
- The deciding check of an ``unknown`` is a procedure: the assert text above a backtrace and a CPU-only
  rerun for an abort; the sanitizer and ``cuobjdump -sass`` for an illegal instruction; the compiler A/B
  for an illegal address; the layer's arguments for a cuDNN NOT_SUPPORTED; a leak for an OOM that comes
  after the job ran a while.
- Advice fits the log's language: no pip for a C++ program, no nvcc options for a Numba kernel.

Logs: the corpus' public cases (by set and id, each with its repo#issue in the set) and wordings from the
tools' own sources (Thrust 3.1 in CuPy 14.2's bundled CCCL, ``thrust/system/cuda/detail/*.h``) or public
reports (repo#issue beside each).
"""

from __future__ import annotations

import pytest

from diagnose.collectors import cuda_errors, oom
from diagnose.failure_lines import failure_lines, is_failure_line
from diagnose.lint_language import check_unmatched_language, foreign_advice
from tests.core.corpus_logs import classify_text, corpus_log, finding_of

# --- a CUDA library's "<what failed>: <cudaGetErrorString text>" -----------------------------------

LIBRARY_TAILS = [
    # corpus/holdout9 thrust-radix-sort-invalid-argument-no-arch-flag (NVIDIA/thrust#563)
    ("after cub_::DeviceRadixSort::SortPairs(1): invalid argument", "cudaErrorInvalidValue"),
    # TACIXAT/zmine#2, the same call in Thrust's what() line
    (
        "terminate called after throwing an instance of 'thrust::system::system_error'\n"
        "  what():  after cub_::DeviceRadixSort::SortPairs(0): invalid device function\n",
        "cudaErrorInvalidDeviceFunction",
    ),
    # Xtra-Computing/thundersvm#83 (Thrust's throw_on_error(status, "radix_sort: failed on 1st step"), sort.h)
    (
        "2018-06-30 09:35:07,295 FATAL [default] radix_sort: failed on 1st step: invalid device function",
        "cudaErrorInvalidDeviceFunction",
    ),
    # BhallaLab/moose-core#53: a CUDA API call named before the text
    ("  what():  function_attributes(): after cudaFuncGetAttributes: invalid device function", None),
    # Thrust's reduce.h: throw_on_error(status, "after reduce invocation"), with an allocation's text
    ("after reduce invocation: out of memory", "cudaErrorMemoryAllocation"),
]


@pytest.mark.parametrize(("text", "error"), LIBRARY_TAILS)
def test_a_library_tail_is_a_failure_and_its_cuda_error(text: str, error: str | None) -> None:
    assert failure_lines(text), text
    facts = cuda_errors.parse(text)
    assert facts is not None
    assert facts.error == (error or "cudaErrorInvalidDeviceFunction")


@pytest.mark.parametrize(
    "line",
    [
        "step 3: loss 0.25",
        "cudaGetLastError after launch: no error",
        "status: ok",
        ": invalid argument",  # nothing before the colon: no call named
    ],
)
def test_lines_that_are_not_a_library_tail(line: str) -> None:
    assert not is_failure_line(line)
    assert cuda_errors.library_tail(line) is None


@pytest.mark.parametrize(
    "line",
    [
        # RMM's RMM_EXPECTS / RMM_FAIL (include/rmm/detail/error.hpp): "RMM failure at: " __FILE__ ":" line ": " reason
        "RMM failure at: /opt/rmm/include/rmm/mr/device/pool_memory_resource.hpp:193: Maximum pool size exceeded",
        # cuDF's CUDF_EXPECTS / CUDF_FAIL (cpp/include/cudf/utilities/error.hpp), raised into Python
        "RuntimeError: cuDF failure at: /cudf/cpp/src/io/parquet/reader_impl.cu:123: Column size exceeds the limit",
    ],
)
def test_a_rapids_check_report_is_a_failure(line: str) -> None:
    assert is_failure_line(line)


@pytest.mark.parametrize("line", ["retry on failure at: 3 attempts", "no failure at: all"])
def test_failure_at_without_a_source_location_is_not(line: str) -> None:
    assert not is_failure_line(line)


def test_a_system_message_is_a_failure_but_no_cuda_error() -> None:
    # strerror(EPERM) after a colon: a failure line, but nothing names a CUDA library or call
    text = "rm: cannot remove 'x': operation not permitted"
    assert failure_lines(text)
    assert cuda_errors.parse(text) is None


def test_thrust_invalid_argument_is_an_unknown_with_the_build_check() -> None:
    report = classify_text(corpus_log("holdout9", "thrust-radix-sort-invalid-argument-no-arch-flag"))
    assert report.status == "unknown"
    check = report.to_dict()["next_check"]
    assert "-arch=sm_XY" in check and "65535" in check and "size" in check


# --- deciding checks that are procedures ------------------------------------------------------------


def _check(where: str, case: str) -> str:
    report = classify_text(corpus_log(where, case))
    assert report.status == "unknown", report.status
    return str(report.to_dict()["next_check"])


def test_an_abort_backtrace_check_reads_the_assert_and_reruns_on_the_cpu() -> None:
    check = _check("holdout9", "llama-cpp-deepseek-sampler-assert-after-cuda-fa-change")
    assert "GGML_ASSERT" in check and 'CUDA_VISIBLE_DEVICES=""' in check and "bisect" in check


@pytest.mark.parametrize(
    "case", ["marlin-cp-async-cache-hint-illegal-instruction-sm120", "warp-tile-argmin-inactive-threads-debug"]
)
def test_an_illegal_instruction_check_locates_the_instruction(case: str) -> None:
    check = _check("holdout9", case)
    assert "compute-sanitizer" in check and "cuobjdump -sass" in check and "compute_cap" in check
    assert "debug" in check and "trap" in check


@pytest.mark.parametrize(
    "case",
    [
        "torch-compile-triton-num-warps-8-illegal-address",
        "cudajl-julia18-beta-broadcast-illegal-address",
        "inductor-tma-descriptor-on-unaligned-view-misaligned",
    ],
)
def test_an_illegal_address_check_has_the_compiler_ab(case: str) -> None:
    check = _check("holdout9", case)
    assert "compiler-bug" in check and "autotune config" in check and "previous release" in check


def test_a_cudnn_not_supported_check_prints_the_layers_arguments() -> None:
    check = _check("holdout9", "video-caffe-ndconv-bwd-algo-unset")
    assert "kernel-logic" in check and "descriptors" in check and "CUDNN_LOGLEVEL_DBG" in check


def test_an_oom_after_progress_leads_with_a_leak() -> None:
    log = corpus_log("holdout9", "chainer-cupy-py27-memory-leak-oom")
    facts = oom.parse(log)
    assert facts is not None and facts.progress is not None and "Epoch: [3]" in facts.progress
    check = _check("holdout9", "chainer-cupy-py27-memory-leak-oom")
    assert "memory-leak" in check and "nvidia-smi -l 1" in check and "Epoch: [3]" in check


@pytest.mark.parametrize(
    ("text", "progress"),
    [
        # Keras' epoch counter (wording of keras/src/callbacks/progbar_logger.py: "Epoch %d/%d")
        ("Epoch 2/10\n100/100 [====] - loss: 0.3\nResourceExhaustedError: OOM when allocating tensor", "Epoch 2/10"),
        ("Epoch 1/10\nResourceExhaustedError: OOM when allocating tensor", None),  # the first epoch: no progress
        ("ResourceExhaustedError: OOM when allocating tensor\nEpoch 5/10", None),  # after the report
        ("batch size 64\nRuntimeError: CUDA out of memory.", None),  # a size, not a counter
    ],
)
def test_progress_before_an_oom(text: str, progress: str | None) -> None:
    facts = oom.parse(text)
    assert facts is not None
    assert facts.progress == progress


# --- advice in the log's language -----------------------------------------------------------------


def test_a_cutlass_status_gives_no_python_packaging() -> None:
    # decided by CUTLASS's own status family: the fix speaks of alignment, never of wheels
    report = classify_text(corpus_log("holdout9", "cutlass-gemm-bias-relu-misaligned-operand"))
    fix = str(report.to_dict()["fix"])
    assert foreign_advice(fix, "cuda") == [] and "pip" not in fix
    assert "alignment" in fix
    # an undecided CUTLASS status (Error Internal, from cutlassGetStatusString): the check is a C++ one
    check = str(classify_text("Got cutlass error: Error Internal at: 244\n").to_dict()["next_check"])
    assert foreign_advice(check, "cuda") == [] and "pip" not in check and "cudaGetLastError" in check


def test_a_numba_out_of_resources_fix_gives_no_nvcc_options() -> None:
    # numba's own test suite launching its own kernel: the library's, and no CUDA C advice either way
    report = classify_text(corpus_log("holdout9", "numba-cuda-forall-max-block-size-out-of-resources"))
    fix = str(report.to_dict()["fix"])
    assert foreign_advice(fix, "numba") == [] and "numba" in fix
    # a user's numba launch out of resources (numba's CudaAPIError wording): the numba fix of the launch rule
    text = (
        '  File "run.py", line 9, in <module>\n    kernel[blocks, 1024](a, b)\n'
        "numba.cuda.cudadrv.driver.CudaAPIError: [701] Call to cuLaunchKernel results in "
        "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES\n"
    )
    # (the bare status abstains between its owners; the launch rule's fix is read from its finding)
    fix = finding_of(text, "cuda-launch-out-of-resources").fix
    assert foreign_advice(fix, "numba") == [] and "max_registers" in fix


def test_the_unmatched_table_speaks_each_frameworks_language() -> None:
    assert check_unmatched_language() == []


@pytest.mark.parametrize(
    ("text", "framework", "found"),
    [
        ("Compare with `pip list | grep -i nvidia` and the versions the framework release pins.", "cuda",
         ["pip list", "versions the framework release pins"]),
        ("Build with `nvcc -Xptxas -v` and cap with `-maxrregcount=64`.", "jax", ["-Xptxas", "-maxrregcount"]),
        ("Build with `nvcc -Xptxas -v`.", "cuda", []),
        ("`pip install -U triton`", "triton", []),
    ],
)  # fmt: skip
def test_foreign_advice(text: str, framework: str, found: list[str]) -> None:
    assert foreign_advice(text, framework) == found


# --- a TensorFlow tensor that does not fit, on the first steps ---------------------------------------


@pytest.mark.parametrize(
    "case", ["deeplab-tf-oom-spacetobatch-batch-size", "yolo-tf-oom-batch-size"]
)  # fmt: skip
def test_a_tensorflow_tensor_oom_without_progress_is_the_problem_size(case: str) -> None:
    report = classify_text(corpus_log("holdout9", case))
    assert report.diagnosis is not None and report.diagnosis.rule == "oom-tensorflow-tensor-over-pool"
    assert report.category == "runtime-assumption"


def test_a_tensorflow_oom_after_epochs_is_not_decided_as_the_size() -> None:
    log = "Epoch 4/50\n" + corpus_log("holdout9", "yolo-tf-oom-batch-size")
    report = classify_text(log)
    assert report.diagnosis is None or report.diagnosis.rule != "oom-tensorflow-tensor-over-pool"
