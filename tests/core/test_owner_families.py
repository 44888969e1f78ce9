"""Families whose owner a message alone used to settle too confidently (corpus/holdout11's wrong answers).

Each family is tested on the development case it came from (the case id and its public source are named)
and on another wording of the same family, from a tool's own source or a real run here:

- CUDA built-ins declared only from some architecture on (diagnose/data/cuda_arch_gates.json, made by
  scripts/gen-cuda-arch-gates from the installed toolkit's headers);
- undefined names of a library's API, of a CUDA API the toolkit removed or of a CUDA data type a later toolkit
  added (diagnose/collectors/compile_api.py);
- launches refused in compiler-generated kernels;
- NVML's FUNCTION_NOT_FOUND beside a harmless NOT_SUPPORTED;
- allocations with 2^31 or more elements of the accessed size;
- a refused launch printed before a sanitizer's access report;
- peer access that a GPU, a platform or the code's own check can refuse;
- a library kernel's input check with no caller in the log.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
from pathlib import Path

import pytest
from corpus_logs import classify_text, corpus_log, decided, finding_of, regenerated_table

from diagnose.collectors import collect
from diagnose.collectors.compile_api import ADDED_CUDA_TYPES, CCCL_REPLACEMENTS, REMOVED_CUDA_API, undefined_api
from diagnose.collectors.compile_cause import arch_gate

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "compiler"
GATES = ROOT / "diagnose" / "data" / "cuda_arch_gates.json"
CUDA_INCLUDE = Path("/usr/local/cuda/include")


def _answer(text: str) -> tuple[str | None, float, list[tuple[str, str]]]:
    """(category, confidence, [(category, rule) of every finding]) of kdiag's answer."""
    report = classify_text(text)
    d = report.diagnosis
    assert d is not None
    return report.category, d.confidence, [(f.category, f.rule) for f in d.findings]


# --- CUDA built-ins that exist from some architecture on --------------------------------------------------


def test_atomic_scope_variants_need_sm_60() -> None:
    # holdout11 gamer-atomicexch-block-kepler-undefined (gamer-project/gamer#99)
    log = corpus_log("holdout11", "gamer-atomicexch-block-kepler-undefined")
    # the log does not show the build's arch, so the arch and a toolkit older than the intrinsic stay candidates; the
    # arch's answers only once its measured record lifts it past the threshold (diagnose.calibration)
    assert decided(log)[0] in ("unknown", "runtime-assumption")
    assert finding_of(log, "nvcc-arch-gated-intrinsic-as-runtime-assumption").category == "runtime-assumption"
    # the other scoped atomics of sm_60_atomic_functions.h (CUDA 13.0.88) are the same family
    assert arch_gate('identifier "atomicCAS_system" is undefined', []) == ("sm_60", "atomicCAS_system")
    assert arch_gate('identifier "atomicExch" is undefined', []) is None  # declared for every arch


def test_the_answer_names_the_build_arch_when_the_log_prints_it() -> None:
    # gamer-project/gamer#99's error line after an nvcc command line of the nvcc documentation's -gencode form
    text = (
        "nvcc -gencode arch=compute_35,code=sm_35 -gencode arch=compute_70,code=sm_70 -c a.cu\n"
        'a.cu(185): error: identifier "atomicExch_block" is undefined\n'
    )
    compiler = collect(text).compiler
    assert compiler is not None and (compiler.needs_arch, compiler.build_arch) == ("sm_60", "sm_35")
    best = classify_text(text).diagnosis
    assert best is not None and "targets sm_35" in best.findings[0].what


