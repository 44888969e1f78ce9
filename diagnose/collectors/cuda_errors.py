"""CUDA runtime/driver errors in any surface form → :class:`~diagnose.facts.CudaFacts`.

Every form is normalised to the runtime's ``cudaErrorXxx`` name, with its numeric
code and the runtime's own message, from ``diagnose/data/cuda_errors.json`` (made by
``scripts/gen-cuda-errors`` from the toolkit's libcudart and cuda.h).

A real sample (captured here: ``python -c "import cupy; cupy.zeros(4)"``, cupy-cuda13x
14.2.0, no driver), last line:

    cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version

>>> f = parse("cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorInsufficientDriver: "
...           "CUDA driver version is insufficient for CUDA runtime version")
>>> f.error, f.code, f.form
('cudaErrorInsufficientDriver', 35, 'cupy')

PyTorch's wording, the message alone (``fla-org/flash-linear-attention#186``):

>>> f = parse("RuntimeError: CUDA error: an illegal memory access was encountered")
>>> f.error, f.code, f.message, f.form
('cudaErrorIllegalAddress', 700, 'an illegal memory access was encountered', 'torch')

Numeric forms name the API call (``HPCLab-933/Vina-CUDA#3``):

>>> f = parse('CUDA error at ./inc/cuda/kernel2.cu:596 code=700(cudaErrorIllegalAddress) "cudaDeviceSynchronize()"')
>>> f.error, f.api_call, f.form
('cudaErrorIllegalAddress', 'cudaDeviceSynchronize()', 'raw')

and keep it when the quotes around the statement came back typographic (``morsingher/modern_mvs#1``):

>>> parse('CUDA error at /home/username/modern_mvs/src/cuda/texture_array.cu:19 code=1(cudaErrorInvalidValue) '
...       '\u201ccudaMallocArray(&arrays[i], &channelDesc, cols, rows)\u201d').api_call
'cudaMallocArray(&arrays[i], &channelDesc, cols, rows)'

or when the terminal wrapped the statement before its closing quote (``flatironinstitute/finufft#468``):

>>> parse('CUDA error at memtransfer_wrapper.cu:33 code=801(cudaErrorNotSupported) "cudaMallocAsync(&d_plan->binsize, '
...       'numbins * sizeof(int), s').api_call
'cudaMallocAsync'

A legacy check prints the number of the runtime it ran on: CUDA 10.1 renumbered the enum, and the number
the log printed is the one quoted (``pytorch/pytorch#3865``, CUDA 9: 48, which is 209 today):

>>> f = parse("THCudaCheck FAIL file=THCTensorCopy.cu line=204 error=48 : no kernel image is available for execution on the device")
>>> f.error, f.code, f.code_old_numbering
('cudaErrorNoKernelImageForDevice', 48, True)

Driver-API, Numba, Triton and HIP names map to the runtime name with the same meaning:

>>> parse("CUDA_ERROR_ILLEGAL_ADDRESS").error
'cudaErrorIllegalAddress'
>>> parse("numba.cuda.cudadrv.driver.CudaAPIError: [700] Call to cuCtxSynchronize results in UNKNOWN_CUDA_ERROR").error
'cudaErrorIllegalAddress'
>>> parse("Memory access fault by GPU").form
'hip'

A call that links or loads generated device code is marked (``api_call_links``):

>>> f = parse("numba.cuda.cudadrv.driver.CudaAPIError: [999] Call to cuLinkComplete results in CUDA_ERROR_UNKNOWN")
>>> f.error, f.api_call, f.api_call_links
('cudaErrorUnknown', 'cuLinkComplete', True)
>>> parse("nothing to see here") is None
True

Forms (``form``): torch, torch-accelerator, cupy, triton, numba, rust (a Rust binding's enum variant), raw (a ``cudaErrorXxx``
name, a ``code=N(name)`` or a bare runtime message), driver-api (``CUDA_ERROR_XXX``),
legacy (Lua torch/THC ``cuda runtime error (N) :``, Caffe ``Check failed: error ==
cudaSuccess (N vs. 0)``), hip, cuda-gdb (its hardware exception report, ``CUDA Exception: Warp Misaligned
Address``, read as the runtime error the same fault returns), library (a CUDA library's own
``<what failed>: <cudaGetErrorString text>``, below).  Old numeric codes (CUDA < 10.1 renumbered the runtime
enum) are never trusted over the message printed next to them.

Thrust's ``system_error`` (and CUB's checks inside it) print what failed, a colon and
``cudaGetErrorString``'s text, without the error's name before Thrust 1.9.x
(``thrust/system/detail/system_error.inl``: ``what()`` is the message, ``": "``, then the category's
message; ``throw_on_error(status, "radix_sort: failed on 1st step")`` in
``thrust/system/cuda/detail/sort.h``).  Such a tail is read when the part before it names a CUDA library
or call, or is one of Thrust's step wordings, or the log names Thrust's ``system_error``
(``NVIDIA/thrust#563``):

>>> parse("after cub_::DeviceRadixSort::SortPairs(1): invalid argument").error
'cudaErrorInvalidValue'
>>> parse("radix_sort: failed on 1st step: invalid device function").form
'library'
>>> parse("rm: cannot remove 'x': operation not permitted") is None
True
>>> parse("GPUassert: invalid argument main.cu 45").error
'cudaErrorInvalidValue'
>>> parse("cuda assert: an illegal memory access was encountered /src/lib/include/gpu_cuda.h 48.").error
'cudaErrorIllegalAddress'

A driver-API check macro's bare ``CUresult`` (ArrayFire's ``CU_CHECK``: ``"CU Error (%d)\\n"``) is a driver code:

>>> parse("CU Error (1)").error, parse("CU error 209 at main.cu:40").error
('cudaErrorInvalidValue', 'cudaErrorNoKernelImageForDevice')
>>> parse("ICU error 5") is None
True
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from diagnose.catalogue import compared
from diagnose.collectors import symbol_lookup, toolkit_release
from diagnose.collectors.gate_words import gate
from diagnose.collectors.negation import unsaid
from diagnose.cuda_error_table import _DISTINCTIVE_LEN, _Tables, _trie_pattern, tables  # noqa: F401 (the table's home)
from diagnose.facts import CudaFacts
from diagnose.regex_anchor import start_find

# cheap prefilter: a line must contain one of these to be looked at
_HINTS = (
    "cuda",
    "CUDA",
    "Cuda",
    "hipError",
    "HIP error",
    "Memory access fault by GPU",
    "device-side assert",
    "Assertion",
    "Check failed: error ==",
    "GPUassert",
    # distinctive runtime messages that logs print without the word CUDA ("launch failed: no kernel
    # image is available ...", "Error: too many resources requested for launch")
    "kernel image",
    "too many resources",
    "invalid configuration argument",
    "illegal memory access",
    "misaligned address",
    "illegal instruction",
    "launch timed out",
    "unspecified launch failure",
    "invalid device function",
    "driver version is insufficient",
    "uncorrectable ECC",
    "PTX was compiled with an unsupported toolchain",
    # a CUDA library's "<what failed>: <cudaGetErrorString text>" (Thrust, CUB): see _library_tail_hit
    "cub",
    "thrust",
    "failed on ",
    "failed to synchronize",
    "invocation",
    # cudaGetErrorString's text after "error code" (see _ERROR_CODE_TEXT)
    "rror code",
    # a driver-API CUresult printed as a number by a CU_CHECK macro (see _CUDA_NUMBER)
    "CU error",
    "CU Error",
    # a binding's CUresult it has no name for, and a driver-API call's status after its name ("cuLaunchKernel ->
    # Returned: 701"): the driver API's call prefixes, which hold no "cuda"
    "CUresult",
    "cuLaunch",
    "cuMem",
    "cuModule",
    "cuCtx",
    "cuInit",
    "cuStream",
    "cuEvent",
    "cuDevice",
    "cuGraph",
    "cuLink",
    "cuIpc",
    "cuImport",
    # the debugger API's name of a hardware exception, as the driver's GPU core dump prints it
    "CUDBG_EXCEPTION_",
)
#: whether a line holds one of _HINTS (one search of their alternation: a line is short, and there are many)
_HINT_IN_LINE = re.compile("|".join(map(re.escape, _HINTS))).search


def name_for_message(text: str) -> str | None:
    """The runtime name whose message appears in ``text`` (the longest that does).

    >>> name_for_message("Triton Error [CUDA]: an illegal instruction was encountered")
    'cudaErrorIllegalInstruction'
    >>> name_for_message("CUDA error: the launch timed out and was terminated")
    'cudaErrorLaunchTimeout'
    """
    m = tables().message_re.search(text.lower())
    return tables().by_message[m[0]] if m else None


def name_for_driver(name: str) -> str | None:
    """``CUDA_ERROR_ILLEGAL_ADDRESS`` → ``cudaErrorIllegalAddress`` (None when the runtime has no such code)."""
    return tables().driver.get(name)


def name_for_hip(name: str) -> str | None:
    """``hipErrorIllegalAddress`` → ``cudaErrorIllegalAddress`` when CUDA has the same name."""
    cuda = "cuda" + name[3:] if name.startswith("hip") else None
    return cuda if cuda in tables().by_name else None


def name_for_rust_variant(variant: str) -> str | None:
    """A Rust binding's CUresult variant → the runtime name (None unless the driver has that error).

    >>> name_for_rust_variant("NoBinaryForGpu"), name_for_rust_variant("InvalidPtx"), name_for_rust_variant("Foo")
    ('cudaErrorNoKernelImageForDevice', 'cudaErrorInvalidPtx', None)
    """
    return tables().driver.get("CUDA_ERROR_" + re.sub(r"(?<!^)(?=[A-Z])", "_", variant).upper())


# --- the surface forms ---------------------------------------------------------------

#: The runtime's errors that leave the process's context unusable: the CUDA Runtime API's reference says of each
#: that it "leaves the process in an inconsistent state and any further CUDA work will return the same error" (an
#: assert: "the device cannot be used again"), so a program that goes on (a test runner's next test, a second
#: set-device) fails again with whatever the next call returns.
STICKY = frozenset(
    {
        "cudaErrorIllegalAddress",
        "cudaErrorLaunchTimeout",
        "cudaErrorAssert",
        "cudaErrorHardwareStackError",
        "cudaErrorIllegalInstruction",
        "cudaErrorMisalignedAddress",
        "cudaErrorInvalidAddressSpace",
        "cudaErrorInvalidPc",
        "cudaErrorLaunchFailure",
        "cudaErrorExternalDevice",
    }
)

#: the CUDA samples' check (helper_cuda.h: ``"CUDA error at %s:%d code=%d(%s) \"%s\""``); a log pasted through an editor
#: or a web page often carries the quotes around the statement as typographic ones (U+201C, U+201D)
_RAW_CODE = re.compile(
    r"code=(?P<code>\d+)\((?P<name>cudaError\w+|cudaSuccess)\)(?:\s+[\"\u201c](?P<call>[^\"\u201d]+)[\"\u201d])?"
)
#: the same check where helper_cuda.h's name table did not know the code (an older samples' copy built against a newer
#: runtime names it "<unknown>"): the number alone, read only where both numberings of the runtime's codes agree
_RAW_CODE_UNNAMED = re.compile(
    r"\bCUDA error at \S+ code=(?P<code>\d+)\((?:<unknown>|unknown)?\)(?:\s+[\"\u201c](?P<call>[^\"\u201d]+)[\"\u201d])?"
)
_RAW_NAME = re.compile(r"\b(?P<name>cudaError[A-Z]\w*)")
_CUPY = re.compile(r"CUDA(?:Runtime|Driver)Error: (?P<name>cudaError\w+|CUDA_ERROR_\w+)")
_DRIVER = re.compile(r"\b(?P<name>CUDA_ERROR_[A-Z0-9_]+)")
# the driver's and nvJitLink's calls that link or load device code (cuda.h: cuLinkCreate/AddData/AddFile/Complete,
# cuModuleLoad/LoadData/LoadDataEx/LoadFatBinary, cuLibraryLoadData/LoadFromFile; nvJitLink.h: nvJitLinkCreate,
# nvJitLinkAddData, nvJitLinkComplete ...), with their _v2 and runtime cudaLibraryLoad* forms
_LINK_CALL = re.compile(r"(?:cuLink|cuModuleLoad|cuLibraryLoad|cudaLibraryLoad|nvJitLink)\w*")
_NUMBA_CODE = re.compile(r"CudaAPIError: \[(?P<code>-?\d+)\] Call to (?P<call>\w+) results in (?P<what>\w+)")
_HIP_NAME = re.compile(r"\b(?P<name>hipError[A-Z]\w*)")
#: Rust bindings print the driver's CUresult as an enum variant in CamelCase (rustacuda / cust
#: ``CudaError::NoBinaryForGpu``, rust-gpu-tools ``GPUError::Cuda(NoBinaryForGpu)`` in a Debug print)
_RUST_VARIANT = re.compile(r"\b(?:Cuda\(|CudaError::)(?P<name>[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)*)\b")
_LEGACY = re.compile(r"cuda runtime error \((?P<code>\d+)\) : (?P<msg>.*?)(?: at \S+:\d+)?\s*$")
_THC = re.compile(r"THCudaCheck FAIL file=\S+ line=\d+ error=(?P<code>\d+) : (?P<msg>.*?)\s*$")
_CAFFE = re.compile(r"Check failed: error == cudaSuccess \((?P<code>\d+) vs\. 0\)\s*(?P<msg>.*?)\s*$")
_OLD_TRITON = re.compile(r"CUDA: Error- (?P<what>[a-z ]+)")
#: the check macro most CUDA code copies (Stack Overflow's "gpuErrchk"): fprintf(stderr, "GPUassert: %s %s %d\n",
#: cudaGetErrorString(code), file, line), and the same macro under a project's own name ("cuda assert: %s %s %d.")
_GPUASSERT = re.compile(r"\b(?:GPU|[Gg]pu|CUDA|[Cc]uda)[ _]?[Aa]ssert: (?P<msg>.+?)(?: \S+ \d+\.?)?\s*$")
#: PyTorch's "CUDA error: <message>" (HIP's on ROCm), and libnvidia-container's lower-case "cuda error: <message>"
#: (src/error.c, after its own stage prefix: "nvidia-container-cli: initialization error: cuda error: unknown error")
_TORCH = re.compile(r"(?P<hip>CUDA|HIP|cuda) error: (?P<msg>.+)")
_TRITON = re.compile(r"Triton Error \[(?:CUDA|HIP)\]: (?P<msg>.+)")
_DEVICE_ASSERT = re.compile(r"block: \[\d+,\d+,\d+\], thread: \[\d+,\d+,\d+\] (?P<msg>Assertion .*? failed\.)")
#: a device assertion macro of a framework's own that prints the CUDA source's file and line before the condition
#: (PaddlePaddle's PADDLE_ASSERT: ``"%s:%d Assertion `%s` failed.\n"``, then a trap): no block and thread printed;
#: glibc's host assert puts ``": function: "`` between the line and "Assertion", which this leaves out
_DEVICE_ASSERT_AT = re.compile(r"\.cuh?:\d+ (?P<msg>Assertion `[^\n]+?` failed\.)")
#: cuda-gdb's hardware exceptions (its manual's table of CUDA_EXCEPTION_1..N, printed as "CUDA Exception:
#: Warp Misaligned Address", "received signal CUDA_EXCEPTION_6, Warp Misaligned Address.", or in Nsight Eclipse
#: Edition's debug view "(Suspended : Signal : CUDA_EXCEPTION_6:Warp Misaligned Address)") → the runtime
#: error the same fault returns to the host.  CUDA_EXCEPTION_15, "Invalid Managed Memory Access", is a host
#: thread's access to managed memory the GPU owns (the host faults; no kernel made an illegal access): the
#: catalogue family cuda-gdb-invalid-managed-memory-access reads it, not the runtime-error rules
_CUDA_GDB = re.compile(
    r"(?:\bCUDA Exception:|\bCUDA_EXCEPTION_\d+ ?[,:])\s*(?:(?:Lane|Warp|Device|Cluster)\s+)?(?P<what>[A-Za-z -]+?)\.?\)?\s*$"
)
#: the same exceptions as the debugger API names them (CUDBGException_t in cudadebugger.h), which the driver's GPU
#: core dump prints: "coredump: Detected an exception of type CUDBG_EXCEPTION_WARP_ILLEGAL_ADDRESS (14)"
_CUDBG = re.compile(r"\bCUDBG_EXCEPTION_(?:LANE|WARP|DEVICE|CLUSTER)_(?P<what>[A-Z_]+?)\b(?:\s*\(\d+\))?")
_CUDA_GDB_ERRORS = {
    "illegal address": "cudaErrorIllegalAddress",
    "out-of-range address": "cudaErrorIllegalAddress",
    "misaligned address": "cudaErrorMisalignedAddress",
    "illegal instruction": "cudaErrorIllegalInstruction",
    "invalid address space": "cudaErrorInvalidAddressSpace",
    "invalid pc": "cudaErrorInvalidPc",
    "user stack overflow": "cudaErrorHardwareStackError",
    "hardware stack overflow": "cudaErrorHardwareStackError",
    "assert": "cudaErrorAssert",
}
#: cuda-gdb's API error check (its manual, "Checking API Errors": ``set cuda api_failures``) prints the failed
#: call and its status in hex: "warning: Cuda API error detected: cudaLaunchKernel returned (0x62)", driver calls
#: too ("cuLaunchKernelEx returned (0x190)").  Driver codes never changed; runtime codes were renumbered in CUDA
#: 10.1, so a runtime code is read only where both numberings agree or the code exists only in the new one.
_CUDA_GDB_API = re.compile(
    r"\bCuda API error detected: (?P<call>(?:cuda|cu)[A-Z]\w*) returned \(0x(?P<code>[0-9a-fA-F]+)\)"
)
_CUDA_GDB_SAME_RUNTIME_CODES = frozenset({2, 3, 9})  # memory allocation, initialization, invalid configuration


def _runtime_code_unambiguous(code: int) -> bool:
    """A printed runtime code that names one error in both numberings (before and since CUDA 10.1), or that
    exists only in the new one."""
    return code in _CUDA_GDB_SAME_RUNTIME_CODES or (code >= 98 and code != 127)


def _cuda_gdb_error(what: str) -> str | None:
    """The runtime error of a cuda-gdb exception's name, in its manual's words ("Warp Out-of-range Address") or
    the debugger API's (``OUT_OF_RANGE_ADDRESS``)."""
    return _CUDA_GDB_ERRORS.get(
        " ".join(what.strip().lower().replace("_", " ").split()).replace("out of range", "out-of-range")
    )


