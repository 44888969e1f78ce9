"""The torch, Triton, CuPy and Numba message families decide real logs of those tools.

The CuPy and Numba logs (and Triton's launcher build) are real runs on a machine without a GPU, made
by scripts/capture-cupy-numba-samples; the other Triton ones come from scripts/capture-triton-samples."""

from __future__ import annotations

from pathlib import Path

import pytest

from diagnose.catalogue import default_catalogue
from diagnose.classify import classify_records
from diagnose.collectors.families import facts_from
from diagnose.inputs import read_inputs

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
TOOLS = ("torch", "triton", "cupy", "numba")


def diagnose(path: Path):
    (report,) = classify_records(read_inputs([str(path)]))
    return report.diagnosis


@pytest.mark.parametrize(
    ("fixture", "rule", "category", "mode"),
    [
        ("cupy/nvrtc-undefined-identifier.log", "cupy-nvrtc-source-error", "kernel-logic", "compile-source-error"),
        ("cupy/nvrtc-arch-too-old.log", "cupy-nvrtc-arch-unsupported", "environment", "ptxas-too-old-for-arch"),
        ("cupy/driver-library-missing.log", "cupy-driver-library-missing", "environment", "no-gpu-visible"),
        ("numba/launch-no-driver.log", "numba-driver-not-found", "environment", "no-gpu-visible"),
        ("numba/cc-below-toolkit-minimum.log", "numba-cc-not-supported-by-toolkit", "environment", None),
        ("numba/typing-undefined-name.log", "numba-typing-failed", "kernel-logic", "compile-source-error"),
        ("numba/typing-no-implementation.log", "numba-typing-failed", "kernel-logic", "compile-source-error"),
        ("numba/local-array-runtime-shape.log", "numba-unsupported-in-kernel", "kernel-logic", "language-misuse"),
        ("numba/kernel-returns-value.log", "numba-kernel-nonvoid-return", "kernel-logic", "language-misuse"),
        ("numba/missing-launch-config.log", "numba-missing-launch-config", "kernel-logic", "language-misuse"),
        ("numba/simulator-oob-tail.log", "numba-simulator-out-of-bounds", "kernel-logic", None),
        ("triton/launcher-link-no-libcuda.log", "triton-launcher-no-libcuda", "environment", "library-missing"),
        ("triton/fp8-e4m3-on-sm80.log", "triton-fp8-type-unsupported-arch", "runtime-assumption", None),
        # num_ctas > 1 only supplies need_cc 9.0 and have_cc sm_80; the concept rule decides
        ("triton/num-ctas-on-sm80.log", "concept-cc-below-requirement", "runtime-assumption", None),
    ],
)
def test_real_logs_are_decided_by_their_tools_family(fixture: str, rule: str, category: str, mode: str | None) -> None:
    (report,) = classify_records(read_inputs([str(FIXTURES / fixture)]))
    d = report.diagnosis
    assert d.category == category
    # the tool's family decides; where another tool's family reads the same line with the same verdict
    # (CuPy wrapping NVRTC), either may be the one ranked first
    families = report.evidence.concept.families if report.evidence.concept else ()
    assert d.rule == rule or (rule in families and d.rule in families), (d.rule, families)
    if mode is not None and d.rule == rule:
        assert d.failure_mode == mode


def test_a_warning_alone_decides_nothing() -> None:
    # the Grid-size NumbaPerformanceWarning is printed on every small launch; it must not make a failure
    text = (
        "numba_cuda/numba/cuda/dispatcher.py:748: NumbaPerformanceWarning: Grid size 1 will likely result in "
        "GPU under-utilization due to low occupancy.\n  warn(errors.NumbaPerformanceWarning(msg))\n"
    )
    f = facts_from(default_catalogue(), text)
    assert f is not None and f.families == ("numba-performance-warning",)
    assert not f.failed


def test_triton_thread_figures_reach_the_concept_rules() -> None:
    # num_warps=64 asks for 2048 threads per block: over every GPU's 1024, a config wrong everywhere
    text = (
        "triton.runtime.errors.OutOfResources: out of resource: threads, Required: 2048, Hardware limit: 1024. "
        "Reducing block sizes or `num_stages` may help."
    )
    f = facts_from(default_catalogue(), text)
    assert f is not None
    assert (f.resource, f.requested, f.limit) == ("threads-per-block", 2048.0, 1024.0)
    assert f.over_limit and f.over_every_gpu


