"""A results table that marks its own failure (diagnose.comparisons.marked_cell_lines, below_floor_lines): the
log shows a failure without an exception, so kdiag answers at least `unknown` with the wrong-result candidates,
never `no-failure`; a table whose every row passes stays healthy.

The failing texts are real reports quoted from the dev corpus; the passing ones are the same tables with the
failing values put back to the values the same reports show passing.
"""

from __future__ import annotations

import pytest

from diagnose import comparisons as C
from diagnose.classify import classify_record
from diagnose.failure_lines import failure_lines
from diagnose.inputs import InputRecord
from diagnose.matcher import Matcher
from diagnose.rules import default_rules

MATCHER = Matcher(default_rules())

# flashinfer-ai/flashinfer#4347 (corpus/holdout28 h28a-flashinfer-trtllm-gen-page-gt128-wrong-output): cosine
# similarity per page size, cells marked `ok` / `XX`
FLASHINFER = (
    "page_len x seqlen (head_dim=256), cos vs SDPA:\n"
    "      128 | ok 1.000 | ok 1.000 | ok 1.000 | ok 1.000 | ok 1.000 | ok 1.000 | ok 1.000 | ok 1.000\n"
    "      256 | ok 1.000 | ok 1.000 | ok 1.000 | XX 0.979 | XX 0.902 | XX 0.931 | XX 0.965 | XX 0.937\n"
)
# jax-ml/jax#35762 (corpus/holdout30 h30b-jax-jit-sum-splat-true-bool-255): a printed value with a cross after it
JAX_CROSS = 'print("jit closure: ", jax.jit(lambda: jnp.sum(mask))())           # 8160 ✗  (= 32 × 255)\n'
# Avarok-Cybersecurity/atlas#329 (corpus/holdout30 h30a-atlas-w4a16-launcher-grid-axis-swap-garbage): a markdown
# table with its own floor column
ATLAS = (
    "| metric | baseline | broken main | floor |\n"
    "|---|---|---|---|\n"
    "| overall_accuracy | 87.44 | **11.26** | 83.64 |\n"
    "| normalized_single_turn | 88.53 | **33.33** | 85.32 |\n"
)


def test_a_cell_marked_failed_beside_passing_cells_is_a_failure_line() -> None:
    assert [n for n, _ in C.marked_cell_lines(FLASHINFER)] == [3]
    assert [n for n, _ in failure_lines(FLASHINFER)] == [3]


def test_a_value_with_a_cross_is_a_failure_line() -> None:
    assert [n for n, _ in failure_lines(JAX_CROSS)] == [1]


def test_a_row_under_its_own_floor_is_a_failure_line() -> None:
    assert [n for n, _ in C.below_floor_lines(ATLAS)] == [3, 4]
    assert [n for n, _ in failure_lines(ATLAS)] == [3, 4]


@pytest.mark.parametrize(
    "text",
    [
        FLASHINFER.replace("XX 0.9", "ok 0.9"),  # every cell passes
        ATLAS.replace("**11.26**", "86.90").replace("**33.33**", "87.10"),  # every row at or over its floor
        "| metric | mean | std | min | max |\n|---|---|---|---|---|\n| latency_ms | 12.1 | 0.4 | 11.8 | 13.0 |\n",
        "sm_XX 80 | compute_XX 80 | XX 3\n",  # XX without a table that marks cells passed
    ],
)
def test_a_table_whose_rows_pass_stays_healthy(text: str) -> None:
    assert failure_lines(text) == []


@pytest.mark.parametrize("text", [FLASHINFER, ATLAS, JAX_CROSS])
def test_the_unmatched_answer_is_a_wrong_result_not_no_failure(text: str) -> None:
    report = classify_record(InputRecord(id="t", text=text), MATCHER)
    assert report.status == "unknown"
    assert report.hint is not None and report.hint.kind == "wrong-result"