_API_CALL = re.compile(r"Call to (\w+)|\b((?:cuda|cu)[A-Z]\w+(?:\(\))?)")


@dataclass
class _Hit:
    name: str
    form: str
    line: int
    api_call: str | None = None
    printed_code: int | None = field(
        default=None, repr=False
    )  # the number a legacy check printed beside the message (its runtime's numbering)


_Add = Callable[..., None]


def _named_hits(line: str, add: _Add, hits: list[_Hit]) -> bool:
    """``cudaErrorX`` / ``CUDA_ERROR_X`` names (cupy, ``code=N(name)``, raw and driver-API forms);
    True when the line is settled."""
    t = tables()
    m: re.Match[str] | None = _CUPY.search(line)
    if m:
        raw = m["name"]
        add(raw if raw.startswith("cudaError") else name_for_driver(raw), "cupy")
        return True
    m = _RAW_CODE.search(line)
    if m:
        # a statement the terminal wrapped has no closing quote on this line: its call is still named after the code
        add(m["name"], "raw", m["call"] or _api_call(line[m.end() :]))
        return True
    for m in _RAW_NAME.finditer(line):
        if m["name"] in t.by_name and not compared(line, m.start(), m.end()):
            add(m["name"], "raw", _api_call(line))
    numba = "CudaAPIError" in line or "CUresult." in line
    for m in _DRIVER.finditer(line):
        if not compared(line, m.start(), m.end()):
            add(name_for_driver(m["name"]), "numba" if numba else "driver-api", _api_call(line))
    return bool(hits)