def test_gates_come_from_the_headers_for_other_arches() -> None:
    # crt/sm_90_rt.h and sm_32_atomic_functions.h (CUDA 13.0.88): cluster intrinsics, 64-bit atomicMax
    assert arch_gate('identifier "__cluster_barrier_wait" is undefined', []) == ("sm_90", "__cluster_barrier_wait")
    after = ["            argument types are: (long long *, long long)"]
    gate = arch_gate('no instance of overloaded function "atomicMax" matches the argument list', after)
    assert gate == ("sm_32", "atomicMax(long long *, long long)")
    after_int = ["            argument types are: (int *, int)"]
    assert arch_gate('no instance of overloaded function "atomicMax" matches the argument list', after_int) is None


def test_gate_data_names_its_toolkit_and_lists_no_removed_builtin() -> None:
    data = json.loads(GATES.read_text())
    assert data["header"]["generated_by"] == "scripts/gen-cuda-arch-gates" and data["header"]["nvcc_version"]
    assert data["identifiers"]["atomicExch_block"]["header"] == "sm_60_atomic_functions.h"
    # __shfl (no _sync) is declared only below sm_70: never "needs sm_30 or newer"
    assert "__shfl" not in data["identifiers"] and data["declared_below"]["__shfl"] == "sm_70"


@pytest.mark.toolkit
def test_gate_data_is_what_the_script_reads_from_the_installed_headers(tmp_path: Path) -> None:
    shipped, fresh = regenerated_table("gen-cuda-arch-gates", "cuda_arch_gates.json", tmp_path)
    assert fresh["header"]["nvcc_version"] == shipped["header"]["nvcc_version"], (
        "regenerate: scripts/gen-cuda-arch-gates"
    )
    for key in ("identifiers", "overloads", "declared_below"):
        assert fresh[key] == shipped[key]


# --- a library's API, or one the toolkit removed ---------------------------------------------------------


#: the family's candidates (a library API the source names and the compiler does not declare) are written to abstain
#: between the two owners; the version skew's candidate answers where its calibrated record (the labelled reports'
#: cases it led, all version skews so far) lifts it over the answer threshold, the code's candidate still listed
UNDEFINED_API = ("unknown", "environment")


def test_undefined_library_api_leads_with_the_skew_and_keeps_the_code() -> None:
    # holdout11 nvbitfi-injector-nvbit-api-renamed (NVlabs/nvbitfi#14)
    category, _, findings = _answer(corpus_log("holdout11", "nvbitfi-injector-nvbit-api-renamed"))
    assert category in UNDEFINED_API
    assert findings[0][0] == "environment"
    assert {c for c, _ in findings} == {"environment", "kernel-logic"}


def test_undefined_library_member_from_a_real_nvcc_run() -> None:
    # a real nvcc 13.0.88 run (tests/fixtures/compiler/nvcc-cub-member-missing.source.yaml)
    log = (FIXTURES / "nvcc-cub-member-missing.log").read_text()
    compiler = collect(log).compiler
    assert compiler is not None and compiler.undefined_api == "cub::DeviceTopKMaxPairs" and compiler.api_owner == "CUB"
    category, _, findings = _answer(log)
    assert category in UNDEFINED_API and findings[0] == ("environment", "nvcc-undefined-library-api-as-environment")


def test_removed_cuda_api_is_version_skew() -> None:
    # a real nvcc 13.0.88 run (tests/fixtures/compiler/nvcc-removed-cuda-api.source.yaml)
    log = (FIXTURES / "nvcc-removed-cuda-api.log").read_text()
    assert decided(log) == ("environment", "version-skew", "nvcc-removed-cuda-api")
    assert undefined_api('identifier "cudaThreadSetLimit" is undefined') == (
        "cudaThreadSetLimit",
        "CUDA runtime",
        "CUDA 12.0",
    )


def test_a_plain_undefined_name_stays_the_codes_error() -> None:
    log = (FIXTURES / "nvcc-undefined-identifier.log").read_text()
    assert decided(log) == ("kernel-logic", "compile-source-error", "nvcc-source-error")


