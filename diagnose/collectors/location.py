"""Where the failing code lives → :class:`~diagnose.facts.LocationFacts`.

A failure is the user's to fix only when the failing code is the user's.  This collector reads, from
any framework's evidence, whether it is:

- ``toolchain``: a compiler or code generator crashed or failed its own assertion (``nvcc error :
  'ptxas' died due to signal 11``, ``LLVM ERROR:``, ``internal compiler error``, XLA's
  ``Check failed:``);
- ``generated``: code a generator wrote (TorchInductor's ``triton_poi_fused_...`` kernels and its
  ``torchinductor_<user>/`` output files, nvFuser kernels, XLA fusions named by a sanitizer);
- ``library``: a named library's kernel or frame — by the kernel names the sanitizer prints
  (``flash::``, ``cutlass::``, ``at::native::``, cuBLAS's ``sm80_xmma_gemm_...``), native frames
  in the library's shared object (``in libcublasLt.so``), CUDA file paths inside it
  (``aten/src/ATen/native/cuda/Indexing.cu:1236``), the innermost Python frame in the library's
  installed package (``site-packages/flash_attn/...``), or a sanitizer report whose kernel one of NVIDIA's
  closed libraries launched (its first host frame past the driver and runtime is ``libcusolver.so.10.0``,
  ``cublasSgemm_v2``, ...: ``SanitizerFacts.launch_library``);
- ``user``: the innermost frame, kernel or source line is the user's own.

Frameworks' own Python frames (torch, triton, jax, cupy, numba, the standard library) are passed
over: every kernel launched from Python runs through them, so they say nothing about whose kernel
failed.  The innermost remaining frame decides.  ``user_frame`` keeps the user's innermost frame
(the caller), ``source_line`` a ``file:line`` of the failing code when the log prints one, and
``offsets_only`` says the log's device or native frames carry only offsets (``kernel+0x330``,
``[0x5afe678]``) and no source line.

A real sample (compute-sanitizer, onnxruntime#17798, ``tests/fixtures/sanitizer``):

>>> f = parse('''========= Invalid __global__ write of size 4 bytes
... =========     at void onnxruntime::cuda::_ResizeTrilinearCoordinateMapping<float>(long long)+0x400
... =========     by thread (17,0,0) in block (2,0,0)''')
>>> f.kind, f.library, f.offsets_only
('library', 'onnxruntime', True)
>>> parse('all good, 3 tests passed') is None
True
"""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Callable
from typing import Any

from diagnose.collectors import compile_cause
from diagnose.collectors import sanitizer as _sanitizer
from diagnose.collectors.gate_words import gate
from diagnose.collectors.pytraceback import reraised_from_worker
from diagnose.collectors.sanitizer_grammar import CLOSED_LIBRARIES
from diagnose.collectors.signature import own_name, strip_return_type
from diagnose.facts import LocationFacts

MAX_FRAME = 160  # characters of a frame kept

# --- what decides -----------------------------------------------------------------------------------

#: compiler and code-generator crash banners and internal assertions → the tool (after the plain
#: substrings one of which a match contains)
_CRASH: tuple[tuple[tuple[str, ...], re.Pattern[str], str], ...] = (
    (("died",), re.compile(r"'(cicc|ptxas|nvlink|fatbinary|cudafe\+\+)' died (?:due to signal|with status)"), ""),
    (("raised SIG",), re.compile(r"`(ptxas)` raised SIG[A-Z]+"), ""),
    (("ptxas",), re.compile(r"\b(ptxas)\b[^\n]{0,80}\b(?:[Ii]nternal error|Segmentation fault|core dumped)"), ""),
    (
        ("nternal compiler error", "nternal Compiler Error", "NTERNAL COMPILER ERROR"),
        re.compile(r"\binternal compiler error\b|\bInternal Compiler Error\b", re.IGNORECASE),
        "compiler",
    ),
    # not LLVM's instruction selection refusing an NVVM intrinsic: the target lacks the instruction (a GPU
    # below what the code generator supports), which another LLVM does not change (the catalogue's
    # triton-nvptx-intrinsic-not-selectable weighs it)
    (("LLVM ERROR: ",), re.compile(r"^LLVM ERROR: (?!Cannot select: intrinsic %llvm\.nvvm\.)", re.MULTILINE), "LLVM"),
    (("PLEASE submit a bug report",), re.compile(r"PLEASE submit a bug report to https?://\S*llvm"), "LLVM"),
    (
        ("Assertion",),
        re.compile(r"(?:llvm|mlir|triton)/(?:lib|include)/\S+:\d+: [^\n]*Assertion [`'][^\n]*failed"),
        "LLVM/MLIR",
    ),
    (("Check failed",), re.compile(r"\bxla/\S+\.cc:\d+\] Check failed"), "XLA"),
    (("NVRTC_ERROR_BUILTIN",), re.compile(r"\bNVRTC_ERROR_BUILTIN_OPERATION_FAILURE\b"), "NVRTC"),
)

