"""Lines that say something failed, in the shapes tools print failures in.

:func:`failure_lines` finds them in a log; :mod:`diagnose.failure` uses them when no collector fact
already says the run failed.  The patterns follow the families of how tools print a failure, not
any one report's wording:

- a logging severity of error or above: ``error:``, ``ERROR:``, ``[ERROR]``, glog/absl ``E1203`` and
  ``F1203`` lines (also inside a prefix, ``[rank0]:[E1203 ...]``; a FATAL one also without its date,
  ``F external/.../cuda_dnn.cc:1011] ...``, or after TensorFlow's date, ``2021-...: F tensorflow/...]``), c10's ``[E ProcessGroupNCCL.cpp:475]``,
  TensorRT's ``[E]`` and ``Error Code 10: Internal Error (...)``, ONNX Runtime's ``[E:onnxruntime:...]``,
  ``ERROR 05-05 17:03:35`` / ``- ERROR -`` / ``| ERROR |`` (Python logging, loguru), ``level=error``
  (logfmt), ``CRITICAL:``, fatal-error reports (``LLVM Fatal Error while ...``, ``FATAL ERROR in ...``);
  NCCL's ``NCCL WARN`` (its level for warnings *and* errors) counts when the line names a failure;
- an exception: a Python ``Traceback`` header (also IPython's ``NameError   Traceback (most recent call
  last)``), a bare exception name (``XlaRuntimeError``), an exception line whose class is not just
  ``...Error`` (``pynvml.NVMLError_NotSupported: ...``, ``triton.runtime.errors.OutOfResources: ...``),
  pytest's ``E   AssertionError`` explanation lines, a C++ ``terminate called`` / ``what():`` / ``std::bad_alloc``,
  ``Check failed:`` (glog CHECK), XLA's ``RET_CHECK failure``, C ``assert()`` / Rust ``assertion ... failed``,
  ggml's ``GGML_ASSERT: file:line: cond`` (no "failed"), an unhandled exception, an exception printed as its
  repr alone on a line (``OutOfResources(576, 512, 'tensor memory')``, ``RuntimeError('...')``);
- a process that died or stopped: signals (``SIGSEGV``, ``Segmentation fault``, ``Aborted``), a line ending in
  ``Aborting.``, cuda-gdb's ``CUDA Exception: Warp Misaligned Address`` (or the exception's name alone) and its backtrace frame inside a kernel
  (``#0  kern<<<(54,1,1),(32,1,1)>>> () at k.cu:172``), the signal handlers'
  reports (Open MPI's ``*** Process received signal ***`` block, ``Signal code: Integer divide-by-zero``),
  glibc's heap checks
  (``free(): invalid pointer``, ``double free or corruption``, ``stack smashing detected``), a non-zero
  exit status or error code, the GPU driver's ``Xid`` / ``fallen off the bus``, ROCm's ``Memory access fault``;
- a library status enum other than success (``CUDNN_STATUS_BAD_PARAM``, ``NVRTC_ERROR_COMPILATION``,
  ``hipErrorNoBinaryForGpu``, ``ncclUnhandledCudaError``, ``CUFFT_INTERNAL_ERROR``);
- a line that ends, after a colon, in a CUDA runtime error's own text (``cudaGetErrorString``, the table
  of :mod:`diagnose.collectors.cuda_errors`): Thrust's ``system_error`` and CUB print what failed and the
  text alone (``after cub_::DeviceRadixSort::SortPairs(1): invalid argument``);
- a compute-sanitizer record of an error kind its documentation lists (``Invalid __global__ read``,
  ``Misaligned Shared or Local Address``, ``Leaked 64 bytes``, ``Program hit ... (error 1)``, ...);
- a compiler diagnostic quoted without its ``error:`` (nvcc's ``no instance of overloaded function ...``,
  libNVVM's IR parse error ``<unnamed> (81, 19): parse expected comma after load's type``);
- a figure stated over a device's limit, at any severity (NCCL's INFO ``ncclMaxSharedMem 82240 exceeds
  device/fn maxSharedMem 79856``), unless the line says what was done instead (clamped, fell back);
- a failed statement (``cudaMemcpy failed: invalid argument``, ``Build failed.``), a library check's report
  (RAPIDS' ``RMM failure at: file:193: ...``, ``cuDF failure at: file:12: ...``), a linker error;
- a test framework's failure report (``FAILED``, ``3 failed``, ``test_x failure``, gtest's ``file:12: Failure``,
  numpy/torch testing's ``Mismatched elements: 3 / 1024``, ``Not equal to tolerance``, ``Tensor-likes are not
  close``);
- a hang: ``timed out``, a watchdog that fired, a collective timeout, a detected deadlock;
- a printed NaN, a reduction printed with an infinite result (``jnp.max(v[:8193]) -> -inf``), a run that says
  its own output is wrong, a result printed beside the value the text says
  was expected (``expected 2 but got 1``); a printed array alone says nothing about what it should be;
- a check that says the values differ (``Mismatch of dbias at 0``, ``Result verification failed at element 3``,
  CUTLASS's ``Disposition: Incorrect``), and printed values that say it without a word
  (:mod:`diagnose.comparisons`): a reference and a device value that differ, a difference above the tolerance
  printed beside it, a call on an all-zero array whose result is not all zeros, one call printed compiled
  (``jax.jit(f)(x)``) and plain with different results, a row the program flags (``*****``), a metric at
  exactly 0 beside the same metric of a reference;
- an exception raised and swallowed (CPython's unraisable hook: ``Exception ignored in: ...``), Numba's typing
  message without its head (``Unknown attribute 'to_device' of type Module(...)``), a ``Fail to <verb> ...:
  <reason>`` statement, a reference check that ``miscompared``, an all-ones sentinel printed as a process id
  (:mod:`diagnose.sentinels`);
- a load or an initialisation said not to work (``could not load NVML library``, ``Impossible to initialize
  nvidia nvml``, ``libcudnn.so.8 ... dont load``).

A matching line is still healthy when it counts zero (``0 errors``, ``errors: 0``, ``failed: 0``), states a
measured error (``max abs error: 1e-7``), is a test's ``PASSED`` line, or is a warning / INFO line that only
mentions the word (``W1203``, ``UserWarning``, ``NCCL INFO ... failed``).

>>> [n for n, _ in failure_lines("step 1 loss 0.3\\nE1203 10:00:00.1 12 a.cc:3] Check failed: ok\\n")]
[2]
>>> failure_lines("========= ERROR SUMMARY: 0 errors\\nmax abs error 1e-07\\n")
[]
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import Any

from diagnose import regex_code
from diagnose.collectors.cuda_errors import tables as cuda_error_tables
from diagnose.comparisons import (
    block_comparison_lines,
    comparison_lines,
    flagged_row_lines,
    over_tolerance_lines,
    path_comparison_lines,
    zero_input_results,
    zero_metric_lines,
)
from diagnose.sentinels import sentinel_pid_lines

#: NCCL prints warnings and errors at one level, WARN: an NCCL WARN line that names a failure, other
#: than its probing for optional libraries and plugins (``NCCL WARN Failed to open libibverbs.so[.1]``)
_NCCL_WARN_FAILURE = (
    r"\bNCCL\ WARN\b(?!.*\b(?:open|load|find|dlopen)\b.*(?:\.so\b|[Pp]lugin))"
    r".*\b(?:[Ff]ail\w*|[Ee]rror|timed\ out|[Tt]imeout|[Aa]bort\w*|[Uu]nable|[Cc]annot|[Cc]ould\ not"
    r"|[Ii]nvalid|[Uu]nhandled|refused|truncated|[Mm]ismatch|not\ (?:supported|found|available)|[Nn]o\ .{0,60}found)"
)
#: a figure over a device's limit, unless the line says what it did instead (clamped, fell back)
_LIMIT_EXCEEDED = (
    r"\b(?![^\n]*\b(?:clamp\w*|fall(?:ing|s)?\ back|instead|capp\w*|reduc\w*|using)\b)"
    r"\d+\ (?:bytes\ |B\ )?exceeds?\ (?:the\ )?(?:current\ )?(?:device|GPU|gpu|hardware|arch)\b[^\n]{0,60}?\d"
)
#: glog's FATAL severity letter before a source position, with no date: "F path/file.cc:12] "
_FATAL_NO_DATE = (
    r"^\s*(?:\d{4}-\d\d-\d\d\ \d\d:\d\d:\d\d(?:\.\d+)?:\s+)?F\ [\w./+-]+\.(?:cc|cpp|cxx|c|h|hpp|cu|cuh):\d+\]\ "
)
#: (keywords, pattern): the shapes that mark a line as a failure.  Every match of a pattern contains
#: one of its keywords, lower-cased (``START`` marks patterns found by :data:`_LINE_STARTS` instead):
#: a line is matched only against the patterns of the keywords it holds, since Python's regex engine
#: tries a whole alternation at every position of a line.
START = "<line start>"
_PATTERNS: tuple[tuple[tuple[str, ...], str], ...] = (
    # --- severities: error: / Error: / ERROR: / error[E12]: / CRITICAL: / [ERROR] / glog E,F / [E] ---
    (("error", "critical"), r"\b(?:error|Error|ERROR|CRITICAL)\b\s*(?:\[[^\]\n]{0,40}\]\s*)?[:!]"),
    (("fatal",), r"\b(?:fatal|Fatal|FATAL)\b(?:\s+error)?\s*[:!]"),
    # LLVM's and its users' fatal-error reports (XLA: "LLVM Fatal Error while compiling ..."), JVM, Windows
    (("fatal",), r"\b(?:fatal|Fatal|FATAL)\ (?:error|Error|ERROR|exception|Exception|EXCEPTION)\b(?!\ (?:if|when|on)\b)"),
    (("error", "fatal", "critical"), r"\[(?:ERROR|FATAL|CRITICAL|error|fatal)\]"),
    (("error",), r"\b(?:Error|ERROR)\ (?:at|in)\ \S+?(?::\d+|:\s|\ \()"),
    (("error",), r"\berror\ [A-Z]{1,3}\d{3,5}\s*:"),  # MSVC, MSBuild: error C2065: / error MSB3721:  # CMake Error at CMakeLists.txt:3 (message):
    ((START,), r"(?:^|[\[\s:])[EF]\d{4}\s+\d\d:\d\d:\d\d"),  # glog/absl E/F lines, also in a prefix: [rank0]:[E1203
    # a glog/absl FATAL line pasted without its date and thread ("F external/.../cuda_dnn.cc:1011] msg"), and
    # TensorFlow's own prefix of it ("2021-09-01 10:00:00.123456: F tensorflow/core/.../x.cc:12] msg"): the
    # process aborts after it (glog's LOG(FATAL), absl's LOG(FATAL), tsl's logging.cc)
    ((START,), _FATAL_NO_DATE),
    (("[e", "[f"), r"\[[EF]\]"),  # TensorRT's logger: [E] [TRT] ...
    (("[e", "[f"), r"\[[EF]\ [\w.-]+:\d+\]"),  # c10 logging: [E ProcessGroupNCCL.cpp:475]
    (("[e:", "[f:"), r"\[[EF]:[\w.-]+:"),  # ONNX Runtime's logger: [E:onnxruntime:Default, file.cc:12 Fn]
    (("onnxruntimeerror",), r"\[ONNXRuntimeError\]"),  # ONNX Runtime's Python exceptions: [ONNXRuntimeError] : 6 : ...
    # Python logging, loguru, vLLM: "ERROR 05-05 17:03:35 [...]", "- ERROR -", "| ERROR    |"
    (("error", "fatal", "critical"), r"(?:^|[\s|\[(-])(?:ERROR|FATAL|CRITICAL)(?=\s+\d|\s*[|\]]|\s+-\s|\s{2,})"),
    (
        ("level", "lvl", "severity"),
        r"\b(?:level|lvl|severity|levelname)\s*[=:]\s*[\"']?(?:error|fatal|critical|panic|ERROR|FATAL|CRITICAL)\b",
    ),
    (("nccl warn",), _NCCL_WARN_FAILURE),
    # --- test frameworks ---
    (("fail",), r"\bFAILED\b | \bFAILURE\b | \bFAIL\b"),
    (("fail", "error"), r"(?<![-.])\b[1-9]\d*\s+(?:failed|errors?|failures)\b"),  # pytest / ctest / compiler totals
    (("fail",), r":\d+:\ Failure\s*$"),  # googletest: file.cc:12: Failure
    # a named test reported as failed: "test_moment_0d failure on GPU", "kernel_test failed", Julia's "Test Failed at"
    (
        ("fail",),
        r"\b(?:test_\w+|\w+_test|Test[A-Z]\w*|\w+Test)\ (?:failure|failed|fails)\b | \bTest\ (?:[Ff]ailure|[Ff]ailed)\b",
    ),
    ((START,), r"^E\ {2,}\S"),  # pytest's explanation lines: E   assert ...
    (
        ("expected",),  # JUnit's assertEquals, googletest's EXPECT_EQ / EXPECT_LT
        r"\bexpected:?\s*<[^>\n]*>\s*but\s+was:?\s*< | \bExpected\ equality\ of\ these\ values\b"
        r" | \bExpected:\ .*,\ actual:\ ",
    ),
    (
        ("mismatched", "not equal", "are not"),
        r"\bMismatched\ elements:\s*[1-9] | \bNot\ equal\ to\ tolerance\b | \bArrays\ are\ not\ (?:almost\ )?equal\b",
    ),
    (("are not",), r"\b(?:Tensor-likes|Scalars)\ are\ not\ (?:close|equal)\b"),
    # --- processes that died ---
    (
        ("segmentation", "abort", "core dumped", "bus error"),
        r"Segmentation\ fault | \bAborted\b | core\ dumped | \bBus\ error\b",
    ),
    (("floating point", "illegal", "killed"), r"Floating\ point\ exception | Illegal\ instruction | ^\s*Killed\b"),
    (("sig",), r"\bSIG(?:SEGV|ABRT|BUS|FPE|ILL|TRAP)\b"),
    (("sig",), r"\b(?:[Rr]eceived|[Cc]aught|[Gg]ot)\ (?:signal\ \d+|SIG[A-Z]+)"),
    # Open MPI's / PMIx's signal handler block (opal/util/stacktrace.c): "*** Process received signal ***",
    # "Signal: Floating point exception (8)", "Signal code: Integer divide-by-zero (1)", "Failing at address: 0x0"
    (
        ("signal", "failing at address"),
        r"\*\*\*\ Process\ received\ signal\ \*\*\* | \bSignal\ code:\ | \bFailing\ at\ address:\ ",
    ),
    # the si_code / exception names of an arithmetic trap (SIGFPE's FPE_INTDIV, Windows' INT_DIVIDE_BY_ZERO)
    (("divi",), r"\b[Ii]nteger\ divi(?:de|sion)[\ -]by[\ -]zero\b | \bINT_DIVIDE_BY_ZERO\b"),
    (
        ("(): ", "double free", "stack smashing"),
        r"\b(?:free|malloc|realloc|munmap_chunk|malloc_consolidate)\(\):\ | \bdouble\ free\b | stack\ smashing\ detected",
    ),
    (
        ("exit", "return"),  # exit code 139, exited with code 1, returned non-zero exit status 1, return value -6
        r"(?i:\b(?:exit(?:ed)?|return(?:ed)?)[\ _-]?(?:with\ )?(?:exit\ )?(?:code|status|value)\b\s*[:=]?\s*-?[1-9]\d*\b)",
    ),
    (("exit",), r"\bexitcode\s*[:=]\s*-?[1-9] | \bnon-?zero\ exit\ (?:status|code)\b"),
    (("error", "err "), r"\b(?:[Ee]rror|ERROR|err)\ (?:[Cc]ode\s*)?[:=]?\s*-?[1-9]\d*(?![.,]?\d|[eE%])"),  # error code 700, TensorRT's Error Code 10:
    (
        ("xid", "fallen off", "memory access fault", "gpu hang"),  # the GPU driver (NVRM Xid), ROCm
        r"\bNVRM:\ Xid\b | fallen\ off\ (?:of\ )?the\ bus | \bMemory\ access\ fault\b | \bGPU\ [Hh]ang\b",
    ),
    # --- exceptions ---
    (("traceback",), r"^\s*Traceback\ \(most\ recent\ call\ last\):"),
    # IPython / Jupyter's traceback header: the exception's name, then "Traceback (most recent call last)"
    (("traceback",), r"^\s*(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*\s+Traceback\ \(most\ recent\ call\ last\)"),
    # a Python exception line: a class name ending in Error/Exception (CompilationError: ...), or with more
    # after it (pynvml's NVMLError_NotSupported: Not Supported), or one that lives in an errors/exceptions module (triton.runtime.errors.OutOfResources: ...)
    (
        ("error_", "exception_", "error:", "exception:"),
        r"(?:^|[\s(\[](?=[A-Za-z_]\w*\.))(?:[A-Za-z_]\w*\.)*(?:[A-Z]\w*)?(?:Error|Exception)(?:_[A-Za-z]\w*)?:(?:\s|$)",
    ),
    (
        ("errors.", "exceptions.", "error.", "exception."),
        r"(?:^|[\s(\[])(?:[A-Za-z_]\w*\.)*(?:errors|exceptions|error|exception)\.[A-Z]\w*:(?:\s|$)",
    ),
    (("error", "exception"), r"^(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)\s*$"),  # a bare name: XlaRuntimeError
    (("terminate", "what():"), r"terminate\ called | \bwhat\(\):"),
    # CPython's unraisable-exception hook (Python/errors.c, PyErr_WriteUnraisable; Cython's noexcept functions
    # report through it): "Exception ignored in: <obj>", 3.13's "Exception ignored while calling ...", and
    # ctypes' "Exception ignored on calling ctypes callback function": raised, then swallowed
    (("exception ignored",), r"^\s*Exception\ ignored\ (?:in\b|on\ calling\b|while\ \w+ing\b)"),
    # Numba's typing errors (numba/core/errors.py UntypedAttributeError), also pasted without the TypingError head
    (("unknown attribute",), r"^\s*Unknown\ attribute\ '\w+'\ (?:of\ type\b|(?:of\ )?module\b)"),
    (("std::", "c10::"), r"\bstd::(?:bad_\w+|\w+_error)\b | \bc10::\w*Error\b"),
    (("exception",), r"\b[Uu]n(?:handled|caught)\ exception\b | \bexception\ (?:was\ )?(?:thrown|raised)\b"),
    # glog / absl CHECK ("Check failed: x == y"), XLA's TF_RET_CHECK ("RET_CHECK failure (file:12) x")
    (("fail",), r"\b(?:Check|CHECK|RET_CHECK)\ fail(?:ed|ure)\b"),
    (("panic",), r"\bpanic(?:ked)?\b:?"),
    # C assert() (glibc "prog: f.c:3: main: Assertion `x' failed.", musl "Assertion failed: x (f.c: main: 3)"),
    # Rust's "assertion `left == right` failed", Julia's / Python's AssertionError (an exception line above)
    (("assert",), r"(?i:\bassertion\b).{0,200}\bfailed | \bassertion\ failed"),
    # assertion macros that print the condition without "failed": ggml's old GGML_ASSERT
    # ("GGML_ASSERT: ggml.c:3: x", ggml.h before 2024) and its GGML_ABORT("GGML_ASSERT(%s) failed", #x)
    # when the paste drops the tail, at a line's start or after ggml_abort's "file:line: "; a source line
    # quoting the macro ("GGML_ASSERT(x);", "#define GGML_ASSERT(x) ...") is not a report
    (
        ("ggml_assert", "ggml_abort"),
        r"(?:^\s*|:\d+:\s+)GGML_(?:ASSERT|ABORT)(?::\s+\S|\((?![^\n]*\)\s*;\s*$)(?![^\n]*\\\s*$))",
    ),
    # a program's own last word before it stops: CUTLASS's arch-conditional guard ("... compute capability.
    # Aborting."), nextpnr's "Could not get OpenGL 3.0 context. Aborting.", a runtime's "abort() called"
    (("abort",), r"\b[Aa]borting\b[.!]*\s*$ | \babort\(\)\ (?:called|was\ called|has\ been\ called)\b"),
    # cuda-gdb's report of a hardware exception (CUDA_EXCEPTION_1..N: "CUDA Exception: Warp Misaligned
    # Address", "received signal CUDA_EXCEPTION_14, Warp Illegal Address.")
    (("cuda exception", "cuda_exception_"), r"\bCUDA\ Exception:\ +[A-Z] | \bCUDA_EXCEPTION_\d+\b,"),
    # the exception's name alone, as cuda-gdb's exception table (CUDA-GDB manual, "Exception Codes") and
    # tools that relay it print it: "Warp Misaligned Address", "Lane Illegal Address", "Device Hardware Stack
    # Overflow", "Warp Illegal Instruction", "Cluster Out-of-range Address"
    (
        ("warp ", "lane ", "device illegal", "device hardware", "cluster out", "cluster target"),
        r"(?:^|[:,]\s*|\bexception\s+)(?:Lane|Warp|Device|Cluster)\ (?:Illegal\ (?:Address|Instruction)"
        r"|Misaligned\ (?:Address|PC)|Out-of-range\ Address|Invalid\ (?:Address\ Space|PC)"
        r"|(?:User|Hardware)\ Stack\ Overflow|Syscall\ Error|Target\ Block\ Not\ Present)\b",
    ),
    # an exception printed as its repr, alone on its line: Triton's "OutOfResources(576, 512, 'tensor memory')"
    # (triton/runtime/errors.py), Python's "RuntimeError('CUDA error: ...')", "CompilationError(...)"
    (
        ("error(", "exception(", "outofresources(", "failure("),
        r"^\s*(?:[A-Za-z_]\w*\.)*(?:[A-Z]\w*(?:Error|Exception|Failure)|OutOfResources)\((?:['\"\d-]|[a-z_]\w*=)[^\n]*\)[,;]?\s*$",
    ),
    # a debugger stopped inside a kernel: cuda-gdb's backtrace frame of a device function names the launch
    # (``#0  kern<<<(54,1,1),(32,1,1)>>> () at k.cu:172``); nobody pastes one from a run that went well
    ((">>>",), r"^\s*\#\d+\s+(?:0x[0-9a-fA-F]+\ in\ )?\S+<<<\(\d+,\s*\d+,\s*\d+\),\s*\(\d+,\s*\d+,\s*\d+\)>>>"),
    # --- compilers' IR parsers: libNVVM's ``<module> (81, 19): parse expected comma after load's type`` (LLVM's
    # own tools print ``<stdin>:81:19: error: ...``, an error severity above) ---
    (("): parse ",), r"\S\ \(\d+,\ \d+\):\ parse\ \S"),
    # a figure stated over a device's or hardware's limit, at any severity (NCCL prints its
    # ``ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856`` at INFO before the launch fails)
    (("exceed",), _LIMIT_EXCEEDED),
    (("error", "exception"), r"(?:Error|Exception)\("),  # an exception's repr: AssertionError('...')
    (("exception", "***"), r"\bException\ in\ thread\b | make(?:\[\d+\])?:\ \*\*\*"),
    # --- compute-sanitizer / cuda-memcheck error records (its documentation's error kinds), after its prefix ---
    (  # the heads that name nothing else, also pasted without the prefix
        ("invalid __", "uninitialized __", "shared or local address", "malloc/free error", "barrier error detected",
         "race reported between", "program hit ", "hardware stack overflow"),
        r"(?:^|[\s:=])(?:Potential\ )?[Ii]nvalid\ __(?:global|shared|local|generic)__\ (?:read|write|atomic)"
        r" | \bUninitialized\ __\w+__\ memory\ read | (?i:\b(?:misaligned|out-of-range)\ shared\ or\ local\ address)"
        r" | \bMalloc/Free\ error\ encountered | \bBarrier\ error\ detected | (?<!Warning:\ )(?<!WARNING:\ )\bRace\ reported\ between\b"
        r" | \bProgram\ hit\ \S+\ \(error\ \d+\) | (?i:\bhardware\ stack\ overflow)",
    ),
    (
        ("=====",),
        r"^\s*={5,}\ *(?:(?:Warp|Lane|Device)\ )?(?:"
        r"(?:Potential\ )?[Ii]nvalid\ (?:__\w+__|global|shared|local|generic)\ (?:read|write|atomic|\?)"
        r" | Uninitialized\ __\w+__\ memory\ read | (?i:misaligned|out-of-range)\ (?i:address|shared\ or\ local\ address)"
        r" | (?i:illegal\ (?:address|instruction)|malformed\ instruction|invalid\ pc|invalid\ address\ space)"
        r" | (?i:(?:hardware\ |user\ )?stack\ overflow) | MMU\ Fault | Malloc/Free\ error | Barrier\ error"
        r" | Deadlock\ detected | Leaked\ (?:[1-9][\d,]*\ bytes|an?\ ) | Program\ hit\ | (?:Error|ERROR):\ Race\ reported"
        r" | (?:ERROR|Error)\ ?:\ ?Potential\ (?:RAW|WAR|WAW)\ hazard | Host\ API\ memory\ access\ error"
        r" | Target\ application\ returned\ an\ error | Tensor\ Memory\ .*(?:is\ not\ allocated|guardrail)"
        r" | Address\ 0x[0-9a-fA-F]+\ is\ (?:out\ of\ bounds|misaligned))",
    ),
    # --- compiler diagnostics quoted without their "error:" (EDG, the front end of nvcc and NVRTC) ---
    (
        ("no instance of", "is undefined"),
        r"\bno\ instance\ of\ (?:overloaded\ function|constructor|function\ template)\b.{0,200}\bmatch"
        r" | \bidentifier\ \"[^\"\n]+\"\ is\ undefined\b",
    ),
    # --- status enums and error codes of CUDA and its libraries ---
    (
        ("error", "fail"),
        r"\b(?:CUDA|cuda)\ error\b | \bCUDA_ERROR_[A-Z_]+ | \bcudaError(?!_t\b)\w+ | \b(?:CUDA|Cuda|cuda)\ failure\b",
    ),
    (("_status_",), r"\b[A-Z][A-Z0-9]*_STATUS_(?!SUCCESS\b)[A-Z][A-Z0-9_]*"),  # CUDNN_STATUS_BAD_PARAM, HSA_STATUS_...
    (("error",), r"\b[A-Z][A-Z0-9]*_ERROR_[A-Z0-9_]+"),  # NVRTC_ERROR_COMPILATION, VK_ERROR_...
    (
        ("cufft_",),
        r"\bCUFFT_(?:INVALID|INTERNAL|EXEC|ALLOC|SETUP|UNALIGNED|INCOMPLETE|PARSE|NO_WORKSPACE|NOT_IMPLEMENTED"
        r"|LICENSE|NOT_SUPPORTED)\w*",
    ),
    (
        ("error", "nccl"),
        r"\bhipError(?!_t\b)\w+ | \bnccl(?:[A-Z]\w*Error|InvalidArgument|InvalidUsage)\b | \bNCCL\ error\b",
    ),
    (
        ("illegal", "misaligned", "fail"),
        r"illegal\ memory\ access | illegal\ address | [Mm]isaligned\ address | unspecified\ launch\ failure",
    ),
    (("assert", "out of memory"), r"device-side\ assert | \bout\ of\ memory\b"),
    # --- failed statements, linkers ---
    (
        ("fail",),
        r"\b(?:Failed|failed)\ (?:to|with|because|due\ to|while|when)\b | \b(?:Failed|failed|FAILED)\s*[:(!]"
        r" | \S\s+(?:failed|FAILED)[.!]?\s*$",  # ... failed: invalid argument / Build failed.
    ),
    # "Fail to <verb> ...: <reason>" as a message's head (xinference's "Fail to get GPU info: Not Supported",
    # TensorRT-LLM's and Paddle's "Fail to ..." checks): a capitalised statement with the reason after a colon
    (("fail to", "fails to"), r"(?:^|[\]:|>-]\s)\s*Fails?\ to\ [a-z]\w*\b[^\n:]{0,100}:\s*[A-Za-z]"),
    # a reference check's verdict: CUTLASS examples' "results miscompared", "miscompare at index 3"
    (("miscompar",), r"\b(?:[Rr]esults?|[Oo]utputs?|[Vv]alues?)\ miscompared?\b | \b[Mm]iscompares?\ (?:at|in|on|found)\b"),
    (
        ("occurred",),  # a statement, not "if an error occurred"
        r"(?:^\s*|[.:;!]\s+)(?:[Aa]n\ |[Tt]he\ )?(?:[Ee]rror|[Ee]xception)\ (?:has\ )?occurred\b"
        r" | \b(?:[Ee]rror|[Ee]xception)\ occurred\ (?:while|during)\b",
    ),
    (("undefined", "multiple definition"), r"\bundefined\ (?:reference\ to|symbol)\b | \bmultiple\ definition\ of\b"),
    # RAPIDS libraries' checks (RMM_EXPECTS / RMM_FAIL: "RMM failure at: file:193: reason", cuDF's CUDF_EXPECTS /
    # CUDF_FAIL: "cuDF failure at: file:12: reason"): a library's name, "failure at:", a source location
    (("failure at",), r"\b[A-Za-z][\w.-]*\ failure\ at:\s*\S+:\d+"),
    # --- hangs ---
    (("timeout",), r"^Timeout\ \(\d+:\d\d:\d\d\)! | ^\++\ Timeout\ \++"),  # faulthandler, pytest-timeout
    (
        ("timed out", "timing out", "timeout"),
        r"\btim(?:ed|ing)\ out\b | \b[Tt]imeout\ (?:exceeded|expired|reached)\b"
        r" | \b(?:[Cc]ollective|NCCL|[Oo]peration|[Kk]ernel|[Ll]aunch)\ timeout\b",
    ),
    (("watchdog",), r"\b[Ww]atchdog\b.{0,80}(?:timeout|timed\ out|caught|detected|fired|terminat|abort)"),
    (("deadlock",), r"\bdeadlock(?:ed|\ detected)\b"),
    # --- results ---
    (("nan",), r"\bNaN\b | (?:^\s*|[\[(,:=]\s*)[-+]?nan(?=[\s\]),]|$)"),  # a NaN printed as a result: [nan, 1.0]
    # a reduction printed with an infinite result (``jnp.max(v[:8193]) -> -inf``, ``torch.sum(x) = inf``): a max,
    # min, sum or norm of finite data is finite, so the printed call says its own result is wrong
    (
        ("inf",),
        r"\b(?:a?max|a?min|sum|mean|norm|prod|std|var|logsumexp|reduce_\w+)\((?:[^()\n]|\([^()\n]*\)){0,80}\)"
        r"\s*(?:->|=>|==?|:|is)\s*[-+]?inf(?:inity)?\b",
    ),
    (
        ("internal:", "invalid_argument:", "resource_exhausted:", "fail", "unimplemented:",
         "out_of_range:", "data_loss:", "deadline_exceeded:"),  # an XLA/absl status (jaxlib, TF): INTERNAL: ...
        r"(?:^|[\s:\#(])(?:INTERNAL|INVALID_ARGUMENT|RESOURCE_EXHAUSTED|FAILED_PRECONDITION|UNIMPLEMENTED"
        r"|OUT_OF_RANGE|DATA_LOSS|DEADLINE_EXCEEDED):\s",
    ),
    # a printed result the text itself says is wrong: it names the expected value beside the one obtained
    (
        ("expected", "should", "but got", "instead of"),
        r"\b[Ee]xpected:?\s+(?P<expected_value>[^\s,;]+?)[,;]?\s+(?:but\s+)?(?:got|received|returned|obtained|was|is)\b:?\s+"
        r"(?!(?P=expected_value)(?:[\s,;.)]|$))\S"
        r" | \b(?:got|returned|returns|printed|prints|gives|results\ in)\s+(?:[-+]?[\d\[(]|nan\b|inf\b|True\b|False\b)"
        r"[^\n]{0,80}?(?:[,;(]\s*(?:but\s+)?(?:expected|should\ be)\b|\binstead\ of\b)"
        r" | \bshould\ (?:be|have\ been|equal|return|print|give)\s+(?:[-+]?[\d\[(]|nan\b|inf\b|True\b|False\b)"
        r"[^\n]{0,80}\bbut\b"
        r" | \bbut\ got\b",
    ),
    (  # a run that says its own output is wrong
        ("wrong", "incorrect"),
        r"\b(?:WRONG\ (?:ANSWER|RESULTS?)|[Ww]rong\ (?:answers?|results?|outputs?)|[Ii]ncorrect\ (?:results?|outputs?))\b",
    ),
    # a printed value its reporter marks as wrong: a comment that ends in the verdict ("print(f(x))  # tensor([7.9e4]),
    # incorrect"), or a result called garbage ("FP32 output produces garbage data"; not "garbage collection")
    (
        ("wrong", "incorrect", "garbage"),
        r"\#[^\n]*?[,;:(]\s*(?:incorrect|wrong|INCORRECT|WRONG)\s*\)?\s*$"
        r" | \bgarbage\ (?:data|values?|outputs?|results?|numbers)\b | \b(?:produc|return|giv)\w*\ garbage\b",
    ),
    # a check that says the values differ: "Mismatch of dbias at 0: ...", "3 mismatches found", "output does
    # not match the reference", "result is incorrect", cuda-samples' "Result verification failed at element 3!";
    # a test program's bare verdict line ("Failed"), the CUTLASS profiler's "Disposition: Failed" / "Incorrect"
    (
        ("mismatch", "match", "incorrect", "wrong", "fail", "disposition"),
        r"\b(?:[Mm]ismatch(?:es|ed)?|MISMATCH(?:ES|ED)?)\b(?:\s+(?:of|at|in|for|on|found|detected|between)\b|\s*[:!])"
        r" | \b(?:[Vv]alues?|[Rr]esults?|[Oo]utputs?|[Ee]lements?|[Cc]hecksums?)\ (?:mismatch|differ)\b"
        r" | \b(?:[Rr]esults?|[Oo]utputs?|[Vv]alues?|[Tt]ensors?|[Aa]rrays?|GPU|[Kk]ernel|[Cc]hecksums?|[Ss]ums?)"
        r"\ (?:does|do|did)(?:\ not|n't)\ match\b"
        r" | \b(?:does|do|did)(?:\ not|n't)\ match\ (?:the\ )?(?:reference|expected|CPU|cpu|host|golden|baseline)\b"
        r" | \b(?:[Rr]esults?|[Oo]utputs?|[Vv]alues?|[Aa]nswers?|[Cc]hecksums?|[Ss]ums?)\ (?:is|are|was|were)\ (?:incorrect|wrong"
        r"|not\ (?:correct|equal|close))\b"
        r" | ^\s*(?:Failed|FAILED|Fail|FAIL|Failure|Incorrect|INCORRECT)[.!]?\s*$ | \bDisposition:\s*(?:Failed|Incorrect)\b"
        r" | \b(?:[Vv]erification|[Vv]alidation|[Cc]heck|[Cc]omparison)\ failed\b"
        r" | \b(?:failed|FAILED)\ at\ (?:element|index|position|row|column|offset|i|idx)\b",
    ),
    # a load or an initialisation said not to work, in words (nvtop's "Impossible to initialize nvidia nvml",
    # go-nvml's "could not load NVML library"), or a library file said not to load ("libcudnn.so.8 ... dont load")
    (
        ("load", "initiali", "init", "dlopen"),
        r"(?i:\b(?:could\s*n[o']?t|unable\ to|cannot|can\s*not|can't|impossible\ to|fail(?:ed|s)?\ to)"
        r"\ (?:load|initiali[sz]e|init|dlopen)\b)"
        r" | (?:\blib[\w+-]*\.so[\w.]*|\b[\w+-]+\.(?:dll|dylib))\b[^\n]{0,80}?(?i:\b(?:dont|don't|do\ not|doesn't|does\ not"
        r"|won't|will\ not|didn't|did\ not|can't|cannot|couldn't|could\ not|fails?\ to|failed\ to)\ (?:be\ )?load(?:ed|ing)?\b)",
    ),
)  # fmt: skip
_FLAGS = re.VERBOSE | re.MULTILINE


@functools.cache
def _failure_line() -> re.Pattern[str]:
    """All of them at once, for a single line (compiled when :func:`is_failure_line` first needs it)."""
    return re.compile("|".join(f"(?:{p})" for _, p in _PATTERNS), _FLAGS)


#: keyword -> the indices of the patterns it selects
_BY_KEYWORD: dict[str, tuple[int, ...]] = {}
for _i, (_kws, _) in enumerate(_PATTERNS):
    for _k in _kws:
        _BY_KEYWORD[_k] = (*_BY_KEYWORD.get(_k, ()), _i)
#: failure lines recognised by their start, with no keyword: glog E/F lines, pytest's ``E   `` lines
_LINE_STARTS = re.compile(r"(?:^|[\[\s:])[EF]\d{4}\s+\d\d:\d\d:\d\d|^E {2,}\S|" + _FATAL_NO_DATE, re.MULTILINE)


@functools.cache
def _pattern(index: int) -> re.Pattern[str]:
    """One pattern of :data:`_PATTERNS`, compiled once (a line is tried against the ones its keywords
    select: combining each selection into one regex compiled a new regex for nearly every log)."""
    return regex_code.compile_pattern(
        _PATTERNS[index][1], _FLAGS
    )  # from the code kept with the rule base, where there is one


def _selected(indices: frozenset[int], line: str) -> bool:
    return any(_pattern(i).search(line) for i in sorted(indices))


#: on a line that matched, these say it is healthy after all
_HEALTHY_LINE = re.compile(
    r"""
      \b0\s+(?:errors?|failed|failures|hazards)\b                      # 0 errors, 0 failed
    | \b(?:errors?|failures|failed)\s*[:=]\s*0\b(?!\.\d*[1-9])          # errors: 0, failed=0
    | \berror_count\s*[:=]\s*0\b
    | \bno\ errors?\b | \bwithout\ errors?\b | \b(?:none|nothing)\ failed\b
    | \berror\s*[:=]\s*[-+]?(?:\d*\.\d|\d+[eE][-+]?\d|0\b|inf\b|none\b)  # a measured error: "max abs error: 0.0"
    | \bError:\s*(?:none|None)\b
    | \b(?:0|no|zero|without)\s+(?:wrong|incorrect)\s+(?:answers?|results?|outputs?)\b  # 0 wrong results
    """,
    re.VERBOSE | re.IGNORECASE,
)

#: lines whose own severity is below error (a warning or INFO line that mentions an error)
LOW_SEVERITY = re.compile(
    r"""
      ^\s*(?:\[[^\]\n]*\]\s*)*(?:[IWDV]\d{4}\s+\d\d:\d\d)                  # glog I/W/V lines
    | ^\s*\d{4}-\d\d-\d\d\ \d\d:\d\d:\d\d(?:\.\d+)?:\ [IWDV]\ \S            # TensorFlow's "2021-…: W tensorflow/…"
    | \b[A-Z]\w*Warning\b: | \bwarning\b\s*[:!] | \bWARNING\b | \bWARN\b | \[W(?:ARN(?:ING)?)?\]
    | \[[IWDV]\] | \[[IWDV]\ [\w.-]+:\d+\]                                   # TensorRT, c10: [I] [TRT], [W Module.cpp:12]
    | \bINFO\b | \bDEBUG\b | \bTRACE\b
    | \bwarnings\.warn\(
    """,
    re.VERBOSE,
)

#: lines in which an error word is not about this run (an echoed option, a test's PASSED line)
_NOT_ABOUT_RUN = re.compile(r"\b(?:PASSED|XFAIL|XPASS|SKIPPED|xfailed|xpassed)\b")

#: words that mark a failure even on a warning-level line (NCCL prints its errors at WARN)
_STRONG = re.compile(
    r"Segmentation fault|core dumped|terminate called|\bFAILED\b|\b(?:fatal|Fatal|FATAL)\b"
    r"|" + _NCCL_WARN_FAILURE + "|" + _LIMIT_EXCEEDED
)


@functools.cache
def _keywords() -> Any:
    """Every keyword of :data:`_BY_KEYWORD` in one automaton (pyahocorasick): one pass over a log finds
    them all.  Each keyword maps to (its length, the patterns it selects)."""
    import ahocorasick

    auto = ahocorasick.Automaton()
    for k, idx in _BY_KEYWORD.items():
        if k != START:
            auto.add_word(k, (len(k), idx))
    auto.make_automaton()
    return auto


def _candidate_lines(text: str) -> dict[int, set[int]]:
    """Start offset of each line that holds a keyword -> the patterns its keywords select."""
    lower = text.lower()
    starts: dict[int, set[int]] = {}
    # keywords hold no newline, and the automaton reports them in the order they end: the line of one is
    # the line of the one before, or a later one
    line_end = -1
    selected: set[int] = set()
    for end, (size, idx) in _keywords().iter(lower):
        if end > line_end:
            i = end - size + 1
            start = lower.rfind("\n", max(line_end, 0), i) + 1
            line_end = lower.find("\n", end)
            if line_end < 0:
                line_end = len(lower)
            selected = starts.setdefault(start, set())
        selected.update(idx)
    for m in _LINE_STARTS.finditer(text):
        starts.setdefault(text.rfind("\n", 0, m.start() + 1) + 1, set()).update(_BY_KEYWORD[START])
    return starts


def _healthy(line: str) -> bool:
    """A failure-looking line that is healthy after all: a zero count, a PASSED line, a warning."""
    if _HEALTHY_LINE.search(line) or _NOT_ABOUT_RUN.search(line):
        return True
    return bool(LOW_SEVERITY.search(line) and not _STRONG.search(line))


def is_failure_line(line: str) -> bool:
    """``line`` reports a failure and is not one of the healthy look-alikes."""
    if len(line) > 2000:
        return False
    found = _failure_line().search(line) or _printed_results(line, 1) or _cuda_error_tails(line, 1)
    return bool(found) and not _healthy(line)


def _cuda_error_tails(text: str, limit: int) -> list[tuple[int, str]]:
    """Lines that end, after a colon, in a CUDA runtime error's text (``...SortPairs(1): invalid argument``),
    with something before the colon: how Thrust's ``system_error`` and CUB print a failed call."""
    out: list[tuple[int, str]] = []
    for m in cuda_error_tables().tail_re.finditer(text.lower()):
        start = text.rfind("\n", 0, m.start()) + 1
        line = text[start : m.end()]
        if line[: m.start() - start].strip() and len(line) <= 2000 and not _healthy(line):
            out.append((text.count("\n", 0, start) + 1, line.strip()))
            if len(out) >= limit:
                break
    return out


def _zero_input_lines(text: str, limit: int) -> list[tuple[int, str]]:
    return [(n, line) for n, line, _, _ in zero_input_results(text, limit)]


#: the detectors of printed results; each answers the first ``limit`` lines of one sequence, in order
_PRINTED = (
    comparison_lines,
    block_comparison_lines,
    over_tolerance_lines,
    path_comparison_lines,
    flagged_row_lines,
    zero_metric_lines,
    _zero_input_lines,
    sentinel_pid_lines,
)


def _printed_results(text: str, limit: int, memo: dict[Any, Any] | None = None) -> list[tuple[int, str]]:
    """Printed values that say a check failed without a failure word (:mod:`diagnose.comparisons`): a
    reference and a device value that differ, a difference above its printed tolerance, a non-zero
    result of a call on zeros."""
    found: list[tuple[int, str]] = []
    for detect in _PRINTED:
        found += _detected(detect, text, limit, memo)
    return sorted(set(found))


def _detected(
    detect: Callable[[str, int], list[tuple[int, str]]], text: str, limit: int, memo: dict[Any, Any] | None
) -> list[tuple[int, str]]:
    """``detect(text, limit)``, from ``memo`` where an earlier call answers it: a detector's first ``k``
    lines are the first ``k`` of any larger limit's, and an answer shorter than its limit is all there is."""
    if memo is None or limit < 1:
        return detect(text, limit)
    asked, lines = memo.get(("printed", detect), (0, []))
    if asked >= limit or len(lines) < asked:
        return lines[:limit]
    lines = detect(text, limit)
    memo[("printed", detect)] = (limit, lines)
    return lines


def failure_lines(text: str, limit: int = 3) -> list[tuple[int, str]]:
    """The first ``limit`` failure lines of ``text``: (line number from 1, the line stripped)."""
    memo = _memo(text)
    found = memo.get(("answer", limit))
    if found is None:
        found = memo[("answer", limit)] = tuple(_failure_lines(text, limit, memo))
    return list(found)


#: what :func:`failure_lines` worked out for the last text it read: its callers ask about one log in
#: turn (whether it failed, the lines an unknown report shows, the lines its hint reads), with a
#: different ``limit`` each.  Keys: ("answer", limit) -> its answer; "lines" -> the candidate lines; "failed" ->
#: line start -> whether that line is a failure line
_LAST: tuple[str, dict[Any, Any]] = ("", {})


def _memo(text: str) -> dict[Any, Any]:
    global _LAST
    last = _LAST
    if last[0] is not text:
        last = _LAST = (text, {})
    return last[1]


def has_failure_line(text: str) -> bool:
    """Whether ``failure_lines(text, 1)`` finds a line, without the printed results' detectors where a
    line with a failure word answers first."""
    memo = _memo(text)
    found = memo.get(("answer", 1))
    if found is not None:
        return bool(found)
    if next(_keyword_lines(text, memo), None) is not None:
        return True
    if any(not _healthy(line) for detect in _PRINTED for _, line in _detected(detect, text, 1, memo)):
        return True
    return bool(_cuda_error_tails(text, 1))


def _failure_lines(text: str, limit: int, memo: dict[Any, Any]) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for hit in _keyword_lines(text, memo):
        out.append(hit)
        if len(out) >= limit:
            break
    printed = [(n, line) for n, line in _printed_results(text, limit, memo) if not _healthy(line)]
    printed += [hit for hit in _cuda_error_tails(text, limit) if hit not in out]
    if printed:
        out = sorted(set(out) | set(printed))[:limit]
    return out


def _keyword_lines(text: str, memo: dict[Any, Any]) -> Iterator[tuple[int, str]]:
    """The lines a failure pattern selected by their keywords matches, healthy ones left out, in order."""
    candidates = memo.get("lines")
    if candidates is None:
        candidates = memo["lines"] = sorted(_candidate_lines(text).items())
    failed: dict[int, bool] = memo.setdefault("failed", {})
    for start, indices in candidates:
        hit = failed.get(start)
        if hit is False:
            continue
        end = text.find("\n", start)
        line = text[start : end if end >= 0 else len(text)]
        if hit is None:
            hit = failed[start] = len(line) <= 2000 and _selected(frozenset(indices), line) and not _healthy(line)
        if hit:
            yield text.count("\n", 0, start) + 1, line.strip()