def test_a_data_type_of_library_types_h_undeclared_is_an_older_toolkit() -> None:
    # holdout21 h21a-apex-cuda-r-16bf-undefined-cuda102 (NVIDIA/apex#1310): library_types.h is in every .cu
    log = corpus_log("holdout21", "h21a-apex-cuda-r-16bf-undefined-cuda102")
    assert decided(log) == ("environment", "toolkit-too-old", "nvcc-cuda-type-newer-than-toolkit")


def test_a_data_type_of_its_own_header_needs_the_release_to_decide() -> None:
    # a real nvcc 13.0.88 run (tests/fixtures/compiler/nvcc-bf16-header-not-included.source.yaml)
    log = (FIXTURES / "nvcc-bf16-header-not-included.log").read_text()
    compiler = collect(log).compiler
    assert compiler is not None and compiler.api_added_in == "11.0" and compiler.api_toolkit_side == "inside"
    assert decided(log) == ("kernel-logic", "compile-source-error", "nvcc-cuda-type-header-not-included")
    # without the `nvcc --version` lines the release is unknown: both readings, no answer
    without = "\n".join(line for line in log.splitlines() if not line.startswith(("Cuda compilation", "Build cuda")))
    category, _, findings = _answer(without)
    assert category == "unknown"
    assert {c for c, _ in findings} >= {"environment", "kernel-logic"}


def test_pytorch_thc_api_is_a_library_api() -> None:
    # a real nvcc 13.0.88 run (tests/fixtures/compiler/nvcc-thc-api-undefined.source.yaml)
    log = (FIXTURES / "nvcc-thc-api-undefined.log").read_text()
    compiler = collect(log).compiler
    assert compiler is not None and compiler.api_owner == "PyTorch TH/THC"
    assert _answer(log)[0] in UNDEFINED_API
    # holdout21 h21a-pytorch-stale-build-undefined-thnn (pytorch/pytorch#2281): THNN names inside PyTorch's tree
    category, _, findings = _answer(corpus_log("holdout21", "h21a-pytorch-stale-build-undefined-thnn"))
    assert category in UNDEFINED_API and findings[0][0] == "environment"


def test_a_removed_pytorch_macro_is_the_installs_version_skew() -> None:
    # a real nvcc 13.0.88 run against PyTorch 2.13's headers (tests/fixtures/compiler/nvcc-torch-at-check-removed.source.yaml)
    log = (FIXTURES / "nvcc-torch-at-check-removed.log").read_text()
    compiler = collect(log).compiler
    assert compiler is not None and compiler.api_removed_in == "PyTorch 1.5"
    assert decided(log) == ("environment", "version-skew", "nvcc-removed-torch-api")
    # holdout23 h23a-rotated-maskrcnn-at-check-undefined (mrlooi/rotated_maskrcnn#31): nvcc 10.2, PyTorch 1.6
    case = corpus_log("holdout23", "h23a-rotated-maskrcnn-at-check-undefined")
    assert decided(case) == ("environment", "version-skew", "nvcc-removed-torch-api")
    # a removed CUDA runtime name stays the CUDA rule's
    assert undefined_api('identifier "cudaThreadSynchronize" is undefined') == (
        "cudaThreadSynchronize",
        "CUDA runtime",
        "CUDA 12.0",
    )


def test_installed_pytorch_has_no_at_check() -> None:
    spec = importlib.util.find_spec("torch")  # its headers only: torch is not imported
    header = Path(spec.origin).parent / "include" / "c10" / "util" / "Exception.h" if spec and spec.origin else None
    assert header is not None and header.is_file(), "torch (a kdiag dependency) ships its C++ headers"
    text = header.read_text(errors="replace")
    assert not re.search(r"#\s*define\s+AT_CHECK\b", text)
    assert re.search(r"#\s*define\s+TORCH_CHECK\b", text)


