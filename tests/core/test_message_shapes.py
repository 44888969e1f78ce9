"""Message shapes (diagnose/data/catalogue/message-shapes.yaml): one form, many tools' wordings.

Every line below is a tool's own message string (tool, version, file cited), its placeholders filled
where it has them; each shape is shown with at least two tools, so the decision comes from the form
the message takes, not from one tool's wording.
"""

from __future__ import annotations

import pytest

from diagnose.classify import classify_records
from diagnose.collectors.families import parse
from diagnose.inputs import InputRecord

LIBTORCH = "torch 2.13.0+cpu, strings of torch/lib/libtorch_cpu.so"
LIBTRITON = "triton 3.7.1, strings of triton/_C/libtriton.so"
LIBNVRTC = "nvidia-cuda-nvrtc 13.5.37, strings of nvidia/cu13/lib/libnvrtc.so.13"

# (line, category, failure mode, provenance)
CASES = [
    # "<subject> must be contiguous"
    ("RuntimeError: slow_conv3d output must be contiguous", "runtime-assumption", "noncontiguous-input", LIBTORCH),
    ("ValueError: The SMEM tiles must be contiguous", "runtime-assumption", "noncontiguous-input",
     "jax 0.10.2, jax/experimental/mosaic/gpu (Mosaic GPU's tile check)"),
    ("AssertionError: Expected sharded_param._local_tensor to be contiguous", "runtime-assumption",
     "noncontiguous-input", "torch 2.13.0, torch/distributed/fsdp/_fully_shard/_fsdp_param.py"),
    # "<subject> must be divisible by / a multiple of N"
    ("RuntimeError: embed_dim must be divisible by num_heads", "runtime-assumption", "shape-not-multiple-of-block",
     LIBTORCH),
    ("ValueError: WGMMA result N dimension must be divisible by 8", "runtime-assumption",
     "shape-not-multiple-of-block", "jax 0.10.2, jax/experimental/mosaic/gpu/wgmma.py"),
    ("ValueError: Block size must be a multiple of the input size.", "runtime-assumption",
     "shape-not-multiple-of-block", "jax 0.10.2 (jax/_src, a block-spec check)"),
    # "<subject> must be aligned"
    ("error: Offset must be aligned 16 bytes", "runtime-assumption", "misaligned-input", LIBNVRTC),
    ("LLVM ERROR: RMW float 16 dtypes must be aligned by 2", "runtime-assumption", "misaligned-input", LIBTRITON),
    # "<subject> must be on the same device / on <device>"
    ("RuntimeError: input and output tensors must be on the same device", "runtime-assumption", "device-mismatch",
     LIBTORCH),
    ("RuntimeError: FlexGEMM inputs must be on the same device", "runtime-assumption", "device-mismatch",
     "torch 2.13.0, torch/_inductor/kernel/flex_gemm/runtime.py"),
    ("RuntimeError: tensor_indices_or_sections must be on CPU, got cuda:0", "runtime-assumption", "device-mismatch",
     "torch 2.13.0, torch/_decomp/decompositions.py"),
    # "<subject> must be >= N / <= N"
    ("ValueError: all dimensions of x and y must be >= 16", "runtime-assumption", "shape-below-minimum",
     "holdout5 case pallas-matvec-dot-dims-below-16 (JAX Pallas' Triton lowering)"),
    ("RuntimeError: Input rank must be >= 2.", "runtime-assumption", "shape-below-minimum", LIBTORCH),
    ("ValueError: Index dimension must be <= 2", "runtime-assumption", "shape-exceeds-kernel-limit",
     "cupy-cuda13x 14.2.0, cupyx/scipy/sparse/_index.py"),
    ("error: blockN must be less than or equal to 512 but got 1024", "runtime-assumption",
     "shape-exceeds-kernel-limit", LIBTRITON),
    # "<feature> is not supported on this GPU / architecture / pre-<arch>"
    ("error: __cluster_dims__ is not supported for this GPU architecture", "runtime-assumption",
     "arch-feature-unavailable", LIBNVRTC),
    ("LLVM ERROR: integer clamping is not supported on this GPU", "runtime-assumption", "arch-feature-unavailable",
     LIBTRITON),
    ("error: llvm.nvvm.branch.if.all.convergent is not supported on pre-Volta Architectures", "runtime-assumption",
     "arch-feature-unavailable", LIBNVRTC),
    # "unsupported dtype X" / "dtype X is not supported"
    ("RuntimeError: Unsupported dtype for ideep public tensor: Half", "runtime-assumption", "dtype-unexpected",
     LIBTORCH),
    ("TypeError: dtype float16 is not supported", "runtime-assumption", "dtype-unexpected",
     "cupy-cuda13x 14.2.0, cupy/_core (dtype checks)"),
    # "<library> was compiled / built without <feature>"
    ("RuntimeError: PyTorch was compiled without cuDNN/MIOpen support. To use cuDNN/MIOpen, rebuild",
     "environment", "library-missing", "torch 2.13.0, torch/backends/cudnn/__init__.py"),
    ("RuntimeError: XLA compiled without GPU collectives support", "environment", "library-missing",
     "jax 0.10.2, strings of jaxlib/libjax_common.so"),
    ("LLVM ERROR: LLVM was not built with LLVM_ENABLE_ZSTD or did not find zstd at build time", "environment",
     "library-missing", LIBTRITON),
    # "<component> version mismatch" / "compiled against version A"
    ("ImportError: Python version mismatch: module was compiled for Python 3.11, but the interpreter version is "
     "incompatible: 3.12.1.", "environment", "version-skew", "triton 3.7.1, strings of triton/_C/libproton.so"),
    ("nvrtc: error: archive CUDA version mismatch: archive=12.8, nvrtc=13.5", "environment", "version-skew",
     LIBNVRTC),
    ("RuntimeError: Looks like your LD_LIBRARY_PATH contains incompatible version of cudnn.", "environment",
     "version-skew", "torch 2.13.0, torch/backends/cudnn/__init__.py"),
    ("RuntimeError: CUB version mismatch. Running with version 2.5.0, compiled with 2.8.0", "environment",
     "version-skew", "jax-cuda12-pjrt 0.10.2, strings of jax_plugins/xla_cuda12/xla_cuda_plugin.so"),
    # "<X> requires <component> version >= N"
    ("ValueError: Compute capability 10.3 requires cuDNN version >= 9.11.", "environment", "version-skew",
     "jax 0.10.2, jax/_src/cudnn/fused_attention_stablehlo.py"),
    ("RuntimeError: register_hlo_module_transformation requires jaxlib version >= 0.10.2", "environment",
     "version-skew", "jax 0.10.2, jax/_src/xla_transform.py"),
    ("ImportError: TensorBoard logging requires TensorBoard version 1.15 or above", "environment", "version-skew",
     "torch 2.13.0, torch/utils/tensorboard/__init__.py"),
]  # fmt: skip