#: kernel names (as the sanitizer, profilers and error messages print them) and native library files
#: → (kind, library), with the plain substrings one of which a match contains (a cheap test before the
#: regex).  Order matters: the first that matches wins.
_KERNEL_LIBS: tuple[tuple[re.Pattern[str], str, str, tuple[str, ...]], ...] = (
    (re.compile(r"\btriton_(?:poi|red|per|tem|for)_\w+"), "generated", "TorchInductor", ("triton_",)),
    (
        re.compile(r"\bnvfuser|\bCudaCodeGen\b|\bnvfuser_\w+|\bkernel_nvfuser", re.IGNORECASE),
        "generated",
        "nvFuser",
        ("nvfuser", "nvFuser", "NVFUSER", "CudaCodeGen", "Nvfuser"),
    ),
    # TileLang's device templates (tl_templates/cuda/*.h: tl::ptx_ldmatrix_x2, tl::gemm_ss, tl::cp_async_gs), which
    # the kernels it generates call; not any ``tl::`` (TartanLlama's tl::expected and tl::optional are C++ libraries)
    (
        re.compile(r"\btl::(?:ptx_|gemm_|cp_async|mma_|copy_|tma_|atomic_)\w*|\btl_templates[/\\]"),
        "generated",
        "TileLang",
        ("tl::", "tl_templates"),
    ),
    # TVM's generated kernels keep its PrimFunc's name (``default_function_kernel``, ``default_function_kernel0``)
    (re.compile(r"\bdefault_function_kernel\d*\b"), "generated", "TVM", ("default_function_kernel",)),
    (
        re.compile(r"\bflash::|\bflash_(?:fwd|bwd)_\w*kernel|\bflash_attn_?\w*\.so\b|\bflash_attn_2_cuda\b"),
        "library",
        "flash-attn",
        ("flash",),
    ),
    (re.compile(r"\bxformers\b|\bfmha_cutlass[FB]\w*"), "library", "xformers", ("xformers", "fmha_cutlass")),
    (re.compile(r"\bbitsandbytes\b|\blibbitsandbytes_cuda\w*"), "library", "bitsandbytes", ("bitsandbytes",)),
    (re.compile(r"\bvllm::|\bvllm\._C\b"), "library", "vllm", ("vllm",)),
    (
        re.compile(r"\bamp_C\b|\bfused_layer_norm_cuda\b|\bapex_C\b"),
        "library",
        "apex",
        ("amp_C", "fused_layer_norm_cuda", "apex_C"),
    ),
    (re.compile(r"\bdeepspeed\b|\bDeepSpeed\w*Kernel"), "library", "deepspeed", ("deepspeed", "DeepSpeed")),
    (
        # ONNX Runtime's executor names the failing node, not the kernel (onnxruntime/core/framework)
        re.compile(r"\bonnxruntime::|Non-zero status code returned while running \w+ node\b"),
        "library",
        "onnxruntime",
        ("onnxruntime::", "Non-zero status code"),
    ),
    # ggml's CUDA backend (llama.cpp, koboldcpp, whisper.cpp): its error check names its own source
    (re.compile(r"\bggml-cuda(?:\.cu\b|[/\\][\w.-]+\.cuh?\b)|\bggml_cuda_\w+"), "library", "ggml", ("ggml",)),
    (re.compile(r"\bfaiss::gpu::|\bfaiss[/\\]gpu[/\\]"), "library", "Faiss", ("faiss",)),
    # nnabla's CUDA extension (sony/nnabla-ext-cuda): its sources under nbla/cuda/, its namespace nbla::
    (
        re.compile(r"\bnbla[/\\]cuda[/\\]|\bnbla::\w*Cuda\b|\bnnabla[-_]ext[-_]cuda\b"),
        "library",
        "nnabla",
        ("nbla", "nnabla"),
    ),
    # RAPIDS: the C++ namespace as printed or Itanium-mangled in a native frame ("_ZN4raft7spatial..."), the
    # library's shared object, and RAFT's headers as a build fetches them ("_deps/raft-src/cpp/include/raft/")
    (re.compile(r"\bcudf::|\b_ZN4cudf\d|\blibcudf\w*\.so"), "library", "cuDF", ("cudf",)),
    (re.compile(r"\bcuvs::|\b_ZN4cuvs\d|\blibcuvs\w*\.so"), "library", "cuVS", ("cuvs",)),
    (
        re.compile(r"\braft::|\b_ZN4raft\d|\blibraft\w*\.so|[/\\]raft-src[/\\]|[/\\]include[/\\]raft[/\\]\S+\.cuh\b"),
        "library",
        "RAFT",
        ("raft",),
    ),
    (re.compile(r"\blibcuml(?:\+\+)?\.so|\b_ZN2ML\d"), "library", "cuML", ("libcuml", "_ZN2ML")),
    (re.compile(r"\bcutlass::|\bcutlass_\w*kernel"), "library", "CUTLASS", ("cutlass",)),
    (
        re.compile(r"\bsm\d+_xmma_(?:fprop|dgrad|wgrad|conv)\w*|\bcudnn::|\bimplicit_convolve_sgemm|\blibcudnn\w*\.so"),
        "library",
        "cuDNN",
        ("xmma_", "cudnn", "implicit_convolve"),
    ),
    (
        re.compile(
            r"\b(?:sm\d+_xmma_gemm|ampere_\w*gemm|volta_\w*gemm|turing_\w*gemm|maxwell_\w*gemm|hopper_\w*gemm)\w*"
            r"|\bgemv2[NT]_kernel|\bgemmSN_\w+|\bgemmk1_kernel|\bcublasLt::|\blibcublas(?:Lt)?\.so"
        ),
        "library",
        "cuBLAS",
        ("gemm", "gemv", "cublas", "gemmSN"),
    ),
    (re.compile(r"\blibcufft\w*\.so|\bregular_fft\b|\bvector_fft\b"), "library", "cuFFT", ("libcufft", "_fft")),
    (re.compile(r"\blibcusparse\.so|\bcusparse::"), "library", "cuSPARSE", ("cusparse",)),
    (
        # demangled, or Itanium-mangled as ptxas and nvlink name an entry function ("_ZN3cub23RadixSortScanBinsKernel...")
        re.compile(
            r"\bcub::(?:CUB_\w+::)?Device\w*Kernel\b|\bthrust::(?:THRUST_\w+::)?cuda_cub::core::_kernel_agent"
            r"|\b_ZN3cub\d+\w*?Kernel|\b_ZN6thrust\w*?_kernel_agent"
        ),
        "library",
        "CUB/Thrust",
        ("cub::", "thrust::", "_ZN3cub", "_ZN6thrust"),
    ),
    # Thrust's own launch refused: its CUDA backend raises system_error with the step's name and the
    # runtime's error (thrust/system/cuda/detail/parallel_for.h "parallel_for failed", the CUB dispatches'
    # "failed on 1st step", "after dispatching ... kernel"; older releases print the error string alone).
    # Only launch-configuration errors, which the launch itself returns; a sticky fault from an earlier
    # kernel can surface at any step and is not Thrust's.
    (
        re.compile(
            r"\b(?:parallel_for failed|failed on (?:1st|2nd) step|after dispatching \w+ kernel|after reduction step \d)"
            r": (?:cudaError\w+: )?(?:invalid configuration argument|too many resources requested for launch)"
        ),
        "library",
        "CUB/Thrust",
        (
            "parallel_for failed",
            "failed on 1st step",
            "failed on 2nd step",
            "after dispatching",
            "after reduction step",
        ),
    ),
    # ArrayFire's C++ exception (src/api/cpp/exception.cpp: "ArrayFire Exception (%s:%d):"): the call that
    # failed is inside ArrayFire, its kernels and launchers ArrayFire's own
    (re.compile(r"\bArrayFire Exception \("), "library", "ArrayFire", ("ArrayFire Exception",)),
    (re.compile(r"\bnccl(?:Dev)?Kernel\w*|\blibnccl\.so"), "library", "NCCL", ("nccl",)),
    (  # a device-side assertion in one of torch's own kernels (a host frame there is only the op's dispatch)
        re.compile(r"aten/src/ATen/native/\S+\.cuh?:\d+: \S+: block: \["),
        "library",
        "ATen (PyTorch)",
        ("aten/src/ATen",),
    ),
    (
        re.compile(r"\b(?:loop|input)_\w+_fusion\w*|\bfusion_\d+\b|\bgemm_fusion_\w+|\btriton_gemm_\w+"),
        "generated",
        "XLA",
        ("fusion", "triton_gemm"),
    ),
)