def _library_hits(line: str, add: _Add, hits: list[_Hit]) -> bool:
    """Numba, HIP, legacy Lua torch / THC / Caffe and Triton forms; True when the line is settled."""
    t = tables()
    m: re.Match[str] | None
    if "CudaAPIError" in line:
        m = _NUMBA_CODE.search(line)
        if m:
            code = int(m["code"])
            add(t.driver_by_code.get(code) or t.by_code.get(code), "numba", m["call"])
            return True
    if "hipError" in line:
        for m in _HIP_NAME.finditer(line):
            add(name_for_hip(m["name"]), "hip")
        if hits:
            return True
    if "Cuda(" in line or "CudaError::" in line:
        for m in _RUST_VARIANT.finditer(line):
            add(name_for_rust_variant(m["name"]), "rust")
        if hits:
            return True
    if "Cuda API error detected:" in line:
        m = _CUDA_GDB_API.search(line)
        if m:
            code = int(m["code"], 16)
            if not m["call"].startswith("cuda"):
                add(t.driver_by_code.get(code), "cuda-gdb", m["call"])
            elif _runtime_code_unambiguous(code):
                add(t.by_code.get(code), "cuda-gdb", m["call"])
            return True
    if "CUDA Exception:" in line or "CUDA_EXCEPTION_" in line:
        m = _CUDA_GDB.search(line)
        name = _cuda_gdb_error(m["what"]) if m else None
        if name:
            add(name, "cuda-gdb")
            return True
    if "CUDBG_EXCEPTION_" in line:
        m = _CUDBG.search(line)
        name = _cuda_gdb_error(m["what"]) if m else None
        if name:
            add(name, "cuda-gdb")
            return True
    if "Memory access fault by GPU" in line:
        add("cudaErrorIllegalAddress", "hip")
        return True
    if "untime error (" in line:
        m = _LEGACY.search(line)
        if m:
            add(name_for_message(m["msg"]) or t.by_code.get(int(m["code"])), "legacy", printed=int(m["code"]))
            return True
    if "THCudaCheck FAIL" in line:
        m = _THC.search(line)
        if m:
            add(name_for_message(m["msg"]), "legacy", printed=int(m["code"]))
            return True
    if "Check failed: error ==" in line:
        m = _CAFFE.search(line)
        if m:
            add(name_for_message(m["msg"]) or t.by_code.get(int(m["code"])), "legacy", printed=int(m["code"]))
            return True
    if "ssert: " in line:
        m = _GPUASSERT.search(line)
        name = name_for_message(m["msg"]) if m else None
        if name:
            add(name, "legacy")
            return True
    if "CUDA: Error- " in line:
        m = _OLD_TRITON.search(line)
        if m:  # triton 1.x named its exceptions after CUresult: invalid_value → CUDA_ERROR_INVALID_VALUE
            add(name_for_driver("CUDA_ERROR_" + m["what"].strip().upper().replace(" ", "_")), "triton")
            return True
    if "Triton Error [" in line:
        m = _TRITON.search(line)
        if m:
            add(name_for_message(m["msg"]), "triton")
            return True
    return False