def _classify(text: str) -> tuple[str, str]:
    (rep,) = classify_records([InputRecord(id="t", text=text + "\n", exit_code=1)])
    return rep.category, rep.failure_mode


@pytest.mark.parametrize(("line", "category", "mode", "source"), CASES, ids=[c[0][:48] for c in CASES])
def test_shape_decides_owner(line: str, category: str, mode: str, source: str) -> None:
    assert _classify(line) == (category, mode), source


def test_contract_facts_carry_subject_contract_and_number() -> None:
    f = parse("ValueError: The second dimension of the TMEM memref must be a multiple of 64, but got 96.\n")
    assert f is not None
    assert (f.subject, f.contract, f.contract_mode, f.limit) == (
        "memref",
        "divisible",
        "shape-not-multiple-of-block",
        64.0,
    )
    f = parse("RuntimeError: tensor_indices_or_sections must be on CPU, got cuda:0\n")
    assert f is not None and (f.expected_device, f.found_device, f.contract) == ("cpu", "cuda", "device")


def test_unsupported_facts_carry_value_and_kind() -> None:
    f = parse("RuntimeError: Unsupported dtype for ideep public tensor: Half\n")
    assert f is not None and (f.unsupported, f.unsupported_kind) == ("Half", "dtype")
    f = parse("LLVM ERROR: exp target is not supported on this GPU\n")
    assert f is not None and (f.unsupported, f.unsupported_kind) == ("this GPU", "arch")


def test_compiler_internal_assertion_is_not_a_broken_contract() -> None:
    # an LLVM assertion of the same form (triton 3.7.1, strings of triton/_C/libtriton.so), as glibc's assert
    # prints it: the compiler's own invariant, not the caller's contract
    line = (
        'python: X86ISelLowering.cpp:1234: Assertion `Bits % 64 == 0 && "The number of bits in a vector must be '
        "divisible by 64 on x86!\"' failed."
    )
    assert _classify(line)[1] != "shape-not-multiple-of-block"


@pytest.mark.parametrize(
    "line",
    [
        "x was made contiguous before the call",
        "checked: all tensors are on the same device",
        "dtype float16 is supported on this GPU",
        "PyTorch was compiled with CUDA support",
        "checked the wheels: no version mismatch",
    ],
)
def test_statements_without_a_failure_stay_silent(line: str) -> None:
    (rep,) = classify_records([InputRecord(id="t", text=line + "\n", exit_code=0)])
    assert rep.category == "no-failure"


def test_compiled_without_errors_is_no_missing_feature() -> None:
    assert _classify("error: build step 3 failed; the library itself compiled without errors")[1] != "library-missing"


def test_a_bit_width_multiple_is_the_compilers_not_the_callers() -> None:
    # LLVM's own type checks (triton 3.7.1, strings of triton/_C/libtriton.so): a width in bits is a property of
    # an IR type, not of the caller's input
    assert _classify("LLVM ERROR: G_BSWAP size must be a multiple of 16 bits")[1] != "shape-not-multiple-of-block"
