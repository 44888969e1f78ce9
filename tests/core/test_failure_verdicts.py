"""A result its reporter or its program marks as wrong, without an error word, is a failure: ``unknown`` with
the reference comparison as the next check, never ``no-failure``.

Two shapes of bug reports and REPL sessions: a comment that is only the verdict (``... .sum() # BAD``, a line
``# => BAD``, ``// wrong!``), and a check of agreement evaluated for its value and answered False
(``torch.allclose(out, ref)`` / ``False``, Julia's ``issorted(x)`` / ``false``, ``allclose: False``).  Each is
tested on development cases (public reports, the thread in the case's ``source``) and on other wordings of
the family, with healthy look-alikes that must stay silent."""

from __future__ import annotations

import pytest
from corpus_logs import classify_text, corpus_log

from diagnose.collectors import collect
from diagnose.comparisons import verdict_false_lines
from diagnose.failure_lines import is_failure_line
from diagnose.unmatched import hint_for


@pytest.mark.parametrize(
    ("where", "case_id"),
    [
        # pytorch/pytorch: "# BAD" after an int8 sum of 2**31-2 elements printed 0
        ("holdout23", "h23a-torch-randint-int8-rounded-size-overflow"),
        # jax-ml/jax: "# => BAD" above the jitted gather's printed result
        ("holdout23", "h23b-jax-ptxas-12.6.77-miscompile"),
        # JuliaGPU/CUDA.jl#1874: `issorted(Array(c))` at the REPL answered `false`
        ("holdout22", "h22b-cudajl-sort-launch-config-lovelace"),
    ],
)
def test_a_result_marked_wrong_is_unknown_with_the_reference_check(where: str, case_id: str) -> None:
    text = corpus_log(where, case_id)
    report = classify_text(text)
    assert report.status != "no-failure"
    if report.status == "unknown" and not (report.diagnosis and report.diagnosis.findings):
        hint = hint_for(collect(text))
        assert hint is not None and hint.kind == "wrong-result"


@pytest.mark.parametrize(
    "text",
    [
        ">>> torch.allclose(out, ref, atol=1e-3)\nFalse",
        "In [4]: np.array_equal(cp.asnumpy(y), y_ref)\nOut[4]: False",
        ">>> torch.equal(a.cuda().cpu(), a)\nFalse",
        "print(torch.allclose(y_triton, y_torch))\nFalse",
        "allclose: False",
        "outputs match: False",
        "torch.allclose(out_fused, out_ref) = False",
        "julia> isapprox(Array(d_c), c)\nfalse",
    ],
)
def test_a_check_of_agreement_answered_false(text: str) -> None:
    assert verdict_false_lines(text)


@pytest.mark.parametrize(
    "text",
    [
        ">>> torch.allclose(out, ref)\nTrue",
        "use_fast: False\nallow_tf32: False\nmatch: True",
        ">>> x.is_cuda\nFalse",  # a property, not a check of agreement
        "debug = False\nverbose: False",
    ],
)
def test_healthy_booleans_stay_silent(text: str) -> None:
    assert not verdict_false_lines(text)
    assert classify_text(text).status == "no-failure"


@pytest.mark.parametrize(
    "line",
    [
        "y = kern(x).sum()  # BAD",
        "# => BAD",
        "out = f(x)  // wrong!",
        "[0 1 2 7]   <-- WRONG",
        "c = a @ b  # incorrect (should be 4)",
    ],
)
def test_a_comment_that_is_only_the_verdict(line: str) -> None:
    assert is_failure_line(line)


@pytest.mark.parametrize(
    "line",
    [
        "# bad inputs are skipped by the loader",
        "skip_bad = True  # drop bad samples",
        "# wrong sizes raise a ValueError below",
    ],
)
def test_a_comment_that_goes_on_is_not_a_verdict(line: str) -> None:
    assert not is_failure_line(line)
