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


# kekzl/imp#528 (corpus/holdout31 h31c-imp-wmma-inplace-compaction-race): a table of errors against an fp64
# reference, with the share of elements over 1e-2 far above zero
IMP = (
    "| Pfad | Config | max_rel | p99.9 | Elemente >1e-2 |\n"
    "|---|---|---|---|---|\n"
    "| `fmha_sm120_prefill` | mild_long_gqa (192, 4/2 GQA) | 0.17 | 0.10 | 27% |\n"
    "| `fmha_sm120_prefill` | mild_short_gqa32 (24, 32/8) | **0.85** | 0.59 | 31% |\n"
)
# ModelCloud/GPTQModel#2717 (a comment comparing quantized GEMM backends with a reference): a healthy table whose
# maximum relative error is huge only because reference elements near zero divide it, the absolute error being one
# fp16/bf16 rounding step
GPTQ = (
    "  | Case | Backend | MaxAbsDiff | MeanAbsDiff | MaxRelErr | MeanRelErr |\n"
    "  |---|---|---:|---:|---:|---:|\n"
    "  | fp16 | TRITON | 0.0 | 0.0 | 0.0 | 0.0 |\n"
    "  | fp16 | EXLLAMA_V2 | 0.00390625 | 0.00025356 | 152587888.0 | 2.3560 |\n"
    "  | fp16 | MACHETE | 0.0009765625 | 4.38e-07 | 715255.75 | 0.01469 |\n"
    "  | bf16 | MARLIN | 0.0078125 | 2.44e-07 | 4.4667 | 3.86e-06 |\n"
)


def test_an_error_table_beyond_rounding_is_a_failure_line() -> None:
    assert [n for n, _ in C.error_table_lines(IMP)] == [3, 4]
    assert [n for n, _ in failure_lines(IMP)] == [3, 4]
    report = classify_record(InputRecord(id="t", text=IMP), MATCHER)
    assert report.status == "unknown"
    assert report.hint is not None and report.hint.kind == "wrong-result"


@pytest.mark.parametrize(
    "text",
    [
        GPTQ,  # a maximum relative error alone: a reference element near zero, not a wrong kernel
        IMP.replace("27%", "0%").replace("31%", "0.1%").replace("0.10", "2e-3").replace("0.59", "3e-3"),
    ],
)
def test_an_error_table_within_rounding_stays_healthy(text: str) -> None:
    assert C.error_table_lines(text) == []
    assert failure_lines(text) == []