#: a check macro's comparison against success: glog ``Check failed: CUDA_SUCCESS == cuCtxSetCurrent(c)
#: (0 vs. 216)`` (TensorFlow, Paddle), Caffe's ``error == cudaSuccess (9 vs. 0)``
_CHECK_VS = re.compile(
    r"Check failed: (?P<lhs>.*?)\s*==\s*(?P<rhs>.*?)\s*\((?P<a>-?\d+) vs\. (?P<b>-?\d+)\)\s*(?P<msg>.*?)\s*$"
)
#: a bare number after words that say it is a CUDA status: "CUDA error 2", "CUDA error code 700",
#: "CUDA driver error: 999", "cudaMalloc returned 2", the NVIDIA HPC SDK's OpenACC and CUDA Fortran runtime's "call to
#: cuStreamSynchronize returned error 700: Illegal address during kernel execution", "cuInit failed with error code
#: 100", "cudaHostRegister error:
#: 35", "cuLaunchKernel -> Returned: 701", a binding's "Unknown CUresult: 35"; TensorRT's
#: start-up check "CUDA initialization failure with error 222." (7.x; "with error: 35." from 8.x on) and
#: the ``CHECK(status)`` macro of TensorRT's samples and the projects built on them, ``"Cuda failure: " << ret``;
#: and the driver API's ``CUresult`` after "CU error", which ``CU_CHECK`` macros print bare (ArrayFire before 3.7,
#: ``src/backend/cuda/jit.cpp``: ``"CU Error (%d)\n"``; driver-API programs: ``"CU error %d at %s:%d\n"``), read
#: as a driver code; and a driver-API wrapper's fallback when its name lookup (a table of its own, or
#: ``cuGetErrorName``) does not know the code, followed by the ``CUresult`` in parentheses: OpenMM's CUDA platform
#: (platforms/cuda/src/CudaContext.cpp, ``CHECK_RESULT``: ``prefix << ": " << getErrorString(result) << " (" <<
#: result << ")"``, whose older table ended in "Invalid error code") and CU wrappers' ``"invalid error code"``; only
#: a three-digit code, which is no status of a non-CUDA library's small enum; a driver call's status as Ollama's GPU
#: discovery prints it (``cuInit err: 999``)
_CUDA_NUMBER = re.compile(
    r"\bCUDA (?:runtime |driver )?error(?: code)?[:=]?\s*\(?(?P<code>\d{1,3})\b(?!\.\d)"
    r"|\bCU error (?:\((?P<cu>\d{1,3})\)|(?P<cu2>\d{1,3})\b(?!\.\d))"
    r"|\binvalid error code \((?P<cu3>[1-9]\d{2})\)"
    r"|\bCUDA (?:initialization )?failure(?: with error)?:?\s*(?P<code3>\d{1,3})(?=\.(?!\d)|\)|\s*$)"
    r"|\b(?P<call>(?:cuda|cu)[A-Z]\w*)(?:\([^()]*\))?\s*(?:returned(?: error)?|failed with (?:error )?(?:code )?|error:|err:|->\s*returned:?)\s*"
    r"\(?(?P<code2>\d{1,3})\b(?!\.\d)"
    r"|\b(?:unknown )?CUresult:?\s*\(?(?P<cu4>\d{1,3})\b(?!\.\d)",
    re.I,
)