def test_a_refused_launch_inside_a_library_launcher_abstains() -> None:
    # ArrayFire's exception and Thrust's parallel_for name their own launchers: the library's grid or the
    # caller's input, both candidates (holdout23: arrayfire/arrayfire#1702, PaddlePaddle/Paddle#37355)
    for case, library in (
        ("h23a-arrayfire-reduce-dim1-grid-limit", "ArrayFire"),
        ("h23a-paddle-reduce-grid-not-clamped", "CUB/Thrust"),
    ):
        log = corpus_log("holdout23", case)
        location = collect(log).location
        assert location is not None and location.kind == "library" and location.library == library, case
        category, _, findings = _answer(log)
        assert category == "unknown", case
        assert {c for c, _ in findings} >= {"kernel-logic", "runtime-assumption"}, case


@pytest.mark.toolkit
def test_added_types_are_declared_by_the_installed_toolkit_where_the_table_says() -> None:
    for name, (_, header) in ADDED_CUDA_TYPES.items():
        text = (CUDA_INCLUDE / header).read_text(errors="replace")
        assert re.search(rf"\b{name}\b", text), (name, header)


@pytest.mark.toolkit
def test_removed_names_are_not_declared_by_the_installed_toolkit() -> None:
    text = ""
    for header in [*CUDA_INCLUDE.glob("*.h"), *CUDA_INCLUDE.glob("*.hpp"), *(CUDA_INCLUDE / "crt").glob("*.h*")]:
        text += re.sub(r"/\*.*?\*/|//[^\n]*", "", header.read_text(errors="replace"), flags=re.S)
    declared = [n for n in REMOVED_CUDA_API if re.search(rf"\b{n}\s*[(<]", text)]
    assert declared == []
    assert re.search(r"\bcudaDeviceSynchronize\s*\(", text)  # the check itself finds declared names


def test_removed_cccl_api_is_version_skew() -> None:
    # a real nvcc 13.0.88 run (tests/fixtures/compiler/nvcc-removed-cccl-api.source.yaml): cub::Max, which CCCL 3.0
    # removed; the fix names the migration guide's replacement
    log = (FIXTURES / "nvcc-removed-cccl-api.log").read_text()
    assert decided(log) == ("environment", "version-skew", "nvcc-removed-cccl-api")
    assert "cuda::maximum" in finding_of(log, "nvcc-removed-cccl-api").fix
    # in a library the build fetches (AMReX-Codes/amrex#4647): the library's release against this toolkit
    log = corpus_log("holdout32", "h32b-amrex-cuda13-cub-min-removed")
    assert decided(log) == ("environment", "version-skew", "nvcc-removed-cccl-api")
    # a CUB name not on the removed list stays with the undefined-library-API candidates
    assert undefined_api('namespace "cub" has no member "DeviceTopKMaxPairs"') == (
        "cub::DeviceTopKMaxPairs",
        "CUB",
        None,
    )
    assert undefined_api('namespace "thrust" has no member "unary_function"') == (
        "thrust::unary_function",
        "Thrust",
        "CUDA 13.0 (CCCL 3.0)",
    )


@pytest.mark.toolkit
@pytest.mark.slow
def test_removed_cccl_names_are_not_declared_by_the_installed_toolkit(tmp_path: Path) -> None:
    # nvcc's front end (--cuda) on one use of each name: every one is "has no member" in CUDA 13.0's CCCL
    src = ["#include <cub/cub.cuh>", "#include <thrust/functional.h>", "#include <thrust/device_vector.h>"]
    src += [f"void f{i}() {{ (void)sizeof({name}); }}" for i, name in enumerate(CCCL_REPLACEMENTS)]
    (tmp_path / "removed.cu").write_text("\n".join(src) + "\n")
    cmd = ["nvcc", "-arch=sm_90", "--cuda", "removed.cu", "-o", "/dev/null"]
    out = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True)
    missing = {
        f"{ns}::{n}" for ns, n in re.findall(r'namespace "(\w+)" has no member "(\w+)"', out.stdout + out.stderr)
    }
    assert missing == set(CCCL_REPLACEMENTS)


