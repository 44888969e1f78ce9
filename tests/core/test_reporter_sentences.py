"""A failure stated in a reporter's words (diagnose/failure_line_table.py, "a reporter's sentence"): an issue title
or the symptom as the reporter saw it, in the words of the taxonomy's failure modes (a hang, memory that grows, wrong
values, NaNs, results that differ between runs, an integer overflow), and the hint an ``unknown`` answer gives for
it (diagnose/data/unmatched.yaml).  Healthy output that mentions the same words stays silent."""

from __future__ import annotations

import pytest
from corpus_logs import corpus_log

from diagnose.collectors import collect
from diagnose.failure_lines import failure_lines, is_failure_line
from diagnose.unmatched import hint_for

# (sentence, the hint's kind, its origin): two wordings of each family where a second was found
SENTENCES = [
    # --- a hang ---
    ("The `tinygemm2` kernel hung intermittently on H100 CI runners.", "hang", "flashinfer PR, corpus/holdout18"),
    ("mixbench-cuda hangs in the middle of test", "hang", "ekondis/mixbench#27 (title)"),
    ("It hangs in the kernel gpu_nlist_build_head_list.", "hang", "glotzerlab/hoomd-blue#100"),
    # --- memory that grows while the program runs, a leak stated as a finding ---
    (
        "After running the code for a while, I noticed that the GPU memory consumptions increases over time, until the"
        " estimated RGB-D flow vanishes.",
        "memory-grows",
        "MarianoJT88/PD-Flow#7, corpus/holdout18",
    ),
    ("GPU memory usage grows continually over time.", "memory-grows", "facebookresearch/StyleNeRF#26"),
    (
        "In the process of program training, GPU memory leaks and GPU memory keeps increasing until out of memory.",
        "out-of-memory",  # the allocation that failed is the more specific kind (it comes first)
        "yangsenius/learning-to-learn-by-pytorch#3",
    ),
    # --- values said to be wrong by what computes them, NaNs in a result ---
    (
        "jaxlib==0.1.61 on CPU/GPU computes incorrect values with jax.lax.cond inside jax.lax.scan",
        "wrong-result",
        "jax issue title, corpus/holdout18",
    ),
    (
        "A jitted JAX program on a consumer Blackwell GPU (sm_120), jax/jaxlib 0.10.2 and 0.11.0, returned silently"
        " wrong values",
        "wrong-result",
        "corpus/holdout8 jax-triton-fusion-miscompile-sm120 (context)",
    ),
    ("Q gradient: NaNs!", "wrong-result", "flash-attention issue, corpus/holdout18"),
    # --- results that differ between runs or between two ways of computing them ---
    ("# The print is different each time you run it. Why?", "results-vary", "taichi issue, corpus/holdout18"),
    (
        "As the recon images are different every time, what is the random part in SIRT_CUDA code?",
        "results-vary",
        "astra-toolbox/astra-toolbox#343",
    ),
    (
        "I executed the host version growth on cssgpu01 and cssgpu02p, but the results were not identical.",
        "results-vary",
        "UWB-Biocomputing/BrainGrid#136",
    ),
    # --- an integer overflow named as the finding ---
    (
        "One example of a case which is printed is when `i = 2147551327` and `i2 = -214741596`, which likely"
        " indicates a signed 32 bit integer overflow.",
        "stated-integer-overflow",
        "numba issue, corpus/holdout18",
    ),
    (
        'fixed by RAPIDS PR NVIDIA/raft#490 "Fix integer overflow in distances".',
        "stated-integer-overflow",
        "NVIDIA/raft#490",
    ),
    # --- an issue's title as its template tags it ---
    ("[BUG] Regression in examples/45_dual_gemm on H100", None, "NVIDIA/cutlass issue title, corpus/holdout18"),
    ("[Bug] Kernel hang in gdn_prefill_sm90", "hang", "flashinfer-ai/flashinfer#2623 (title)"),
]


@pytest.mark.parametrize(("line", "kind", "origin"), SENTENCES, ids=[s[2] + ": " + s[0][:30] for s in SENTENCES])
def test_a_reporter_sentence_is_a_failure_line(line: str, kind: str | None, origin: str) -> None:
    assert is_failure_line(line), origin
    if kind is not None:
        hint = hint_for(collect(line + "\n"))
        assert hint is not None and hint.kind == kind, (origin, hint and hint.kind)


# lines of healthy output, or of text about the words, that must stay silent
HEALTHY = [
    "  freeze                      Output installed packages in requirements format.",  # pip --help
    "    --leak-check=no|summary|full     search for memory leaks at exit?  [summary]",  # valgrind --help
    "/tmp/work/runtime-warning-overflow.py:3: RuntimeWarning: overflow encountered in scalar multiply",
    "-Wno-strict-overflow -Wno-strict-aliasing",
    "test_integer_overflow_check PASSED",
    "The results are identical to the reference.",
]


@pytest.mark.parametrize("line", HEALTHY)
def test_healthy_lines_that_mention_the_words_stay_silent(line: str) -> None:
    assert not is_failure_line(line)


@pytest.mark.parametrize(
    ("path", "case_id"),
    [
        ("holdout18/issues.yaml", "h18a-ginkgo-block-jacobi-titanv-freeze"),
        ("holdout18/issues.yaml", "h18a-pdflow-gpu-memory-grows"),
        ("holdout18/issues.yaml", "h18a-qmcpack-legacy-cuda-energies-vary"),
        ("holdout18/issues.yaml", "h18b-numba-backprojection-plain-add-race"),
        ("holdout18/issues.yaml", "h18b-taichi-atomic-max-wrong-reduction-identity"),
    ],
)
def test_a_log_that_states_its_failure_in_words_is_not_no_failure(path: str, case_id: str) -> None:
    assert failure_lines(corpus_log(path, case_id), 1)