@functools.cache
def _cuda_number() -> Callable[[str], re.Match[str] | None]:
    """``_CUDA_NUMBER.search``, tried only where one of the words that start its matches stands
    (:func:`diagnose.regex_anchor.start_find`: the same match, without the case-folded alternation tried at
    every place of the line)."""
    return start_find(_CUDA_NUMBER) or _CUDA_NUMBER.search


def _numeric_hits(line: str, add: _Add) -> bool:
    """A CUDA status printed only as a number, decoded with the toolkit's own tables (driver codes for
    ``CUDA_SUCCESS`` / ``cuXxx`` calls, runtime codes otherwise); a message printed beside it wins over
    the number (CUDA before 10.1 numbered the runtime enum differently).  True when the line is settled.

    >>> hits = []
    >>> _numeric_hits("Check failed: CUDA_SUCCESS == dynload::cuCtxSetCurrent(context) (0 vs. 216)",
    ...               lambda n, f, c=None: hits.append((n, f, c)))
    True
    >>> hits
    [('cudaErrorDeviceAlreadyInUse', 'driver-api', 'cuCtxSetCurrent')]
    """
    t = tables()
    m = _RAW_CODE_UNNAMED.search(line) if "code=" in line else None
    if m:
        code = int(m["code"])
        if _runtime_code_unambiguous(code):
            add(t.by_code.get(code), "raw", m["call"] or _api_call(line[m.end() :]))
            return True
    if "Check failed:" in line and " vs. " in line:
        m = _CHECK_VS.search(line)
        if m:
            # glog prints "(lhs's value vs. rhs's value)"; the status is the side that is not the success name
            for success, driver in (("CUDA_SUCCESS", True), ("cudaSuccess", False)):
                for side, other, value in ((m["lhs"], m["rhs"], m["b"]), (m["rhs"], m["lhs"], m["a"])):
                    if success in side:
                        code = int(value)
                        call: str | None = _api_call(other)
                        name = name_for_message(m["msg"]) if m["msg"] else None
                        if name is None:
                            name = t.driver_by_code.get(code) if driver else t.by_code.get(code)
                        add(name, "driver-api" if driver else "legacy", call)
                        return True
    m = _cuda_number()(line)
    if m:
        cu = m["cu"] or m["cu2"] or m["cu3"]
        code = int(m["code"] or m["code2"] or m["code3"] or cu or m["cu4"])
        call = m["call"] or _api_call(line)
        name = name_for_message(line)
        if name is None and m["cu4"]:
            # a binding's CUresult that its own table does not know ("Unknown CUresult: 35", gominer's cu package
            # wrapping a runtime call): a driver code when the driver has it, else the runtime's
            name = t.driver_by_code.get(code) or t.by_code.get(code)
        elif name is None:
            driver = cu is not None or (call is not None and not call.startswith("cuda"))
            name = t.driver_by_code.get(code) if driver else t.by_code.get(code)
        if name:
            add(name, "raw", call)
            return True
    return False


