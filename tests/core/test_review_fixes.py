"""Diagnoses an expert review of real public logs found misleading, and the general readings that fix
them: a compile error in a library's header or on an arch-gated intrinsic or a toolkit-declared name is
not the kernel's source error; the driver's refusals (Secure Boot signing, RmInitAdapter) have their own
fixes; fix text states only the branch its values decide and fits the log's framework.

The logs are the corpus' public cases (corpus/holdout5, each with its repo#issue) and tool output
captured here (tests/fixtures/compiler, scripts/capture-compiler-samples)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from diagnose import explain as X
from diagnose.classify import classify_record
from diagnose.collectors import compile_cause, compiler, triton_errors
from diagnose.inputs import InputRecord
from diagnose.matcher import Matcher
from diagnose.rules import default_rules

ROOT = Path(__file__).resolve().parents[2]
MATCHER = Matcher(default_rules())
CASES = {c["id"]: c for c in yaml.safe_load((ROOT / "corpus" / "holdout5" / "issues.yaml").read_text())}


def _best(text: str):
    report = classify_record(InputRecord(id="t", text=text), MATCHER)
    assert report.diagnosis is not None and report.diagnosis.best is not None, report.status
    return report.diagnosis.best


# --- compile errors whose cause is not the kernel's source -------------------------------------------


@pytest.mark.parametrize(
    ("path", "library"),
    [
        (r"...\cupy/carray.cuh", "CuPy"),
        ("/opt/conda/lib/python3.10/site-packages/torch/include/ATen/core/TensorBase.h", "PyTorch"),
        ("/src/third_party/cutlass/include/cutlass/arch/mma_sm90.h", "CUTLASS"),
        ("/home/u/.local/lib/python3.11/site-packages/somepkg/include/k.cuh", "somepkg"),
        ("/usr/local/cuda/include/cub/block/block_reduce.cuh", None),  # the toolkit's own copy
        ("kernels/scale.cu", None),
        ("src/cutlass_gemm.cu", None),  # a project source, not a header it includes
        (None, None),
    ],
)
def test_library_of_header(path: str | None, library: str | None) -> None:
    assert compile_cause.library_of_header(path) == library


@pytest.mark.parametrize(
    ("message", "after", "gate"),
    [
        (
            'no instance of overloaded function "atomicAdd" matches the argument list',
            ["            argument types are: (double *, double)"],
            ("sm_60", "atomicAdd(double *, double)"),
        ),
        (
            'no instance of overloaded function "atomicAdd" matches the argument list',
            ["            argument types are: (float *, float, int)"],
            None,
        ),
        ('identifier "__hmax" is undefined', [], ("sm_80", "__hmax")),
        ('identifier "factor" is undefined', [], None),
    ],
)
def test_arch_gate(message: str, after: list[str], gate: tuple[str, str] | None) -> None:
    assert compile_cause.arch_gate(message, after) == gate


def test_a_redefined_cuda_function_is_a_clash_and_a_helper_of_the_project_is_not() -> None:
    log = (ROOT / "tests/fixtures/compiler/nvcc-redefines-toolkit-atomicadd.log").read_text()
    facts = compiler.parse(log)
    assert facts is not None and facts.toolkit_clash == "atomicAdd" and facts.first_error_file == "pair.cu"
    assert (
        compile_cause.clash("cannot overload functions distinguished by return type alone", ["int helper(int x) {"])
        is None
    )


def test_docker_build_step_prefix_is_not_part_of_the_file() -> None:
    facts = compiler.parse(CASES["kaldi-atomicadd-float2-conflicts-cuda-12-1"]["log"])
    assert facts is not None and facts.first_error_file == "feature-online-batched-cmvn-cuda-kernels.cu"


# the general rules (library header, toolkit clash, arch-gated intrinsic) and the message families of
# the tools that print these errors (CuPy's headers, nvcc's atomic overloads) agree; the family, more
# specific, is the one cited where both read the log
@pytest.mark.parametrize(
    ("case_id", "rules", "category"),
    [
        (
            "cupy-half-raw-undefined-old-cuda",
            {"nvcc-error-in-library-header", "cupy-own-header-compile-error"},
            "environment",
        ),
        (
            "kaldi-atomicadd-float2-conflicts-cuda-12-1",
            {"nvcc-redefines-toolkit-function", "nvcc-builtin-redeclared-by-toolkit"},
            "environment",
        ),
        (
            "gptq-atomicadd-double-below-sm60",
            {"nvcc-intrinsic-needs-newer-arch", "nvcc-atomic-overload-needs-arch"},
            "runtime-assumption",
        ),
    ],
)
def test_compile_errors_not_in_the_kernels_source_go_to_their_cause(
    case_id: str, rules: set[str], category: str
) -> None:
    best = _best(CASES[case_id]["log"])
    assert best.rule in rules and best.category == category
    assert "no GPU, driver or arch change" not in best.why


def test_a_plain_source_error_stays_the_kernels() -> None:
    best = _best((ROOT / "tests/fixtures/compiler/nvcc-undefined-identifier.log").read_text())
    assert (best.rule, best.category) == ("nvcc-source-error", "kernel-logic")


def test_arch_gated_intrinsic_names_the_arch_in_the_fix() -> None:
    best = _best(CASES["gptq-atomicadd-double-below-sm60"]["log"])
    assert "atomicAdd" in best.what and "sm_60" in best.fix


# --- the driver: a module the kernel refuses, a GPU it cannot initialise ------------------------------


def test_secure_boot_rejection_is_not_a_rebuild() -> None:
    best = _best(CASES["nvsmi-secure-boot-key-rejected"]["log"])
    assert best.rule == "driver-module-signature-rejected" and best.category == "environment"
    assert "mokutil" in best.fix and "DKMS)" not in best.fix
    cited = {c.line for c in best.evidence}
    assert 5 in cited  # the modprobe line that decides


def test_rm_init_adapter_is_gpu_initialisation_not_a_reinstall() -> None:
    best = _best(CASES["nvsmi-no-devices-rtx5090-bios-bar"]["log"])
    assert best.rule == "driver-gpu-init-failed" and best.failure_mode == "gpu-init-failed"
    assert "reinstall" not in best.fix.lower() and "Above 4G Decoding" in best.fix


# --- fix text: the branch the values decide, the framework the log comes from ---------------------------


@pytest.mark.parametrize(
    ("value", "fmt", "shown"),
    [
        (True, "if", ""),
        (False, "if", None),
        (None, "if", None),
        (False, "unless", ""),
        (None, "unless", ""),
        (True, "unless", None),
    ],
)
def test_condition_formats(value: object, fmt: str, shown: str | None) -> None:
    text = f"[[{{concept_over_every_gpu:{fmt}}}No GPU fits it.]] Shrink the tile."
    out = X.render(text, {"concept_over_every_gpu": value})
    assert out == ("No GPU fits it. Shrink the tile." if shown == "" else "Shrink the tile.")


def _oor(required: int, limit: int) -> str:
    return (
        "triton.runtime.errors.OutOfResources: out of resource: shared memory, "
        f"Required: {required}, Hardware limit: {limit}. Reducing block sizes or `num_stages` may help.\n"
    )


def test_triton_smem_fix_states_only_the_branch_that_holds() -> None:
    assert triton_errors.parse(_oor(1179648, 232448)).over_every_gpu  # type: ignore[union-attr]
    # over every GPU the this-GPU reading is a candidate (the confidence module holds it under the threshold): its
    # fix, which the abstention shows, states the branch that holds
    report = classify_record(InputRecord(id="t", text=_oor(1179648, 232448)), MATCHER)
    assert report.status == "unknown" and report.diagnosis is not None
    over = report.diagnosis.findings[0].fix
    assert "no GPU and no `num_stages` fits it" in over and "Lower `num_stages`" not in over
    fits = _best(_oor(65536, 49152)).fix
    assert "Lower `num_stages`" in fits and "227 KiB (232,448" not in fits and "If the requirement" not in fits


def test_numba_kernel_gets_numba_shared_memory_advice() -> None:
    best = _best(CASES["numba-shared-array-over-static-limit"]["log"])
    assert "cuda.shared.array" in best.fix and "extern __shared__" not in best.fix
    assert ("framework", "numba") in best.facts


@pytest.mark.parametrize(
    "case_id", ["jax-jetson-xavier-prng-no-kernel-image", "faiss-wheel-missing-sm90-no-kernel-image"]
)
def test_no_kernel_image_gives_no_pytorch_wheel_advice_outside_pytorch(case_id: str) -> None:
    best = _best(CASES[case_id]["log"])
    assert best.rule == "cuda-no-kernel-image"
    assert "torch" not in best.fix.lower() and "cu128" not in best.fix


def test_arange_bound_not_constexpr_names_the_traced_launcher_and_stays_modest() -> None:
    report = classify_record(
        InputRecord(id="t", text=CASES["mamba-triton-layernorm-under-fvcore-trace"]["log"]), MATCHER
    )
    assert report.diagnosis is not None and report.diagnosis.findings
    top = report.diagnosis.findings[0]
    # whether the bound is declared constexpr decides between the caller and the kernel: kdiag abstains
    assert report.category == "unknown" and top.confidence < 0.5
    assert "traced" in top.why and "constexpr" in top.what


def test_a_compile_error_in_a_librarys_header_is_located_in_that_library() -> None:
    from diagnose.collectors import location

    facts = location.parse(CASES["cupy-half-raw-undefined-old-cuda"]["log"])
    assert facts is not None and (facts.kind, facts.library) == ("library", "CuPy")
    user = location.parse((ROOT / "tests/fixtures/compiler/nvcc-undefined-identifier.log").read_text())
    assert user is not None and user.kind == "user"


def test_a_missing_library_in_a_programs_own_cache_is_not_advised_as_a_package_to_install() -> None:
    # getkeops/keops#377 (corpus/holdout59): the file KeOps builds into its cache at run time was never built
    log = (
        "OSError: /home/u/.cache/keops2.2.3/Linux_server01_5.15.0-78-generic_p3.8.19/nvrtc_jit.so: cannot open shared"
        " object file: No such file or directory\n"
    )
    best = _best(log)
    assert best.rule == "env-missing-shared-library"
    assert best.fix.startswith("The missing file is in a folder the program builds its own libraries into")
    assert "CUDA_HOME" in best.fix and "nvidia-cuda-runtime-cu12" not in best.fix
    # a library a package installs keeps the install advice
    plain = _best("ImportError: libcudart.so.10.1: cannot open shared object file: No such file or directory\n")
    assert "cache folder" not in plain.fix
