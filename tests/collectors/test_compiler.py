"""tests for diagnose.collectors.compiler, on real nvcc 13.0 / ptxas / NVRTC / gcc output
(scripts/capture-compiler-samples) and on the public cases of corpus/public/real-dev.yaml."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml

from diagnose.collectors import compiler
from diagnose.facts import CompilerFacts

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
REAL_DEV = Path(__file__).resolve().parents[2] / "corpus" / "public" / "real-dev.yaml"


class Prefix(str):
    """An expected value that only has to start the actual one (temporary file names, long messages)."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and other.startswith(str(self))

    __hash__ = str.__hash__


def load(name: str, area: str = "compiler") -> str:
    return (FIXTURES / area / f"{name}.log").read_text()


def parse(name: str, area: str = "compiler") -> CompilerFacts:
    facts = compiler.parse(load(name, area))
    assert facts is not None
    return facts


# fixture → fields it must produce; fields not named must be at their defaults
EXPECTED: dict[str, dict[str, object]] = {
    "nvcc-syntax-error": dict(tool="nvcc", error_count=1, first_error='expected a ";"', first_error_file="scale.cu"),
    "nvcc-legacy-shfl-sm75": dict(
        tool="nvcc",
        error_count=1,
        first_error='identifier "__shfl_down" is undefined',
        first_error_file="shfl.cu",
        removed_from_arch="sm_70",
        gated_symbol="__shfl_down",
        build_arch="sm_75",
    ),
    "nvcc-wmma-tf32-below-sm80": dict(
        tool="nvcc",
        error_count=4,
        first_error='name followed by "::" must be a class or namespace name',
        first_error_file="tf32.cu",
        needs_arch="sm_80",
        gated_symbol="wmma::precision",
        build_arch="sm_75",
    ),
    "nvcc-undefined-identifier": dict(
        tool="nvcc", error_count=1, first_error='identifier "factor" is undefined', first_error_file="scale.cu"
    ),
    "nvcc-removed-cuda-api": dict(
        tool="nvcc", error_count=4, first_error="texture is not a template", first_error_file="legacy.cu"
    ),
    "nvcc-cub-member-missing": dict(
        tool="nvcc",
        error_count=1,
        first_error='namespace "cub" has no member "DeviceTopKMaxPairs"',
        first_error_file="topk.cu",
    ),
    "nvcc-removed-cccl-api": dict(
        tool="nvcc",
        error_count=1,
        first_error='namespace "cub" has no member "Max"',
        first_error_file="block_max.cu",
        undefined_api="cub::Max",
        api_owner="CUB",
        api_removed_in="CUDA 13.0 (CCCL 3.0)",
        api_replacement="cuda::maximum",
    ),
    "nvcc-intrinsic-header-not-included": dict(
        tool="nvcc",
        error_count=1,
        first_error='identifier "__hmul2_rn" is undefined',
        first_error_file="hmul2_scale.cu",
        toolkit_intrinsic="__hmul2_rn",
        toolkit_intrinsic_header="cuda_fp16.h",
        toolkit_intrinsic_in_every_compile=False,
        toolkit_intrinsic_side="declares",
    ),
    # a warning and no error: the tool and its diagnostic, no failure
    "nvcc-comparison-as-statement": dict(
        tool="nvcc", error_count=0, discarded_value="expression has no effect", discarded_value_at="cmp.cu:3"
    ),
    "gcc-comparison-as-statement": dict(
        tool="host-compiler",
        error_count=0,
        discarded_value="statement has no effect [-Wunused-value]",
        discarded_value_at="sum.cpp:3",
    ),
    "nvcc-bf16-header-not-included": dict(
        tool="nvcc",
        error_count=3,
        first_error='identifier "__nv_bfloat16" is undefined',
        first_error_file="bf16_scale.cu",
        undefined_api="__nv_bfloat16",
        api_owner="CUDA toolkit",
        api_added_in="11.0",
        api_header="cuda_bf16.h",
        api_in_every_compile=False,
        api_toolkit_side="inside",
    ),
    "nvcc-thc-header-removed": dict(
        tool="host-compiler",
        error_count=1,
        first_error="THC/THCAtomics.cuh: No such file or directory",
        first_error_file="roi_pool_kernel.cu",
        missing_header="THC/THCAtomics.cuh",
        missing_header_removed_in="PyTorch 1.11",
        missing_header_removed_what="PyTorch's legacy THC headers",
    ),
    "nvcc-torch-header-needs-cusparse": dict(
        tool="host-compiler",
        error_count=1,
        first_error="cusparse.h: No such file or directory",
        first_error_file="<venv>/lib/python3.11/site-packages/torch/include/ATen/cuda/CUDAContextLight.h",
        missing_header="cusparse.h",
        missing_header_library="PyTorch",
    ),
    "nvcc-torch-check-member-not-called": dict(
        tool="nvcc",
        error_count=2,
        first_error="a pointer to a bound function may only be used to call the function",
        first_error_file="<run>/build/source0_load_inline.cu",
    ),
    "nvcc-thc-api-undefined": dict(
        tool="nvcc",
        error_count=1,
        first_error='identifier "THCudaCheck" is undefined',
        first_error_file="roi_check.cu",
        undefined_api="THCudaCheck",
        api_owner="PyTorch TH/THC",
    ),
    "nvcc-torch-at-check-removed": dict(
        tool="nvcc",
        error_count=1,
        first_error='identifier "AT_CHECK" is undefined',
        first_error_file="deform_check.cu",
        undefined_api="AT_CHECK",
        api_owner="PyTorch C++ API",
        api_removed_in="PyTorch 1.5",
    ),
    "nvcc-type-error": dict(
        tool="nvcc",
        error_count=1,
        first_error_file="scale.cu",
        first_error='a value of type "float" cannot be used to initialize an entity of type "float *"',
    ),
    "nvcc-several-errors": dict(
        tool="nvcc", error_count=3, first_error='identifier "stride" is undefined', first_error_file="reduce.cu"
    ),
    "ptxas-smem-over-48k": dict(
        tool="ptxas",
        error_count=1,
        smem_bytes=65540.0,
        smem_limit_bytes=49152.0,
        first_error="Entry function '_Z5stagePKfPf' uses too much shared data (0x10004 bytes, 0xc000 max)",
    ),
    "ptxas-wgmma-sm80": dict(
        tool="ptxas",
        error_count=3,
        unsupported_feature="wgmma.fence",
        target_arch="sm_80",
        ptxas_fatal="Ptx assembly aborted due to errors",
        first_error_file=Prefix("/tmp/tmpxft_"),
        first_error="Instruction 'wgmma.fence' not supported on .target 'sm_80'",
    ),
    "ptxas-wgmma-sm90": dict(
        tool="ptxas",
        error_count=3,
        unsupported_feature="wgmma.fence",
        target_arch="sm_90",
        ptxas_fatal="Ptx assembly aborted due to errors",
        first_error_file=Prefix("/tmp/tmpxft_"),
        first_error="Instruction 'wgmma.fence' not supported on .target 'sm_90'",
    ),
    "ptxas-wgmma-sm90a-ok": dict(tool="ptxas", registers=10),
    "ptxas-register-spills": dict(tool="ptxas", registers=24, spill_stores=932, spill_loads=968, stack_bytes=456),
    "nvcc-unsupported-arch": dict(
        tool="nvcc", error_count=1, unknown_arch="sm_1000", first_error="Unsupported gpu architecture 'sm_1000'"
    ),
    "nvcc-dropped-arch": dict(
        tool="nvcc", error_count=1, unknown_arch="sm_35", first_error="Unsupported gpu architecture 'sm_35'"
    ),
    # the toolkit's release in the log (nvcc --version, CMake) decides which way the arch and toolkit disagree
    "nvcc-version-dropped-arch": dict(
        tool="nvcc",
        error_count=1,
        unknown_arch="compute_60",
        first_error="Unsupported gpu architecture 'compute_60'",
        toolkit_release="13.0",
        arch_first_release="8.0",
        arch_removed_in="13.0",
        arch_toolkit_side="dropped",
    ),
    "cmake-dropped-arch": dict(
        tool="nvcc",
        error_count=1,
        unknown_arch="compute_60",
        first_error="Unsupported gpu architecture 'compute_60'",
        toolkit_release="13.0",
        arch_first_release="8.0",
        arch_removed_in="13.0",
        arch_toolkit_side="dropped",
    ),
    "ptxas-unknown-arch": dict(
        tool="ptxas",
        error_count=1,
        unknown_arch="sm_1000",
        ptxas_fatal="Value 'sm_1000' is not defined for option 'gpu-name'",
        first_error="Value 'sm_1000' is not defined for option 'gpu-name'",
    ),
    "host-compiler-unsupported-gnu": dict(
        tool="host-compiler",
        error_count=1,
        host_compiler_unsupported=True,
        errors_in_toolkit_headers=True,
        first_error=Prefix("#error -- unsupported GNU version! gcc versions later than 15 are not supported!"),
        first_error_file="/usr/local/cuda-13.0/bin/../targets/x86_64-linux/include/crt/host_config.h",
    ),
    "nvcc-error-in-toolkit-header": dict(
        tool="nvcc",
        error_count=65,
        errors_in_toolkit_headers=True,
        first_error="expected either a definition or a tag name",
        first_error_file="/usr/local/cuda-13.0/bin/../targets/x86_64-linux/include/cuda_fp16.h",
    ),
    "nvcc-macro-shadows-toolkit-function": dict(
        tool="host-compiler",
        error_count=2,
        errors_in_toolkit_headers=True,
        first_error='macro "nvtxRangePop" passed 1 arguments, but takes just 0',
        first_error_file="/usr/local/cuda/bin/../targets/x86_64-linux/include/nvtx3/nvToolsExt.h",
        macro_clash="nvtxRangePop",
    ),
    "nvcc-redefines-toolkit-atomicadd": dict(
        tool="nvcc",
        error_count=1,
        first_error="cannot overload functions distinguished by return type alone",
        first_error_file="pair.cu",
        toolkit_clash="atomicAdd",
    ),
    "nvcc-redefines-toolkit-atomicadd-same-type": dict(
        tool="nvcc",
        error_count=1,
        first_error=Prefix('function "atomicAdd(float2 *, float2)" has already been defined (previous definition'),
        first_error_file="pair.cu",
        toolkit_clash="atomicAdd",
        toolkit_clash_from_arch="sm_90",  # CUDA 12.1 added it; 11.8 already built sm_90
    ),
    "nvcc-redefines-gated-atomicadd-double": dict(
        tool="nvcc",
        error_count=1,
        first_error=Prefix('function "atomicAdd(double *, double)" has already been defined (previous definition'),
        first_error_file="atomic_guard.cu",
        toolkit_clash="atomicAdd",
        toolkit_clash_from_arch="sm_60",
        toolkit_clash_in_every_toolkit=True,
    ),
    "nvcc-ambiguous-with-toolkit-atomicadd": dict(
        tool="nvcc",
        error_count=1,
        first_error='more than one instance of overloaded function "atomicAdd" matches the argument list:',
        first_error_file="pair.cu",
        toolkit_clash="atomicAdd",
    ),
    "nvcc-vector-type-conversion": dict(
        tool="nvcc",
        error_count=1,
        first_error='no suitable user-defined conversion from "int2" to "longlong2" exists',
        first_error_file="conv.cu",
    ),
    "nvrtc-undefined-identifier": dict(
        tool="nvrtc", error_count=1, first_error='identifier "factor" is undefined', first_error_file="scale.cu"
    ),
    "nvrtc-builtin-header-errors": dict(
        tool="nvrtc",
        error_count=7,
        errors_in_toolkit_headers=True,
        first_error_file="__nv_nvrtc_builtin_header.h",
        first_error='first parameter of allocation function must be of type "size_t"',
    ),
}
SCALARS = (
    "tool",
    "error_count",
    "first_error",
    "first_error_file",
    "errors_in_toolkit_headers",
    "ptxas_fatal",
    "unknown_arch",
    "unsupported_feature",
    "target_arch",
    "smem_bytes",
    "smem_limit_bytes",
    "registers",
    "spill_stores",
    "spill_loads",
    "stack_bytes",
    "host_compiler_unsupported",
    "library_header",
    "needs_arch",
    "gated_symbol",
    "toolkit_clash",
    "toolkit_clash_from_arch",
    "toolkit_clash_in_every_toolkit",
    "missing_header",
    "missing_header_removed_in",
    "missing_header_removed_what",
)


