"""`kdiag run file.cu`: real nvcc compiles on this machine; the compile diagnosis stands without a GPU."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.toolkit]

SOURCES = {
    # a name the kernel never declared: the source is wrong for every target
    "source-error": (
        """
        __global__ void scale(float* x, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) x[i] *= factor;
        }
        int main() { return 0; }
        """,
        "sm_90",
        ("kernel-logic", "compile-source-error"),
    ),
    # Hopper warpgroup MMA fences built for Ampere
    "wgmma-sm80": (
        """
        __global__ void fence_kernel(float* out) {
            asm volatile("wgmma.fence.sync.aligned;\\n" ::: "memory");
            out[threadIdx.x] = 1.0f;
        }
        int main() { return 0; }
        """,
        "sm_80",
        ("runtime-assumption", "arch-feature-unavailable"),
    ),
    # 64 KiB + 4 of static shared memory: over the 48 KiB static limit of every arch
    "static-smem": (
        """
        __global__ void stage(const float* in, float* out) {
            __shared__ float s[16384 + 1];
            s[threadIdx.x] = in[threadIdx.x];
            __syncthreads();
            out[threadIdx.x] = s[(threadIdx.x + 1) % (16384 + 1)];
        }
        int main() { return 0; }
        """,
        "sm_90",
        ("kernel-logic", None),
    ),
}


@pytest.mark.parametrize("case", sorted(SOURCES))
def test_compile_failures_get_their_category(case: str, write, tmp_path: Path, kdiag_run) -> None:
    source, arch, (category, mode) = SOURCES[case]
    cu = write(tmp_path, f"{case.replace('-', '_')}.cu", source)
    code, out, _ = kdiag_run(str(cu), "--arch", arch)
    assert out is not None
    assert (code, out["verdict"], out["category"]) == (1, "fail", category), out["title"]
    if mode:
        assert out["failure_mode"] == mode
    run_dir = Path(out["run_dir"])
    assert (run_dir / "compile.log").read_text().strip()
    assert [r["name"] for r in out["rungs"]] == ["compile"]
    argv = out["rungs"][0]["argv"]
    assert "-Xptxas" in argv and "-v" in argv and "-lineinfo" in argv


def test_a_good_file_compiles_and_says_the_run_needs_a_gpu(write, tmp_path: Path, kdiag_run) -> None:
    cu = write(
        tmp_path,
        "saxpy.cu",
        """
        __global__ void saxpy(int n, float a, const float* x, float* y) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) y[i] = a * x[i] + y[i];
        }
        int main() { return 0; }
        """,
    )
    code, out, _ = kdiag_run(str(cu), "--arch", "sm_80")
    assert out is not None
    assert (code, out["verdict"]) == (4, "no-result")
    assert out["rungs_unavailable"] == ["run: no GPU"]
    ev = json.loads((Path(out["run_dir"]) / "evidence.json").read_text())["evidence"]
    assert ev["run"]["compiled"] is True and ev["compiler"]["registers"] > 0  # ptxas -v figures kept
