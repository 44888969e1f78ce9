"""The failing call sites collectors.log_words names from a log's words: a CUDA graphics-interop call, a
managed-memory prefetch, a CUDA IPC call, Mesa's GLSL compiler errors and ggml's no-device-code report. Each on the
failing line (or beside a report's fields), never on a line that only names the call."""

from __future__ import annotations

import pytest

from diagnose.collectors import log_words as W


@pytest.mark.parametrize(
    ("text", "call"),
    [
        (
            "cudaGraphicsGLRegisterImage failed: OS call failed or operation not supported on this OS",
            "cudaGraphicsGLRegisterImage",
        ),
        ('code=101(cudaErrorInvalidDevice) "cudaGraphicsGLRegisterBuffer(&r, pbo, f)"', "cudaGraphicsGLRegisterBuffer"),
        ("[kdRay] [critical] register opengl buffer failed. OS call failed", "register opengl buffer"),
        (
            "CUDA_ERROR_INVALID_VALUE: invalid argument while calling import_external_memory (cuImportExternalMemory)",
            "import_external_memory",
        ),
        ("cudaGraphicsMapResources returned cudaErrorUnknown", "cudaGraphicsMapResources"),
        ("Registered 3 OpenGL buffers with CUDA (cudaGraphicsGLRegisterBuffer), frame 4 ms", None),
        ("cudaImportExternalMemory: imported 64 MiB", None),
    ],
)
def test_graphics_interop(text: str, call: str | None) -> None:
    assert W.graphics_interop(text) == call


@pytest.mark.parametrize(
    ("text", "call"),
    [
        (
            'C++ exception with description "CUDA error at: /src/prefetch.cpp:40: cudaErrorInvalidDevice"',
            "prefetch.cpp",
        ),
        # SYCL's report: the error's name and the function on separate fields
        (
            "PI CUDA ERROR:\n  Name: CUDA_ERROR_INVALID_DEVICE\n  Function: cuda_piextUSMEnqueuePrefetch\n",
            "cuda_piextUSMEnqueuePrefetch",
        ),
        (
            "CUDA Error Code[11]: invalid argument\n csr_matrix.c(hypre_CSRMatrixPrefetchToDevice) Line:698",
            "hypre_CSRMatrixPrefetchToDevice",
        ),
        ("L2 prefetch hit rate 93%\nall tests passed", None),
    ],
)
def test_managed_prefetch(text: str, call: str | None) -> None:
    assert W.managed_prefetch(text) == call


@pytest.mark.parametrize(
    ("text", "call"),
    [
        (
            "0: (GTL DEBUG: 0) cuIpcGetMemHandle: invalid argument, CUDA_ERROR_INVALID_VALUE, line no 97",
            "cuIpcGetMemHandle",
        ),
        ("  cuIpcGetMemHandle return value:   1", "cuIpcGetMemHandle"),
        ("cuda_ipc_cache.c:284  UCX  ERROR cuIpcOpenMemHandle() failed: invalid device context", "cuIpcOpenMemHandle"),
        ("NCCL INFO Channel 00 : 0[0] -> 1[1] via P2P/IPC/read", None),
        ("using cudaIpcGetMemHandle for the shared buffer", None),
    ],
)
def test_cuda_ipc(text: str, call: str | None) -> None:
    assert W.cuda_ipc(text) == call


def test_glsl_errors_in_mesa_format_and_not_nvidia_s() -> None:
    mesa = "ERROR: Shader Compilation Error\n0:1(12): warning: extension unsupported\n0:2(23): error: syntax error, unexpected NEW_IDENTIFIER\n"
    assert W.glsl_mesa_error(mesa) == "syntax error, unexpected NEW_IDENTIFIER"
    assert W.glsl_mesa_error("0(3) : error C0000: syntax error, unexpected identifier") is None
    assert W.glsl_mesa_error('kernel.cu(3): error: identifier "x" is undefined') is None


@pytest.mark.parametrize(
    ("text", "gap"),
    [
        # a newer arch is built: a newer GPU would have run it, so the GPU is of the arch that ran
        ("has no device code compatible with CUDA arch 610. ggml-cuda.cu was compiled for: 520,610,700", "this-arch"),
        # the log's GPU is of the arch that ran
        (
            "Device 0: NVIDIA GeForce GTX 1080 Ti, compute capability 6.1, VMM: yes\n"
            "has no device code compatible with CUDA arch 610. ggml-cuda.cu was compiled for: 610",
            "this-arch",
        ),
        # the log's GPU is newer: the driver ran the old arch's PTX
        (
            "Device 0: NVIDIA GeForce RTX 4090, compute capability 8.9, VMM: yes\n"
            "has no device code compatible with CUDA arch 520. ggml-cuda.cu was compiled for: 520",
            "newer-gpu",
        ),
        # the newest built, no GPU shown: either
        ("has no device code compatible with CUDA arch 520. ggml-cuda.cu was compiled for: 520", "undecided"),
        # a build whose list was never expanded is no list
        ("has no device code compatible with CUDA arch 750. ggml-cuda.cu was compiled for: __CUDA_ARCH_LIST__", None),
    ],
)
def test_ggml_arch_gap(text: str, gap: str | None) -> None:
    got = W.ggml_arch_gap(text)
    assert (got[0] if got else None) == gap
