"""A failure quoted after "instead of" / "rather than" is what was expected, not what happened: an issue title
"Why do I get an illegal memory access instead of 'out of memory'?" is no out-of-memory report.  An unquoted error
after them is still reported (TensorFlow's "Attempting to fetch value instead of handling error ...").

The real log: pytorch/pytorch#68418 (corpus/holdout27 h27a-torch-maxpool2d-int32-offset-overflow), its title;
the others are the same failure's messages as PyTorch, TensorFlow and the CUDA runtime print them, with and
without such a clause."""

from __future__ import annotations

import pytest

from diagnose.collectors import collect, cuda_errors, oom
from tests.core.corpus_logs import corpus_log


def test_the_expected_failure_of_a_question_is_not_reported() -> None:
    text = corpus_log("holdout27", "h27a-torch-maxpool2d-int32-offset-overflow")
    ev = collect(text)
    assert ev.oom is None
    assert ev.cuda is None or "cudaErrorMemoryAllocation" not in ev.cuda.errors


@pytest.mark.parametrize(
    "text",
    [
        "RuntimeError: CUDA error: out of memory",
        "Cuda error: out of memory rather than a clean exit\nRuntimeError: CUDA error: out of memory",
        "the batch ran instead of skipping.\nRuntimeError: CUDA error: out of memory",
        # TensorFlow's StatusOr (tensorflow/stream_executor/lib/statusor.cc): the error follows "instead of", unquoted
        "F statusor.cc:34] Attempting to fetch value instead of handling error Internal: failed call to"
        " cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY: out of memory",
    ],
)
def test_a_failure_outside_such_a_clause_is_still_reported(text: str) -> None:
    assert oom.parse(text) is not None
    facts = cuda_errors.parse(text)
    assert facts is not None and facts.error in ("cudaErrorMemoryAllocation", "CUDA_ERROR_OUT_OF_MEMORY")


def test_only_the_clause_is_left_out() -> None:
    facts = cuda_errors.parse('got "CUDA error: misaligned address" instead of "CUDA error: out of memory"?')
    assert facts is not None and facts.errors == ("cudaErrorMisalignedAddress",)
