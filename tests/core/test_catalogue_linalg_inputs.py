"""Linear algebra on matrices the routine's precondition excludes: PyTorch's linalg messages (ATen's info
check, the same on CPU, MAGMA and cuSOLVER; printed here by torch 2.13.0+cpu) and CuPy's nonzero devInfo from
cuSOLVER (cupy 14.2.0 cupy/linalg/_util.py). A singular or indefinite input is the input's; non-convergence
and a nonzero devInfo abstain, with the check that decides (finite values, the sign of devInfo).
A solver routine's nonzero info printed by the program itself (MAGMA's testers, a program's own warning) is a
failure at any severity and abstains the same way.

The exception's class is private (``torch._C._LinAlgError``): its line is a failure line all the same."""

from __future__ import annotations

import pytest

from diagnose.failure_lines import is_failure_line
from tests.core.corpus_logs import classify_text, decided

CHOLESKY = (
    "torch._C._LinAlgError: linalg.cholesky: The factorization could not be completed because the input is not "
    "positive-definite (the leading minor of order 1 is not positive-definite).\n"
)


@pytest.mark.parametrize(
    "text",
    [
        CHOLESKY,
        "torch._C._LinAlgError: torch.linalg.solve: The solver failed because the input matrix is singular.\n",
        "torch._C._LinAlgError: linalg.inv: The diagonal element 1 is zero, the inversion could not be completed "
        "because the input matrix is singular.\n",
    ],
)
def test_a_singular_or_indefinite_input_is_the_inputs(text: str) -> None:
    assert decided(text) == (
        "runtime-assumption",
        "input-values-unsupported",
        "torch-linalg-input-singular-or-not-positive-definite",
    )


@pytest.mark.parametrize(
    ("text", "first"),
    [
        (
            "torch._C._LinAlgError: linalg.svd: The algorithm failed to converge because the input matrix contained "
            "non-finite values.\n",
            "kernel-logic/numerical-instability",
        ),
        # constructed from cupy/linalg/_util.py's format with a positive devInfo (potrf: a minor not positive-definite)
        (
            "numpy.linalg.LinAlgError: Error reported by potrf in cuSOLVER. devInfo = 2. Please refer to the cuSOLVER "
            "documentation.\n",
            "runtime-assumption/input-values-unsupported",
        ),
    ],
)
def test_non_convergence_and_dev_info_abstain(text: str, first: str) -> None:
    report = classify_text(text)
    assert report.status == "unknown"
    d = report.diagnosis
    assert d is not None and d.findings and d.findings[0].caveats
    assert f"{d.findings[0].category}/{d.findings[0].failure_mode}" == first


@pytest.mark.parametrize(
    "line",
    [
        CHOLESKY.strip(),
        "numpy.core._exceptions._UFuncNoLoopError: ufunc 'add' did not contain a loop with signature matching types",
        "_LinAlgError",
    ],
)
def test_private_exception_classes_are_failure_lines(line: str) -> None:
    assert is_failure_line(line)


@pytest.mark.parametrize("line", ["self._error: int = 0", "def _check_error(x):", "x = _MyError: 3"])
def test_private_look_alikes_stay_silent(line: str) -> None:
    assert not is_failure_line(line)


# a routine's info printed in a program's own words: MAGMA 2.x's testers (testing/testing_*.cpp, sample with a value
# filled in), a program that prints cuSOLVER's devInfo as a warning and carries on (SystemsGenetics/KINC#86), and
# OpenBLAS's potrf benchmark (as quoted in OpenMathLib/OpenBLAS#2563)
SOLVER_INFO = [
    "magma_dpotrf_gpu returned error 3: matrix is not positive definite.\n",
    "threshold:    0.901\nprune matrix: 1360\nwarning: cuSOLVER ssyev returned 1358\neigenvalues: 1360\n",
    "Potrf info = 5679\n",
]


@pytest.mark.parametrize("text", SOLVER_INFO)
def test_a_solver_routines_nonzero_info_is_a_failure_that_abstains(text: str) -> None:
    report = classify_text(text)
    assert report.status == "unknown"
    d = report.diagnosis
    assert d is not None and d.findings and d.findings[0].caveats
    assert {f.category for f in d.findings} >= {"runtime-assumption", "kernel-logic"}
    assert all(f.rule.startswith("solver-routine-nonzero-info") for f in d.findings)


@pytest.mark.parametrize(
    "line",
    [
        "potrf returned 0",
        "syevd info = 0",
        "[W] getrf info 1.5 ms",
        "cusolverDnDgetrf_bufferSize returned lwork 4096",
        "sgesvd returned 3 singular values",  # a count of what it computed, not its info
        "heevd returned 12 eigenvalues",
    ],
)
def test_a_solver_routines_success_or_timing_is_no_failure(line: str) -> None:
    assert not is_failure_line(line)
