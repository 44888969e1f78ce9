"""A fix speaks the framework the log shows: Numba's launch and line-table advice for a Numba kernel, CUDA
C++'s for a CUDA C++ one, and an extension op's own dispatch for "not implemented for 'Half'" in a .cu file.

Cases from corpus/holdout12 (public reports, the thread named in each case's ``source``) and, for the other
side of each, a log from a tool's own output format."""

from __future__ import annotations

from corpus_logs import classify_text, corpus_log


def _fix(text: str) -> str:
    fix = classify_text(text).to_dict()["fix"]
    assert fix
    return str(fix)


def test_a_numba_kernels_memcheck_report_gets_numbas_line_table() -> None:
    # numba/numba: a cudapy:: kernel under compute-sanitizer, offsets only
    fix = _fix(corpus_log("holdout12", "numba-kernel-off-by-one-column-oob-write"))
    assert "lineinfo=True" in fix
    assert "nvcc" not in fix and "tl.store" not in fix


def test_a_cuda_c_kernels_memcheck_report_keeps_nvcc() -> None:
    # compute-sanitizer's memcheck record of a CUDA C++ kernel (the rule's own example, microsoft/onnxruntime#27419)
    log = (
        "========= Invalid __global__ write of size 4 bytes\n"
        "=========     at void onnxruntime::cuda::_ResizeTrilinearCoordinateMapping<float>(long long, float, "
        "onnxruntime::cuda::LinearMappingInfo *)+0x400\n"
        "=========     by thread (17,0,0) in block (2,0,0)\n"
        "=========     Address 0xb28fff7cc is out of bounds\n"
    )
    fix = _fix(log)
    assert "lineinfo=True" not in fix


def test_a_numba_launch_refused_gets_numbas_launch_syntax() -> None:
    # numba/numba: cuLaunchKernel refused the launch configuration
    fix = _fix(corpus_log("holdout12", "numba-launch-config-exceeds-device-invalid-value"))
    assert "blockdim" in fix
    assert "larger BLOCK" not in fix and "program" not in fix


def test_half_not_implemented_in_an_extensions_cuda_file_names_its_dispatch() -> None:
    # pytorch/extension-cpp: the op's own .cu kernel has no Half case
    fix = _fix(corpus_log("holdout12", "extension-cpp-op-not-implemented-for-half"))
    assert "AT_DISPATCH_FLOATING_TYPES_AND_HALF" in fix


def test_an_undefined_symbol_fix_finds_the_defining_library_before_rebuilding() -> None:
    # deepseek-ai/DeepGEMM#135: a c10::cuda symbol the extension was not linked against
    fix = _fix(corpus_log("holdout12", "deepgemm-undefined-symbol-getcurrentcudastream-link"))
    assert fix.index("ldd -r") < fix.lower().index("rebuild")
    assert "libc10_cuda.so" in fix


def test_error_35_first_asks_whether_a_driver_is_visible() -> None:
    # NVIDIA/nvidia-docker#24: deviceQuery in a container started without the NVIDIA runtime
    fix = _fix(corpus_log("holdout12", "nvidia-docker-insufficient-driver-without-wrapper"))
    assert fix.index("--gpus all") < fix.index("upgrade the driver")


def test_a_library_missing_under_the_nix_store_gets_the_runpath_not_ldconfig() -> None:
    # the loader's message as a program run from the Nix store prints it (the path written here); the same message
    # from /usr/lib keeps the FHS advice
    nix = (
        "ImportError: libcublasLt.so.11: cannot open shared object file: No such file or directory\n"
        "  (needed by /nix/store/0c4q9m1rl4a7x0dqz5bgx2m6n0p8s7kf-cudnn-8.6.0.163/lib/libcudnn_ops_infer.so.8)\n"
    )
    fix = _fix(nix)
    assert "runpath" in fix and "ldconfig" not in fix
    fhs = nix.replace("/nix/store/0c4q9m1rl4a7x0dqz5bgx2m6n0p8s7kf-cudnn-8.6.0.163", "/usr/lib/x86_64-linux-gnu")
    assert "ldconfig" in _fix(fhs)