# --- compiler-generated kernels ----------------------------------------------------------------------------


def test_xla_generated_gemm_launch_is_the_compilers() -> None:
    # holdout11 xla-triton-gemm-grid-z-over-limit (openxla/xla#3524)
    log = corpus_log("holdout11", "xla-triton-gemm-grid-z-over-limit")
    assert decided(log) == ("environment", "compiler-bug", "cuda-launch-refused-in-generated-kernel")


def test_inductor_generated_kernel_launch_is_the_compilers() -> None:
    # TorchInductor's generated-kernel names (triton_poi_fused_*, torch/_inductor/codegen) with the Triton
    # launcher's error prefix "Triton Error [CUDA]: " (triton 3.x, backends/nvidia/driver.c)
    text = (
        "    triton_poi_fused_add_0.run(buf0, arg0_1, 4294967296, grid=grid(4294967296), stream=stream0)\n"
        "RuntimeError: Triton Error [CUDA]: invalid argument\n"
    )
    assert decided(text)[0] == "environment"


def test_a_hand_written_launch_keeps_its_answer() -> None:
    # triton-lang/triton#580 (triton 1.x launcher), the launch-limit rule's own example
    assert decided("RuntimeError: CUDA: Error- invalid value\n")[2] == "cuda-invalid-value-at-launch"


# --- NVML: the code the failure is about decides ------------------------------------------------------------


def test_function_not_found_decides_over_a_harmless_not_supported() -> None:
    # holdout11 gpustat-old-driver-compute-processes-not-found (wookayin/gpustat#138)
    log = corpus_log("holdout11", "gpustat-old-driver-compute-processes-not-found")
    assert decided(log) == ("environment", "driver-too-old", "nvml-function-not-found")


def test_function_not_found_decides_in_pynvmls_exception_form() -> None:
    # nvidia-ml-py 13.615.71 pynvml.py: NVMLError_NotSupported / NVMLError_FunctionNotFound, their nvmlErrorString
    text = (
        "pynvml.NVMLError_NotSupported: Not Supported\n"
        "Traceback (most recent call last):\n"
        '  File "monitor.py", line 12, in <module>\n'
        "    procs = pynvml.nvmlDeviceGetComputeRunningProcesses(h)\n"
        "pynvml.NVMLError_FunctionNotFound: Function Not Found\n"
    )
    assert decided(text)[:2] == ("environment", "driver-too-old")


def test_not_supported_alone_keeps_its_answer() -> None:
    text = "pynvml.NVMLError_NotSupported: Not Supported\n"
    assert decided(text)[2] == "nvml-query-not-supported-raised"


# --- sizes past the int32 range, read from the allocation ------------------------------------------------------


def test_allocation_of_2_31_bytes_elements_is_int32_overflow() -> None:
    # holdout11 tf-populationcount-2e31-elements-oob-write (tensorflow/tensorflow#104077)
    log = corpus_log("holdout11", "tf-populationcount-2e31-elements-oob-write")
    assert collect(log).sanitizer.allocation_high_bit_bytes is None  # type: ignore[union-attr]
    assert decided(log) == (
        "runtime-assumption",
        "int32-index-overflow",
        "sanitizer-oob-allocation-past-int32-elements",
    )


def test_element_count_uses_the_access_size() -> None:
    # compute-sanitizer's memcheck record shape (its documentation, nvidia-cuda-sanitizer-api 13.5.25)
    record = (
        "========= Invalid __global__ read of size {size} bytes\n"
        "=========     at 0x70 in scale(float *, int)\n"
        "=========     by thread (255,0,0) in block (8,0,0)\n"
        "=========     Address 0x7f2a40000000 is out of bounds\n"
        "=========     and is 0 bytes after the nearest allocation at 0x7f2840000000 of size 8589934592 bytes\n"
    )
    assert decided(record.format(size=4))[2] == "sanitizer-oob-allocation-past-int32-elements"  # 2^31 floats
    assert decided(record.format(size=8))[2] != "sanitizer-oob-allocation-past-int32-elements"  # 2^30 doubles