#: installed Python packages that hold kernels of their own (directory name → library)
_PY_LIBS = {
    "flash_attn": "flash-attn",
    "nnabla_ext": "nnabla",
    "flash_attn_interface": "flash-attn",
    "hopper": "flash-attn",
    "xformers": "xformers",
    "bitsandbytes": "bitsandbytes",
    "vllm": "vllm",
    "apex": "apex",
    "deepspeed": "deepspeed",
    "mamba_ssm": "mamba-ssm",
    "causal_conv1d": "causal-conv1d",
    "fla": "flash-linear-attention",
    "liger_kernel": "liger-kernel",
    "flashinfer": "flashinfer",
    "sgl_kernel": "sgl-kernel",
    "sglang": "sglang",
    "lmdeploy": "lmdeploy",
    "lightllm": "lightllm",
    "unsloth": "unsloth",
    "unsloth_zoo": "unsloth",
    "torchao": "torchao",
    "fbgemm_gpu": "fbgemm-gpu",
    "transformer_engine": "transformer-engine",
    "megablocks": "megablocks",
    "natten": "natten",
    "spconv": "spconv",
    "torch_scatter": "torch-scatter",
    "torch_sparse": "torch-sparse",
    "torch_cluster": "torch-cluster",
    "pytorch3d": "pytorch3d",
    "mmcv": "mmcv",
    "exllamav2": "exllamav2",
    "auto_gptq": "auto-gptq",
    "awq": "autoawq",
    "gptqmodel": "gptqmodel",
    "tensorrt_llm": "tensorrt-llm",
    "jax_triton": "jax-triton",
    "cudf": "cuDF",
    "cuml": "cuML",
    "cupy_backends": "",  # framework (cupy)
    "onnxruntime": "onnxruntime",
    "kornia": "",
}
#: frameworks and the standard library: every launch from Python runs through them
_PY_FRAMEWORK_DIR = re.compile(
    r"(?:^|/)lib/python\d[\d.]*/(?!site-packages|dist-packages)|^<[^>]*>$|^<frozen "
    # a framework's source tree outside site-packages (a development checkout): its package and a subpackage
    r"|/(?:torch|triton|jax|jaxlib|numba|cupy|cupyx|numpy|tensorflow)/(?:_?[a-z]\w*/)+\w+\.py$"
    r"|/triton/(?:compiler|code_gen|runtime|language)\.py$"
)
_SITE = re.compile(r"(?:site|dist)-packages/([A-Za-z_][\w.-]*)")
_INDUCTOR_FILE = re.compile(r"torchinductor_[\w.-]+/\w+/\w+\.py|torch/_inductor/\S*output_code")