#: what a CUDA library's message names before the error's text: a CUDA library's namespace or a CUDA
#: API call (``after cub_::DeviceRadixSort::SortPairs(1)``, ``after cudaFuncGetAttributes``), or one of
#: Thrust's own step wordings (``radix_sort: failed on 1st step``, ``transform: failed to synchronize``,
#: ``after reduce invocation``: ``throw_on_error`` calls in ``thrust/system/cuda/detail/*.h``)
_LIBRARY_HEAD = re.compile(
    r"\b(?:cub_?|thrust|cuda_cub)::|\bcuda[A-Z]\w+|\bcu[A-Z][a-z]\w+"
    r"|\bfailed (?:on \d\w* step|to synchronize)\b|\bafter \w+ invocation\b"
)
#: the exception Thrust throws with such a message (its what() line then needs no library name)
_THRUST_EXCEPTION = re.compile(r"\bthrust::(?:system::)?system_error\b")


def library_tail(line: str) -> str | None:
    """The CUDA error text a line ends in after a colon (``...: invalid argument``), or None.

    >>> library_tail("after cub_::DeviceRadixSort::SortPairs(1): invalid argument")
    'invalid argument'
    >>> library_tail("step 3: loss 0.25") is None
    True
    """
    m = tables().tail_re.search(line.lower())
    return m[1] if m and line[: m.start()].strip() else None


def _library_tail_hit(line: str, add: _Add, thrust: bool) -> bool:
    """A CUDA library's ``<what failed>: <cudaGetErrorString text>`` (Thrust's ``system_error``, CUB)."""
    msg = library_tail(line)
    if msg is None:
        return False
    head = line[: line.lower().rfind(msg)]
    if not (_LIBRARY_HEAD.search(head) or (thrust and "what():" in head)):
        return False
    add(tables().by_message[msg], "library", _api_call(head))
    return True


#: NVIDIA's cuda-samples report a failed call with cudaGetErrorString's text after "error code" ("Failed to launch
#: vectorAdd kernel (error code %s)!", Samples/0_Introduction/vectorAdd/vectorAdd.cu), and programs that copy the
#: check print it the same way ("Failed to launch kernels. Error code: %s.", HVM's CUDA runtime): the short
#: messages ("invalid argument") count there without the word CUDA
_ERROR_CODE_TEXT = re.compile(r"\berror code:?[ \t]+")

#: cuew's descriptions of the driver's CUresult values (``cuewErrorString``: the CUDA wrangler Blender's Cycles and
#: other renderers load the driver through), which those programs print instead of the driver's own names:
#: Cycles' ``"%s in CUDA queue %s (%s)"`` (the queue's operation and the kernels running), ``"%s in %s (%s:%d)"``
#: and the older ``"CUDA error: %s in %s, line %d"`` (the driver call); the ones whose words are a cause of their own
_CUEW = {
    "out of memory": "CUDA_ERROR_OUT_OF_MEMORY",
    "driver not initialized": "CUDA_ERROR_NOT_INITIALIZED",
    "no cuda-capable device available": "CUDA_ERROR_NO_DEVICE",
    "invalid device": "CUDA_ERROR_INVALID_DEVICE",
    "invalid kernel image": "CUDA_ERROR_INVALID_IMAGE",
    "invalid context": "CUDA_ERROR_INVALID_CONTEXT",
    "no binary for gpu": "CUDA_ERROR_NO_BINARY_FOR_GPU",
    "uncorrectable ecc error detected": "CUDA_ERROR_ECC_UNCORRECTABLE",
    "invalid ptx": "CUDA_ERROR_INVALID_PTX",
    "unsupported ptx version": "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
    "nvlink uncorrectable": "CUDA_ERROR_NVLINK_UNCORRECTABLE",
    "jit compiler not found": "CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
    "illegal address": "CUDA_ERROR_ILLEGAL_ADDRESS",
    "launch exceeded resources": "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
    "launch exceeded timeout": "CUDA_ERROR_LAUNCH_TIMEOUT",
    "hardware stack error": "CUDA_ERROR_HARDWARE_STACK_ERROR",
    "illegal instruction": "CUDA_ERROR_ILLEGAL_INSTRUCTION",
    "misaligned address": "CUDA_ERROR_MISALIGNED_ADDRESS",
    "invalid address space": "CUDA_ERROR_INVALID_ADDRESS_SPACE",
    "invalid pc": "CUDA_ERROR_INVALID_PC",
    "launch failed": "CUDA_ERROR_LAUNCH_FAILED",
    "cooperative launch too large": "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE",
    "invalid value": "CUDA_ERROR_INVALID_VALUE",
}
#: the description in any case (Cycles capitalises it), the driver call as the driver API spells it (``cuCtx...``: a
#: runtime call, ``cudaMalloc``, is not what cuew describes)
_CUEW_LINE = re.compile(
    r"(?:^|[^A-Za-z])(?P<desc>(?i:" + "|".join(re.escape(d) for d in sorted(_CUEW, key=len, reverse=True)) + r"))"
    r" in (?:CUDA queue (?P<op>\w+)|(?P<call>cu[A-Z]\w*)\()"
)


