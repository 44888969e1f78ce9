"""Families learned from holdout99 and the healthy round public26 (after their first measurements), each from its
tool's own output format.

Healthy (corpus/healthy/public26.yaml): a traceback Python's ``logging`` printed under a warning record
(``logger.warning(msg, exc_info=True)``: an exception caught, logged and gone on from), and a report's row whose value
is an exception's ``repr`` (CuPy's ``show_config()`` prints what failed to load instead of a version). Each is tested
on the development case and on the nearby outputs that are failures and must stay so."""

from __future__ import annotations

import pytest

from tests.core.corpus_logs import CORPUS, classify_text, verdict

TB = (
    "Traceback (most recent call last):\n"
    '  File "/venv/lib/python3.11/site-packages/xformers/__init__.py", line 57, in _is_triton_available\n'
    "    import triton  # noqa\n"
    "ModuleNotFoundError: No module named 'triton'\n"
)


def _healthy_case(case_id: str) -> str:
    from diagnose.inputs import load_yaml

    cases = load_yaml((CORPUS / "healthy" / "public26.yaml").read_text())
    return next(str(c["log"]) for c in cases if c["id"] == case_id)


@pytest.mark.parametrize(
    "text",
    [
        _healthy_case("healthy26-xformers-triton-not-available-traceback"),
        # the same record as Python's logging.basicConfig and a dated handler print it
        "WARNING:xformers:A matching Triton is not available, some optimizations will not be enabled\n" + TB,
        "2024-05-01 10:00:00,123 - xformers - WARNING - A matching Triton is not available\n" + TB,
        _healthy_case("healthy26-cupy-show-config-rocm-mi355x"),
        # CuPy's show_config() on a CUDA machine without cuTENSOR's library: a field, not a failure
        "CuPy Version              : 13.3.0\n"
        "cuTENSOR Version          : ImportError('libcutensor.so.2: cannot open shared object file: No such file or"
        " directory')\nDevice 0 Name             : NVIDIA H100 80GB HBM3\n",
    ],
)
def test_a_logged_caught_exception_and_a_reported_load_failure_are_no_failure(text: str) -> None:
    assert classify_text(text).status == "no-failure"


@pytest.mark.parametrize(
    "text",
    [
        TB,  # the program's own end
        "ERROR:root:could not start the kernel\n" + TB,  # logged as an error: it stopped there
        "x.py:3: UserWarning: slow path\n  warnings.warn(\n" + TB,  # a warning, then the program's own end
        "ImportError: libcutensor.so.2: cannot open shared object file: No such file or directory\n",  # raised
    ],
)
def test_the_same_exceptions_raised_are_still_failures(text: str) -> None:
    status, category, _ = verdict(text)
    assert status == "diagnosed" and category == "environment", (status, category)