# Python frames; C++/gdb backtraces (#3 0x... in func at file:line / from lib.so), torch's
# "frame #3: ... (0x... in /path/libx.so)", sanitizer frames and access lines, CUDA file:line
_PY_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)(?:, in (?P<func>[^\n]+))?')
#: a compute-sanitizer line's prefix, ``^[=\s]*=+\s+`` said so that it is not backtracked: what follows it starts
#: with a letter, so it is the whole run of "=" and blanks at the line's start, a run that holds a "=" (its first
#: character that is not a blank) and ends in a blank (the same matches; the run is read once, not once per "=")
_SAN_PREFIX = r"^(?=\s*=)(?>[=\s]*)(?<=\s)"
_SAN_AT = re.compile(
    _SAN_PREFIX + r"(?:(?:and )?(?:Read|Write) (?:Thread \([^)]*\) |access ))?at (?P<where>[^\n]+)$", re.MULTILINE
)
_SAN_DEVICE = re.compile(_SAN_PREFIX + r"Device Frame:\s*(?P<where>[^\n]+)$", re.MULTILINE)
_SAN_HOST = re.compile(_SAN_PREFIX + r"Host Frame:\s*(?P<where>[^\n]+)$", re.MULTILINE)
_NATIVE_FRAME = re.compile(r"^\s*(?:frame )?#\d+:?\s+(?P<where>[^\n]+)$", re.MULTILINE)
_SRC_LINE = re.compile(
    r"(?P<file>/?(?:[\w.+~-]+/)*[\w.+-]+\.(?:cu|cuh|cpp|cc|cxx|h|hpp|c|py))"
    r"(?::(?P<line>\d+)|\((?P<line2>\d+)\)|'? in line (?P<line3>\d+))"
)
#: what every match of _SRC_LINE ends with, its extension and the line after it: a literal-led search, many times
#: cheaper than trying the path at every place of a frame (a frame without it holds no source line)
_SRC_END = re.compile(r"\.(?:cu|cuh|cpp|cc|cxx|h|hpp|c|py)(?::\d|\(\d|'? in line \d)")


def _src_line(s: str) -> re.Match[str] | None:
    """``_SRC_LINE.search(s)``, searched only where ``s`` holds the end of a source line."""
    return _SRC_LINE.search(s) if _SRC_END.search(s) else None


#: CUDA sources only, for a source line named outside a frame (C++ sources in a log are mostly the
#: frameworks' own error-check sites)
_CUDA_SRC = re.compile(r"\.(?:cu|cuh)$|\.cu\.cc$")
_SRC_FILE = re.compile(r":\d+$")  # the line number of a "file:LINE"
_OFFSET = re.compile(r"\+0x[0-9a-fA-F]+|\[0x[0-9a-fA-F]+\]|\(0x[0-9a-fA-F]+ in ")
#: source paths that are not the user's (toolkit headers, torch's and libraries' own sources)
_NOT_USER_SRC = re.compile(
    r"/usr/local/cuda|/cuda[\w.-]*/(?:include|targets)|(?:site|dist)-packages/|aten/src/|c10/|/include/(?:cub|thrust|cuda)/"
    r"|/pytorch/|/tensorflow/|/xla/|\bexternal/|/llvm|/mlir/|\b(?:sm_\d+_intrinsics|cuda_runtime|crt/\w+)\.h"
)
#: a log with none of these substrings says nothing about where code lives (cheap test first)
_QUICK = (
    'File "',
    "=====",
    "#",
    ".cu",
    "died",
    "raised SIG",
    "nternal",
    "NTERNAL",
    "LLVM ERROR",
    "Check failed",
    "triton_",
    "nvfuser",
    "nvFuser",
    "NVRTC_ERROR_BUILTIN",
    ".so",
    "Assertion",
    "::",
    "Non-zero status code",
    "runtests",
    "/test",
    "catch2_test_",
    "_test_unit_",
    "failed on ",
    "parallel_for failed",
    "after dispatching",
    "after reduction step",
    "ArrayFire Exception",
    "_ZN3cub",
    "_ZN6thrust",
)


#: a launch the runtime refused.  The launch itself returns these (they are not sticky, never reported by a
#: later call), so the error check or host frame that reports one is the code that launched
_LAUNCH_ERRORS = (
    "invalid configuration argument",
    "too many resources requested for launch",
    "cudaErrorInvalidConfiguration",
    "cudaErrorLaunchOutOfResources",
    "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
)
_LAUNCH_ERROR = re.compile("|".join(_LAUNCH_ERRORS))  # plain words: no character of a regex syntax
#: whether the log names one of them, from the collectors' one pass over it (diagnose.collectors.gate_words)
_has_launch_error = gate(_LAUNCH_ERRORS)
#: a framework's own op sources (its error checks name them) and native libraries (a sanitizer's host
#: frames), whose ops choose their launches from the input: a refused launch there is the op's
_FRAMEWORK_SRC: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\baten/src/(?:ATen/native|THC|THCUNN|THCS|THNN)/\S+\.(?:cuh?|cpp|h)\b"), "ATen (PyTorch)"),
    (re.compile(r"\bpaddle/(?:phi/kernels|fluid/operators)/\S+\.(?:cuh?|cc|h)\b"), "Paddle"),
    (re.compile(r"\btensorflow/core/kernels/\S+\.(?:cu\.cc|cc|h)\b"), "TensorFlow"),
)
_FRAMEWORK_LIB: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\blibtorch_cuda\w*\.so\b|\blibcaffe2_gpu\.so\b|\bat::native::"), "ATen (PyTorch)"),
    (re.compile(r"\blibpaddle\.so\b|\bcore_(?:avx|noavx)\.so\b|\blibphi\w*\.so\b|\bphi::\w+Kernel\b"), "Paddle"),
    (re.compile(r"\blibtensorflow_framework\.so\b|\b_pywrap_tensorflow_internal\.so\b"), "TensorFlow"),
)
#: a framework's Python wrapper of a built-in op as the innermost frame: the op called into native code
_FRAMEWORK_PY: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"/torch/(?:nn/)?functional\.py$"), "ATen (PyTorch)"),
    (re.compile(r"/paddle/(?:nn/functional|tensor)/\w+\.py$"), "Paddle"),
    # CuPy's routines are Python modules over its own kernels (cupy/_statistics/meanvar.py); a user's RawKernel,
    # ElementwiseKernel or ReductionKernel launches from the .pyx layer, and cupyx.jit kernels from cupyx/jit/
    (re.compile(r"/cupyx?/(?!cuda/|jit/|_core/raw)(?:_?[a-z]\w*/)*\w+\.py$"), "CuPy"),
    # JAX's built-in ops (jax.random, jax.numpy, jax.scipy, jax.nn, jax.lax) run jaxlib's or XLA's own kernels
    (re.compile(r"/jax/(?:_src/)?(?:random|(?:numpy|scipy|nn|lax)/\w+)\.py$"), "JAX"),
)
#: an IPython or Colab traceback frame: ``PATH in FUNC(ARGS)`` at the start of a line
_IPY_FRAME = re.compile(r"^(?P<file>[^\s<>()]+\.py) in (?P<func>\w+)\(", re.MULTILINE)
#: host frames of the CUDA driver and runtime and of the error-reporting helpers, passed over
_RUNTIME_FRAME = re.compile(r"\blibcuda(?:rt)?\.so|\bc10::|\bc10_cuda_check|\bdevice_stub|^\s*\[0x")


