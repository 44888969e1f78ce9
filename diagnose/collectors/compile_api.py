r"""A compile error about a name that belongs to an API: a library's, or one the CUDA toolkit removed.

nvcc's and NVRTC's front end (EDG) says ``identifier "X" is undefined`` for a user's typo and, in the same
words, for a name of an API that the headers on the include path do not declare:

- a **library's API** whose release does not match the source: the name carries the library's prefix or
  namespace (``nvbit_add_call_arg_pred_val``: NVBit 1.5 renamed its ``*_pred`` functions, NVlabs/nvbitfi#14;
  ``cub::`` / ``thrust::`` members that moved between CCCL releases; ``cublasLt...`` entry points newer
  than the installed cuBLAS).  The source was written against another release of that library, or has a
  typo in a library call: the installed release decides (``version-skew`` or the user's code);
- a **CUDA API the toolkit removed**: deprecated runtime entry points that later toolkits no longer declare
  (the ``cudaThread*`` family, replaced by ``cudaDevice*``; the texture and surface *reference* API,
  replaced by texture/surface objects; the old execution-control calls).  The source was written for an
  older toolkit than the one compiling it.

Removed names: each was listed as deprecated in the CUDA Runtime API's "Deprecated List"
(https://docs.nvidia.com/cuda/archive/11.0_GA/cuda-runtime-api/deprecated.html; the texture/surface
reference API: deprecated in CUDA 11.3, dropped in CUDA 12.0 per its release notes, "Deprecated or Dropped
Features") and none is declared by the CUDA 13.0.88 headers (``include/*.h``, ``include/crt/*``; the test
checks that against the installed toolkit).

>>> undefined_api('identifier "nvbit_add_call_arg_pred_val" is undefined')
('nvbit_add_call_arg_pred_val', 'NVBit', None)
>>> undefined_api('identifier "cudaThreadSynchronize" is undefined')
('cudaThreadSynchronize', 'CUDA runtime', 'CUDA 12.0')
>>> undefined_api('texture is not a template')
('texture', 'CUDA runtime', 'CUDA 12.0')
>>> undefined_api('namespace "cub" has no member "DeviceTopK"')
('cub::DeviceTopK', 'CUB', None)
>>> undefined_api('identifier "factor" is undefined') is None
True
>>> undefined_api('identifier "cudaMalloc" is undefined') is None  # declared by every toolkit: a missing include
True
"""

from __future__ import annotations

import re

from diagnose.collectors.compile_cause import UNDEFINED_IDENTIFIER

#: deprecated CUDA runtime API no toolkit from 12.0 on declares (see the module's docstring)
REMOVED_CUDA_API: dict[str, str] = {
    **dict.fromkeys(
        (
            "cudaThreadExit",
            "cudaThreadSynchronize",
            "cudaThreadGetCacheConfig",
            "cudaThreadSetCacheConfig",
            "cudaThreadGetLimit",
            "cudaThreadSetLimit",
            "cudaSetDoubleForDevice",
            "cudaSetDoubleForHost",
            "cudaConfigureCall",
            "cudaSetupArgument",
            "cudaLaunchCooperativeKernelMultiDevice",
            "cudaProfilerInitialize",
        ),
        "CUDA 12.0",
    ),
    # the texture and surface reference API (texture objects replace it)
    **dict.fromkeys(
        (
            "texture",
            "surface",
            "textureReference",
            "surfaceReference",
            "cudaBindTexture",
            "cudaBindTexture2D",
            "cudaBindTextureToArray",
            "cudaBindTextureToMipmappedArray",
            "cudaUnbindTexture",
            "cudaGetTextureReference",
            "cudaGetTextureAlignmentOffset",
            "cudaBindSurfaceToArray",
            "cudaGetSurfaceReference",
        ),
        "CUDA 12.0",
    ),
}

#: API prefixes and namespaces of GPU libraries, as their public headers name their functions and types
#: (cublas_api.h: ``cublasSgemm``; cudnn.h: ``cudnnCreate``; nvbit.h: ``nvbit_insert_call``; ...)
_LIBRARY_NAMES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^cublas(?:Lt)?[A-Z_]"), "cuBLAS"),
    (re.compile(r"^cudnn[A-Z_]"), "cuDNN"),
    (re.compile(r"^cufft[A-Z_]"), "cuFFT"),
    (re.compile(r"^curand[A-Z_]"), "cuRAND"),
    (re.compile(r"^cusparse[A-Z_]"), "cuSPARSE"),
    (re.compile(r"^cusolver(?:Dn|Sp|Rf|Mg)?[A-Z_]"), "cuSOLVER"),
    (re.compile(r"^cutensor[A-Z_]"), "cuTENSOR"),
    (re.compile(r"^nccl[A-Z_]"), "NCCL"),
    (re.compile(r"^nvshmemx?_"), "NVSHMEM"),
    (re.compile(r"^nvbit_"), "NVBit"),
    (re.compile(r"^cupti[A-Z_]"), "CUPTI"),
    (re.compile(r"^nvml[A-Z_]"), "NVML"),
    (re.compile(r"^nvjpeg[A-Z_]"), "nvJPEG"),
    (re.compile(r"^npp[a-z]*[A-Z_]"), "NPP"),
    (re.compile(r"^magma(?:blas)?_"), "MAGMA"),
    (re.compile(r"^cub::"), "CUB"),
    (re.compile(r"^thrust::"), "Thrust"),
    (re.compile(r"^cuda::(?:std::)?"), "libcu++"),
    (re.compile(r"^(?:cutlass|cute)::"), "CUTLASS"),
)
_NO_MEMBER = re.compile(r"(?:namespace|class|struct) [\"'](?P<ns>[\w:]+)[\"'] has no member [\"'](?P<name>\w+)[\"']")
_NOT_TEMPLATE = re.compile(r"^(?P<name>texture|surface) is not a template\b")


def undefined_api(message: str) -> tuple[str, str, str | None] | None:
    """(name, whose API, the toolkit release that removed it or None) when an EDG error says a name of a
    library's API or of a removed CUDA API is not declared."""
    m = UNDEFINED_IDENTIFIER.search(message) or _NOT_TEMPLATE.search(message.strip())
    if m:
        name = m.group("name")
    else:
        ns = _NO_MEMBER.search(message)
        if not ns:
            return None
        name = f"{ns.group('ns')}::{ns.group('name')}"
    if name in REMOVED_CUDA_API:
        return name, "CUDA runtime", REMOVED_CUDA_API[name]
    for rx, library in _LIBRARY_NAMES:
        if rx.search(name):
            return name, library, None
    return None
