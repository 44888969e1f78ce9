"""The shapes tools print failures in (diagnose/failure_lines.py), in both directions, and what an
``unknown`` report shows of the failure it saw."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import yaml

from diagnose.cli import main
from diagnose.collectors import collect
from diagnose.failure import failure_signs, has_failure
from diagnose.failure_lines import failure_lines, is_failure_line

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "failure_lines"
CAPTURED = sorted(FIXTURES.glob("*.source.yaml"))

# Single lines written here in the formats the tools document (not copied logs), one family each.
DOCUMENTED_FAILURES = [
    # MATLAB's error report and its undefined name (corpus/holdout72: a gpuArray function, a CUDA MEX never built)
    "Error using .^ POWER: needs to return a complex result, but this is not supported for real input X and Y on the GPU.",
    "Undefined function 'spikedetector3' for input arguments of type 'gpuArray'.",
    # Quantum ESPRESSO's errore() from one task of a parallel run (corpus/holdout73)
    "from c_bands : error #         1",
    # a crash handler's stack in glibc's backtrace_symbols format (JDFTx, corpus/holdout73)
    "3: /src/jdftx-1.4.1_cuda/build/libjdftx_gpu.so(_ZN6matrix3setEiiiiiiRKS_+0x130) [0x7f43c1286990]",
    # googletest's report of an exception that left a test (kokkos/kokkos#1811)
    "unknown file: Failure",
    'C++ exception with description "Kokkos::Impl::ParallelFor< Cuda > insufficient shared memory" thrown in the test body.',
    "Unknown C++ exception thrown in the test body.",
    # a project's own copy of the check macro (deepmodeling/deepmd-kit#533), a NaN cell in a training log's table
    "cuda assert: invalid argument /src/lib/include/gpu_cuda.h 48.",
    "0           nan    1.08e+03      5.27e+01    6.76e-01      1.28e+06    3.41e+01    1.0e-03",
    # the other sides of the healthy look-alikes below: a NaN in an output, an unexpected error, a count that failed
    "Output: [1.0, nan, 3.0]",
    "caught unexpected error: Requested buffer size (268435520 bytes) exceeds device limits.",
    "1 failed, 2 passed",
    # glog / absl: "Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg" (google/glog README, "log line prefix")
    "E1203 12:00:00.123456  4242 server.cc:99] could not load the model",
    "F1203 12:00:00.123456  4242 gpu_executable.cc:44] Check failed: status.ok()",
    "Check failed: x.size() == y.size() (3 vs. 4)",  # glog CHECK_EQ message
    "*** SIGSEGV received at time=1701600000 on cpu 3 ***",  # absl's failure signal handler
    # PyTorch's c10 logging, with and without the distributed rank prefix (ProcessGroupNCCL watchdog)
    "[rank0]:[E1203 12:00:00.123456 4242 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective operation timeout",
    "[E ProcessGroupNCCL.cpp:475] [Rank 1] WorkNCCL(SeqNum=1, OpType=ALLREDUCE) ran for 1800805 milliseconds",
    # TensorRT's logger (trtexec): "[date] [E] [TRT] msg"
    "[12/03/2026-12:00:00] [E] [TRT] ModelImporter.cpp:776: While parsing node number 3 [Conv]:",
    # NCCL_DEBUG=WARN: "host:pid:tid [dev] NCCL WARN msg" (NCCL user guide, logging); its level for errors
    "node-01:189884:189884 [3] NCCL WARN Cuda failure 'out of memory'",
    "node-01:189884:189890 [1] NCCL WARN Call to ibv_reg_mr failed",
    "node-01:189884:189884 [0] NCCL WARN Bootstrap : no socket interface found",
    # status enums other than success (cuDNN, cuBLAS, cuFFT, NVRTC, HIP, HSA, NCCL API references)
    "cudnnConvolutionForward returned CUDNN_STATUS_BAD_PARAM",
    "cublasLtMatmul: CUBLAS_STATUS_NOT_SUPPORTED",
    "cufftExecC2C returned CUFFT_INTERNAL_ERROR",
    # a check's verdict that two implementations disagree (Triton, python/tutorials/03-matrix-multiplication.py)
    "❌ Triton and Torch differ",
    "nvrtcCompileProgram: NVRTC_ERROR_COMPILATION",
    "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
    "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access memory beyond the largest legal address.",
    "ncclUnhandledCudaError: Call to CUDA function failed.",
    # the GPU driver and the ROCm runtime
    "NVRM: Xid (PCI:0000:01:00): 79, pid=1234, GPU has fallen off the bus.",
    "Memory access fault by GPU node-2 (Agent handle: 0x55d0) on address 0x7f00. Reason: Page not present.",
    "HW Exception by GPU node-1 (Agent handle: 0x5600) reason :GPU Hang",
    # other languages' and launchers' error prefixes
    "ERROR: LoadError: CUDA error: an illegal memory access was encountered (code 700, ERROR_ILLEGAL_ADDRESS)",  # Julia
    "jaxlib.xla_extension.XlaRuntimeError",  # a bare exception name, the message on the next line
    # pytest's location line closing a traceback entry, "{path}:{lineno}: {exception type}" (_pytest/_code/code.py,
    # ReprFileLocation), with the rest of the report cut off
    "/usr/local/lib/python3.8/dist-packages/triton/compiler.py:942: CompilationError",
    "lib/python3.8/site-packages/numba/cuda/cudadrv/nvvm.py:412: NvvmSupportError",
    'time="2026-12-03T12:00:00Z" level=error msg="device lost"',  # logfmt (logrus)
    "a.cpp(12): error C2065: 'x': undeclared identifier",  # MSVC
    "kernel_test.cc:42: Failure",  # googletest
    "Expected equality of these values:",  # googletest EXPECT_EQ
    "Expected: (err) < (1e-5), actual: 0.0123 vs 1e-05",  # googletest EXPECT_LT
    "expected:<0.8730353> but was:<0.9308163>",  # JUnit assertEquals
    # exit statuses as launchers and IDEs print them
    "Process finished with exit code 134 (interrupted by signal 6: SIGABRT)",
    "srun: error: node1: task 0: Exited with exit code 1",
    "exitcode  : -11 (pid: 1234)",  # torchrun's failure table
    "error: command '/usr/local/cuda/bin/nvcc' failed with exit code 1",  # setuptools
    "ninja: build stopped: subcommand failed.",
    # hangs
    "Test timed out after 600 seconds",
    "Potential deadlock detected: rank 3 is waiting on rank 1",
    # a NaN printed by numpy / torch
    "tensor([nan, 1., 2.])",
    "step 120  loss: nan",
    # fatal-error reports: XLA's handler for LLVM's report_fatal_error, the JVM's JNI check, Windows faulthandler
    "LLVM Fatal Error while compiling target binary for module: jit_f Reason: PTX version 8.8 does not support target",
    "FATAL ERROR in native method: JNI received a class argument that is not a class",
    "Windows fatal exception: access violation",
    # TensorRT's error recorder ("Error Code <ErrorCode>: <kind> Error (<desc>)") and ONNX Runtime's logger
    # ("[<severity>:<category>:<logid>, <file>:<line> <function>] <message>") and its Python exceptions
    "Error Code 4: Internal Error (Network has dynamic or shape inputs, but no optimization profile has been defined.)",
    "2026-12-03 12:00:00.0 [E:onnxruntime:, sequential_executor.cc:494 ExecuteKernel] Non-zero status code returned",
    "onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL : Load model failed",
    # Open MPI's signal handler block (opal/util/stacktrace.c: "Signal code: %s (%d)", "Failing at address: %p")
    "[node01:04242] *** Process received signal ***",
    "[node01:04242] Signal code: Integer divide-by-zero (1)",
    "[node01:04242] Failing at address: 0x7f1e5c3a1b2c",
    # compute-sanitizer record heads of the error kinds its documentation lists, with and without the prefix
    "========= Misaligned Shared or Local Address",
    "========= Out-of-range Shared or Local Address",
    "========= Warp Hardware Stack Overflow",
    "========= Warp Invalid PC",
    "========= Warp Illegal Instruction",
    "========= Leaked 1,024 bytes at 0x7879c0800000",
    "=========     Address 0x7f7640a003a0 is out of bounds",
    "Invalid __shared__ write of size 4 bytes",
    "Uninitialized __global__ memory read of size 4 bytes",
    # Python exceptions whose class name is not "...Error" followed by a colon: nvidia-ml-py's NVMLError_<reason>,
    # a class in an errors module (Triton), a bare Exception, IPython's header line
    "pynvml.nvml.NVMLError_NotSupported: Not Supported",
    "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 98304, Hardware limit: 65536.",
    "CompilationError: at 10:4:",
    "Exception: kernel returned the wrong sum",
    "NVMLError_NotSupported                    Traceback (most recent call last)",
    # lines from public reports: DeepSpeed (deepspeedai/DeepSpeed#2985), CUTLASS under compute-sanitizer
    # (NVIDIA/cutlass#2906), TensorRT (NVIDIA/TensorRT#1917), a PySDM test report quoting nvcc (open-atmos/PySDM#319)
    "Signal code: Integer divide-by-zero",
    "========= Misaligned shared or local address",
    "Error Code 10: Internal Error (Could not find any implementation for node {ForeignNode[Unsqueeze_93...Softmax_2088]}",
    'test_moment_0d failure on GPU (no instance of overloaded function "atomicAdd" matches the argument list, '
    "argument types are: (double *, double))",
    # a report's title that calls the results wrong, the adjective after the noun (NVIDIA/cutlass#32)
    "CUTLASS results incorrect",
    # a printed value its label marks as wrong (corpus/holdout82, cupy/cupy#757)
    "int16 indexing (incorrect): [ 0.  1.  1.  1.]",
    # a printed result beside the value the text says was expected
    "expected 2 but got 1",
    "got [0. 0. 0.], expected [5. 5. 5.]",
    "the counter should be 2 but it prints 1",
    # a program's own check opening its report with the word as a sentence (NVIDIA/cub#461, corpus/holdout25)
    "Error. Batch 1 segment 948 not sorted. Only the first 4285 of 4327 items are sorted",
]

DOCUMENTED_HEALTHY = [
    # words of MATLAB's and QE's reports in ordinary sentences
    "If you see 'Undefined function', check the path first.",
    "     from c_bands : converged in 12 iterations",
    "========= ERROR SUMMARY: 0 errors",
    "==1234== ERROR SUMMARY: 0 errors from 0 contexts (suppressed: 0 from 0)",
    "validation: errors: 0, failed: 0",
    "no errors found",
    "W1203 12:00:00.123456  4242 a.cc:1] retrying after error: connection reset",
    "k.py:3: UserWarning: an error will be raised for this in a future release",
    "k.py:3: DeprecationWarning",  # pytest's location line is only a failure for an exception type
    "tests/test_k.py::test_timeout_guard PASSED                               [ 50%]",
    "max abs error 1e-7",
    "Error handling: see the section below.",
    "rel_error = 3.2e-06",
    "Epoch 1: loss 0.123, error rate 0.04",
    "top-1 error 2% after 90 epochs",
    "    ValueError",  # an indented name: help() output, a docstring's Raises: section
    "Process finished with exit code 0",
    "[Inferior 1 (process 4242) exited normally]",
    "100% tests passed, 0 tests failed out of 2",
    "status = CUDNN_STATUS_SUCCESS",
    "TORCH_NCCL_ASYNC_ERROR_HANDLING=1",
    "node-01:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>",
    # NCCL probing for an optional library, then falling back (the NCCL_DEBUG=INFO log in NVIDIA/nccl#367)
    "c6ad99331184:117277:117277 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]",
    "[I ProcessGroupNCCL.cpp:850] [Rank 0] NCCL watchdog thread started!",  # c10 INFO (NVIDIA/nccl#1241)
    "[12/03/2026-12:00:00] [W] [TRT] an error will be raised for this in a future release",  # TensorRT warning
    "12:00:00 - WARNING - retrying the download after a timeout (attempt 2 of 5)",
    "mismatched elements: 0 / 1024, allclose: True",
    "expected: 0.873, got: 0.873 (ok)",
    # --help texts (nvcc, pytest, pip, torchrun, gdb, make, cmake, valgrind: corpus/healthy/captured-help.yaml)
    "  --log-level=<ERROR|WARNING|NOTICE|STATUS|VERBOSE|DEBUG|TRACE>",
    "                              ERROR, and CRITICAL logging levels).",
    "  --detect-nan   check for nan",
    "                        if none failed)",
    "  --debug                     Let unhandled exceptions propagate outside the",
    "                        worker processes before sending SIGKILL. If not",
    "  -l TIMEOUT         Set timeout in seconds for remote debugging.",
    "  -q, --question              Run no recipe; exit status says if up to date.",
    "    --error-exitcode=<number> exit code to return if errors found [0=disable]",
    # the same tools' lines below error severity, and their clean summaries
    "[12/03/2026-12:00:00] [I] [TRT] Loaded engine size: 12 MiB",  # trtexec INFO
    "2026-12-03 12:00:00.0 [W:onnxruntime:, session_state.cc:1136 VerifyEachNodeIsAssignedToAnEp] Some nodes were "
    "not assigned to the preferred execution providers",  # ONNX Runtime warning
    "========= LEAK SUMMARY: 0 bytes leaked in 0 allocations",
    "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)",
    "========= COMPUTE-SANITIZER",
    "  -Wfatal-errors              Exit on the first error occurred.",  # gcc --help=warnings
    "Debian LLVM version 14.0.6",  # llc --version
    "expected: 2, got: 2",
    "✅ Triton and Torch match",  # the same tutorial's verdict when they agree
    "The two implementations differ in how they round ties.",  # prose, not a verdict at the line's end
    "    results incorrect only when the tolerance is negative, see below",  # the noun-adjective form mid-sentence
    "int32 indexing (correct): [ 0.  1.  1.  0.]",  # the same label's agreeing twin
    "take the (wrong) branch only on the first call",  # the word in parentheses, no value after it
    # TensorFlow's own warnings that it carries on (tensorflow/tensorflow#57103; bfc_allocator.cc's retry warning)
    "2022-08-11 14:21:29.345331: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load "
    "dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found",
    "2019-04-12 10:11:12.345678: W tensorflow/core/common_runtime/bfc_allocator.cc:211] Allocator (GPU_0_bfc) ran "
    "out of memory trying to allocate 2.26GiB. The caller indicates that this is not a failure, but may mean that "
    "there could be performance gains if more memory were available.",
    # a kernel test suite's own log (corpus/healthy/public9.yaml): the special values it feeds in, a check that
    # passed, and a negative test that got the error it provokes
    "[2025-06-20, 12:41:34.283] -> Original Activations for FP Edge Case Test: [1.0, 0.0, 1.1920929e-7, NaN, inf, -inf]",
    "Input: [1.0, nan, 3.0]",
    "[2025-06-20, 12:41:34.299] -> Precision test with FP edge cases (NaN, Infinity) passed.",
    "-> Successfully caught expected error: Requested buffer size (268435520 bytes) exceeds device limits.",
    "test_oob_launch: raised the expected exception",
    # GROMACS's flop table: F for force, not TensorRT's fatal tag (corpus/healthy/public10.yaml)
    " NxN Ewald Elec. + LJ [F]            190236.746752    12555625.286    97.9",
]


@pytest.mark.parametrize("line", DOCUMENTED_FAILURES)
def test_documented_failure_lines(line: str) -> None:
    assert is_failure_line(line), line
    assert failure_lines(line + "\n") == [(1, line)]  # the keyword index finds what the whole pattern finds
    assert has_failure(collect(line + "\n"))


@pytest.mark.parametrize("line", DOCUMENTED_HEALTHY)
def test_healthy_look_alikes(line: str) -> None:
    assert not is_failure_line(line), line
    assert failure_signs(collect(line + "\n")) == (), line


@pytest.mark.parametrize("source", CAPTURED, ids=lambda p: p.name.removesuffix(".source.yaml"))
def test_captured_failures_show_their_failure_line(source: Path) -> None:
    meta = yaml.safe_load(source.read_text())
    text = source.with_name(source.name.replace(".source.yaml", ".log")).read_text()
    marked = [n for n, line in enumerate(text.splitlines(), 1) if meta["marker"] in line]
    assert marked, meta["marker"]
    found = [n for n, _ in failure_lines(text, limit=100)]
    assert set(marked) & set(found), (meta["marker"], found)
    assert has_failure(collect(text))


SANITIZER = FIXTURES.parent / "sanitizer"


@pytest.mark.parametrize(
    "name",
    [
        "doc-04-understanding-memcheck-errors",  # invalid __global__ write
        "doc-09-understanding-memcheck-errors",  # malloc/free error
        "doc-14-understanding-memcheck-errors",  # cudaMalloc leak
        "doc-16-understanding-memcheck-errors",  # CUDA API error
        "doc-20-understanding-racecheck-hazard-reports",  # racecheck hazard (old form)
        "doc-28-racecheck-deadlock-detection",
        "doc-31-initcheck-address-space-selection",  # uninitialized __shared__ read
        "doc-36-understanding-synccheck-reports",  # barrier error
        "doc-56-block-level-hazards",  # race reported
        "issue-warp-943-illegal-instruction",  # a hardware exception
        "case-gkeyll-reduction-oob-read",  # only the record's detail lines were pasted
    ],
)
def test_sanitizer_records_of_every_kind_are_failure_lines(name: str) -> None:
    assert failure_lines((SANITIZER / f"{name}.txt").read_text(errors="replace"))


@pytest.mark.parametrize("name", ["doc-68-api-error-suppression", "doc-72-initcheck-error-suppression"])
def test_clean_sanitizer_runs_have_no_failure_line(name: str) -> None:
    assert failure_lines((SANITIZER / f"{name}.txt").read_text(errors="replace")) == []


def test_a_printed_result_equal_to_the_expected_one_is_no_failure() -> None:
    assert not is_failure_line("expected 0.5, got 0.5")
    assert is_failure_line("expected 0.5, got 0.25")
    assert not is_failure_line("[0. 0. 0. 0. 0.]")  # a printed array says nothing about what it should be


def test_there_are_captured_failures_of_many_tools() -> None:
    assert len(CAPTURED) >= 12


def test_the_keyword_index_agrees_with_the_whole_pattern_on_every_fixture_line() -> None:
    lines = DOCUMENTED_FAILURES + DOCUMENTED_HEALTHY
    for path in FIXTURES.parent.rglob("*.log"):
        lines += path.read_text(errors="replace").splitlines()
    differ = [line for line in lines if is_failure_line(line) != bool(failure_lines(line + "\n"))]
    assert not differ, differ[:5]


def test_the_first_failure_lines_come_in_log_order_with_their_numbers() -> None:
    text = "step 1 loss 0.3\nTraceback (most recent call last):\n  File 'k.py', line 3\nstep 2\nFAILED k.py::t\n"
    assert failure_lines(text) == [(2, "Traceback (most recent call last):"), (5, "FAILED k.py::t")]
    assert failure_lines(text, limit=1) == [(2, "Traceback (most recent call last):")]


def test_bad_input_never_crashes() -> None:
    for text in ("", "\n\n", "\x00\xff" * 100, "E" * 5000 + "\n", "nan" * 3000, "[E" * 1000):
        failure_lines(text)
        has_failure(collect(text))


def classify(tmp_path: Path, text: str, *argv: str) -> str:
    (tmp_path / "k.log").write_text(text)
    out, err = io.StringIO(), io.StringIO()
    assert main(["classify", str(tmp_path / "k.log"), *argv], out=out, err=err) == 0, err.getvalue()
    return out.getvalue()


def test_an_unknown_report_says_which_failure_it_saw(tmp_path: Path) -> None:
    text = (FIXTURES / "glibc-double-free.log").read_text()
    report = json.loads(classify(tmp_path, text, "--format", "jsonl"))
    assert report["status"] == "unknown"
    assert report["failure_seen"] == ["line 1: free(): double free detected in tcache 2"]
    table = classify(tmp_path, text, "-v")
    assert "failure seen: line 1: free(): double free detected in tcache 2" in table
    markdown = classify(tmp_path, text, "--format", "markdown")
    assert "Failure seen: `line 1: free(): double free detected in tcache 2`" in markdown


def test_a_healthy_report_has_no_failure_seen(tmp_path: Path) -> None:
    report = json.loads(classify(tmp_path, "epoch 1: rel_error 1e-3, errors=0\n", "--format", "jsonl"))
    assert report["status"] == "no-failure"
    assert "failure_seen" not in report