def _launch_site(text: str) -> tuple[str, str, int] | None:
    """The framework op whose own launch the runtime refused, as (library, line, log line), or None: an
    error check naming the op's source on the error's own line
    (``THCudaCheck FAIL file=.../aten/src/ATen/native/cuda/Normalization.cuh line=467 error=9 : invalid
    configuration argument``), the first host frame outside the runtime of a log that prints a refused
    launch (a sanitizer's ``Host Frame:.../libpaddle.so``, torch's ``frame #3: at::native::...``), or an
    innermost Python frame in the framework's wrapper of the op (``torch/nn/functional.py``)."""
    if not _has_launch_error(text):
        return None
    for m in _LAUNCH_ERROR.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        line = text[start : end if end >= 0 else len(text)]
        for rx, lib in _FRAMEWORK_SRC:
            if rx.search(line):
                return lib, line, _line_of(text, start)
    frames = ((_SAN_HOST,) if "=====" in text else ()) + ((_NATIVE_FRAME,) if "#" in text else ())
    for rx in frames:
        for m in rx.finditer(text):
            where = m.group("where")
            if _RUNTIME_FRAME.search(where):
                continue
            for frx, lib in _FRAMEWORK_LIB:
                if frx.search(where):
                    return lib, where, _line_of(text, m.start())
            break  # the launching frame is someone else's
    last = None
    for frame in _PY_FRAME.finditer(text) if 'File "' in text else ():
        if not frame.group("file").endswith((".pyx", ".pxd")):  # Cython frames are the launch machinery
            last = frame
    if last is None and ".py in " in text:
        for frame in _IPY_FRAME.finditer(text):
            last = frame
    if last is not None:
        path = last.group("file").replace("\\", "/")  # a Windows path names the same module
        for rx, lib in _FRAMEWORK_PY:
            if rx.search("/" + path):
                line_end = text.find("\n", last.end())
                return lib, text[last.start() : line_end if line_end >= 0 else len(text)], _line_of(text, last.start())
    return None


#: a library's own test suite, as its runner or its paths print it → (library, whether the library is a
#: compiler that builds and launches the kernels its tests run)
_TEST_SUITES: tuple[tuple[re.Pattern[str], str, bool], ...] = (
    (re.compile(r"\bnumba\.runtests\b|\bnumba[/.]cuda[/.]tests\b"), "numba", True),
    (re.compile(r"\btriton/python/test/|\bpython/test/(?:unit|regression)/\S+\.py\b"), "Triton", True),
    (re.compile(r"\bjax/tests/\w+_test\.py\b|\bjax\.tests\."), "JAX", True),
    (
        re.compile(r"\b(?:cub|thrust)/test(?:ing)?/\S*\.cu\b|\bcatch2_test_\w+|\bcub(?:\.cpp\d\d)?\.test\.\w+"),
        "CUB/Thrust",
        False,
    ),
    (re.compile(r"\bcutlass/test/unit/|\bcutlass_test_unit_\w+"), "CUTLASS", False),
    (re.compile(r"\bpytorch/test/test_\w+\.py\b|\btest/run_test\.py\b"), "PyTorch", False),
    (re.compile(r"\btests/cupyx?_tests/"), "CuPy", False),
)


@functools.cache
def _test_suite_gates() -> tuple[Callable[[str], bool], ...]:
    """For each of _TEST_SUITES, a substring test that is False only where the pattern cannot match."""
    from diagnose.regex_literals import may_match

    return tuple(may_match(rx) for rx, _, _ in _TEST_SUITES)


def _test_suite(text: str) -> tuple[str, bool, str, int] | None:
    """The library whose own test suite the log runs: (library, compiler, the line, its log line)."""
    if "test" not in text:
        return None
    for (rx, lib, compiler), may in zip(_TEST_SUITES, _test_suite_gates(), strict=True):
        m = rx.search(text) if may(text) else None
        if m:
            start = text.rfind("\n", 0, m.start()) + 1
            end = text.find("\n", m.end())
            return lib, compiler, text[start : end if end >= 0 else len(text)], _line_of(text, m.start())
    return None


