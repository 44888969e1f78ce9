"""Families learned from holdout99 and the healthy round public26 (after their first measurements), each from its
tool's own output format.

holdout99: torch's CUDA IPC import refused for want of the pidfd system calls (the host's Linux kernel), the EDG front
end's unknown diagnostic tag or number (a build's flags for another toolkit), PyTorch's legacy TH/THC tensor structs
that 0.4.1 made opaque (an extension written for an older PyTorch), and a GCC diagnostic wrapped after its location.
holdout100: EDG's "has no member class" for a name CCCL 3.0 removed, and the CUDA driver's file not found for a kernel
file a library loads at run time.

Healthy (corpus/healthy/public26.yaml): a traceback Python's ``logging`` printed under a warning record
(``logger.warning(msg, exc_info=True)``: an exception caught, logged and gone on from), and a report's row whose value
is an exception's ``repr`` (CuPy's ``show_config()`` prints what failed to load instead of a version). Each is tested
on the development case and on the nearby outputs that are failures and must stay so."""

from __future__ import annotations

import pytest

from tests.core.corpus_logs import CORPUS, assert_family_answers, classify_text, corpus_log, verdict

TB = (
    "Traceback (most recent call last):\n"
    '  File "/venv/lib/python3.11/site-packages/xformers/__init__.py", line 57, in _is_triton_available\n'
    "    import triton  # noqa\n"
    "ModuleNotFoundError: No module named 'triton'\n"
)


def _healthy_case(case_id: str) -> str:
    from diagnose.inputs import load_yaml

    cases = load_yaml((CORPUS / "healthy" / "public26.yaml").read_text())
    return next(str(c["log"]) for c in cases if c["id"] == case_id)


@pytest.mark.parametrize(
    "text",
    [
        _healthy_case("healthy26-xformers-triton-not-available-traceback"),
        # the same record as Python's logging.basicConfig and a dated handler print it
        "WARNING:xformers:A matching Triton is not available, some optimizations will not be enabled\n" + TB,
        "2024-05-01 10:00:00,123 - xformers - WARNING - A matching Triton is not available\n" + TB,
        _healthy_case("healthy26-cupy-show-config-rocm-mi355x"),
        # CuPy's show_config() on a CUDA machine without cuTENSOR's library: a field, not a failure
        "CuPy Version              : 13.3.0\n"
        "cuTENSOR Version          : ImportError('libcutensor.so.2: cannot open shared object file: No such file or"
        " directory')\nDevice 0 Name             : NVIDIA H100 80GB HBM3\n",
    ],
)
def test_a_logged_caught_exception_and_a_reported_load_failure_are_no_failure(text: str) -> None:
    assert classify_text(text).status == "no-failure"


@pytest.mark.parametrize(
    "text",
    [
        TB,  # the program's own end
        "ERROR:root:could not start the kernel\n" + TB,  # logged as an error: it stopped there
        "x.py:3: UserWarning: slow path\n  warnings.warn(\n" + TB,  # a warning, then the program's own end
        "ImportError: libcutensor.so.2: cannot open shared object file: No such file or directory\n",  # raised
    ],
)
def test_the_same_exceptions_raised_are_still_failures(text: str) -> None:
    status, category, _ = verdict(text)
    assert status == "diagnosed" and category == "environment", (status, category)


@pytest.mark.parametrize(
    ("text", "category", "rule"),
    [
        # corpus/holdout99 h99b-openrlhf-cuda-ipc-pidfd-open-old-host-kernel
        (
            corpus_log("holdout99", "h99b-openrlhf-cuda-ipc-pidfd-open-old-host-kernel"),
            "environment",
            "torch-cuda-ipc-pidfd-syscall-missing",
        ),
        # torch c10/cuda/CUDACachingAllocator.cpp: the same import's second system call
        (
            "RuntimeError: The kernel on this machine does not support the pidfd_getfd syscall needed to use IPC for "
            "CUDA tensors when expandable_segments:True is set. Consider using expandable_segments:False via "
            "torch.cuda.memory._set_allocator_settings('expandable_segments:False') for this allocation.\n",
            "environment",
            "torch-cuda-ipc-pidfd-syscall-missing",
        ),
        # corpus/holdout99 h99c-genn-nvcc91-diag-tag-extern-entity
        (
            corpus_log("holdout99", "h99c-genn-nvcc91-diag-tag-extern-entity"),
            "environment",
            "edg-unknown-diagnostic-tag",
        ),
        # cudafe++ (CUDA 13.0.88 strings): a diagnostic given by number
        (
            "Command-line error: invalid error number in diagnostic control option: 20208\n"
            "1 catastrophic error detected in this compilation.\nCompilation terminated.\n",
            "environment",
            "edg-unknown-diagnostic-tag",
        ),
        # corpus/holdout99 h99a-pwcnet-correlation-thtensor-pytorch041 (GCC's line wrapped after its location)
        (
            corpus_log("holdout99", "h99a-pwcnet-correlation-thtensor-pytorch041"),
            "environment",
            "nvcc-removed-torch-api",
        ),
        # clang on PyTorch 1.0's headers (pytorch/pytorch#12169): the struct renamed, the same break
        (
            "crop_and_resize.c:129:34: error: incomplete definition of type 'struct at_Tensor_Impl'\n"
            "    const int image_width = image->size[3];\n",
            "environment",
            "nvcc-removed-torch-api",
        ),
        # corpus/holdout100 h100a-dedisp-cuda13-thrust-unary-function-removed
        (
            corpus_log("holdout100", "h100a-dedisp-cuda13-thrust-unary-function-removed"),
            "environment",
            "nvcc-removed-cccl-api",
        ),
        # the same front end on CCCL 3.0's other removed functor base
        (
            'k.cu(12): error: namespace "thrust" has no member class "binary_function"\n'
            "   : public thrust::binary_function<float,float,float> {\n\n"
            '1 error detected in the compilation of "k.cu".\n',
            "environment",
            "nvcc-removed-cccl-api",
        ),
        # corpus/holdout100 h100a-cusignal-jetson-nano-fatbin-file-not-found
        (
            corpus_log("holdout100", "h100a-cusignal-jetson-nano-fatbin-file-not-found"),
            "environment",
            "cudart-module-file-not-found",
        ),
        # Numba's driver wrapper on the same CUresult
        (
            "numba.cuda.cudadrv.driver.CudaAPIError: [301] Call to cuModuleLoad results in CUDA_ERROR_FILE_NOT_FOUND\n",
            "environment",
            "cudart-module-file-not-found",
        ),
    ],
)
def test_round99_and_100_family_answers(text: str, category: str, rule: str) -> None:
    assert_family_answers(text, category, rule)


@pytest.mark.parametrize(
    "text",
    [
        # a struct of the project's own, incomplete where it is used: its code, not PyTorch's API
        "src/mesh.c:14:22: error: dereferencing pointer to incomplete type 'struct Mesh'\n",
        # a command-line error about something else
        'Command-line error: cannot open source file "kernel.cu"\n',
        # torch's other IPC failures name no missing system call
        "RuntimeError: pidfd_open: Operation not permitted\n",
    ],
)
def test_round99_families_leave_nearby_lines(text: str) -> None:
    _, _, rule = verdict(text)
    assert rule not in ("nvcc-removed-torch-api", "edg-unknown-diagnostic-tag", "torch-cuda-ipc-pidfd-syscall-missing")
