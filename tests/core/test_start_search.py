"""Searches made cheaper find what the plain search finds: a pattern searched only where the literals that
start its matches stand (regex_anchor.StartSearch, used by the log's word facts), and a printed verdict of
False looked for only on the lines that hold "alse" (comparisons.verdict_false_lines), on real logs and on
texts made to hit the edges (case, non-ASCII text, a word a letter precedes, lines over the length limit)."""

from __future__ import annotations

import re

import pytest
from corpus_logs import public_and_fixture_logs

from diagnose import comparisons as C
from diagnose.collectors import log_words as L
from diagnose.regex_anchor import StartSearch

EDGES = [
    "",
    "\n",
    "False",
    "\nFalse\n",
    "alse\n\nalse",
    ">>> torch.allclose(out, ref)\nFalse",
    "julia> issorted(x)\nfalse\nend",
    "allclose: False\nmatch = False\nidentical? False\nequal: False",
    "x" * 2100 + " allclose: False\nallclose: False",
    "print(torch.allclose(a, b))\ntensor(False)\nOut[3]: False",
    "torch 2.1.0+cu118 on cuda:1 with DEVICE=2, NCCL, world_size=4, replica 3",
    "CUDA 11.4 / Cuda compilation tools, release 11.4, V11.4.48 / thrust::sort / CUBLAS_STATUS",
    "ſcuda:1 İdevice=1 Kdevice_id: 2 K\u212ading TPU v4 tpu_custom_call",
    "libtpu Mosaic TPU kernel TpuDevice TPU_0 on a TPU cloud TPUs",
    "fully masked rows, attn_mask, causal",
    "torch==1.6.0+cu101\njulia> x\n  .jl:12 (code 700, ERROR_ILLEGAL_ADDRESS) torch._inductor torch.compile",
]


def _logs() -> list[str]:
    return public_and_fixture_logs(EDGES)


def _patterns() -> list[re.Pattern[str]]:
    out = [L._TOOLKIT_RELEASE, L._TOOLKIT_LIBRARY, L._TPU, L._CUDA_DEVICE, L._MASKED, L._TORCH_WHEEL]
    out += [rx for _, rx in L._KERNEL_COMPILERS]
    out += [search.rx for _, search in L._MULTI_GPU_PARTS]
    return out


def _span(m: re.Match[str] | None) -> tuple[tuple[int, int], tuple[str | None, ...]] | None:
    return None if m is None else (m.span(), m.groups())


def test_start_search_finds_the_first_match_of_the_search() -> None:
    logs = _logs()
    found = 0
    for rx in _patterns():
        search = StartSearch(rx)
        for text in logs:
            got = _span(search(text))
            assert got == _span(rx.search(text)), (rx.pattern, text[:200])
            found += got is not None
    assert found


def _verdicts_per_line(text: str, limit: int) -> list[tuple[int, str]]:
    """The detector as a search of every line (what the one pass over "alse" must answer)."""
    if "alse" not in text:
        return []
    lines = text.split("\n")
    out: list[tuple[int, str]] = []
    for i, line in enumerate(lines):
        if len(line) > 2000:
            continue
        if C._LABELLED_FALSE.search(line) or (C._FALSE_ALONE.match(line) and C._check_above(lines[max(0, i - 3) : i])):
            out.append((i + 1, line.strip()))
        if len(out) >= limit:
            break
    return out


@pytest.mark.parametrize("limit", [1, 3, 100])
def test_verdicts_found_on_the_lines_that_hold_them(limit: int) -> None:
    found = 0
    for text in _logs():
        got = C.verdict_false_lines(text, limit)
        assert got == _verdicts_per_line(text, limit), text[:200]
        found += bool(got)
    assert found