def _clip(s: str) -> str:
    s = s.strip()
    return s if len(s) <= MAX_FRAME else s[: MAX_FRAME - 3] + "..."


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


#: kernel names that say whose code it is only as a *device* frame (torch's host frames in ``at::native``
#: are where every op is dispatched, whoever's kernel failed)
_DEVICE_LIBS = (
    # a kernel name printed demangled (at::native::) or mangled (_ZN2at6native..., when the report has no symbols)
    (
        re.compile(r"\bat::native::|\bat::cuda::|\b_ZN2at(?:6native|4cuda)\d"),
        "library",
        "ATen (PyTorch)",
        ("at::", "_ZN2at"),
    ),
    (re.compile(r"\btensorflow::|\b_ZN10tensorflow\d"), "library", "TensorFlow", ("tensorflow::", "_ZN10tensorflow")),
)


#: a device frame whose own function (not a template argument of it) is CCCL's: a CUB device-wide kernel
#: (``cub::CUB_200200_NS::DeviceReduceSingleTileKernel<..., cudf::DeviceMin, ...>`` is CUB's code run with
#: cuDF's operator) or a libcu++ function (``cuda::ptx::cp_async_bulk...``, ``cuda::std::``); read before the
#: names anywhere in the frame, which would take the template arguments' library
_DEVICE_LEAD = (
    (
        re.compile(r"^(?:0x[0-9a-fA-F]+ in )?(?:void )?cub::(?:CUB_\w+::)?Device\w*Kernel\b"),
        "library",
        "CUB/Thrust",
        ("cub::",),
    ),
    (
        re.compile(r"^(?:0x[0-9a-fA-F]+ in )?(?:void )?cuda::(?:ptx|std|device|experimental)::(?:__\w+::)?"),
        "library",
        "CCCL (libcu++)",
        ("cuda::",),
    ),
)


_PC_PREFIX = re.compile(r"^0x[0-9a-fA-F]+ in ")


def _device_frame_text(where: str) -> str:
    """A device frame as a report quotes it: without the return type printed before the function."""
    pc = _PC_PREFIX.match(where)
    head = pc.group(0) if pc else ""
    return head + strip_return_type(where[len(head) :])


def _device_own_name(where: str) -> str:
    """A device frame reduced to the function's own qualified name (and the source after it): the library
    that owns a kernel is its own namespace, not one that only its return type, template arguments or
    parameter types name (``cuda::std::pair<int, int> cudf::...::page_bounds<...>`` is cuDF's)."""
    pc = _PC_PREFIX.match(where)
    head = pc.group(0) if pc else ""
    return head + own_name(where[len(head) :])


def _kernel_lib(name: str, *, device: bool = False) -> tuple[str, str] | None:
    if device:
        name = _device_own_name(name)
    for rx, kind, lib, keys in (_DEVICE_LEAD + _KERNEL_LIBS + _DEVICE_LIBS) if device else _KERNEL_LIBS:
        if any(k in name for k in keys) and rx.search(name):
            return kind, lib
    return None


def _source_line(where: str) -> str | None:
    m = _src_line(where)
    if not m:
        return None
    line = m.group("line") or m.group("line2") or m.group("line3")
    return f"{m.group('file')}:{line}"


def _short(path: str) -> str:
    """A path without the directories that do not help a reader: the package path for installed files."""
    m = _SITE.search(path)
    if m:
        return path[m.start(1) :]
    return path


@functools.cache
def _key_automaton() -> Any:
    """Every plain substring of _CRASH and _KERNEL_LIBS in one automaton (pyahocorasick)."""
    import ahocorasick

    auto = ahocorasick.Automaton()
    for key in {k for keys, _rx, _tool in _CRASH for k in keys} | {k for *_, keys in _KERNEL_LIBS for k in keys}:
        auto.add_word(key, key)
    auto.make_automaton()
    return auto


def _keys_in(text: str) -> set[str]:
    """Which of those substrings ``text`` holds, from one pass over it."""
    return set(map(_SECOND, _key_automaton().iter(text)))


_SECOND = operator.itemgetter(1)


def _crash(text: str, present: set[str]) -> tuple[str, str, int] | None:
    for keys, rx, tool in _CRASH:
        m = rx.search(text) if not present.isdisjoint(keys) else None
        if m:
            name = tool or m.group(1)
            line_start = text.rfind("\n", 0, m.start()) + 1
            line_end = text.find("\n", m.end())
            return name, text[line_start : line_end if line_end >= 0 else len(text)], _line_of(text, m.start())
    return None


def _python(text: str) -> tuple[tuple[str, str, str, int] | None, tuple[str, int] | None]:
    """The innermost Python frame that is a kernel library's or the user's, as (kind, library, frame,
    log line); and the innermost user frame (file:line, log line)."""
    decided: tuple[str, str, str, int] | None = None
    user: tuple[str, int] | None = None
    # a last traceback where the standard library raises a worker's exception again in the parent names the parent's
    # frames only: the worker's traceback before it decides
    end = reraised_from_worker(text) or len(text)
    for m in _PY_FRAME.finditer(text, 0, end):
        path, line = m.group("file"), m.group("line")
        where = f"{_short(path)}:{line}"
        if m.group("func"):
            where += f" in {m.group('func').strip()}"
        at = _line_of(text, m.start())
        if _INDUCTOR_FILE.search(path):
            decided = ("generated", "TorchInductor", where, at)
            continue
        site = _SITE.search(path)
        if site:
            pkg = site.group(1).split(".")[0]
            lib = _PY_LIBS.get(pkg)
            if lib:
                decided = ("library", lib, where, at)
            continue  # a framework's frame, or a package that holds no kernels: passed over
        if _PY_FRAMEWORK_DIR.search(path) or path.endswith((".pyx", ".pxd")):
            continue
        decided = ("user", "", where, at)
        user = (f"{path}:{line}", at)
    return decided, user