def test_one_high_bit_past_a_small_allocation_still_reads_as_another_region() -> None:
    # holdout10 ggml-nccl-allreduce-oob-write-vmm-pool-peer-access (ggml-org/llama.cpp#24489): 2 MiB + 2^35
    log = corpus_log("holdout10", "ggml-nccl-allreduce-oob-write-vmm-pool-peer-access")
    assert collect(log).sanitizer.allocation_high_bit_bytes == 2**35  # type: ignore[union-attr]


# --- a refused launch printed before the access report ----------------------------------------------------------


def test_refused_launch_before_an_oob_read_decides() -> None:
    # holdout11 hecbench-lud-non-multiple-size-invalid-config-oob (ORNL/HeCBench#122)
    log = corpus_log("holdout11", "hecbench-lud-non-multiple-size-invalid-config-oob")
    category, _confidence, findings = _answer(log)
    # the refused launch decides, at its own rule's measured precision; the access report ranks below it
    assert category == "runtime-assumption" and findings[0] == ("runtime-assumption", "cuda-invalid-configuration")
    assert ("kernel-logic", "sanitizer-oob-just-past-end") in findings[1:]


OOB_AFTER = (
    "========= Invalid __global__ write of size 4 bytes\n"
    "=========     at reduce(float *, int)+0x1d0\n"
    "=========     by thread (3,0,0) in block (0,0,0)\n"
    "=========     Address 0x7f5a7da02104 is out of bounds\n"
    "=========     and is 4 bytes after the nearest allocation at 0x7f5a7da02000 of size 256 bytes\n"
)
# cuda-samples' checkCudaErrors (Common/helper_cuda.h: "CUDA error at %s:%d code=%d(%s) \"%s\" ") for the
# launch the runtime refused, printed by the program before the sanitizer's report of a later kernel
REFUSED = 'CUDA error at lud.cu:120 code=9(cudaErrorInvalidConfiguration) "cudaGetLastError()"\n'


def test_refused_launch_chain_holds_for_a_programs_own_error_check() -> None:
    assert decided(REFUSED + OOB_AFTER)[0] == "runtime-assumption"


def test_an_access_report_before_the_refused_launch_keeps_its_answer() -> None:
    assert decided(OOB_AFTER + REFUSED)[0] == "kernel-logic"


def test_a_refused_launch_alone_with_its_api_record_is_unchanged() -> None:
    # holdout6 paddle-deformable-psroi-pooling-launch-out-of-resources (the chain needs an access report)
    log = corpus_log("holdout6", "paddle-deformable-psroi-pooling-launch-out-of-resources")
    assert decided(log)[0] == "kernel-logic"


# --- peer access ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("case", "text"),
    [
        # holdout11 (sgl-project/sglang#4814, ggml-org/llama.cpp#3230)
        ("sglang-custom-allreduce-4090-no-peer-access", None),
        ("llama-cpp-peer-access-check-ignored", None),
        # the driver API's name of the same status (include/cuda.h, CUDA 13.0.88, code 217)
        (None, "RuntimeError: CUDA_ERROR_PEER_ACCESS_UNSUPPORTED\n"),
    ],
)
def test_peer_access_unsupported_names_its_candidates(case: str | None, text: str | None) -> None:
    log = text if case is None else corpus_log("holdout11", case)
    report = classify_text(log)
    assert report.category == "unknown" and report.diagnosis is not None
    cats = {f.category for f in report.diagnosis.findings}
    assert {"runtime-assumption", "environment", "kernel-logic"} <= cats
    assert "nvidia-smi topo -p2p r" in (report.diagnosis.findings[0].caveats or "")