def _cuew_hit(line: str, add: _Add) -> bool:
    """cuew's description of a CUresult before the operation or driver call it came from (Cycles' messages).

    >>> hits = []
    >>> _cuew_hit("Illegal address in CUDA queue copy_from_device (integrator_shade_surface)",
    ...           lambda n, f, c=None: hits.append((n, f, c)))
    True
    >>> _cuew_hit("CUDA error: Out of memory in cuMemAlloc(&device_pointer, size), line 568",
    ...           lambda n, f, c=None: hits.append((n, f, c)))
    True
    >>> hits
    [('cudaErrorIllegalAddress', 'raw', None), ('cudaErrorMemoryAllocation', 'driver-api', 'cuMemAlloc')]
    """
    m = _CUEW_LINE.search(line)
    if m is None:
        return False
    name = name_for_driver(_CUEW[m["desc"].lower()])
    if name is None:
        return False
    add(name, "driver-api" if m["call"] else "raw", m["call"])
    return True


def _line_hits(line: str, ln: int, thrust: bool = False) -> list[_Hit]:
    t = tables()
    hits: list[_Hit] = []

    def add(name: str | None, form: str, call: str | None = None, printed: int | None = None) -> None:
        if name and name != "cudaSuccess":
            hits.append(_Hit(name, form, ln, call, printed))

    m: re.Match[str] | None
    if ("cudaError" in line or "CUDA_ERROR_" in line) and _named_hits(line, add, hits):
        return hits
    if _library_hits(line, add, hits):
        return hits
    if _numeric_hits(line, add):
        return hits
    if (" in CUDA queue " in line or " in cu" in line) and _cuew_hit(line, add):
        return hits
    if " error: " in line:
        m = _TORCH.search(line)
        if m:
            name = name_for_message(m["msg"])
            if name:
                if m["hip"] == "HIP":
                    form = "hip"
                elif m["hip"] == "cuda":
                    form = "raw"
                elif "AcceleratorError" in line:
                    form = "torch-accelerator"
                else:
                    form = "torch"
                add(name, form)
                return hits
    # a bare runtime message: distinctive ones anywhere, short ones only after a CUDA-ish word
    low = line.lower()
    m = t.long_message_re.search(low)
    if m is None and "cuda" in low and "rror" in low:
        m = t.message_re.search(low)
    if m is None and "rror code" in low:
        ec = _ERROR_CODE_TEXT.search(low)
        m = t.message_re.match(low, ec.end()) if ec else None
    if m:
        add(t.by_message[m[0]], "raw", _api_call(line))
    else:
        _library_tail_hit(line, add, thrust)
    return hits


def _api_call(line: str) -> str | None:
    for m in _API_CALL.finditer(line):
        call = m[1] or m[2]
        # error names and users' checking macros (cudaCheckError()) are not API calls
        if not call.startswith(("cudaError", "cudaSuccess")) and "Check" not in call and "Error" not in call:
            return call
    return None


#: ggml's CUDA error report (ggml-cuda.cu, ggml_cuda_error): "CUDA error: <text>", then
#: "  current device: N, in function F at FILE:LINE", then the failing statement
_GGML_WHERE = re.compile(r"^\s*current device: -?\d+, in function \S+ at \S+:\d+")


def _ggml_statement(text: str, line: int) -> tuple[int, str] | None:
    r"""(line, API call) of the statement ggml prints two lines under its "CUDA error:" line.

    >>> _ggml_statement("CUDA error: invalid argument\n  current device: 0, in function f at a.cu:4\n"
    ...                 "  cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, stream)\n", 1)
    (3, 'cudaMemcpyAsync')
    """
    rows = text.splitlines()[line : line + 2]
    if len(rows) < 2 or not _GGML_WHERE.match(rows[0]):
        return None
    call = _api_call(rows[1])
    return (line + 2, call) if call else None


#: the error check many CUDA C++ projects copy (``CHECK_CUDA_ERROR(val)`` / ``CHECK_LAST_CUDA_ERROR()``: ``std::cerr
#: << "CUDA Runtime Error at: " << file << ":" << line`` then ``cudaGetErrorString(err) << " " << func``): the
#: runtime's text starts the next line, followed by the failing call, or alone
_RUNTIME_ERROR_AT = re.compile(r"\bCUDA Runtime Error at: ?\S", re.IGNORECASE)


def _check_macro_hit(line: str, ln: int) -> _Hit | None:
    r"""The runtime error of the line under a ``CUDA Runtime Error at: FILE:LINE`` line.

    >>> _check_macro_hit("out of memory cudaMalloc(&this->d_jcb, size * sizeof(float))", 2)
    _Hit(name='cudaErrorMemoryAllocation', form='raw', line=2, api_call='cudaMalloc')
    >>> _check_macro_hit("epoch 3 done", 2) is None
    True
    """
    t = tables()
    m = t.message_re.match(line.strip().lower())
    if m is None:
        return None
    name = t.by_message[m[0]]
    return _Hit(name, "raw", ln, _api_call(line)) if name != "cudaSuccess" else None


#: whether the log holds one of them, from one pass over it (diagnose.collectors.gate_words)
_has_hint = gate(_HINTS)


#: the errors of a binary without code for the GPU (the driver's "no kernel image", the runtime's "invalid device
#: function"): the GPU's compute capability, where the log prints it, says whether any toolkit still builds for it
_NO_IMAGE = ("cudaErrorNoKernelImageForDevice", "cudaErrorInvalidDeviceFunction")


def _device_arch(text: str, ccs: tuple[float, ...]) -> tuple[float | None, str | None, str | None, str | None]:
    """(the GPU's compute capability, the CUDA release that removed its architecture, the toolkit release the log
    names, how that release stands to the architecture) for a log printing one capability for its GPUs.

    >>> _device_arch(" * GPU #0: NVS 310 @ 1046/875 MHz 64x2 8x25 arch:21 SMX:1", (2.1,))
    (2.1, '9.0', None, None)
    >>> _device_arch("Cuda compilation tools, release 9.1, V9.1.85", (3.5,))
    (3.5, '12.0', '9.1', 'inside')
    >>> _device_arch("", (6.1, 7.5))
    (None, None, None, None)
    """
    if len(ccs) != 1:
        return None, None, None, None
    cc = ccs[0]
    arch = f"sm_{round(cc * 10)}"
    release = toolkit_release.toolkit_release(text)
    return cc, toolkit_release.arch_releases(arch)[1], release, toolkit_release.arch_side(arch, release)