#: whether the log holds one of them, from one pass over it (diagnose.collectors.gate_words)
_has_quick = gate(_QUICK)
#: whether the log names one of NVIDIA's closed libraries at all (a cheap test before the sanitizer's host frames)
_closed_lib_named = gate(tuple(sorted({name.lower() for name in CLOSED_LIBRARIES})))


def parse(text: str) -> LocationFacts | None:
    if not text or not _has_quick(text):
        return None
    present = _keys_in(text)
    crash = _crash(text, present)
    if crash is not None:
        tool, banner, at = crash
        return LocationFacts(
            lines=(at,),
            kind="toolchain",
            library=tool,
            frame=_clip(banner),
            compiler_crash=True,
            source_line=_first_user_source(text),
        )

    kind: str | None = None
    library: str | None = None
    frame: str | None = None
    lines: list[int] = []
    native_frames = 0
    with_source = 0

    # device code: the sanitizer's access line ("at kernel+0x30 in file.cu:44") and device frames,
    # the kernel (outermost device frame) deciding over the innermost function (a cub:: helper)
    device: list[tuple[str, int]] = []
    sanitizer = "=====" in text
    for rx in (_SAN_AT, _SAN_DEVICE) if sanitizer else ():
        for m in rx.finditer(text):
            where = m.group("where")
            if "thread" in where.split("(")[0] or (where.startswith(("0x", "[")) and "in " not in where):
                continue
            device.append((where, _line_of(text, m.start())))
    for where, _ in device:
        native_frames += 1
        with_source += _source_line(where) is not None
    device_with_source = with_source
    if device:
        kernel_where, at = device[-1] if len(device) > 1 else device[0]
        hit = _kernel_lib(kernel_where, device=True) or _kernel_lib(device[0][0], device=True)
        if hit:
            kind, library = hit
            frame, lines = _clip(_device_frame_text(kernel_where)), [at]
        else:
            kind, frame, lines = "user", _clip(device[0][0]), [device[0][1]]

    # a kernel the sanitizer does not name as a library's, launched from inside a closed NVIDIA library (the first
    # host frame past the driver and runtime is libcusolver.so, cublasSgemm, ...): the library's own kernel
    if kind == "user" and _closed_lib_named(text):
        launch = _sanitizer.parse(text)
        if launch is not None and launch.launch_library:
            kind, library = "library", launch.launch_library

    # native host frames: a kernel library's shared object (cuBLAS, cuDNN, flash-attn's extension)
    if kind != "library":
        native = ((_SAN_HOST,) if sanitizer else ()) + ((_NATIVE_FRAME,) if "#" in text else ())
        for rx in native:
            for m in rx.finditer(text):
                where = m.group("where")
                native_frames += 1
                with_source += _source_line(where) is not None
                hit = _kernel_lib(where)
                if hit and kind is None:
                    kind, library = hit
                    frame, lines = _clip(where), [_line_of(text, m.start())]

    # kernel names and library sources named anywhere else (an error message, an assertion's path)
    if kind is None:
        for rx, k, lib, keys in _KERNEL_LIBS:
            named = rx.search(text) if not present.isdisjoint(keys) else None
            if named:
                kind, library = k, lib
                line_start = text.rfind("\n", 0, named.start()) + 1
                line_end = text.find("\n", named.end())
                frame = _clip(text[line_start : line_end if line_end >= 0 else len(text)])
                lines = [_line_of(text, named.start())]
                break

    # a refused launch whose launching code is a framework's own op (its error check or host frame)
    if kind is None:
        site = _launch_site(text)
        if site is not None:
            kind, library, frame, lines = "library", site[0], _clip(site[1]), [site[2]]

    # a library's own test suite: the failing code is the library's, built from its source tree
    suite = _test_suite(text)
    if suite is not None and kind in (None, "user"):
        kind, library, frame, lines = "library", suite[0], _clip(suite[2]), [suite[3]]

    py, user = _python(text) if 'File "' in text else (None, None)
    if py is not None and kind in (None, "user"):
        pk, plib, pframe, pat = py
        if pk != "user" or kind is None:
            kind, library, frame, lines = pk, plib or None, pframe, [pat]

    if device:  # the failing access's own line: a device frame's (host frames are the launch site)
        source = next((_source_line(w) for w, _ in device if _source_line(w) and not _NOT_USER_SRC.search(w)), None)
        offsets_only = not device_with_source
    else:
        source = _first_user_source(text)
        offsets_only = native_frames > 0 and source is None and bool(_OFFSET.search(text))
    if kind is None:
        check = _cuda_source_named(text)
        if check is not None:
            kind, frame = "user", source or _clip(check)  # an error-check site in the user's sources
        elif source is not None:
            kind, frame = "user", source
        # a compiler diagnostic located in a library's own header (CuPy's carray.cuh, CUTLASS, torch's
        # include/) is that library's code, compiled by the user's toolchain
        header = compile_cause.library_of_header(_SRC_FILE.sub("", source)) if source else None
        if kind == "user" and header:
            kind, library = "library", header
    # an access that a memory or race record places in a library's own source (Kokkos's headers), not its caller's
    if kind in (None, "user"):
        inside = _library_access(text, device)
        if inside is not None:
            kind, library, frame, lines = "library", inside[0], _clip(inside[1]), [inside[2]]
    # code compiled in a package manager's build tree (luarocks, pip, conda-build, Spack, vcpkg): the package's
    build = None
    if kind in ("user", "library"):
        build = next((b for b in map(compile_cause.package_build, (source, frame)) if b), None)
        if build is not None:
            kind, library = "library", build[0] or library or f"the package {build[1]} builds"
    if kind is None:
        return None
    at_line = text.splitlines()[lines[0] - 1] if lines and 0 < lines[0] <= text.count("\n") + 1 else ""
    return LocationFacts(
        lines=tuple(lines),
        kind=kind,
        library=library or None,
        frame=frame,
        user_frame=_short(user[0]) if user else None,
        source_line=source,
        offsets_only=offsets_only,
        checkout=kind == "library" and (_checkout(at_line) or (suite is not None and library == suite[0])),
        test_suite=suite[0] if suite else None,
        test_suite_compiler=bool(suite and suite[1]),
        package_build=build[1] if build else None,
    )