def test_every_fixture_is_checked() -> None:
    assert {p.stem for p in (FIXTURES / "compiler").glob("*.log")} == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture(name: str) -> None:
    facts = parse(name)
    blank = CompilerFacts()
    for field in SCALARS:
        assert EXPECTED[name].get(field, getattr(blank, field)) == getattr(facts, field), field
    assert facts.lines
    assert len(facts.errors) >= facts.error_count or facts.error_count == 65  # 65: two repeats folded
    text = load(name).splitlines()
    for d in facts.diagnostics:  # every record points at the log line it came from
        assert d.log_line is not None and d.message in text[d.log_line - 1]


def test_notes_in_toolkit_headers_do_not_count() -> None:
    # nvcc's "note #3322-D" candidates live in toolkit headers; the errors are in the user's file
    facts = parse("nvcc-several-errors")
    notes = [d for d in facts.diagnostics if d.severity == "note"]
    assert len(notes) == 7 and all(compiler.in_toolkit_header(d.file or "") for d in notes)
    assert facts.errors_in_toolkit_headers is False
    assert facts.errors == (
        'identifier "stride" is undefined',
        'no instance of overloaded function "atomicAdd" matches the argument list',
        "return value type does not match the function type",
    )


def test_diagnostic_records() -> None:
    facts = parse("ptxas-wgmma-sm80")
    first = facts.diagnostics[0]
    assert (first.tool, first.severity, first.line, first.log_line) == ("ptxas", "error", 26, 1)
    assert first.file is not None and first.file.endswith("_wgmma.ptx")
    facts = parse("nvrtc-builtin-header-errors")
    warning = facts.diagnostics[0]
    assert (warning.tool, warning.severity, warning.file, warning.line) == (
        "nvrtc",
        "warning",
        "__nv_nvrtc_builtin_header.h",
        7,
    )


