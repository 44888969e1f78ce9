"""Fix steps ordered by what the log shows: the step that fits the evidence comes first.

Real logs of a development set (corpus/holdout10, the thread in the case's ``source``) and other wordings of
the same families from the tools' own message text (provenance in diagnose/data/catalogue/)."""

from __future__ import annotations

from corpus_logs import classify_text, corpus_log, decided


def _fix(text: str) -> str:
    report = classify_text(text)
    assert report.diagnosis is not None and report.diagnosis.best is not None
    return report.diagnosis.best.fix


def test_triton_image_load_failure_clears_the_cache_first() -> None:
    # holdout10 triton-kernel-image-invalid-cache-built-on-v100-loaded-on-a100 (triton-lang/triton#1323)
    fix = _fix(corpus_log("holdout10", "triton-kernel-image-invalid-cache-built-on-v100-loaded-on-a100"))
    assert fix.index("~/.triton/cache") < fix.index("upgrade Triton") < fix.index("driver")


def test_image_load_failure_outside_triton_keeps_the_package_check_first() -> None:
    # cudaGetErrorName(200) of libcudart.so.13 (CUDA 13.0.88), as a CUDA C++ program prints it
    fix = _fix("CUDA error: cudaErrorInvalidKernelImage at main.cu:42\n")
    assert fix.index("supports this GPU") < fix.index("~/.triton/cache")


def test_driver_combination_error_names_the_compat_library_before_a_reboot() -> None:
    # holdout10 llama-cpp-cuda-compat-on-geforce-unsupported-driver-combination (ggml-org/llama.cpp#17542), and
    # cudaGetErrorName(803) of libcudart.so.13 (CUDA 13.0.88)
    for text in (
        corpus_log("holdout10", "llama-cpp-cuda-compat-on-geforce-unsupported-driver-combination"),
        "RuntimeError: cudaErrorSystemDriverMismatch\n",
    ):
        fix = _fix(text)
        assert "LD_LIBRARY_PATH" in fix and "cuda-compat" in fix
        assert fix.index("LD_LIBRARY_PATH") < fix.index("reboot")


def test_triton_pointer_check_names_the_non_current_gpu() -> None:
    # holdout10 triton-pointer-argument-cpu-tensor-on-cuda3 (triton-lang/triton#2925); older Triton releases omit
    # the index (triton 3.7.1 backends/nvidia/driver.c getPointer)
    for text in (
        corpus_log("holdout10", "triton-pointer-argument-cpu-tensor-on-cuda3"),
        "ValueError: Pointer argument cannot be accessed from Triton (cpu tensor?)\n",
    ):
        fix = _fix(text)
        assert "set_device" in fix and "x.cuda()" in fix


def test_triton_context_destroyed_is_a_device_mismatch() -> None:
    # holdout10 xformers-triton-softmax-context-destroyed-on-cuda1 (facebookresearch/xformers#681) and the
    # load_binary wording of MzeroMiko/VMamba#231
    vmamba = (
        'mod, func, n_regs, n_spills = cuda_utils.load_binary(self.metadata["name"], self.asm["cubin"], '
        "self.shared, device)\nRuntimeError: Triton Error [CUDA]: context is destroyed\n"
    )
    for text in (corpus_log("holdout10", "xformers-triton-softmax-context-destroyed-on-cuda1"), vmamba):
        assert decided(text)[:2] == ("runtime-assumption", "device-mismatch")
        assert "torch.cuda.device(x.device)" in _fix(text)


def test_context_destroyed_outside_triton_is_not_called_a_device_mismatch() -> None:
    # cuGetErrorName(709), include/cuda.h (CUDA 13.0.88), without Triton's launcher prefix
    assert decided("CUDA_ERROR_CONTEXT_IS_DESTROYED: context is destroyed\n")[1] != "device-mismatch"
