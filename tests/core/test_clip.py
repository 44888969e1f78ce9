"""A quoted log line loses its logger prefix (time stamp, level, rank tag, source location) so the
message itself shows.  The lines are verbatim from dev-corpus cases."""

from diagnose.clip import clip

# corpus/holdout23 (skypilot-org/skypilot#4723): Ray's worker tag, torch's rank tag, a glog-style
# `W0215 12:25:06.525000 14707 file.py:504]` prefix and a `[12/0_1]` compile-id tag
RAY_GLOG = (
    "(head, rank=0, pid=8292) [rank5]:W0215 12:25:06.525000 14707 "
    "site-packages/torch/_higher_order_ops/triton_kernel_wrap.py:504] [12/0_1] "
    "AssertionError: fp8e4nv data type is not supported on CUDA arch < 89"
)

# corpus/holdout22 (a Taichi issue): `[E date time pid]` then `[file.h:function@line]`
TAICHI = (
    "[E 12/30/21 18:15:46.847 9316] [taichi/backends/cuda/cuda_driver.h:taichi::lang::CUDADriverFunction"
    "<int *,unsigned int,void *>::operator ()@87] CUDA Error CUDA_ERROR_INVALID_VALUE: invalid argument "
    "while calling device_get_attribute (cuDeviceGetAttribute)"
)


def test_ray_rank_and_glog_prefix_dropped() -> None:
    assert clip(RAY_GLOG) == "fp8e4nv data type is not supported on CUDA arch < 89"


def test_taichi_level_time_and_source_location_dropped() -> None:
    got = clip(TAICHI)
    assert got.startswith("CUDA Error CUDA_ERROR_INVALID_VALUE: invalid argument")
    assert "taichi/backends" not in got and "18:15:46" not in got


def test_short_line_kept() -> None:
    assert clip("[rank0]: short") == "[rank0]: short"