#: a check that prints the failing call alone on its line and the status under it, as code and text: Futhark's
#: generated C (its CUDA backend's CUDA_SUCCEED: "%s:%d: CUDA call\n  %s\nfailed with error code %d (%s)\n", the
#: call's source text and cuGetErrorString's message); read only where the text is CUDA's own for a status
_CALL_ALONE = re.compile(r"^\s*(?P<call>cu(?:da)?[A-Z]\w*)\([^\n]*\)\s*;?\s*$")
_FAILED_WITH_CODE = re.compile(r"^\s*failed with error code \d{1,3} \((?P<msg>[a-z][^()\n]*)\)\s*$")


def _failed_with_code_hit(line: str, ln: int, call: str | None) -> _Hit | None:
    """The status printed under its call (:data:`_FAILED_WITH_CODE`), when its text is CUDA's message."""
    m = _FAILED_WITH_CODE.match(line)
    name = tables().by_message.get(m["msg"].lower()) if m else None
    return _Hit(name, "raw", ln, call) if m and name else None


def parse(text: str) -> CudaFacts | None:
    """CUDA errors named in ``text``, or ``None`` when there are none."""
    if not _has_hint(text):
        return None
    hits: list[_Hit] = []
    assert_message: str | None = None
    assert_line: int | None = None
    thrust = "thrust::" in text and bool(_THRUST_EXCEPTION.search(text))
    under_check = False
    call_alone: str | None = None
    status_under_call = "failed with error code" in text  # the form of _FAILED_WITH_CODE, read only where it stands
    for ln, line in enumerate(text.splitlines(), 1):
        if status_under_call:
            if call_alone is not None and "failed with error code" in line:
                alone = _failed_with_code_hit(line, ln, call_alone)
                if alone is not None:
                    hits.append(alone)
                    continue
            m_call = _CALL_ALONE.match(line) if "cu" in line and len(line) < 300 else None
            call_alone = m_call["call"] if m_call else None
        if under_check:
            under_check = False
            macro = _check_macro_hit(line, ln)
            if macro is not None:
                hits.append(macro)
                continue
        if len(line) > 20000 or not _HINT_IN_LINE(line):
            continue
        under_check = "Runtime Error at" in line and _RUNTIME_ERROR_AT.search(line) is not None
        if "Assertion" in line and assert_message is None:
            m = _DEVICE_ASSERT.search(line) if "thread: [" in line else _DEVICE_ASSERT_AT.search(line)
            if m:
                assert_message, assert_line = m["msg"], ln
        hits.extend(_line_hits(unsaid(line), ln, thrust))
    if not hits and assert_message is None:
        return None
    if not hits and assert_line is not None:
        # kernels print the assertion before the host sees cudaErrorAssert; the message alone says enough
        hits.append(_Hit("cudaErrorAssert", "raw", assert_line))
    # the host sees most device faults as "unspecified launch failure"; the debugger's exception (cuda-gdb's
    # "CUDA_EXCEPTION_2, Lane User Stack Overflow") names which fault it was, so that one leads
    if hits[0].name == "cudaErrorLaunchFailure":
        named = next((h for h in hits if h.form == "cuda-gdb" and h.api_call is None), None)
        if named is not None:
            hits.remove(named)
            hits.insert(0, named)
    names: list[str] = []
    for h in hits:
        if h.name not in names:
            names.append(h.name)
    first = hits[0]
    code, message = tables().by_name.get(first.name, (None, None))
    # a legacy check prints its runtime's number: quote that one, and say when it is the numbering of a runtime
    # before CUDA 10.1 (error=48 there is cudaErrorNoKernelImageForDevice, 209 today)
    old_numbering = first.printed_code is not None and code is not None and first.printed_code != code
    if old_numbering:
        code = first.printed_code
    call = first.api_call or next((h.api_call for h in hits if h.name == first.name and h.api_call), None)
    stmt = _ggml_statement(text, first.line) if call is None else None
    if stmt is not None:
        call = stmt[1]
    lines = sorted({h.line for h in hits} | ({assert_line} if assert_line else set()) | ({stmt[0]} if stmt else set()))
    looked_up = first.name in ("cudaErrorSymbolNotFound", "cudaErrorInvalidSymbol")
    sym = symbol_lookup.symbol_dtype_in(text) if looked_up else None
    no_image = not looked_up and any(n in _NO_IMAGE for n in names)
    ccs = symbol_lookup.device_ccs(text) if looked_up or no_image else ()
    device_cc, removed_in, release, side = _device_arch(text, ccs) if no_image else (None, None, None, None)
    # the GPU's line beside the error, when it shows an architecture recent toolkits dropped: it is what decides
    cc_line = symbol_lookup.device_cc_line(text) if removed_in else None
    if cc_line is not None:
        lines = sorted({*lines, cc_line})
    return CudaFacts(
        symbol_name=sym[0] if sym else None,
        symbol_dtype=sym[1] if sym else None,
        symbol_need_cc=sym[2] if sym else None,
        device_ccs=ccs,
        symbol_need_above_devices=bool(sym and ccs and max(ccs) < sym[2]),
        device_cc=device_cc,
        device_cc_removed_in=removed_in,
        toolkit_release=release,
        device_cc_toolkit_side=side,
        lines=tuple(lines),
        error=first.name,
        errors=tuple(names),
        code=code,
        code_old_numbering=old_numbering,
        message=message,
        form=first.form,
        api_call=call,
        api_call_links=bool(call and _LINK_CALL.match(call)),
        device_assert="cudaErrorAssert" in names or assert_message is not None,
        sticky=not STICKY.isdisjoint(names),
        assert_message=assert_message,
    )