def test_too_many_peers_is_still_decided() -> None:
    # cudaGetErrorString(711) of libcudart.so.13 (CUDA 13.0.88)
    assert decided("RuntimeError: CUDA error: peer mapping resources exhausted\n")[0] == "environment"


# --- a library's input check with no caller in the log ------------------------------------------------------------


@pytest.mark.parametrize(
    ("where", "case"),
    [
        # ScatterGatherKernel.cu: sampled token ids the program computed (vllm-project/vllm#23023, kernel-logic)
        ("holdout11", "vllm-nightly-flashinfer-sampler-gather-index-assert"),
        # IndexKernel.cu: a rotary cache indexed past its length (baichuan-inc/Baichuan-7B#53, kernel-logic)
        ("holdout7", "baichuan-rope-cache-index-device-assert"),
        # IndexKernel.cu: class ids past the number of classes (zylo117/Yet-Another-EfficientDet-Pytorch, the data's)
        ("holdout5", "efficientdet-class-index-out-of-bounds"),
    ],
)
def test_atens_generic_index_check_abstains_between_the_code_and_the_data(where: str, case: str) -> None:
    # ATen's "index out of bounds" (advanced indexing, gather, scatter) says an index was out of range, not
    # whether the program computed it or the data carried it: both owners are candidates
    report = classify_text(corpus_log(where, case))
    assert report.category == "unknown" and report.diagnosis is not None
    assert report.diagnosis.rule == "cuda-device-assert-aten-index-out-of-bounds"
    assert {"runtime-assumption", "kernel-logic"} <= {f.category for f in report.diagnosis.findings}
    assert "CUDA_LAUNCH_BLOCKING=1" in (report.diagnosis.findings[0].caveats or "")


def test_aten_input_check_with_a_python_frame_is_not_capped() -> None:
    # ATen's Indexing.cu assertion text (the library input-check rule's example, EleutherAI/lm-evaluation-harness#2293)
    # under the traceback torch prints for it
    text = (
        "/opt/conda/conda-bld/pytorch/work/aten/src/ATen/native/cuda/Indexing.cu:1231: indexSelectSmallIndex: "
        "block: [31,0,0], thread: [29,0,0] Assertion `srcIndex < srcSelectDimSize` failed.\n"
        "Traceback (most recent call last):\n"
        '  File "train.py", line 40, in <module>\n'
        "    out = model.embed(tokens)\n"
        "RuntimeError: CUDA error: device-side assert triggered\n"
    )
    from diagnose.confidence import caller_unseen

    report = classify_text(text)
    assert report.diagnosis is not None and report.diagnosis.rule == "cuda-device-assert-library-input-check"
    assert caller_unseen(collect(text).context()) is None  # the frame shows the caller: no ceiling
    assert caller_unseen(collect(text.split("Traceback")[0]).context())  # the assertion alone: the ceiling applies


# --- a cuBLAS status printed by a helper_cuda.h-style check macro ------------------------------------------


def test_cublas_status_number_in_a_check_macros_layout() -> None:
    # holdout21 h21a-flashrt-fp8-nn-layout-sm89: `cuBLAS error at FILE:LINE code=15`, the layout of the CUDA
    # samples' helper_cuda.h check (`CUDA error at %s:%d code=%d(%s)`); 15 is CUBLAS_STATUS_NOT_SUPPORTED
    log = corpus_log("holdout21", "h21a-flashrt-fp8-nn-layout-sm89")
    assert decided(log) == ("runtime-assumption", "library-unsupported-config", "cublas-not-supported")
    # another status number is another family, and a longer number is none of them
    assert _answer("RuntimeError: cuBLAS error at /src/gemm.cu:125 code=8")[2][0][1].startswith("cublas-arch-mismatch")
    assert "cublas-not-supported" not in {r for _, r in _answer("cuBLAS error at /src/gemm.cu:125 code=150")[2]}


