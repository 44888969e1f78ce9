"""The byte size of an array a log creates with a size and a dtype (a REPL line, a repro script): past
2^31 - 1 bytes a 32-bit byte offset wraps even when the element count fits an int32."""

from __future__ import annotations

import pytest

from diagnose.collectors import families as F

# chainer/chainer#2530 (corpus/holdout6 cupy-elementwise-32bit-pointer-overflow-2gib), its first lines
CUPY_2GIB = """>>> import cupy
>>> cupy.arange(pow(2,29)+1, dtype=cupy.int32)
Exception cupy.cuda.runtime.CUDARuntimeError: CUDARuntimeError(u'cudaErrorIllegalAddress: an illegal memory access was encountered',) in 'cupy.cuda.memory.Memory.__dealloc__' ignored
"""


def test_the_array_of_the_report_is_2_gib_and_4_bytes() -> None:
    facts = F.parse(CUPY_2GIB)
    assert facts is not None
    assert facts.max_bytes == 2**31 + 4 and facts.over_int32_bytes
    assert not facts.over_int32_elements  # 2^29 + 1 elements fit an int32 index


@pytest.mark.parametrize(
    ("expr", "count"),
    [
        ("pow(2,29)+1", 2**29 + 1),
        ("2**31", 2**31),
        ("1 << 30", 2**30),
        ("(4096, 1024)", 4096 * 1024),
        ("3*2**20", 3 * 2**20),
    ],
)
def test_size_arithmetic(expr: str, count: int) -> None:
    assert F._size_value(expr) == count


@pytest.mark.parametrize("expr", ["n + 1", "2**2**2**2**2", "__import__('os')", "pow(2)", "-5", "1 << 99"])
def test_anything_but_plain_integer_arithmetic_is_no_size(expr: str) -> None:
    assert F._size_value(expr) is None


def test_the_dtype_sets_the_byte_size() -> None:
    assert F.created_bytes("cupy.arange(pow(2,29)+1, dtype=cupy.int8)") == 2**29 + 1
    assert F.created_bytes("torch.zeros((2**20, 1024), dtype=torch.float64)") == 2**30 * 8
    assert F.created_bytes("torch.zeros(1024, dtype=mytype)") is None  # an unknown dtype has no item size
    assert F.created_bytes("np.zeros(n, dtype=np.int32)") is None  # a size the log does not print
