"""A program's own int32-range guard that prints the count it refused (diagnose/data/catalogue/
int32-range-statements.yaml): the number past 2^31 - 1 decides, a number inside the range does not."""

from __future__ import annotations

from diagnose import classify_log


def test_a_stated_count_past_int32_is_the_int32_range() -> None:
    # corpus/holdout29 (MrNeRF/LichtFeld-Studio#2185): the rasteriser's guard before its int32 tile offsets
    d = classify_log("gsplat intersection count 2241098778 exceeds int32 range\n")
    assert (d.category, d.failure_mode) == ("runtime-assumption", "int32-index-overflow")


def test_a_count_inside_the_range_decides_nothing() -> None:
    d = classify_log("intersection count 1000000000 exceeds int32 range\n")
    assert d.category != "runtime-assumption"
