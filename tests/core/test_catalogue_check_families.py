"""Message families of tools' own checks, on their real wordings: CUTLASS's and tiny-cuda-nn's tensor-core
device and toolkit checks, Triton's value-not-a-tensor, the host linker's missing device-link and fat-binary
wrapper symbols, Faiss's GPU k-selection limit, and PyTorch's old-GPU warning
(diagnose/data/catalogue/tensor-core-sample-checks.yaml, triton-to-tensor.yaml, host-linker-cuda.yaml,
faiss-gpu.yaml, torch-old-gpu.yaml)."""

from __future__ import annotations

from pathlib import Path

import pytest

from diagnose.catalogue import default_catalogue
from diagnose.classify import classify_record
from diagnose.inputs import InputRecord
from diagnose.matcher import Matcher
from diagnose.rules import default_rules

ROOT = Path(__file__).resolve().parents[2]
CAT = default_catalogue()
MATCHER = Matcher(default_rules())


def families(text: str) -> list[str]:
    return [h.family.id for h in CAT.scan(text)]


def answer(text: str) -> tuple[str, str | None]:
    d = classify_record(InputRecord(id="t", text=text), MATCHER).diagnosis
    assert d is not None
    return d.category, d.rule


def fixture(path: str) -> str:
    return (ROOT / "tests" / "fixtures" / path).read_text(encoding="utf-8")


DECIDED = [
    # NVlabs/instant-ngp#13 (tiny-cuda-nn's copy of CUTLASS's check, the title)
    (
        "Turing Tensor Core operations must be run on a machine with compute capability at least 75",
        "tensor-core-sample-device-below-arch",
        "runtime-assumption",
    ),
    # NVIDIA/cutlass#339: an example run where device 0 was a V100 on a machine that also had an A100
    (
        "./14_ampere_tf32_tensorop_gemm\n"
        "Ampere Tensor Core operations must be run on a machine with compute capability at least 80.",
        "tensor-core-sample-device-below-arch",
        "runtime-assumption",
    ),
    # CUTLASS examples/08_turing_tensorop_gemm (main): the toolkit check beside the device one
    (
        "Turing Tensor Core operations must be compiled with CUDA 10.2 Toolkit or later.",
        "tensor-core-sample-toolkit-too-old",
        "environment",
    ),
    # triton 3.7.1, captured here by scripts/capture-triton-samples: tl.broadcast's tuple stored as a block
    (fixture("triton/compile-store-broadcast-tuple.log"), "triton-value-not-a-tensor", "kernel-logic"),
    # the same, a @triton.jit helper without a return statement
    (fixture("triton/compile-store-helper-returns-none.log"), "triton-value-not-a-tensor", "kernel-logic"),
    # GNU ld 2.40 on an nvcc 13.0 device-link object linked with a build of its module made without -rdc,
    # captured here by scripts/capture-catalogue-cuda-samples
    (
        fixture("catalogue-cuda/ld-device-link-object-without-its-rdc-object.log"),
        "host-link-device-link-objects-mismatch",
        "environment",
    ),
    # facebookresearch/faiss#932: the 1024 limit of a Faiss built with CUDA 9.0 or older, 2048 asked
    (
        "void faiss::gpu::GpuIndexIVF::setNumProbes(int) at gpu/GpuIndexIVF.cu:198: Error: 'nprobe > 0 && "
        "nprobe <= getMaxKSelection()' failed: GPU index only supports nprobe <= 1024; passed 2048",
        "faiss-gpu-selection-limit-of-old-build",
        "environment",
    ),
    # peterjc123/pytorch-scripts#13: torch 0.3.1's old-GPU warning, without its minimum line
    (
        "UserWarning:\n    Found GPU0 GeForce GTX 960M which is of cuda capability 5.0.\n"
        "    PyTorch no longer supports this GPU because it is too old.",
        "torch-gpu-below-build-minimum",
        "runtime-assumption",
    ),
]


@pytest.mark.parametrize(("text", "family", "category"), DECIDED, ids=[d[1] for d in DECIDED])
def test_each_family_decides_its_own_wording(text: str, family: str, category: str) -> None:
    assert family in families(text)
    assert answer(text)[0] == category


def test_rdc_objects_linked_without_the_device_link_step_leave_whose_build_files_open() -> None:
    # GNU ld 2.40 on an -rdc=true object of nvcc 13.0, captured here by scripts/capture-catalogue-cuda-samples: a
    # project's own build files (kernel-logic) or a build the reader configured (environment), as the text cannot say
    text = fixture("catalogue-cuda/ld-rdc-object-without-device-link.log")
    assert "host-link-rdc-without-device-link" in families(text)
    report = classify_record(InputRecord(id="t", text=text), MATCHER)
    assert report.category == "unknown" and report.diagnosis is not None
    owners = {f.category for f in report.diagnosis.findings if f.rule.startswith("host-link-rdc-without-device-link")}
    assert owners == {"kernel-logic", "environment"}


def test_faiss_over_the_limit_of_every_build_is_the_callers() -> None:
    # Faiss gpu/GpuIndexIVF.cu's wording with a request past 2048: no build takes it, whatever its limit
    for limit in ("1024", "2048"):
        text = f"Error: 'nprobe > 0' failed: GPU index only supports nprobe <= {limit}; passed 4096"
        assert "faiss-gpu-selection-limit-of-old-build" not in families(text)
        assert "faiss-gpu-selection-over-limit" in families(text)
        assert answer(text)[0] == "runtime-assumption"


def test_triton_values_that_come_from_the_caller_are_left_out() -> None:
    # triton-lang/triton#1120 describes a numpy integer passed as an argument: not the kernel's own value
    text = "TypeError: cannot convert 32 of type <class 'numpy.int64'> to tensor"
    assert "triton-value-not-a-tensor" not in families(text)


def test_the_old_gpu_warning_gives_both_capabilities_when_printed() -> None:
    # alievk/avatarify-python#58 (torch 1.4's wording), followed by the failure it leads to
    text = (
        "Found GPU0 GeForce GTX 660 Ti which is of cuda capability 3.0.\n"
        "    PyTorch no longer supports this GPU because it is too old.\n"
        "    The minimum cuda capability that we support is 3.5.\n"
        "RuntimeError: CUDA error: no kernel image is available for execution on the device"
    )
    assert answer(text)[0] == "runtime-assumption"
    # a GPU newer than the build (the other direction) stays the stack's
    newer = (
        "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation."
    )
    assert answer(newer)[0] == "environment"


def test_a_linker_that_resolves_the_registration_symbol_is_healthy() -> None:
    # a device-linked object defines the symbol; nm lists it, no error
    text = "0000000000000000 T __cudaRegisterLinkedBinary_9e2f4bc8_6_rdc_cu_1efa1a85"
    assert "host-link-rdc-without-device-link" not in families(text)


def test_a_linker_that_resolves_the_fat_binary_wrapper_is_healthy() -> None:
    # an -rdc=true object defines its module's wrapper; nm lists it, and ld's relocation warning alone is no error
    for text in (
        "0000000000000000 D __fatbinwrap_52acc9d9_6_lib_cu_1efa1a85",
        "/usr/bin/ld: dlink.o: warning: relocation against `__fatbinwrap_52acc9d9_6_lib_cu_1efa1a85' in read-only section `.text'",
    ):
        assert "host-link-device-link-objects-mismatch" not in families(text)