def test_cublas_status_in_a_call_xla_made_is_the_compilers() -> None:
    # openxla/xla#6370: XLA's stream executor ran a cuBLASLt FP8 GEMM its rewriter set up, and cuBLAS refused it;
    # a regression of XLA's rewrite (bisected and reverted), not the program's request
    log = corpus_log("holdout32", "h32b-xla-fp8-cublaslt-regression")
    assert decided(log) == ("environment", "compiler-regression", "concept-library-status-in-xla-generated-call")
    # PyTorch's own call, the program's bf16 GEMM (kijai/ComfyUI-WanVideoWrapper#656), stays cublas-not-supported
    log = (
        "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasGemmStridedBatchedEx(handle, opa, "
        "opb, (int)m, (int)n, (int)k, (void*)&falpha, a, CUDA_R_16BF, (int)lda, stridea, b, CUDA_R_16BF, (int)ldb, "
        "strideb, (void*)&fbeta, c, CUDA_R_16BF, (int)ldc, stridec, (int)num_batches, compute_type, "
        "CUBLAS_GEMM_DEFAULT_TENSOR_OP)`"
    )
    assert decided(log) == ("runtime-assumption", "library-unsupported-config", "cublas-not-supported")


# --- an #include not found inside an installed library's header -------------------------------------------


def test_a_header_missing_from_a_librarys_own_header_is_the_installation() -> None:
    # holdout21 h21a-torch-extension-missing-nlohmann-header (pytorch/pytorch#130678): the wheel's NCCLUtils.hpp
    # includes nlohmann/json.hpp, which the wheel does not ship (behind docker build's `#40 42.58` prefix)
    log = corpus_log("holdout21", "h21a-torch-extension-missing-nlohmann-header")
    assert decided(log) == ("environment", "library-header-missing", "compiler-header-missing-in-library-header")
    compiler = collect(log).compiler
    assert compiler is not None and compiler.first_error_file is not None
    assert compiler.first_error_file.startswith("/opt/pytorch/")
    # a real nvcc run: PyTorch's ATen/cuda header wants cuSPARSE's header, which this toolkit lacks
    # (tests/fixtures/compiler/nvcc-torch-header-needs-cusparse.source.yaml)
    log = (FIXTURES / "nvcc-torch-header-needs-cusparse.log").read_text()
    assert decided(log) == ("environment", "library-header-missing", "compiler-header-missing-in-library-header")


def test_a_header_missing_from_the_projects_own_source_is_not_a_librarys() -> None:
    # g++ on the same ext.cpp with no PyTorch include directory: the project's own #include is not found
    log = (
        "ext.cpp:1:10: fatal error: ATen/cuda/CUDAContext.h: No such file or directory\n"
        "    1 | #include <ATen/cuda/CUDAContext.h>\n"
        "compilation terminated.\n"
    )
    compiler = collect(log).compiler
    assert compiler is not None and compiler.missing_header == "ATen/cuda/CUDAContext.h"
    assert compiler.missing_header_library is None
    assert "compiler-header-missing-in-library-header" not in {r for _, r in _answer(log)[2]}


def test_nvfuser_shared_memory_over_the_device_limit() -> None:
    # holdout23 h23a-nvfuser-test-smem-over-titan-limit (csarofeen/pytorch#1802): a 64 KiB GPU
    log = corpus_log("holdout23", "h23a-nvfuser-test-smem-over-titan-limit")
    assert decided(log) == ("runtime-assumption", "smem-exceeds-device-limit", "nvfuser-smem-over-device-limit")


def test_int32_max_by_its_stdint_name_hints_an_index_overflow() -> None:
    # holdout23 h23a-flexattn-bwd-kv-offset-int32 (pytorch/pytorch#190857): the offset printed against INT32_MAX
    log = corpus_log("holdout23", "h23a-flexattn-bwd-kv-offset-int32")
    assert decided(log) == ("runtime-assumption", "int32-index-overflow", "cuda-illegal-address-int32-hint")