# the messages below are torch's own templates (see each family's source) filled with values
@pytest.mark.parametrize(
    ("text", "values"),
    [
        (
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB. GPU 0 has a total capacity "
            "of 15.78 GiB of which 1.23 GiB is free.",
            {"resource": "device-memory", "requested": 20 * 2**30, "limit": 15.78 * 2**30, "over_limit": True},
        ),
        (
            "RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (9, 1, 0) but found runtime "
            "version (8, 9, 2). PyTorch already comes bundled with cuDNN.",
            {"component": "cudnn", "version_too_old": True},
        ),
        (
            "RuntimeError: Found Tesla P100-PCIE-16GB which is too old to be supported by the triton GPU compiler, "
            "which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, but your device "
            "is of CUDA capability 6.0",
            {"need_cc": 7.0, "have_cc": 6.0, "cc_too_low": True},
        ),
        (
            "RuntimeError: expected scalar type Float but found Half",
            {"expected_dtype": "float32", "found_dtype": "float16", "dtype_mismatch": True},
        ),
    ],
)
def test_torch_messages_carry_their_values(text: str, values: dict[str, object]) -> None:
    f = facts_from(default_catalogue(), text)
    assert f is not None
    for key, want in values.items():
        got = getattr(f, key)
        assert got == pytest.approx(want) if isinstance(want, float) else got == want, key


def test_low_confidence_families_stay_candidates() -> None:
    """A family that fits several owners (confidence below 0.4) never outranks a hand rule with context."""
    fams = [f for f in default_catalogue().families if f.tool in TOOLS]
    assert {f.tool for f in fams} == set(TOOLS)
    low = [f for f in fams if f.decided and f.confidence < 0.4]
    assert low
    assert all(f.priority <= 20 for f in low), [f.id for f in low if f.priority > 20]


@pytest.mark.parametrize(
    ("text", "rule", "category"),
    [
        # ATen's device assertion without the source path the hand rule looks for (a Windows build's
        # backslashes, a log that kept only the assertion): the catalogue still knows torch's own text
        (
            "C:\\actions-runner\\_work\\pytorch\\ScatterGatherKernel.cu:410: block: [2,0,0], thread: [0,0,0] "
            'Assertion `idx_dim >= 0 && idx_dim < index_size && "index out of bounds"` failed.\n'
            "torch.AcceleratorError: CUDA error: device-side assert triggered\n",
            "torch-device-assert-input-range",
            "runtime-assumption",
        ),
        (
            "RuntimeError: Expected tensor for argument #1 'indices' to have scalar type Long; but got "
            "torch.cuda.IntTensor instead (while checking arguments for embedding)\n",
            "torch-tensor-argument-scalar-type",
            "runtime-assumption",
        ),
        (
            "UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda "
            "functions before calling NumCudaDevices() that might have already set an error? Error 804: forward "
            "compatibility was attempted on non supported HW\n",
            "torch-device-count-error",
            "environment",
        ),
    ],
)
def test_torch_templates_decide_whatever_wraps_them(text: str, rule: str, category: str, tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    log.write_text(text)
    d = diagnose(log)
    assert rule in {f.rule for f in d.findings}
    assert d.category == category


# Paddle's start-up arch check (paddle/phi/backends/gpu/gpu_resources.cc, 2.5-3.x): "The GPU architecture in your
# current machine is %s, which is not compatible with Paddle installation with arch: %s, ..." with the build's arch
# set printed in ascending order
_PADDLE_ARCH = (
    "The GPU architecture in your current machine is {name}, which is not compatible with Paddle installation with "
    "arch: {archs} , it is recommended to install the corresponding wheel package according to the installation "
    "information on the official Paddle website.\n"
)


@pytest.mark.parametrize(
    ("name", "archs", "decides"),
    [
        ("Pascal", "70 75 80 86", True),  # PaddlePaddle/PaddleDetection#8873
        ("Kepler", "50 52 60 61 70 75", True),
        ("Maxwell", "60 61 70 75 80 86", True),
        ("Ampere", "90", True),
        # a GPU newer than the list can still run the wheel's PTX: the warning alone decides nothing
        ("Ampere", "35 50 52 60 61 70 75", False),
        ("Turing", "60 61 70", False),
        # Kepler 3.7 runs sm_35 cubins: the list's first entry is not above every Kepler
        ("Kepler", "35 50 52", False),
    ],
)
def test_paddle_arch_check_decides_only_for_a_gpu_below_the_whole_list(
    name: str, archs: str, decides: bool, tmp_path: Path
) -> None:
    log = tmp_path / "run.log"
    log.write_text(_PADDLE_ARCH.format(name=name, archs=archs))
    d = diagnose(log)
    rules = {f.rule for f in d.findings}
    assert ("paddle-gpu-below-build-arch-list" in rules) is decides
    if decides:
        assert (d.category, d.failure_mode) == ("environment", "no-kernel-image-for-arch")