def test_triton_ptxas_log_is_read_once() -> None:
    # Triton prints ptxas's stderr, then raises PTXASError with it again
    facts = parse("ptxas-inline-asm-error", "triton")
    assert facts.errors == (
        "Unknown modifier '.instr'",
        "Not a name of any known instruction: 'bogus'",
        "Ptx assembly aborted due to errors",
    )
    assert facts.error_count == 2
    facts = parse("ptxas-unknown-arch", "triton")
    assert facts.unknown_arch == "sm_130a" and facts.error_count == 1


def test_triton_ptxas_dump() -> None:
    facts = parse("ptxas-log-dump", "triton")
    assert (facts.registers, facts.error_count, facts.spill_stores) == (22, 0, 0)


def test_triton_logs_are_not_compiler_errors() -> None:
    # MLIR locations ("loc(file.ttir:4:10): error:") and Python tracebacks are not host-compiler errors
    for name in ("mlir-verifier-addptr", "compile-arange-non-pow2", "no-active-driver", "interp-static-assert"):
        assert compiler.parse(load(name, "triton")) is None, name


def _real_dev() -> dict[str, str]:
    return {c["id"]: c["log"] for c in yaml.safe_load(REAL_DEV.read_text())}


@pytest.mark.parametrize(
    "case_id, expected",
    [
        ("lightllm-triton20-sm89", dict(tool="ptxas", unknown_arch="sm_89", error_count=1)),
        ("triton-ptxas-sm121a-dgx-spark", dict(tool="ptxas", unknown_arch="sm_121a")),
        (
            "hpxcl-nvrtc-builtin-header-rebuild",
            dict(
                tool="nvrtc",
                error_count=100,
                errors_in_toolkit_headers=True,
                first_error='expected a ";"',
                first_error_file="__nv_nvrtc_builtin_header.h",
            ),
        ),
    ],
)
def test_real_dev_cases(case_id: str, expected: dict[str, object]) -> None:
    cases = _real_dev()
    facts = compiler.parse(cases[case_id])
    assert facts is not None
    for field, value in expected.items():
        assert getattr(facts, field) == value, field


