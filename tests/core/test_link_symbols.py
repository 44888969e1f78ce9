"""A symbol the linker says is defined twice (diagnose/collectors/link_symbols.py): whose namespace it is in decides
the owner (rules/compiler/link-multiple-definition-of-library-symbol.yaml)."""

from __future__ import annotations

import pytest

from diagnose.classify import classify_record
from diagnose.collectors import collect
from diagnose.inputs import InputRecord
from diagnose.matcher import Matcher
from diagnose.rules import default_rules

# (log, the library, origin)
LINKS = [
    (
        "nvlink error   : Multiple definitions of '_ZN6thrust6detail7backend4cuda6detail11b40c_thrust14vote_reductionE'\n",
        "thrust",
        "NVIDIA/thrust#349 (nvlink, CUDA 5)",
    ),
    (
        "b.cpp:(.text+0x0): multiple definition of `cub::CUB_200400___CUDA_ARCH_LIST___NS::Debug(cudaError, char const*,"
        " int)'; a.o:a.cpp:(.text+0x0): first defined here\n",
        "cub",
        "NVIDIA/cccl#1922 (GNU ld)",
    ),
    (
        "nvlink error   : Multiple definition of 'counter' in '/tmp/tmpxft_00001cb2_00000000-18_b.o', first defined in"
        " '/tmp/tmpxft_00001cb2_00000000-15_a.o'\nnvlink fatal   : merge_elf failed\n",
        None,
        "captured: nvcc 13.0 -rdc=true, two files that each define `__device__ int counter;`",
    ),
]


@pytest.mark.parametrize(("log", "library", "origin"), LINKS, ids=[x[2] for x in LINKS])
def test_the_duplicate_symbols_library_decides(log: str, library: str | None, origin: str) -> None:
    ev = collect(log)
    assert ev.log.duplicate_symbol and ev.log.duplicate_symbol_library == library, origin
    report = classify_record(InputRecord(id="x", text=log), Matcher(default_rules()))
    assert report.category == ("environment" if library else "unknown"), (origin, report.category)
