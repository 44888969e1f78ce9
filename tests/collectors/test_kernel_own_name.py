"""The library that owns a kernel is the namespace of the kernel's own name, never one that only its return
type, template arguments or parameter types name; and the sanitizer facts that read racecheck's threads and
an access that runs past an allocation's end."""

from __future__ import annotations

from diagnose.collectors import location, sanitizer
from diagnose.collectors.signature import own_name, strip_return_type

# corpus/holdout32 h32a-cudf-parquet-page-bounds-num-nulls-race (NVIDIA/cudf#20868), verbatim
PAGE_BOUNDS = """[ RUN      ] ParquetChunkedReaderTest.TestChunkedReadWithString
========= Warning: Race reported between Read access at cuda::std::__4::pair<int, int> cudf::io::parquet::detail::<unnamed>::page_bounds<unsigned char, (int)512>(cudf::io::parquet::detail::page_state_s *, unsigned long, unsigned long, bool, bool, cudf::io::parquet::detail::rle_stream<T1, T2, (int)2048> *)+0x7c20 in page_string_decode.cu:291
=========     and Write access at cuda::std::__4::pair<int, int> cudf::io::parquet::detail::<unnamed>::page_bounds<unsigned char, (int)512>(cudf::io::parquet::detail::page_state_s *, unsigned long, unsigned long, bool, bool, cudf::io::parquet::detail::rle_stream<T1, T2, (int)2048> *)+0x7c60 in page_string_decode.cu:289 [12 hazards]
=========
"""

# corpus/holdout32 h32a-paddle-index-grad-acc-subword-atomiccas-oob (PaddlePaddle/Paddle#77729), verbatim
PADDLE = """Invalid __global__ read of size 4 bytes
    Access at 0x7fe9eca00a08 is out of bounds
    and is inside the nearest allocation at 0x7fe9eca00a00 of size 9 bytes
"""


def test_return_type_is_not_the_owner() -> None:
    loc = location.parse(PAGE_BOUNDS)
    assert loc is not None
    assert (loc.kind, loc.library) == ("library", "cuDF")
    assert loc.frame is not None and loc.frame.startswith("cudf::io::parquet::")
    san = sanitizer.parse(PAGE_BOUNDS)
    assert san is not None and san.kernel is not None
    assert san.kernel.startswith("cudf::io::parquet::detail::<unnamed>::page_bounds<")


def test_template_arguments_are_not_the_owner() -> None:
    # CUB's device-wide kernel run with cuDF's operator stays CUB's; a kernel of one's own that takes a
    # library's type as a template argument or parameter is not that library's
    assert own_name("void cub::CUB_200200_NS::DeviceReduceSingleTileKernel<cudf::DeviceMin>(int)") == (
        "cub::CUB_200200_NS::DeviceReduceSingleTileKernel<>()"
    )
    assert "cutlass" not in own_name("void my_kernel<cutlass::half_t>(cutlass::half_t *)")
    assert strip_return_type("void paddle::operators::k<float4>(int)") == "paddle::operators::k<float4>(int)"


def test_access_that_runs_past_a_small_allocation() -> None:
    san = sanitizer.parse(PADDLE)
    assert san is not None
    assert (san.allocation_relation, san.access_size, san.allocation_size_bytes) == ("inside", 4, 9)
    assert san.allocation_tail_overrun_bytes == 3


def test_race_threads_in_one_warp_or_several() -> None:
    with open("tests/fixtures/sanitizer/doc-58-warp-level-hazards.txt", encoding="utf-8") as f:
        warp = sanitizer.parse(f.read())
    assert warp is not None and (warp.race_across_warps, warp.race_one_warp) == (False, True)
    blockwide = sanitizer.parse(PAGE_BOUNDS)
    assert blockwide is not None and (blockwide.race_across_warps, blockwide.race_one_warp) == (None, False)