def test_silent_on_runtime_failures() -> None:
    cases = _real_dev()
    for case_id in (
        "vina-cuda-grid-params-ima",
        "dest3d-chunk-scan-smem",
        "triton-add-two-pointers",
        "faceswap-nvml-lib-not-found",
        "onnxruntime-resize-trilinear-oob-write",
    ):
        assert compiler.parse(cases[case_id]) is None, case_id


@pytest.mark.parametrize(
    "junk",
    [
        "",
        "\x00\xff" * 1000,
        "x.cu(: error: ",
        "ptxas info    : Used registers",
        "nvcc fatal",
        "(" * 100_000 + "): error",
        "a.cu:" * 50_000 + ": error: x",
        '0 errors detected in the compilation of "".',
    ],
)
def test_never_raises_on_junk(junk: str) -> None:
    result = compiler.parse(junk)
    assert result is None or isinstance(result, CompilerFacts)


def test_every_fixture_has_a_sidecar() -> None:
    for log in (FIXTURES / "compiler").glob("*.log"):
        captured = yaml.safe_load(log.with_suffix(".source.yaml").read_text())["captured"]
        toolchain = captured.get("nvcc") or captured["host_compiler"]  # a host-compiler-only capture names gcc
        assert captured["command"] and ("release 13.0" in toolchain or "g++" in toolchain), log.name


