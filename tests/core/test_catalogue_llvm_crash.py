"""LLVM's own crash output, printed by every compiler that embeds it (Triton's libtriton, jaxlib's XLA, NVVM,
clang): llvm_unreachable's "UNREACHABLE executed at FILE:LINE!" (llvm/lib/Support/ErrorHandling.cpp) decides a
compiler bug (``llvm-unreachable-executed``, diagnose/data/catalogue/compiler-internal-asserts.yaml), and the
signal handler's banner and stack dump (PrettyStackTrace.cpp, Signals.cpp; the strings are in Triton 3.7.1's
libtriton.so) are failure lines: a crash in a process that loaded LLVM, whose owner the stack decides."""

from __future__ import annotations

import pytest

from diagnose.failure_lines import is_failure_line
from tests.core.corpus_logs import classify_text, verdict

# llvm/llvm-project#187928 (instcombine crash, as its reporter pasted it)
UNREACHABLE = (
    "Invalid floating type\n"
    "UNREACHABLE executed at /root/llvm-project/llvm/lib/IR/Type.cpp:119!\n"
    "PLEASE submit a bug report to https://github.com/llvm/llvm-project/issues/ and include the crash backtrace and "
    "instructions to reproduce the bug.\n"
    "Stack dump:\n"
)


def test_unreachable_is_the_compilers() -> None:
    assert verdict(UNREACHABLE) == ("diagnosed", "environment", "llvm-unreachable-executed")


def test_the_banner_alone_is_a_crash_with_the_signal_check() -> None:
    report = classify_text(UNREACHABLE.split("\n", 2)[2])  # the banner and "Stack dump:" only
    assert report.status == "unknown"
    assert report.diagnosis is not None and report.diagnosis.category == "unknown"


@pytest.mark.parametrize(
    "line",
    [
        "PLEASE submit a bug report to https://bugs.llvm.org/ and include the crash backtrace.",
        "Stack dump:",
        # the wording of Triton 3.7.1's bundled LLVM when llvm-symbolizer is not found (strings of libtriton.so)
        "Stack dump without symbol names (ensure you have llvm-symbolizer in your PATH or set the environment var "
        "`LLVM_SYMBOLIZER_PATH` to point to it):",
        "UNREACHABLE executed at /llvm/lib/IR/Value.cpp:102!",
    ],
)
def test_llvm_crash_lines_are_failure_lines(line: str) -> None:
    assert is_failure_line(line)


@pytest.mark.parametrize(
    "line",
    ["Stack dump: see below", "print('Stack dump:', frames)", "the code is unreachable here"],
)
def test_look_alikes_stay_silent(line: str) -> None:
    assert not is_failure_line(line)


def test_libnvvm_parse_error_below_an_exception_head() -> None:
    # constructed: Numba's NvvmError head ("Failed to compile", then libNVVM's program log after a blank line,
    # numba/cuda/cudadrv/nvvm.py) over the line of corpus/holdout10 numba-052-nvvm70-cuda112-parse-expected-comma;
    # the family's line-start pattern must hold at any line, not only the log's first
    text = (
        "numba.cuda.cudadrv.error.NvvmError: Failed to compile\n\n"
        "<unnamed> (81, 19): parse expected comma after load's type\n"
    )
    assert verdict(text) == ("diagnosed", "environment", "libnvvm-ir-parse-error")
