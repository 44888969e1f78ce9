"""The gated shape scans of the concept collector find exactly what the plain regex scans find."""

from __future__ import annotations

import re
from pathlib import Path

from diagnose.collectors import families as F
from diagnose.inputs import read_inputs
from diagnose.regex_literals import may_match

CORPUS = Path(__file__).resolve().parent.parent.parent / "corpus"

# wordings around the gates: case, a leading word inside another word, non-ASCII case folding
# (U+017F folds to "s" under re.IGNORECASE, and "s".lower() is not it), tuples after tuples
CRAFTED = (
    "SIZE([3, 4])",
    "Shape: (2, 0) and DIMS=[5, 6]",
    "x dim(4, 5) and size=(0, 2) shape [1 , 2,]",
    "sizesize=(1,2) dimshape=(3,4) oversized=(7, 8)",
    "\u017fize=[2, 3]",
    "Size([2, 3]) \u00e9",
    "(1, 2), (3, 4)\n(5,6)\n  (7, 8)",
    "thread (0,0,0) in block (7,0,0)",
    "",
)


def _texts() -> list[str]:
    texts = [r.text for r in read_inputs([str(CORPUS)]) if r.error is None]
    assert len(texts) > 300
    return texts + list(CRAFTED)


def test_gated_scans_find_what_the_plain_scans_find() -> None:
    found = 0
    for text in _texts():
        head = text[:200_000]
        named = [m.span() for m in F._named_shapes(head)]
        assert named == [m.span() for m in F._NAMED_SHAPE.finditer(head)], text[:200]
        bare = [m.span() for m in F._bare_shapes(head)]
        plain = [m.span() for m in F._BARE_SHAPE.finditer(head) if not F._is_stride(head, m)]
        assert bare == plain, text[:200]
        found += bool(named or bare)
    assert found >= len(CRAFTED) - 2  # the scans do find shapes (the crafted ones at least)


def test_may_match_refuses_only_what_cannot_match() -> None:
    rx = re.compile(r"(?:needs|requires) (\d+) bytes", re.I)
    may = may_match(rx)
    assert not may("all good")
    assert may("kernel REQUIRES 4096 bytes") and rx.search("kernel REQUIRES 4096 bytes")
    assert may("\u017f")  # non-ASCII: the regex decides
    assert may_match(re.compile(r"\d+"))("anything")  # no literal to test: always let through
    for text in _texts():
        for pattern in (F._NAMED_SHAPE, rx):
            if not may_match(pattern)(text):
                assert pattern.search(text) is None


def test_a_stride_tuple_is_no_shape() -> None:
    # pytorch/torchdynamo#1821 (TorchInductor's generated code): the size is (4096, 64, 56, 56), 822 M
    # elements; the product of the stride tuple (200704, 3136, 56, 1) is no size at all
    line = "buf3 = empty_strided((4096, 64, 56, 56), (200704, 3136, 56, 1), device='cuda', dtype=torch.int64)"
    assert F.shape_facts(line) == (4096 * 64 * 56 * 56, False)
    # a bare (shape) pair without the word stride still counts both
    assert F.shape_facts("Place(gpu:0), (1, 5120, 8, 384, 384)>") == (1 * 5120 * 8 * 384 * 384, False)


def test_a_size_past_int32_still_counts_in_a_strided_call() -> None:
    # constructed in the form of the line above, with a size of 2^31 + 2^30 elements: the size decides
    line = "buf0 = empty_strided((3, 1024, 1024, 1024), (1073741824, 1048576, 1024, 1), device='cuda')"
    assert F.shape_facts(line)[0] == 3 * 2**30