# Speed is measured by bench/bench_collectors.py; these check the results on large and noisy input
# (a regex that went quadratic would make them hang instead of passing).


def moved(facts: CompilerFacts, by: int) -> CompilerFacts:
    """``facts`` as read from the same log with ``by`` lines in front of it."""
    return dataclasses.replace(
        facts,
        lines=tuple(n + by for n in facts.lines),
        diagnostics=tuple(
            dataclasses.replace(d, log_line=None if d.log_line is None else d.log_line + by) for d in facts.diagnostics
        ),
    )


def test_a_long_log_without_a_compiler_says_nothing() -> None:
    quiet = (
        'Traceback (most recent call last):\n  File "x.py", line 3, in <module>\n'
        "RuntimeError: CUDA error: an illegal memory access was encountered\n"
    ) * 10_000
    assert quiet.count("\n") == 30_000
    assert compiler.parse(quiet) is None


def test_noise_before_a_compiler_log_changes_only_the_line_numbers() -> None:
    noise = "".join(f"step {i} loss=0.{i:04d} lr=1e-4 Error-free\n" for i in range(2_000))
    for name in EXPECTED:
        clean = parse(name)
        assert compiler.parse(noise + load(name)) == moved(clean, 2_000), name


def test_one_error_after_thirty_thousand_lines() -> None:
    noise = "".join(f"step {i} loss=0.{i:04d} lr=1e-4 Error-free\n" for i in range(30_000))
    facts = compiler.parse(noise + load("nvcc-syntax-error"))
    assert facts is not None and (facts.tool, facts.error_count) == ("nvcc", 1)
    assert facts.first_error == 'expected a ";"' and facts.first_error_file == "scale.cu"
    assert facts.diagnostics and all((d.log_line or 0) > 30_000 for d in facts.diagnostics)


# gcc on nvcc's rewritten translation unit (turboderp/exllama#65, NVIDIA/nccl#102: corpus/holdout25) against gcc 12
# on a user's own bare pack (captured here: `g++ -c packs.cpp`)
STDLIB_PACKS = {
    "/usr/include/c++/6/tuple:605:4: error: parameter packs not expanded with ‘...’:\n"
    "/usr/include/c++/6/tuple:605:4: note:         ‘_Elements’\n": "tuple",
    "/usr/include/c++/11/bits/std_function.h:435:145: note:         ‘_ArgTypes’\n"
    "/usr/include/c++/11/bits/std_function.h:530:146: note:         ‘_ArgTypes’\n": "bits/std_function.h",
    "packs.cpp:1:46: error: parameter packs not expanded with ‘...’:\npacks.cpp:1:46: note:         ‘Ts’\n": None,
}


@pytest.mark.parametrize("text", list(STDLIB_PACKS))
def test_packs_not_expanded_in_the_standard_library(text: str) -> None:
    facts = compiler.parse(text)
    assert facts is not None and facts.stdlib_pack_header == STDLIB_PACKS[text]
    assert facts.lines  # the lines that say so are cited, notes included


def test_notes_alone_of_another_kind_are_no_compiler_log() -> None:
    note = "/usr/include/c++/12/bits/stl_vector.h:1276:7: note: candidate: ‘void std::vector<_Tp>::push_back()’\n"
    assert compiler.parse(note) is None


def test_a_toolkit_header_a_later_release_added() -> None:
    # bytedance/lightseq#79 (corpus/holdout25): the location cut off, in the lower case
    facts = compiler.parse("fatal error: cub/cub.cuh: no such file or directory\n")
    assert facts is not None and facts.error_count == 1 and facts.first_error_file is None
    assert (facts.missing_header, facts.missing_header_added_in, facts.missing_header_component) == (
        "cub/cub.cuh",
        "11.0",
        "CUB",
    )
    # ingowald/cudaKDTree#11, and a project's own header (thomasbrandon/mish-cuda#9)
    kdtree = compiler.parse("spatial-kdtree.h:20:10: fatal error: cub/cub.cuh: No such file or directory\n")
    assert kdtree is not None and kdtree.missing_header_added_in == "11.0"
    own = compiler.parse("fatal error: CUDAApplyUtils.cuh: No such file or directory\n")
    assert own is not None and own.missing_header == "CUDAApplyUtils.cuh" and own.missing_header_added_in is None


