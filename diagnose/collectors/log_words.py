"""What a log's own words say about the failure, beside its error lines: masked rows, and where it began.

Facts that change the check kdiag gives, not the owner it names:

- ``masked``: the log speaks of masked values (``masked``, ``fully masked``) or of a mask on a line
  about an attention or a softmax (an ``attn_mask`` argument, a causal mask); a Triton load's ``mask=``
  alone is a bound, not a masked row.  A wrong value or a NaN from an attention or softmax kernel whose rows
  can be masked comes first from a fully masked row: its maximum is -inf, ``exp(x - max)`` is then
  ``exp(-inf + inf)`` = NaN, and a kernel that uses a finite sentinel (-1e4, -5e4) instead of -inf
  returns a finite row where -inf or 0 is expected.
- ``regression_at``: a release or a commit the log names as the one the failure began with ("after
  upgrading to 2.3.0", "since v1.2", "broken by 63a976ff", "regression in 14.0.1").  A failure that
  began with a change is decided fastest by bisecting between that change and the last one that worked.

- ``gtest_run``: the log is a googletest binary's run (its runner line, ``[ RUN      ] Suite.Test``), the form a C++
  library's own test suite takes (libcudf, Kokkos Kernels, CUTLASS, nvFuser): the test wrote the inputs, so no
  outside caller passed them.

- ``kernel_compiler``: the compiler or code generator that wrote the failing kernel, as the log shows it: TorchInductor
  (``torch._inductor``, ``torch.compile``), Triton (its compiler or runtime, ``@triton.jit``), XLA (jaxlib,
  ``XlaRuntimeError``), the kernel languages and tensor compilers that write CUDA C++ and compile it themselves
  (TileLang, BitBLAS, TVM and MLC-LLM, Hidet, DaCe, IREE, Taichi: their own modules in a traceback) or Julia
  (CUDA.jl, ``.jl:N`` frames).  A fault in a generated kernel can be the compiler's.
- ``multi_gpu``: the log shows more than one GPU at work: a device ordinal above 0 (``cuda:1``, ``GPU:1``,
  ``device=1``, ``CUDA_VISIBLE_DEVICES=0,1``) or a distributed run (``torch.distributed``, DDP, NCCL).
- ``cuda_toolkit``: a CUDA toolkit release the log names (``CUDA 11.4``, ``cuda-11.4``, a wheel's ``cu118``,
  nvcc's ``release 11.4``; nvidia-smi's ``CUDA Version`` is the driver's, not one) or a toolkit library a kernel or
  frame belongs to (``thrust::``, ``cub::``, cuBLAS, cuFFT, cuDNN, cuSPARSE, cuSOLVER, cuRAND).
- ``host``: the machine the log names as the one that failed: Open MPI's signal report (``[HOST:PID] *** Process
  received signal ***``, opal/util/stacktrace.c) or Slurm's ``srun: error: HOST: task N: ...``.  A fault on one
  node of a cluster is decided fastest by running the same input on another.

- ``tpu``: the log shows the program ran on a TPU (a Mosaic TPU compile, libtpu, a Pallas TPU kernel, a TPU
  device or core name), and shows no CUDA device: CUDA's tools (compute-sanitizer, nvidia-smi, the CUDA
  wheels, a grid's 65535 limit) do not apply there.  "No GPU/TPU found" and a backend 'tpu' that failed to
  initialise are JAX's start-up notes on machines without one, not a TPU.

- ``gpu_runtime``: the GPU runtime other than CUDA the log shows the program ran on (``chipStar``, ``HIP/ROCm``,
  ``OpenCL``, ``SYCL``, ``Metal``), where it shows no CUDA device: HIP's ``hipError...`` names, ROCm paths and
  ``gfx`` targets, OpenCL's ``CL_...`` statuses and ``cl...`` calls, SYCL's and Level Zero's names, Metal's
  ``MTL...`` classes.  CUDA's tools (compute-sanitizer, ``CUDA_LAUNCH_BLOCKING``, nvidia-smi) do not run there;
  each runtime has its own debug and validation layers.

- ``launch_blocking``: the run had ``CUDA_LAUNCH_BLOCKING=1`` set, as the log shows it: a command line or an
  ``export``/``set``/``env`` that sets it, ``os.environ["CUDA_LAUNCH_BLOCKING"] = "1"``, or an environment dump
  listing it.  PyTorch's own hint ("For debugging consider passing CUDA_LAUNCH_BLOCKING=1") is advice, not a
  setting.  With launches synchronous the error is already raised by the launch that faulted.
- ``last_kernel``: the kernel a library's error report names as the one launched last: QUDA's errorQuda
  (lib/util_quda.cpp, "last kernel called was (name=%s,volume=%s,aux=%s)").  With launches synchronous it is
  the kernel that faulted.
- ``graphics_interop``: the CUDA graphics-interop call a failing line names: a resource of OpenGL, Direct3D, EGL or
  VDPAU registered or mapped (``cudaGraphicsGLRegisterBuffer``, ``cuGraphicsMapResources``), external memory or a
  semaphore of Vulkan or Direct3D 12 imported (``cudaImportExternalMemory``, Taichi's ``import_external_memory``), the
  interop device queries (``cudaGLGetDevices``), or a program's own words for the first ("register opengl buffer"), on a
  line with an error, a failure or an error code.  Its generic runtime error (``OS call failed``, ``invalid device``,
  ``invalid argument``) stands for the graphics context's GPU, the platform or the resource, not its usual reading.
- ``glsl_mesa_error``: the first error of an OpenGL shader compiled by Mesa's GLSL compiler, whose locations are
  ``SOURCE:LINE(COLUMN)`` (``0:3(1): error: duplicate storage qualifier``; NVIDIA's compiler prints ``0(3) : error
  C0000: ...``): the program's OpenGL is served by Mesa (software rendering, WSL's Direct3D 12 layer, another GPU's
  driver), not by the NVIDIA driver.
- ``ggml_arch_gap``: what ggml's ``no_device_code`` report says of the GPU (ggml/src/ggml-cuda/common.cuh: "CUDA
  kernel K has no device code compatible with CUDA arch A. ggml-cuda.cu was compiled for: LIST", A being the
  ``__CUDA_ARCH__`` of the code that ran, LIST nvcc's ``__CUDA_ARCH_LIST__``): ``this-arch`` when the GPU is of arch
  A (a newer arch is in LIST, so the driver would have run that one on a newer GPU; or the log's GPU has A's
  capability): the kernel has no code for this GPU by design, a feature it lacks; ``newer-gpu`` when the log's GPU
  is newer than A (the driver JIT-compiled A's PTX: the build lacks the GPU's own arch); ``undecided`` otherwise
  (A is the newest built and the log shows no GPU).  ``ggml_arch_detail`` says which values decided.
- ``managed_prefetch``: the managed-memory prefetch a failing report names (``cudaMemPrefetchAsync``,
  ``cuMemPrefetchAsync``, SYCL's ``piextUSMEnqueuePrefetch``, a library's ``...PrefetchToDevice``, a ``prefetch.cpp``
  source), on an error's line or within three lines of it (a report's "Function:" field).  A prefetch to a GPU needs
  the device's concurrent managed access (``cudaDevAttrConcurrentManagedAccess``), which Windows, WSL 2 and GPUs
  before Pascal lack, and memory allocated as managed.
- ``cuda_ipc``: the CUDA IPC call a failing line names (``cudaIpcGetMemHandle``, ``cuIpcOpenMemHandle``, the event
  handles' calls): exporting needs memory from ``cudaMalloc``/``cuMemAlloc`` (not a stream-ordered pool, virtual
  memory management or managed memory), opening needs another process that can access the exporting GPU, on a
  platform with CUDA IPC.
- ``empty_input``: a line the program printed with a count of zero for its input ("Degree Histogram (0 vertices,
  0 edges)", "loaded 0 images", "num_points: 0", a ``torch.Size([0, 3])``): an input that was never loaded or
  built reaches kernels and copies sized from it.

- ``project_source``: a CUDA source file of the program's own, compiled with it, that an error line names
  (``[CUDA ERROR] in cuda_rasterizer/rasterizer_impl.cu``, ``... at L:583 in /home/u/mcubes/cxx/mcubes_cuda.cu``):
  not a file of a framework (ATen, THC, c10), a toolkit (``/usr/local/cuda``, CUB, Thrust, CUTLASS) or an
  installed package.  A fault there can also come from a stale or clashing build of that extension.
- ``intermittent``: the log says the failure comes and goes ("intermittently", "randomly", "sometimes fails",
  "not every time", "non-deterministic").  A fault that comes and goes on the same input is looked for first as a
  race.
- ``shape_overflow``: a framework's shape check refused an element count past int64 (TensorFlow's TensorShape,
  tensorflow/core/framework/tensor_shape.cc: "Encountered overflow when multiplying X with Y, result: -1",
  "Encountered overflow when multiplying shape dimensions", "Shape [...] results in overflow when computing number
  of elements"): the two factors, the shape, or the words, as printed.
- ``pointer_misaligned``: a pointer's alignment the user printed with a remainder other than 0 (``a[1].data.ptr % 16``
  then ``8``; ``x.data_ptr() % 16 = 8``, ``(uintptr_t)p % 16``): the input's own address is off the boundary, which
  decides a library's alignment refusal (cuFFT's CUFFT_INVALID_VALUE) for the input's layout, not the call's arguments.
- ``compiled_wrong``: the compiled call (``jax.jit``, ``torch.compile``, ``tf.function``) on a line the log marks wrong
  (``... jax.jit(f)()  # 8160 ✗``): a value wrong under the compiler is checked against the same call run eagerly
  first, since one right eagerly and wrong only compiled is the compiler's.
>>> tpu("jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Mosaic failed to compile TPU kernel: Not implemented")
True
>>> tpu("Pallas TPU reduce kernel generalization gives wrong numerical results?")
True
>>> tpu("No GPU/TPU found, falling back to CPU.") or tpu("Unable to initialize backend 'tpu': UNIMPLEMENTED")
False
>>> tpu("ValueError: Cannot lower pallas_call on platform: gpu. To use Pallas on GPU, install jaxlib GPU. "
...     "To use Pallas on TPU, install jaxlib TPU and libtpu.")
False
>>> tpu("Mosaic failed to compile TPU kernel\\nRuntimeError: CUDA error: an illegal memory access was encountered")
False
>>> kernel_compiler('File "/usr/lib/python3/site-packages/torch/_inductor/compile_fx.py", line 12')
'TorchInductor (torch.compile)'
>>> kernel_compiler("jaxlib.xla_extension.XlaRuntimeError: INTERNAL: an illegal memory access was encountered")
'XLA'
>>> kernel_compiler("ERROR: CUDA error: an illegal memory access was encountered (code 700, ERROR_ILLEGAL_ADDRESS)")
'Julia (CUDA.jl)'
>>> multi_gpu("nvidia-nccl-cu12==2.20.5")
False
>>> kernel_compiler("RuntimeError: CUDA error: an illegal memory access was encountered") is None
True
>>> multi_gpu("x = x.to('cuda:1')") and multi_gpu("CUDA_VISIBLE_DEVICES=0,1 python train.py")
True
>>> multi_gpu("device = torch.device('cuda:0')") or multi_gpu("GPU 0: NVIDIA A100")
False
>>> cuda_toolkit("torch 2.1.0+cu118"), cuda_toolkit("Cuda compilation tools, release 11.4, V11.4.48")
('cu118', 'release 11.4')
>>> cuda_toolkit("| NVIDIA-SMI 535.54   Driver Version: 535.54   CUDA Version: 12.2 |") is None
True
>>> cuda_toolkit("merge_sort: failed to synchronize: cudaErrorIllegalAddress")
'thrust::merge_sort'
>>> cuda_toolkit("inclusive_scan failed to synchronize: cudaErrorIllegalAddress")
'thrust::inclusive_scan'
>>> host("[node042:25688] *** Process received signal ***"), host("srun: error: gpu-07: task 3: Aborted")
('node042', 'gpu-07')
>>> host("RuntimeError: CUDA error: an illegal memory access was encountered") is None
True
>>> gtest_run("[ RUN      ] cuda.sparse_spgemm_kokkos_complex_double_int_int_TestExecSpace")
True
>>> gtest_run("00:37:42 3: [ RUN      ] Cuda.batched_scalar_serial_inverselu_dcomplex")
True
>>> gtest_run("[ RUN      ] MyTest/0.Works") and not gtest_run("[ RUN ] step 3")
True
>>> masked("AssertionError: fully masked rows must have LSE=-inf")
True
>>> masked("attn_mask=None, key_padding_mask=pad")
True
>>> masked("bitmask of the warp") or masked("x = tl.load(ptr + offs, mask=offs < n)")
False
>>> regression_at("CUDA_ERROR_ILLEGAL_ADDRESS on sm_89 after PtxOp::MulWide (63a976ff)")
'63a976ff'
>>> regression_at("it started failing after upgrading to torch 2.3.0")
'2.3.0'
>>> regression_at("RuntimeError: CUDA error: an illegal memory access was encountered") is None
True
>>> regression_at("Please upgrade to CUDA 12.6.3 or newer.") is None
True
>>> regression_at("after 1000000 steps the loss is nan") is None and regression_at("after 5.0 seconds") is None
True
>>> launch_blocking("$ CUDA_LAUNCH_BLOCKING=1 python train.py"), launch_blocking("export CUDA_LAUNCH_BLOCKING=1")
(True, True)
>>> launch_blocking("CUDA kernel errors might be asynchronously reported ...\\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1")
False
>>> last_kernel("MG level 0 (GPU):        last kernel called was (name=N4quda4PackIfLi3ELb0EEE,volume=24x24x24x24,aux=p)")
'N4quda4PackIfLi3ELb0EEE'
>>> empty_input("Degree Histogram (0 vertices, 0 edges):")
'Degree Histogram (0 vertices, 0 edges):'
>>> empty_input("INFO loaded 0 images from ./data"), empty_input("num_points: 0")
('INFO loaded 0 images from ./data', 'num_points: 0')
>>> empty_input("loaded 10 images, 0 errors") is None and empty_input("epoch 0 of 10, 0 steps") is None
True
>>> project_source("[CUDA ERROR] in cuda_rasterizer/rasterizer_impl.cu\\nLine 298: an illegal memory access was encountered")
'cuda_rasterizer/rasterizer_impl.cu'
>>> project_source("error at /usr/local/cuda/include/cub/device/dispatch.cuh:12: an illegal memory access") is None
True
>>> project_source("illegal memory access at /pytorch/aten/src/THC/generic/THCTensorCopy.cu:70") is None
True
>>> shape_overflow("Encountered overflow when multiplying 56541365074252 with 125091515651, result: -1")
'56541365074252 with 125091515651'
>>> shape_overflow("Shape [1,4,10,2147483647,2147483647] results in overflow when computing number of elements")
'[1,4,10,2147483647,2147483647]'
>>> shape_overflow("overflow when multiplying two numbers") is None
True
>>> intermittent("the run fails randomly after a few hundred steps"), intermittent("error 700 at step 5")
(True, False)
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import Any

from diagnose.collectors.gate_words import automaton_of
from diagnose.regex_anchor import StartSearch, hit_test, lowered, start_find

#: the part of a log the words are looked for in
SCAN = 200_000

#: every lower-cased word a fact below tests the lowered log for (``_words``): found in one pass over it
_LOW_WORDS: set[str] = set()
_LOW_AUTOMATON: list[Any] = []
_LAST_LOW: tuple[str, frozenset[str]] = ("", frozenset())


def _words(*words: str) -> frozenset[str]:
    """``words`` (lower-cased, non-empty), filed for :func:`_holds`."""
    own = frozenset(words)
    _LOW_WORDS.update(own)
    _LOW_AUTOMATON.clear()
    return own


def _holds(low: str, words: frozenset[str]) -> bool:
    """``any(w in low for w in words)`` for words filed by :func:`_words`: the words of every fact are found in
    one pass over the lowered log (pyahocorasick, every occurrence reported), kept for the last log."""
    global _LAST_LOW
    last = _LAST_LOW
    if last[0] is not low:
        if not _LOW_AUTOMATON:
            _LOW_AUTOMATON.append(automaton_of(_LOW_WORDS))
        found = frozenset(word for _, word in _LOW_AUTOMATON[0].iter(low)) if low else frozenset()
        last = _LAST_LOW = (low, found)
    return not words.isdisjoint(last[1])


# a TPU named by what only runs on one: Mosaic's TPU compiler, libtpu, Pallas' TPU backend (`pltpu`,
# `pallas.tpu`, "Pallas TPU"), a TPU device, core, kernel or generation ("TPU v5e", `TpuDevice`, TPU_0)
_TPU = re.compile(
    r"(?i)\blibtpu\b|\btpu_custom_call\b|\bpltpu\b|\bpallas[./ _-]tpu\b|\bmosaic[ _]tpu\b|\bTpuDevice\b"
    r"|\bTPU(?:[ _]?v\d+\w*|[ _](?:kernel|core|chip|device|pod|VM)s?|_\d+)\b|\b(?:cloud|on(?: a)?) TPUs?\b"
)
# JAX's start-up notes on a machine without one, and a line that names a GPU beside the TPU (advice for either:
# "To use Pallas on GPU, install jaxlib GPU. To use Pallas on TPU, install jaxlib TPU and libtpu")
_NO_TPU = re.compile(r"(?i)No GPU/TPU found|backend 'tpu'|\bGPU\b.*\bTPU\b|\bTPU\b.*\bGPU\b")
# a CUDA device in the same log: its tools do apply
_CUDA_DEVICE = re.compile(r"\bCUDA[ _]error\b|\bCUDA_ERROR_|\bcuda\w*Error\w*|\bnvidia-smi\b|\bsm_\d{2,3}\b")
# both searched where the literals that start their matches stand
_TPU_SEARCH = StartSearch(_TPU)
_CUDA_DEVICE_SEARCH = StartSearch(_CUDA_DEVICE)


# googletest's runner line (gtest.cc, PrettyUnitTestResultPrinter::OnTestStart: "[ RUN      ] " then the suite and
# the test name; a parameterised suite's is "Prefix/Suite.Test/N"), also as CTest's verbose run prints it, each line
# after the test's number ("3: [ RUN ...") and a CI log's timestamp
_GTEST_RUN = re.compile(r"^(?:\d{1,2}:\d{2}:\d{2}(?:\.\d+)? )?(?:\d+: )?\[ RUN +\] \w+(?:/\w+)?\.\w+", re.MULTILINE)


# the compiler or code generator that wrote the kernel, first match wins (Inductor's kernels are Triton's too)
_KERNEL_COMPILERS = (
    (
        "TorchInductor (torch.compile)",
        re.compile(
            r"torch[./\\]_inductor\b|torch[./\\]_dynamo\b|\btorch\.compile\b|\bTorchInductor\b|\binductor\.triton"
        ),
    ),
    (
        "Triton",
        re.compile(
            r"\btriton[./\\](?:compiler|runtime|language|backends)\b|@triton\.(?:jit|autotune)\b"
            r"|\btriton\.(?:compiler\.errors|runtime\.errors)|\bTriton Error \[CUDA\]"
        ),
    ),
    (
        "XLA",
        re.compile(
            r"\bXlaRuntimeError\b|\bjaxlib\b|\bjax[./]_src\b|[/\\]jax[/\\]\w+\.py\b|\bcompiler[/\\]xla[/\\]"
            r"|\bxla[/\\](?:service|pjrt)[/\\]"
        ),
    ),
    # kernel languages and tensor compilers that write CUDA C++ (or PTX) and compile it themselves, named by their
    # own Python modules in a traceback or their compile drivers: TileLang (tilelang/jit/adapter/libgen.py writes a
    # temporary .cu and runs nvcc; its device templates are tl_templates/), BitBLAS (the same library generator), TVM
    # and MLC-LLM on it (tvm/contrib/nvcc.py, TVMError), Hidet (hidet/backend/build.py), DaCe (dace/codegen/, its
    # .dacecache build folders), IREE (iree-compile, its HAL executable targets) and Taichi (its [taichi/...]
    # log lines); TileLang and BitBLAS before TVM, which they embed
    (
        "TileLang",
        re.compile(r"\btilelang[./\\](?:jit|engine|cache|contrib|compile|language|transform)\b|\btl_templates\b"),
    ),
    ("BitBLAS", re.compile(r"\bbitblas[./\\](?:base|gpu|ops|builder|utils)\b")),
    (
        "TVM",
        re.compile(
            r"\btvm[./\\](?:contrib|_ffi|runtime|driver|relax|relay|target|meta_schedule|dlight|tir|build_module)\b"
            r"|\bTVMError\b|\btvm\.error\.\w+|\bmlc_llm[./\\]"
        ),
    ),
    ("Hidet", re.compile(r"\bhidet[./\\](?:backend|drivers|graph|ir|runtime|transforms)\b")),
    ("DaCe", re.compile(r"\bdace[./\\]codegen\b|[/\\]\.dacecache[/\\]")),
    ("IREE", re.compile(r"\biree-compile\b|\biree[./\\]compiler\b|#hal\.executable\.target<")),
    # GsTaichi (Genesis' fork) keeps Taichi's modules under gstaichi/
    ("Taichi", re.compile(r"\[taichi[/\\]|\b(?:gs)?taichi[./\\](?:lang|_lib|types)\b")),
    # CUDA.jl's own error text, "CUDA error: MESSAGE (code N, NAME)" (lib/cudadrv/error.jl), its types, the REPL
    (
        "Julia (CUDA.jl)",
        re.compile(
            r"\bCUDA\.jl\b|\bKernelAbstractions\b|\.jl:\d+\b|\.julia[/\\]packages\b|\(code \d+, (?:CUDA_)?ERROR_[A-Z_]+\)"
            r"|\bCUDA\.cu\w+|^julia> |\bjulia-\d",
            re.MULTILINE,
        ),
    ),
)


#: per compiler, the lower-cased words one of which every match of its pattern holds: a log without them is
#: not searched with the pattern (most logs name none of these compilers)
_KERNEL_COMPILER_WORDS = (
    _words("inductor", "_dynamo", "torch.compile"),
    _words("triton"),
    _words("xla", "jax"),
    _words("tilelang", "tl_templates"),
    _words("bitblas"),
    _words("tvm", "mlc_llm"),
    _words("hidet"),
    _words("dace"),
    _words("iree", "#hal.executable"),
    _words("taichi"),
    _words(".jl", "kernelabstractions", "julia", "(code ", "cuda.cu"),
)


#: each compiler's pattern, searched only where the literals that start its matches stand (StartSearch: the same
#: match, without trying the leading alternation at every place of the log)
_KERNEL_COMPILER_SEARCHES = tuple((name, StartSearch(rx)) for name, rx in _KERNEL_COMPILERS)


def kernel_compiler(text: str) -> str | None:
    """The compiler or code generator the log shows wrote the kernel (TorchInductor, Triton, XLA, a kernel language
    such as TileLang or TVM, Julia), else None."""
    head = text[:SCAN]
    low = lowered(head)
    for (name, search), words in zip(_KERNEL_COMPILER_SEARCHES, _KERNEL_COMPILER_WORDS, strict=True):
        if _holds(low, words) and search(head):
            return name
    return None


# a device ordinal above 0 (PyTorch's `cuda:1`, TensorFlow's `/device:GPU:1`, JAX's `cuda:1`/`gpu:1`, a `device=1`
# argument, `.cuda(1)`), more than one visible device, or a distributed run: the patterns, each with the lower-cased words one of which its every match holds: a log is searched
#: only with the alternatives whose words it holds (most hold "device" alone)
_MULTI_GPU_PARTS = tuple(
    (_words(*words), StartSearch(re.compile(rx)))
    for words, rx in (
        (("cuda:", "gpu:"), r"(?i)\b(?:cuda|gpu):\s?0*[1-9]\d?(?![.\d])\b"),
        (("device",), r"(?i)\bdevice(?:_id|_index|_ids)?\s*[=:]\s*\[?0*[1-9]\d?\b"),
        ((".cuda(",), r"(?i)\.cuda\(\s*[1-9]\d?\s*\)"),
        (("cuda_visible_devices=",), r"(?i)\bCUDA_VISIBLE_DEVICES=[\"']?\d+,\s?\d"),
        (("distributed",), r"(?i)\bDistributedDataParallel\b|\btorch[./]distributed\b"),
        (("nccl",), r"\bNCCL\b"),
        (("world_size",), r"(?i)\bworld_size\s*[=:]\s*(?:[2-9]|\d{2,})\b"),
        (("replica ",), r"(?i)\breplica [1-9]\d*\b"),
    )
)


def multi_gpu(text: str) -> bool:
    """Whether the log shows more than one GPU at work: a device ordinal above 0, or a distributed run."""
    head = text[:SCAN]
    low = lowered(head)
    return any(_holds(low, words) and search(head) for words, search in _MULTI_GPU_PARTS)


# a toolkit release: "CUDA 11.4", "CUDA Toolkit 12.1", "cuda-11.4" / "cuda_11.4" (a path, nvcc's build string),
# a wheel's "cu118", nvcc's "release 11.4, V11.4.48"; not nvidia-smi's "CUDA Version: 12.2" (the driver's)
_TOOLKIT_RELEASE = re.compile(
    r"(?i)\bCUDA(?:[ _-]?Toolkit)?[ _-]?v?\d{1,2}\.\d\b|\bcu(?:da)?(?:1[0-3]\d|[789]\d)\b|\brelease \d{1,2}\.\d(?=, V\d)"
)
# a kernel or a frame of one of the toolkit's libraries; a Thrust algorithm's "NAME: failed to synchronize"
_TOOLKIT_LIBRARY = re.compile(
    r"\b(?:thrust|cub)::\w+|\b(?:cublas|cufft|cudnn|cusparse|cusolver|curand)\w*", re.IGNORECASE
)
# (CCCL writes both "merge_sort: failed to synchronize" and "inclusive_scan failed to synchronize")
_THRUST_SYNC = re.compile(r"\b(\w+): failed to synchronize\b|\b(\w+_\w+|reduce|extrema) failed to synchronize\b")
# both searched where the literals that start their matches stand ("cu", "release ", "thrust", ...)
_TOOLKIT_RELEASE_SEARCH = StartSearch(_TOOLKIT_RELEASE)
_TOOLKIT_LIBRARY_SEARCH = StartSearch(_TOOLKIT_LIBRARY)


def cuda_toolkit(text: str) -> str | None:
    """A CUDA toolkit release the log names, or a toolkit library its failing kernel or frame is in, else None."""
    head = text[:SCAN]
    low = lowered(head)
    # every match of the release pattern holds "cu" (CUDA, cu118) or "release "; of the library pattern, "::"
    # or one of the libraries' names, which all hold "cu"
    if "cu" in low or "release " in low:
        for search in (_TOOLKIT_RELEASE_SEARCH, _TOOLKIT_LIBRARY_SEARCH):
            m = search(head)
            if m:
                return m.group(0)
    elif "::" in head:
        m = _TOOLKIT_LIBRARY_SEARCH(head)
        if m:
            return m.group(0)
    if "failed to synchronize" not in head:
        return None
    m = _THRUST_SYNC.search(head)
    return f"thrust::{m.group(1) or m.group(2)}" if m else None


# Open MPI's signal report, "[%s:%05d] *** Process received signal ***" with the host's name and the process id
# (opal/util/stacktrace.c), and Slurm's "srun: error: NODE: task N: STATUS"
_HOST = re.compile(
    r"^\[([A-Za-z][\w.-]{0,62}):\d+\] \*\*\* Process received signal \*\*\*"
    r"|^srun: error: ([A-Za-z][\w.-]{0,62}): tasks? \d",
    re.MULTILINE,
)


def host(text: str) -> str | None:
    """The machine the log names as the one that failed (Open MPI's signal report, Slurm's task error), else None."""
    head = text[:SCAN]
    if "***" not in head and "srun" not in head:
        return None
    m = _HOST.search(head)
    return (m.group(1) or m.group(2)) if m else None


def gtest_run(text: str) -> bool:
    """Whether the log is a googletest binary's run (a C++ test suite's, which wrote its own inputs)."""
    head = text[:SCAN]
    return "[ RUN" in head and _GTEST_RUN.search(head) is not None


# the GPU runtimes other than CUDA, by names only their APIs, tools and targets use; the first that matches names
# the runtime (chipStar, HIP on OpenCL or Level Zero, before HIP and OpenCL)
_GPU_RUNTIMES = (
    ("chipStar", re.compile(r"\bchipStar\b|\bCHIP-SPV\b|\bCHIP_BE\b|\blibCHIP\b")),
    (
        "HIP/ROCm",
        re.compile(
            r"\bhip(?:Error[A-Z]\w*|Malloc\w*|Memcpy\w*|LaunchKernel\w*|DeviceSynchronize|GetLastError|ModuleLoad\w*)\b"
            r"|\bHIP[ _]error\b|\bROCm\b|/opt/rocm\b|\bhipcc\b|\bgfx\d{3,4}[a-z]?\b|\bHSA_STATUS_\w+"
        ),
    ),
    (
        "OpenCL",
        re.compile(
            r"\bOpenCL\b|\bCL_(?:INVALID|OUT_OF|MEM_OBJECT|BUILD_PROGRAM|DEVICE_NOT|COMPILER_NOT)\w*"
            r"|\bcl(?:Enqueue[A-Z]\w*|BuildProgram|CreateKernel|CreateBuffer|Finish|GetPlatformIDs)\b|\bpyopencl\b"
        ),
    ),
    (
        "SYCL",
        re.compile(r"\bSYCL\b|\bsycl::|\bDPC\+\+|\bLevel[ -]Zero\b|\blevel_zero\b|\bZE_RESULT_\w+|\bUR_RESULT_\w+"),
    ),
    (
        "Metal",
        re.compile(
            r"\bMTL[A-Z][a-z]\w*|\bMPSGraph\b|\bMPS backend\b|\bdevice=['\"]mps['\"]"
            r"|\bMetal (?:API|shader|kernel|device|backend|GPU)s?\b"
        ),
    ),
)
# CUDA named in the same log (a CUDA error or platform, a driver API call, nvcc, an NVIDIA GPU): the program may
# have run there, and CUDA's tools apply
_CUDA_SIGN = re.compile(
    r"\bCUDA\b|\bCUDA_ERROR_|\bcuda\w*Error\w*|\bnvidia-smi\b|\bsm_\d{2,3}\b|\bnvcc\b"
    r"|\bcu(?:Link|Module|Init|Ctx|Mem|Launch|Stream|Device)[A-Z]?\w*\(|\bcompute-sanitizer\b|\bNVIDIA\b|\bGeForce\b"
)


def gpu_runtime(text: str) -> str | None:
    """The GPU runtime other than CUDA the log shows (chipStar, HIP/ROCm, OpenCL, SYCL, Metal), where it shows no
    CUDA device or CUDA call.

    >>> gpu_runtime("hipErrorIllegalAddress: an illegal memory access was encountered")
    'HIP/ROCm'
    >>> gpu_runtime("clEnqueueNDRangeKernel failed: CL_INVALID_WORK_GROUP_SIZE")
    'OpenCL'
    >>> gpu_runtime("RuntimeError: CUDA error: an illegal memory access was encountered") is None
    True
    """
    head = text[:SCAN]
    found = next((name for name, search in _runtime_searches() if search(head)), None)
    if found is None or _CUDA_SIGN.search(head):
        return None
    return found


@functools.cache
def _runtime_searches() -> tuple[tuple[str, Callable[[str], bool]], ...]:
    """:data:`_GPU_RUNTIMES`' searches, each answered by the pattern's anchor test where it has one (every log is
    asked; few name another runtime)."""
    return tuple((name, hit_test(rx)) for name, rx in _GPU_RUNTIMES)


def tpu(text: str) -> bool:
    """Whether the log shows the program ran on a TPU, and shows no CUDA device."""
    head = text[:SCAN]
    if "tpu" not in lowered(head):
        return False
    # a TPU sign is on one line (no pattern of _TPU crosses one), so the kept lines hold one only where the
    # log does: most logs that hold the letters (output, input) hold none, and are not split into lines
    if _TPU_SEARCH(head) is None:
        return False
    lines = [line for line in head.split("\n") if not _NO_TPU.search(line)]
    kept = "\n".join(lines)
    return _TPU_SEARCH(kept) is not None and _CUDA_DEVICE_SEARCH(kept) is None


# "masked" (rows, values, keys) anywhere, or a mask on a line about an attention or a softmax (a Triton
# load's `mask=` alone is a bound, not a masked row)
_MASKED = re.compile(r"(?i)(?<![a-z])(?:fully[- ])?masked(?![a-z])")
_MASK = re.compile(r"(?i)(?<![a-z])mask(?:s|ing)?(?![a-z])")
_MASKED_SEARCH = StartSearch(_MASKED)
_ATTENTION = re.compile(r"(?i)softmax|attention|(?<![a-z])attn|(?<![a-z])lse(?![a-z])|logsumexp|fmha|fattn|causal")

# a release or a commit: after words that only say "later" (after, since), a version of three parts
# (14.0.1), one with a `v` (v1.2) or a commit hash (7 to 40 hex digits, at least one a letter and one a
# digit, so that neither a word nor a count reads as one), since "after 5.0 seconds" names no release;
# after words about a change (upgrading to, regression in), a version of two parts (2.3) too
_HASH = r"(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}"
_TAG = r"(?:[-.]?(?:rc|post|dev|a|b)\d*)?"
_STRICT = r"(?:v\d+(?:\.\d+)*" + _TAG + r"|\d+\.\d+\.\d+(?:\.\d+)*" + _TAG + "|" + _HASH + ")"
_LOOSE = r"(?:v?\d+\.\d+(?:\.\d+)*" + _TAG + "|" + _HASH + ")"
# up to four words (a package's or a change's name) before the release or commit, which may stand in
# parentheses
_NAME = r"\s+(?:[\w:./@+-]+\s+){0,4}?\(?("
#: words one of which every regression pattern needs (a cheap test before the patterns search the log)
_REGRESSION_WORDS = _words(
    "after",
    "since",
    "introduced",
    "broke",
    "regress",
    "start",
    "began",
    "begin",
    "upgrad",
    "updat",
    "bump",
)
_REGRESSION = (
    re.compile(r"(?i)\b(?:after|since)" + _NAME + _STRICT + r")\)?(?![\w.])"),
    re.compile(
        r"(?i)\b(?:introduced (?:in|by)|broken (?:in|by)|broke (?:in|with)|regress(?:ed|ion)? (?:in|by|since|from)"
        r"|(?:started|began|begins|starts) (?:in|with|failing (?:in|with|after|since))"
        # "upgraded to", not "Please upgrade to 12.6.3", which is advice, not where the failure began
        r"|(?:upgrad|updat|bump)(?:ed|ing) (?:to|from))" + _NAME + _LOOSE + r")\)?(?![\w.])"
    ),
)


def masked(text: str) -> bool:
    """Whether the log speaks of a mask (an attention's or a softmax's masked rows, a masked load)."""
    head = text[:SCAN]
    if "mask" not in lowered(head):
        return False
    if _MASKED_SEARCH(head):
        return True
    return any(_ATTENTION.search(line) for line in head.splitlines() if _MASK.search(line))


def regression_at(text: str) -> str | None:
    """The release or commit the log names as the one the failure began with, else None."""
    head = text[:SCAN]
    low = lowered(head)
    if not _holds(low, _REGRESSION_WORDS):
        return None
    found = [m for m in (find(head) for find in _regression_finds()) if m]
    return min(found, key=lambda m: m.start()).group(1) if found else None


@functools.cache
def _regression_finds() -> tuple[Callable[[str], re.Match[str] | None], ...]:
    """Each regression pattern's search, tried only where one of the words that start its matches stands
    (:func:`diagnose.regex_anchor.start_find`: the same match, without trying the case-folded leading
    alternation at every place of the log)."""
    return tuple(start_find(p) or p.search for p in _REGRESSION)


#: CPython's str() of a SyntaxError (and IndentationError, TabError) with a file and a line: "%S (%U, line %ld)"
#: (Objects/exceptions.c, SyntaxError_str), as a harness that keeps str(exception) records it
_SYNTAX_STR = re.compile(r"\A[^\n]{1,300} \(((?:[^\s(),]+/)*[^\s(),]+\.py), line (\d+)\)\n")


def syntax_error_at(text: str) -> str | None:
    """``FILE.py, line N`` when the log's first line is a SyntaxError's message as ``str()`` gives it.

    >>> syntax_error_at("invalid syntax (kernel_1.py, line 2)\\nerror_type: CompilationError\\n")
    'kernel_1.py, line 2'
    >>> syntax_error_at("Traceback (most recent call last):\\n") is None
    True
    """
    m = _SYNTAX_STR.match(text)
    return f"{m[1]}, line {m[2]}" if m else None


# a conda-build prefix: conda-build builds a package under conda-bld/PKG_TIMESTAMP/ (conda-forge's CI under
# /home/conda/feedstock_root/build_artifacts/PKG_TIMESTAMP/), with the build tools in `_build_env` ($BUILD_PREFIX) and
# the host dependencies in `_h_env_placehold...` ($PREFIX, padded so the path can be rewritten at install time); a
# path of one at run time is a directory the package kept from its build (conda-build documentation, "Environment
# variables": BUILD_PREFIX, PREFIX)
_CONDA_BUILD_PREFIX = re.compile(
    r"(?:[A-Za-z]:)?[\w.~/\\-]*?(?:conda-bld|feedstock_root[/\\]build_artifacts)[/\\][\w.+-]+[/\\]"
    r"(?:_build_env|_h_env\w*)"
)
# a conda installation's prefix, or one of its environments: the installers' default folders (Anaconda, Miniconda,
# Miniforge, Mambaforge, micromamba; /opt/conda in the project's Docker images), then envs/NAME
_CONDA_ENV = re.compile(
    r"(?:[A-Za-z]:)?[\w.~/\\-]*?[/\\](?:(?:ana|mini)conda\d?|miniforge\d?|mambaforge\d?|micromamba|opt[/\\]conda)"
    r"(?:[/\\]envs[/\\][\w.+-]+)?(?=[/\\]|\s|$)",
    re.IGNORECASE,
)
#: what every match of :data:`_CONDA_ENV` holds after its path's first characters: the folder and what follows it.
#: Searched alone it is led by a separator (re scans for one), where the whole pattern tries a lazy run of path
#: characters at every place of the log
_CONDA_FOLDER = re.compile(_CONDA_ENV.pattern[_CONDA_ENV.pattern.index(r"[/\\](?:") :], re.IGNORECASE)
#: a character of the path run :data:`_CONDA_ENV` starts with
_PATH_CHAR = re.compile(r"[\w.~/\\-]", re.IGNORECASE)


_CONDA_WORDS = _words("conda", "miniforge", "mambaforge", "micromamba")


def conda_build_prefix(text: str) -> str | None:
    """A conda-build build or host prefix the log shows (a path a conda package kept from its build), else None.

    >>> conda_build_prefix("access(\\"/home/conda/feedstock_root/build_artifacts/jaxlib_1725045424189/_build_env/"
    ...                    "targets/x86_64-linux/nvvm/libdevice\\", F_OK) = -1 ENOENT")
    '/home/conda/feedstock_root/build_artifacts/jaxlib_1725045424189/_build_env'
    >>> conda_build_prefix("/opt/miniconda3/envs/jax/lib/python3.11/site-packages/jax/__init__.py") is None
    True
    """
    head = text[:SCAN]
    if "conda-bld" not in head and "build_artifacts" not in head:
        return None
    m = _CONDA_BUILD_PREFIX.search(head)
    return m[0] if m else None


def conda_env(text: str) -> str | None:
    """The conda installation or environment the log's paths are in (the first one shown), else None.

    >>> conda_env('File "/home/u/miniconda3/envs/jax/lib/python3.11/site-packages/jax/_src/api.py", line 1')
    '/home/u/miniconda3/envs/jax'
    >>> conda_env("/usr/lib/python3/dist-packages/torch/__init__.py") is None
    True
    """
    head = text[:SCAN]
    low = lowered(head)
    if not _holds(low, _CONDA_WORDS):
        return None
    # the first place the folder stands; a match starts in the run of path characters that holds it (or at the
    # drive letter just before the run): none starts further left, since a match's path run holds its folder
    folder = _CONDA_FOLDER.search(head)
    if folder is None:
        return None
    start = folder.start()
    while start > 0 and _PATH_CHAR.match(head, start - 1):
        start -= 1
    m = _CONDA_ENV.search(head, max(0, start - 2))
    return m[0] if m else None


# the PyTorch release and the CUDA it was built with, as torch.utils.collect_env prints them (its env_info_fmt:
# "PyTorch version: {torch_version}", "CUDA used to build PyTorch: {cuda_compiled_version}"), or a wheel's version
# with its local tag (`torch==1.6.0+cu101`, pip list's `torch   1.6.0+cu101`)
_TORCH_VERSION = re.compile(r"^\s*PyTorch version: (\d+\.\d+(?:\.\d+)?)", re.MULTILINE)
_TORCH_BUILT_CUDA = re.compile(r"^\s*CUDA used to build PyTorch: (\d+\.\d+)", re.MULTILINE)
_TORCH_WHEEL = re.compile(r"\btorch(?:==|-| +)(\d+\.\d+(?:\.\d+)?)\+cu(\d{2,3})\b")
_TORCH_WHEEL_SEARCH = StartSearch(_TORCH_WHEEL)


def torch_versions(text: str) -> tuple[str | None, str | None]:
    """The PyTorch release the log shows and the CUDA it was built with (each None when not shown).

    >>> torch_versions("PyTorch version: 1.6.0\\nIs debug build: No\\nCUDA used to build PyTorch: 10.2\\n")
    ('1.6.0', '10.2')
    >>> torch_versions("torch==1.6.0+cu101")
    ('1.6.0', '10.1')
    >>> torch_versions("RuntimeError: Cuda error: 209")
    (None, None)
    """
    head = text[:SCAN]
    if "PyTorch version" not in head and "torch" not in head:
        return None, None
    version = built = None
    m = _TORCH_VERSION.search(head)
    if m:
        version = m[1]
        c = _TORCH_BUILT_CUDA.search(head)
        built = c[1] if c else None
    w = _TORCH_WHEEL_SEARCH(head)
    if w:
        version = version or w[1]
        built = built or f"{w[2][:-1]}.{w[2][-1]}"
    return version, built


# CUDA_LAUNCH_BLOCKING set to 1 for the run: at the start of a command line (after a prompt), by export/set/env, by
# os.environ, or in an environment listing ("CUDA_LAUNCH_BLOCKING: 1"); PyTorch's hint "consider passing
# CUDA_LAUNCH_BLOCKING=1" (c10/cuda/CUDAException.cpp) is excluded by requiring one of these forms
_LAUNCH_BLOCKING = re.compile(
    r"(?im)^[\s$#>%]*(?:(?:export|set|env)\s+)?CUDA_LAUNCH_BLOCKING=[\"']?1[\"']?\s+\S"
    r"|^[\s$#>%]*(?:export|set)\s+CUDA_LAUNCH_BLOCKING=[\"']?1\b"
    r"|environ\[[\"']CUDA_LAUNCH_BLOCKING[\"']\]\s*=\s*[\"']1"
    r"|^\s*CUDA_LAUNCH_BLOCKING\s*[:=]\s*[\"']?1[\"']?\s*$"
)


def launch_blocking(text: str) -> bool:
    """Whether the log shows the run had CUDA_LAUNCH_BLOCKING=1 set (not PyTorch's hint to set it)."""
    head = text[:SCAN]
    return "CUDA_LAUNCH_BLOCKING" in head and _LAUNCH_BLOCKING.search(head) is not None


# QUDA's errorQuda: "PREFIX       last kernel called was (name=NAME,volume=...,aux=...)"
_LAST_KERNEL = re.compile(r"\blast kernel called was \(name=([^,()\s]+)")


def last_kernel(text: str) -> str | None:
    """The kernel a library's error report names as launched last (QUDA's errorQuda), else None."""
    head = text[:SCAN]
    if "last kernel" not in head:
        return None
    m = _LAST_KERNEL.search(head)
    return m.group(1) if m else None


# CUDA's graphics interop (cuda_runtime_api.h's cudaGraphics*, cuda_gl_interop.h, cuda_d3d11_interop.h,
# cuda_egl_interop.h; the driver API's cuGraphics*, cuImportExternal*) and programs' own words for it, on a failing line
_INTEROP_CALL = (
    r"\b(?:cuda|cu)Graphics\w*?(?:Register\w*|MapResources|UnmapResources|ResourceGetMapped\w+|SubResourceGetMapped\w+)"
    r"|\b(?:cuda|cu)(?:Import|Destroy)External(?:Memory|Semaphore)\b|\bimport_external_(?:memory|semaphore)\b"
    r"|\bcuda(?:GL|D3D9|D3D10|D3D11|EGL|VDPAU)(?:GetDevices|SetGLDevice|GetDevice|SetDirect3DDevice)\b"
    r"|\bregister\w*\s+(?:the\s+|an?\s+)?(?:open)?gl\s+(?:pixel\s+)?(?:buffer|texture|image|pbo|resource)"
)
_INTEROP = re.compile(
    rf"(?im)^(?=[^\n]*?(?P<call>{_INTEROP_CALL}))(?=[^\n]*(?:error|fail|invalid|not supported|code=\d+))"
)


def _failing_call(text: str, rx: re.Pattern[str], *words: str, folded: bool = False) -> str | None:
    """The ``call`` that ``rx`` finds on a failing line of the log's head, searched only where one of ``words``
    stands (in the lower-cased head with ``folded``: the one lowered copy the collectors share)."""
    head = text[:SCAN]
    hay = lowered(head) if folded else head
    if not any(w in hay for w in words):
        return None
    m = rx.search(head)
    return m.group("call") if m else None


def graphics_interop(text: str) -> str | None:
    """The CUDA graphics-interop call (or a program's words for it) that a failing line names, else None."""
    # a word every match of _INTEROP holds, lower-cased
    return _failing_call(
        text, _INTEROP, "graphics", "external", "register", "getdevice", "setgldevice", "setdirect3ddevice", folded=True
    )


# Mesa's GLSL compiler (src/compiler/glsl/glsl_parser_extras.cpp, _mesa_glsl_error): "%u:%u(%u): error: "
_GLSL_MESA = re.compile(r"(?m)^[ \t]*\d+:\d+\(\d+\): error: ([^\n]+)$")


def glsl_mesa_error(text: str) -> str | None:
    """The first error of a shader Mesa's GLSL compiler rejected, else None."""
    head = text[:SCAN]
    if "): error: " not in head:
        return None
    m = _GLSL_MESA.search(head)
    return m.group(1).strip() if m else None


_GGML_NO_CODE = re.compile(
    r"has no device code compatible with (?:CUDA|HIP) arch (\d+)\. ggml-cuda\.cu was compiled for: (\d+(?:[ ,]+\d+)*)"
)
# ggml_cuda_init's device list: "  Device 0: NVIDIA GeForce GTX 1080 Ti, compute capability 6.1, VMM: yes"
_GGML_DEVICE_CC = re.compile(r"\bDevice \d+: [^\n,]+, compute capability (\d+)\.(\d+)")


def ggml_arch_gap(text: str) -> tuple[str, str] | None:
    """(this-arch | newer-gpu | undecided, the values that decided) for ggml's no-device-code report, else None."""
    head = text[:SCAN]
    if "has no device code compatible" not in head:
        return None
    m = _GGML_NO_CODE.search(head)
    if m is None:
        return None
    arch = int(m.group(1))
    built = sorted({int(a) for a in re.findall(r"\d+", m.group(2))})
    if arch not in built:  # the code that ran is one the build made: a list without it is not this build's
        return None
    newer = [a for a in built if a > arch]
    from diagnose.collectors import symbol_lookup

    gpus = [int(a) * 100 + int(b) * 10 for a, b in _GGML_DEVICE_CC.findall(head)]
    gpus += [round(cc * 100) for cc in symbol_lookup.device_ccs(head)]
    where = f"arch {arch} ran; built for {','.join(map(str, built))}"
    if gpus:
        gpu = max(gpus)
        where += f"; the GPU's capability {gpu // 100}.{gpu % 100 // 10}"
        return ("newer-gpu" if gpu > arch and not newer else "this-arch"), where
    if newer:
        return "this-arch", f"{where}: a newer GPU would have run the code of {newer[0]}"
    return "undecided", where


_PREFETCH_WORD = re.compile(r"\b\w*prefetch\w*(?:\.(?:cpp|cu|cc|c))?\b", re.I)
_PREFETCH_ERROR = re.compile(r"error|fail|invalid|not supported", re.I)


def managed_prefetch(text: str) -> str | None:
    """The prefetch call (or source) a failing report names, on an error's line or within three lines of it."""
    head = text[:SCAN]
    if "refetch" not in head and "REFETCH" not in head:
        return None
    lines = head.splitlines()
    near = None
    for i, line in enumerate(lines):
        m = _PREFETCH_WORD.search(line)
        if m and _PREFETCH_ERROR.search(line):
            return m.group(0)  # on the error's own line
        if m and near is None and any(_PREFETCH_ERROR.search(x) for x in lines[max(0, i - 3) : i + 4]):
            near = m.group(0)
    return near


_IPC = re.compile(
    r"(?im)^(?=[^\n]*?(?P<call>\b(?:cuda|cu)Ipc(?:Get|Open|Close)(?:Mem|Event)Handle\b))"
    r"(?=[^\n]*(?:error|fail|invalid|not supported|return value))"
)


def cuda_ipc(text: str) -> str | None:
    """The CUDA IPC call a failing line names, else None."""
    return _failing_call(text, _IPC, "Ipc")


# a count of zero printed for an input: "(0 vertices, 0 edges)", "loaded 0 images", "num_points: 0", "Size([0, 3])"
_NOUNS = r"(?:vertices|vertexes|nodes|edges|elements|points|rows|samples|images|frames|items|boxes|triangles|faces|tokens|particles|atoms|records)"
_NOUN_WORDS = tuple(_NOUNS[3:-1].split("|"))
#: its forms, each with the lower-cased words one of which its every match holds, and the longer ones one of which
#: every match holds in a log of ASCII characters alone (whose lowered text is, letter for letter, what a match of
#: the case-folded pattern reads)
_EMPTY_INPUT_FORMS = tuple(
    (_words(*words), _words(*ascii_words), re.compile(rx))
    for words, ascii_words, rx in (
        (("(0 ",), ("(0 ",), rf"(?i)\(0 {_NOUNS}(?:, 0 {_NOUNS})*\)"),
        (
            (" 0 ",),
            tuple(f"{verb} 0 " for verb in ("loaded", "read", "found", "got", "with")),
            rf"(?i)\b(?:loaded|read|found|got|with) 0 {_NOUNS}\b",
        ),
        (
            _NOUN_WORDS,
            tuple(head + noun for head in ("num_", "num", "n_", "n") for noun in _NOUN_WORDS),
            rf"(?i)\b(?:num|n)_?{_NOUNS}\s*[:=]\s*0\b(?!\.)",
        ),
        (("size([0",), ("size([0",), r"(?i)\btorch\.Size\(\[0\b"),
    )
)


def empty_input(text: str) -> str | None:
    """A line the program printed with a zero count for its input (the whole line), else None."""
    head = text[:SCAN]
    low = lowered(head)
    is_ascii = head.isascii()  # which of a form's words its matches need
    starts = [
        m.start()
        for words, ascii_words, rx in _EMPTY_INPUT_FORMS
        if _holds(low, ascii_words if is_ascii else words)
        for m in (rx.search(head),)
        if m is not None
    ]
    if not starts:
        return None
    at = min(starts)
    start = head.rfind("\n", 0, at) + 1
    end = head.find("\n", at)
    return head[start : end if end >= 0 else len(head)].strip()


# a .cu/.cuh file named on a line that reports the error; files of frameworks, toolkits and installed packages are not
# the program's own
_CU_FILE = re.compile(r"(?<![\w./-])(/?(?:[\w.~-]+/)*[\w.-]+\.cuh?)\b(?![\w.])")
_ERROR_WORDS = re.compile(r"(?i)\berror\b|illegal memory access|\bfailed\b|\bfault\b")
_NOT_OWN = re.compile(
    r"(?i)(?:^|/)(?:aten|c10|THC|THCUNN|caffe2|torch|tensorflow|jaxlib|xla|cub|thrust|cutlass|cuda-[\d.]+|cuda|"
    r"site-packages|dist-packages|\.conda|conda-bld|_external_repositories|third_party|include)/"
)


def project_source(text: str) -> str | None:
    """A CUDA source of the program's own (not a framework's, toolkit's or package's) that an error line names."""
    head = text[:SCAN]
    if ".cu" not in head:
        return None
    for line in _cu_lines(head):
        for m in _CU_FILE.finditer(line):
            path = m.group(1)
            if _NOT_OWN.search(path):
                continue
            if _ERROR_WORDS.search(line) or _ERROR_WORDS.search(_next_line(head, line)):
                return path
    return None


#: the line breaks of str.splitlines but the newline
_OTHER_BREAKS = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def _cu_lines(head: str) -> Iterator[str]:
    """The lines of ``head.splitlines()[:400]`` that hold ".cu", in order: where newlines alone break the lines,
    found from each ".cu" instead of splitting the whole log."""
    if _OTHER_BREAKS.search(head):
        yield from (line for line in head.splitlines()[:400] if ".cu" in line)
        return
    index = counted = 0  # the line's index; the newlines counted up to
    pos = head.find(".cu")
    while pos >= 0:
        start = head.rfind("\n", 0, pos) + 1
        index += head.count("\n", counted, start)
        counted = start
        if index >= 400:
            return
        end = head.find("\n", pos)
        if end < 0:
            end = len(head)
        yield head[start:end]
        pos = head.find(".cu", end)


def _next_line(head: str, line: str) -> str:
    at = head.find(line)
    end = head.find("\n", at + len(line) + 1)
    return head[at + len(line) : end if end >= 0 else len(head)]


# words that say a failure comes and goes
_INTERMITTENT = re.compile(
    r"(?i)\b(?:intermittent(?:ly)?|sporadic(?:ally)?|randomly|non-?deterministic(?:ally)?|flaky"
    r"|not (?:every|each) (?:time|run)|sometimes (?:fails?|crash(?:es)?|works?|hangs?|passe?s?))\b"
)


#: the lower-cased words one of which every match of :data:`_INTERMITTENT` holds
_INTERMITTENT_WORDS = _words(
    "intermittent",
    "sporadic",
    "random",
    "deterministic",
    "flaky",
    "not every",
    "not each",
    "sometimes",
)


def intermittent(text: str) -> bool:
    """Whether the log says the failure comes and goes."""
    head = text[:SCAN]
    low = lowered(head)
    return _holds(low, _INTERMITTENT_WORDS) and _INTERMITTENT.search(head) is not None


# TensorFlow's TensorShape checks (tensorflow/core/framework/tensor_shape.cc: AddDimWithStatus, InitDims,
# RecomputeNumElements), every product of dimensions through MultiplyWithoutOverflow
_SHAPE_OVERFLOW = re.compile(
    r"Encountered overflow when multiplying (-?\d+ with -?\d+|shape dimensions)"
    r"|Shape (\[[\d,\s-]*\]) results in overflow when computing number of elements"
)


def shape_overflow(text: str) -> str | None:
    """What a framework's shape check found past int64: the two factors, the shape, or its words."""
    if "overflow when" not in text:
        return None
    m = _SHAPE_OVERFLOW.search(text[:SCAN])
    return (m.group(1) or m.group(2)) if m else None


# A pointer's alignment as a user prints it: CuPy's `x.data.ptr % 16`, PyTorch's `x.data_ptr() % 16`, NumPy's
# `x.ctypes.data % 16`, C/C++'s `(uintptr_t)p % 16` / `reinterpret_cast<uintptr_t>(p) % 16`, and its value after
# `=`, `:`, `->` on the line, or alone on the next line (a REPL's answer); `== 0` is a check in code, not a value
_POINTER_MOD = re.compile(
    r"(?P<expr>(?:\(\s*u?intptr_t\s*\)\s*|reinterpret_cast<\s*u?intptr_t\s*>\s*)?"
    r"[\w.\[\]()]*?(?:\bdata\.ptr|\bdata_ptr\(\)|\bctypes\.data|\bunsafe_ptr\(\)|\bpointer\(\)|\bptr\b|\baddr\w*"
    r"|\bu?intptr_t\b[^%\n]{0,40})\)?)"
    r"\s*%\s*(?P<mod>2|4|8|16|32|64|128|256)\b(?P<tail>[^\n]*)"
)
_POINTER_VALUE = re.compile(r"^\s*\)?\s*(?:(?:\#|//)\s*)?(?:=(?!=)|:|->|→)\s*(?P<rem>\d+)\b")
_REPL_VALUE = re.compile(r"^\s*(?:Out\[\d+\]:\s*)?(?P<rem>\d+)\s*$")
# what every _POINTER_MOD match holds, found by its literal '%' (a progress bar's "100%" has no modulus after it)
_MOD_ONLY = re.compile(r"%\s*(?:2|4|8|16|32|64|128|256)\b")


def pointer_misaligned(text: str) -> str | None:
    """A pointer's alignment the log prints with a remainder other than 0: ``a[1].data.ptr % 16 = 8``.

    >>> pointer_misaligned(">>> a[0].data.ptr % 16\\n0\\n>>> a[1].data.ptr % 16\\n8")
    'a[1].data.ptr % 16 = 8'
    >>> pointer_misaligned("x.data_ptr() % 16: 0")
    >>> pointer_misaligned("assert x.data_ptr() % 16 == 0")
    """
    if "%" not in text:
        return None
    head = text[:SCAN]
    if _MOD_ONLY.search(head) is None:
        return None
    for m in _POINTER_MOD.finditer(head):
        tail = m["tail"]
        v = _POINTER_VALUE.match(tail)
        if v is None and not tail.strip():
            nxt = head[m.end() + 1 :].split("\n", 1)[0] if m.end() < len(head) else ""
            v = _REPL_VALUE.match(nxt)
        if v is not None and int(v["rem"]) % int(m["mod"]) != 0:
            expr = m["expr"].strip().lstrip(">").strip()
            if expr.count("(") > expr.count(")"):  # print(x.data_ptr() % 16): the call around it is not the pointer
                expr = expr.split("(", 1)[1]
            return f"{expr} % {m['mod']} = {v['rem']}"
    return None


# A compiled call on a line the log marks wrong: JAX's `jax.jit(f)(x)`, PyTorch's `torch.compile(f)`, TensorFlow's
# `tf.function(f)` / `jit_compile=True`, with a verdict on the same line (a cross, FAIL, a comment "# wrong")
_COMPILED_CALL = re.compile(r"\b(?:jax\.jit|torch\.compile|tf\.function|jit_compile\s*=\s*True)\b")
_WRONG_MARK = re.compile(
    r"[✗✘❌]|\bFAIL(?:ED)?\b|(?:\#|//)\s*(?:=>|->)?\s*(?i:wrong|incorrect|bad)\b|\((?i:wrong|incorrect)\)"
)


def compiled_wrong(text: str) -> str | None:
    """The compiled call (``jax.jit``, ``torch.compile``, ``tf.function``) of the first line that the log marks wrong.

    >>> compiled_wrong('print("jit closure: ", jax.jit(lambda: jnp.sum(mask))())   # 8160 ✗  (= 32 × 255)')
    'jax.jit'
    >>> compiled_wrong("out = jax.jit(f)(x)  # 32, as expected")
    """
    if "jit" not in text and "compile" not in text and "function" not in text:
        return None
    for line in text[:SCAN].split("\n"):
        if len(line) > 2000:
            continue
        m = _COMPILED_CALL.search(line)
        if m is not None and _WRONG_MARK.search(line, m.end()):
            return m.group(0).split("=")[0].strip()
    return None
