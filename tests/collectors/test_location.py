"""Where the failing code lives, read from real logs (each fixture names its public source)."""

from __future__ import annotations

from pathlib import Path

import yaml

from diagnose.collectors import location

ROOT = Path(__file__).resolve().parent.parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


def _fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def _corpus_log(suite: str, case_id: str) -> str:
    for item in yaml.safe_load((ROOT / "corpus" / suite).read_text(encoding="utf-8")):
        if isinstance(item, dict) and item.get("id") == case_id:
            return str(item["log"])
    raise AssertionError(f"no case {case_id} in {suite}")


def _rule_example(rule: str) -> str:
    data = yaml.safe_load((ROOT / "rules" / rule).read_text(encoding="utf-8"))
    return str(data["examples"]["match"][0]["log"])


def test_a_library_kernel_named_by_the_sanitizer() -> None:
    # onnxruntime#17798 (tests/fixtures/sanitizer/case-onnxruntime-resize-trilinear-oob-write.source.yaml)
    f = location.parse(_fixture("sanitizer/case-onnxruntime-resize-trilinear-oob-write.txt"))
    assert f is not None
    assert (f.kind, f.library) == ("library", "onnxruntime")
    assert f.offsets_only and f.source_line is None
    assert "_ResizeTrilinearCoordinateMapping" in (f.frame or "")


def test_the_users_kernel_with_only_offsets_is_not_given_the_launch_sites_line() -> None:
    # gkeyll: the device frames carry offsets only; the host frame's file:line is the launch site
    f = location.parse(_fixture("sanitizer/case-gkeyll-reduction-oob-read.txt"))
    assert f is not None
    assert f.kind == "user" and f.library is None
    assert f.offsets_only and f.source_line is None


def test_a_source_line_in_a_device_frame_is_kept() -> None:
    log = _corpus_log("captured/cases.yaml", "sanitizer-doc-62-divergent-threads")
    f = location.parse(log)
    assert f is not None and f.kind == "user"
    assert f.source_line == "test.cu:42" and not f.offsets_only


def test_generated_code_nvfuser() -> None:
    # NVIDIA/Fuser#2930: the kernel is nvFuser's generated __tmp_kernel_*.cu
    f = location.parse(_fixture("sanitizer/issue-fuser-2930-local-misaligned.txt"))
    assert f is not None and (f.kind, f.library) == ("generated", "nvFuser")


def test_cudf_and_cuvs_kernels_and_atens_device_assert() -> None:
    f = location.parse(_corpus_log("holdout3/issues.yaml", "cudf-fillna-null-mask-initcheck"))
    assert f is not None and (f.kind, f.library) == ("library", "cuDF")
    f = location.parse(_corpus_log("holdout3/issues.yaml", "cuvs-cagra-ivfpq-build-unprobed-index-oob-read"))
    assert f is not None and (f.kind, f.library) == ("library", "cuVS")
    f = location.parse(_corpus_log("holdout/issues.yaml", "garak-gpt2-long-prompt-index-assert"))
    assert f is not None and (f.kind, f.library) == ("library", "ATen (PyTorch)")


def test_nnablas_cuda_extension_is_a_library() -> None:
    # sony/nnabla-ext-cuda#321: its error check names its own source under nbla/cuda/
    f = location.parse(_corpus_log("holdout16/issues.yaml", "h16a-nnabla-transpose-grid-y-exceeds-limit"))
    assert f is not None and (f.kind, f.library) == ("library", "nnabla")
    # a project of the user's own that is not under nbla/cuda/ stays the user's
    f = location.parse("my_nbla_tools/kernels/transpose.cu:184 (cudaGetLastError()) failed")
    assert f is None or f.kind != "library"


def test_a_compiler_crash_is_the_toolchains() -> None:
    # ggml-org/llama.cpp#8714, the ptxas-crashed rule's own example
    f = location.parse(_rule_example("compiler/ptxas-crashed.yaml"))
    assert f is not None
    assert (f.kind, f.library, f.compiler_crash) == ("toolchain", "ptxas", True)


def test_an_nvvm_intrinsic_instruction_selection_failure_is_no_compiler_crash() -> None:
    # LLVM refusing an NVVM intrinsic for the target is the GPU below the code generator's minimum (Triton 2.2 on
    # a GTX 1080), not a crash another LLVM fixes; another LLVM ERROR still is the toolchain's
    f = location.parse(_corpus_log("holdout27/issues.yaml", "h27a-pyjuice-triton-gtx1080-below-min"))
    assert f is None or not f.compiler_crash
    f = location.parse(_corpus_log("holdout7/issues.yaml", "pallas-llvm-dialect-registered-twice"))
    assert f is not None and (f.kind, f.library, f.compiler_crash) == ("toolchain", "LLVM", True)


def test_python_frames_framework_frames_are_passed_over() -> None:
    # a Triton compile error: the innermost frames are triton's, the user's script is the code at fault
    f = location.parse(_corpus_log("captured/cases.yaml", "triton-compile-add-pointers"))
    assert f is not None and f.kind == "user"
    assert (f.user_frame or "").endswith("compile_add_pointers.py:12")
    # jax-triton's own Pallas lowering, entered from the user's kernel
    f = location.parse(_corpus_log("public/jax.yaml", "jax-triton-pallas-load-index-rank"))
    assert f is not None and (f.kind, f.library) == ("library", "jax-triton")


def test_an_error_check_site_is_not_the_failing_line() -> None:
    # llama.cpp's CUDA_CHECK names where the error was noticed (in ggml's CUDA backend), not the kernel that failed
    f = location.parse(_corpus_log("holdout3/issues.yaml", "llamacpp-h100-illegal-address-after-first-token"))
    assert f is not None and (f.kind, f.library) == ("library", "ggml") and f.source_line is None


def test_nothing_to_say_and_odd_input() -> None:
    assert location.parse("") is None
    assert location.parse("epoch 3: loss 0.12") is None
    location.parse("\x00\xff" * 1000 + 'File "')  # binary junk: says less, never raises
    odd = location.parse("=========     at +0x0\n" * 3 + "Host Frame: [0x1]")
    assert odd is None or odd.kind in ("user", "library", "generated", "toolchain")


def test_raft_in_a_native_frame_and_a_fetched_source_tree() -> None:
    # holdout29 h29a-cuml-dbscan-eps-nbhd-grid-y: RAFT's header under CMake's _deps/raft-src, its function
    # Itanium-mangled in a libcuml++.so frame
    f = location.parse(_corpus_log("holdout29/issues.yaml", "h29a-cuml-dbscan-eps-nbhd-grid-y"))
    assert f is not None and (f.kind, f.library) == ("library", "RAFT")


def test_an_unnamed_kernel_a_closed_library_launched_is_the_librarys() -> None:
    # cupy/cupy#4628 (corpus/holdout35): cuSOLVER's larf_minus_tau, launched from cusolverDnZgesvd
    cases = yaml.safe_load((ROOT / "corpus" / "holdout35" / "issues.yaml").read_text(encoding="utf-8"))
    log = next(c["log"] for c in cases if c["id"] == "h35b-cupy-batched-svd-cusolver100-oob")
    f = location.parse(log)
    assert f is not None and f.kind == "library" and f.library == "cuSOLVER"