#: a library's own sources, where an access record (the access line, not an outer frame) may place the failing
#: access: a Kokkos kernel runs the caller's functor inside Kokkos's launch code, so only an access in Kokkos's own
#: headers (installed flat as ``Kokkos_*.hpp``, ``core/src/`` in its tree) is Kokkos's
_LIB_SOURCES = (
    (re.compile(r"(?:^|[/\\])Kokkos_\w+\.hpp:\d+|(?:^|[/\\])kokkos[/\\]core[/\\]src[/\\]\S+:\d+"), "Kokkos"),
)
#: cuda-memcheck's race and access records, "Race reported between Write access at 0x5d8 in FILE:LINE:KERNEL"
_ACCESS_IN = re.compile(r"\b(?:Read|Write) access at 0x[0-9a-fA-F]+ in (?P<where>\S+)")


def _library_access(text: str, device: list[tuple[str, int]]) -> tuple[str, str, int] | None:
    """(library, the record's line, its log line) when the failing access is in a library's own source."""
    if "Kokkos" not in text and "kokkos" not in text:
        return None
    places = [(where, at) for where, at in device[:1]]
    if not device and "access at" in text:
        places = [(m.group("where"), _line_of(text, m.start())) for m in _ACCESS_IN.finditer(text)][:1]
    for where, at in places:
        for rx, lib in _LIB_SOURCES:
            if rx.search(where):
                return lib, _source_line(where) or where, at
    return None


#: a source file under a person's home directory (not a CI runner's): a developer's own checkout and build
_HOME_SOURCE = re.compile(
    r"(?:/home/(?!runner/)[^/\s]+|/Users/[^/\s]+|[A-Za-z]:\\Users\\[^\\\s]+|~)[/\\][^\s:]*\.(?:cu|cuh|c|cc|cpp|h|hpp|py)\b"
)
#: where installed packages live, also under a home directory (a virtualenv, a conda env, a cache)
_INSTALLED = re.compile(
    r"site-packages|dist-packages|/lib/python\d|[/\\]envs[/\\]|conda|[/\\]\.cache[/\\]|[/\\]include[/\\]"
)


def _checkout(line: str) -> bool:
    """Whether the frame that names the library's code points into a source tree of the person's own
    (``/home/alice/code/llama.cpp/ggml-cuda.cu``) rather than an installed release."""
    m = _HOME_SOURCE.search(line)
    return m is not None and not _INSTALLED.search(m.group(0))


def _cuda_source_named(text: str) -> str | None:
    """The first ``file.cu:LINE`` of the log outside toolkit and framework sources (any line)."""
    pos = text.find(".cu")
    while pos >= 0:
        start = text.rfind("\n", 0, pos) + 1
        end = text.find("\n", pos)
        end = end if end >= 0 else len(text)
        for m in _SRC_LINE.finditer(text, start, end):
            if _CUDA_SRC.search(m.group("file")) and not _NOT_USER_SRC.search(m.group(0)):
                return m.group(0)
        pos = text.find(".cu", end)
    return None


#: lines whose file:line is the failing code's own: a device-side assertion ("k.cu:42: kern: block:
#: [0,0,0], thread: [1,0,0] Assertion ..."), a compiler error ("k.cu(12): error: ..."; a warning locates
#: nothing that failed); not an error-check site ("CUDA error ... at k.cu:70"), which is where the error was noticed
_LOCATING = re.compile(r"\.(?:cu|cuh)(?::\d+: \S+: block: \[|\(\d+\): error|:\d+:\d+: error)")


def _first_user_source(text: str) -> str | None:
    """The first ``file.cu:LINE`` of the user's own code that locates the failing code."""
    for hit in _LOCATING.finditer(text) if ".cu" in text else ():
        start = text.rfind("\n", 0, hit.start()) + 1
        end = text.find("\n", hit.end())
        line_text = text[start : end if end >= 0 else len(text)]
        m = _src_line(line_text)
        if m is None or not _CUDA_SRC.search(m.group("file")) or _NOT_USER_SRC.search(m.group(0)):
            continue
        line = m.group("line") or m.group("line2") or m.group("line3")
        return f"{m.group('file')}:{line}"
    return None