def test_a_runtime_header_every_toolkit_ships() -> None:
    # erikwijmans/Pointnet2_PyTorch#181: gcc's location for a header that -include names
    facts = compiler.parse("<command-line>: fatal error: cuda_runtime.h: No such file or directory\n")
    assert facts is not None and facts.missing_header == "cuda_runtime.h"
    assert facts.missing_header_component == "the CUDA runtime's header" and facts.missing_header_added_in is None
    assert not facts.missing_header_toolkit_too_old


HOLDOUT26 = Path(__file__).resolve().parents[2] / "corpus" / "holdout26" / "issues.yaml"


def _h26(case_id: str) -> str:
    cases = yaml.safe_load(HOLDOUT26.read_text())
    cases = cases["cases"] if isinstance(cases, dict) else cases
    return next(c["log"] for c in cases if c["id"] == case_id)


def test_a_math_library_header_a_later_release_added() -> None:
    # eth-cscs/COSMA#24: g++ builds a .cpp that includes cuBLASLt's header against CUDA 9
    facts = compiler.parse(_h26("h26a-cosma-cublaslt-cuda9"))
    assert facts is not None and facts.missing_header == "cublasLt.h"
    assert (facts.missing_header_added_in, facts.missing_header_component) == ("10.1", "cuBLASLt")


def test_legacy_shuffle_below_its_floor_needs_sm30() -> None:
    # cbuchner1/ccminer#15: the failing pass is compute_20, and __shfl is declared from sm_30 on
    facts = compiler.parse(_h26("h26a-ccminer-shfl-built-for-sm20"))
    assert facts is not None
    assert (facts.needs_arch, facts.gated_symbol, facts.build_arch, facts.removed_from_arch) == (
        "sm_30",
        "__shfl",
        "sm_20",
        None,
    )


def test_legacy_shuffle_without_a_build_arch_is_arch_dependent() -> None:
    # the same error line with no command line or pass: the name is arch-dependent (sm_30 up to sm_70), not a typo
    facts = compiler.parse('groestl_functions_quad.cu(258): error: identifier "__shfl" is undefined\n')
    assert facts is not None and facts.needs_arch is None and facts.removed_from_arch == "sm_70"


def test_an_error_in_a_vendored_library() -> None:
    # NVIDIA/nccl#87: make's compile line puts the relative src/core.cu under caffe2's third_party/nccl
    facts = compiler.parse(_h26("h26a-nccl-core-identifier-so-gcc"))
    assert facts is not None and facts.vendored_library == "nccl"
    own = compiler.parse(load("nvcc-undefined-identifier"))
    assert own is not None and own.vendored_library is None


def test_source_a_compiler_quotes_is_not_a_message() -> None:
    # the TORCH_CHECK text nvcc quotes under its error ("A must be a CUDA tensor") is code, not a run's report
    from diagnose.catalogue import default_catalogue

    hits = [h.family.id for h in default_catalogue().scan(load("nvcc-torch-check-member-not-called"))]
    assert "torch-extension-requires-cuda-tensor" not in hits, hits


@pytest.mark.parametrize(
    ("log", "first"),
    [
        # EDG wraps a long message before its last quoted name: indented as nvcc prints it, or not once pasted
        # (corpus/holdout21 h21a-strumpack-thrust-missing-include-cuda121, a Thrust algorithm without its header)
        (
            'NDBFS.cu(797): error: namespace "thrust" has no member\n"stable_sort_by_key"\n',
            'namespace "thrust" has no member "stable_sort_by_key"',
        ),
        ('k.cu(3): error: class "Foo" has no member\n          "bar"\n', 'class "Foo" has no member "bar"'),
        # the source line and caret newer toolkits print after the message are not part of it
        (
            'k.cu(3): error: identifier "factor" is undefined\n      return x * factor;\n  ^\n',
            'identifier "factor" is undefined',
        ),
    ],
)
def test_an_edg_message_wrapped_before_its_quoted_name_is_joined(log: str, first: str) -> None:
    facts = compiler.parse(log)
    assert facts is not None
    assert facts.first_error == first
