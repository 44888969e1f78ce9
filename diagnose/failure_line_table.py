"""The shapes of a failure line: (keywords, pattern) pairs that :mod:`diagnose.failure_lines` tries on a log's lines,
with the flags they are compiled with.  Data only, kept apart so that the rule cache (:mod:`diagnose.rule_cache`)
can keep their compiled code without importing what reads them."""

from __future__ import annotations

import functools
import re

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
#: a LAPACK-style routine's info status said nonzero (cuSOLVER's devInfo, MAGMA's and LAPACK's info: the routine did
#: not compute its result for the matrix), at any severity: programs print it in their own words, some as a warning
#: before they carry on ("warning: cuSOLVER ssyev returned 1358", MAGMA's testers' "magma_dpotrf_gpu returned error 3")
_SOLVER_INFO = (
    r"(?i:\b(?:cusolverDn[sdczx]?|cusolverSp[sdcz]?|magma_[sdcz]|lapacke_[sdcz]|[sdcz])?"
    r"(?:potrf|potf2|potrs|potri|getrf|getrs|getri|gesv|geqrf|gels\w*|gesvd\w*|syev\w*|heev\w*|sygv\w*|hegv\w*|sytrf)"
    r"(?:_gpu|_batched|batched)?\b[^\n]{0,40}?\b(?:returned(?:\ error)?|dev_?info|info)\s*[:=]?\s*-?[1-9]\d*\b(?!\.\d)"
    r"(?![ \t]+(?:singular|eigen\w*|values?|elements?|rows?|columns?|items?|results?|vectors?|iterations?|sweeps?)\b))"
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
    # a program's own check that starts its report with the word as a sentence ("Error. Batch 1 segment 948 not
    # sorted.", CUB's and Thrust's sort-checking programs; "ERROR. Result mismatch")
    (("error",), r"^\s*(?:Error|ERROR)\.\ +[A-Z0-9]"),
    # Cython's compile error (Cython/Compiler/Errors.py, CompileError: the block starts "Error compiling Cython
    # file:", then the source excerpt and "file.pyx:L:C: message"), printed by cythonize and every build that runs it
    (("error compiling cython",), r"^\s*Error\ compiling\ Cython\ file:"),
    (("fatal",), r"\b(?:fatal|Fatal|FATAL)\b(?:\s+error)?\s*[:!]"),
    # LLVM's and its users' fatal-error reports (XLA: "LLVM Fatal Error while compiling ..."), JVM, Windows
    (("fatal",), r"\b(?:fatal|Fatal|FATAL)\ (?:error|Error|ERROR|exception|Exception|EXCEPTION)\b(?!\ (?:if|when|on)\b)"),
    # "[Error]" and "[Fatal]" too: Omniverse's carb logging ("[Error] [carb.gym.plugin] ...", "[Fatal]
    # [carb.crashreporter-breakpad.plugin] ..."), Isaac Sim's and Isaac Gym's
    (("error", "fatal", "critical"), r"\[(?:ERROR|FATAL|CRITICAL|[Ee]rror|[Ff]atal|Critical)\]"),
    (("error",), r"\b(?:Error|ERROR)\ (?:at|in)\ \S+?(?::\d+|:\s|:$|\ \()"),  # CMake's "CMake Error in CMakeLists.txt:"
    # CMake's own last words on a run that failed (Source/cmake.cxx): "CMake Generate step failed.  Build files cannot
    # be regenerated correctly.", "-- Configuring incomplete, errors occurred!"
    (("generate step failed", "configuring incomplete"), r"\bCMake\ Generate\ step\ failed\b|\bConfiguring\ incomplete,\ errors\ occurred\b"),
    (("error",), r"\berror\ [A-Z]{1,3}\d{3,5}\s*:"),  # MSVC, MSBuild: error C2065: / error MSB3721:  # CMake Error at CMakeLists.txt:3 (message):
    ((START,), r"(?:^|[\[\s:])[EF]\d{4}\s+\d\d:\d\d:\d\d"),  # glog/absl E/F lines, also in a prefix: [rank0]:[E1203
    # a glog/absl FATAL line pasted without its date and thread ("F external/.../cuda_dnn.cc:1011] msg"), and
    # TensorFlow's own prefix of it ("2021-09-01 10:00:00.123456: F tensorflow/core/.../x.cc:12] msg"): the
    # process aborts after it (glog's LOG(FATAL), absl's LOG(FATAL), tsl's logging.cc)
    ((START,), _FATAL_NO_DATE),
    # TensorRT's logger: "[E] [TRT] ...", after its time stamp ("[12/03/2026-12:00:00] [E] ..."): a severity tag
    # that opens the line, not a label's "[F]" inside a table (GROMACS's "NxN Ewald Elec. + LJ [F]", F for force)
    (("[e", "[f"), r"^\s*(?:\[[^\]\n]{1,40}\]\s*)*\[[EF]\](?=\s|$)"),
    # c10 logging: [E ProcessGroupNCCL.cpp:475]; the same form with the file's whole path (nvdiffrast's LOG(FATAL):
    # "[F C:\Users\u\...\nvdiffrast\common\glutil.cpp:66] wglGetProcAddress() failed for 'glTexImage3D'")
    (("[e", "[f"), r"\[[EF]\ (?:[A-Za-z]:)?[^\s\]:]{0,300}?[\w.-]+:\d+\]"),
    (("[e:", "[f:"), r"\[[EF]:[\w.-]+:"),  # ONNX Runtime's logger: [E:onnxruntime:Default, file.cc:12 Fn]
    (("onnxruntimeerror",), r"\[ONNXRuntimeError\]"),  # ONNX Runtime's Python exceptions: [ONNXRuntimeError] : 6 : ...
    # Python logging, loguru, vLLM: "ERROR 05-05 17:03:35 [...]", "- ERROR -", "| ERROR    |"
    (("error", "fatal", "critical"), r"(?:^|[\s|\[(-])(?:ERROR|FATAL|CRITICAL)(?=\s+\d|\s*[|\]]|\s+-\s|\s{2,})"),
    (
        ("level", "lvl", "severity"),
        r"\b(?:level|lvl|severity|levelname)\s*[=:]\s*[\"']?(?:error|fatal|critical|panic|ERROR|FATAL|CRITICAL)\b",
    ),
    (("nccl warn",), _NCCL_WARN_FAILURE),
    # NVSHMEM's error macros (nvshmemx_error.h: NVSHMEMI_NULL_ERROR_JMP, NVSHMEMI_NZ_ERROR_JMP, NVSHMEMI_EQ_ERROR_JMP,
    # NVSHMEMI_NZ_EXIT; the same forms in its bootstrap plugins' BOOTSTRAP_NULL_ERROR_JMP): "src/x.cpp:1889: NULL value
    # cannot allocate ...", "file.cpp:12: non-zero status: 7 ...", "file.cpp:12: error status: -1 ..."
    (
        ("null value", "non-zero status", "error status"),
        r"^\s*\S+\.(?:c|cc|cpp|cxx|cu|h|hpp):\d+:\ (?:NULL\ value\ \S|(?:non-zero|error)\ status:\ -?\d+)",
    ),
    (("returned", "info"), _SOLVER_INFO),
    # --- test frameworks ---
    (("fail",), r"\bFAILED\b | \bFAILURE\b | \bFAIL\b"),
    (("fail", "error"), r"(?<![-.])\b[1-9]\d*\s+(?:failed|errors?|failures)\b"),  # pytest / ctest / compiler totals
    (("fail",), r"(?::\d+|^unknown\ file):\ Failure\s*$"),  # googletest: file.cc:12: Failure, unknown file: Failure
    # googletest's report of an exception that left a test (gtest.cc: "C++ exception with description \"%s\" thrown
    # in the test body.", "Unknown C++ exception thrown in ..."), printed after "unknown file: Failure"
    (("c++ exception",), r"\b(?:C\+\+\ exception\ with\ description\ \"|Unknown\ C\+\+\ exception\ )[^\n]*\ thrown\ in\ \S"),
    # MATLAB's (and Octave's) error report: "Error using power", "Error using .^ POWER: ...", and its undefined name
    # ("Undefined function 'spikedetector3' for input arguments of type 'gpuArray'.", "Undefined variable 'x'.")
    (("error using",), r"^\s*Error\ using\ \S"),
    # Quantum ESPRESSO's errore() from one task of a parallel run (Modules/error_handler.f90: " task #  0", then
    # " from c_bands : error #  1" and the message between rows of %): the single-task form, "Error in routine
    # c_bands (1):", is an "Error in" line above
    (("error #",), r"^\s*from\ \w+\s*:\s*error\s*\#\s*-?\d+\s*$"),
    # a stack printed by glibc's backtrace_symbols (a program's crash handler: "3: /lib/libx.so(_ZN6matrix3setE+0x130)
    # [0x7f43c1286990]"), which programs print only as they die
    (("+0x",), r"^\s*\#?\d+:?\s+\S+\((?:[\w.$@]+)?\+0x[0-9a-f]+\)\s+\[0x[0-9a-f]+\]\s*$"),
    # a crash reporter's numbered frames, "module!symbol+offset" (Omniverse Kit's carb.crashreporter-breakpad: "012:
    # omni.usd.dll!gpu::realm::...::write+0x731e", "016: libcarb.tasking.plugin.so!make_fcontext+0x39 (??:?)"),
    # printed only when the process crashed
    (("!", "+0x"), r"^\s*(?:\d{1,3}:\s+)[\w.+-]+\.(?:dll|exe|so(?:\.\d+)*|dylib)!\S*\+0x[0-9a-fA-F]+\b"),
    (("undefined function", "undefined variable"), r"\bUndefined\ (?:function|variable|function\ or\ variable)\ '[^'\n]+'"),
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
    # the same reports in other languages: glibc's strsignal translations of SIGSEGV and bash's of "(core dumped)"
    # (diagnose/collectors/exit_status.py lists their source), the distinctive ones only
    (
        ("段错误", "核心已转储", "speicherzugriffsfehler", "speicherabzug", "erreur de segmentation", "violación de segmento",
         "core' generado", "ошибка сегментирования", "образ памяти", "コアダンプ", "falha de segmentação",
         "errore di segmentazione", "세그멘테이션", "코어 덤프", "區段錯誤", "核心已傾印", "segmentatiefout",
         "segmenteringsfel"),
        r"段错误 | 核心已转储 | Speicherzugriffsfehler | Speicherabzug\ geschrieben | Erreur\ de\ segmentation"
        r" | Violación\ de\ segmento | `core'\ generado | Ошибка\ сегментирования | образ\ памяти\ сброшен | コアダンプ"
        r" | Falha\ de\ segmentação | Errore\ di\ segmentazione | 세그멘테이션\ 오류 | 코어\ 덤프됨 | 區段錯誤 | 核心已傾印"
        r" | Segmentatiefout | Segmenteringsfel",
    ),
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
    # a private class prints its leading underscore (torch._C._LinAlgError: ..., numpy's _UFuncNoLoopError: ...);
    # Python 3.11's ExceptionGroup and BaseExceptionGroup ("... (7 sub-exceptions)") are exceptions too
    (
        ("error_", "exception_", "error:", "exception:", "exceptiongroup:"),
        r"(?:^|[\s(\[](?=[A-Za-z_]\w*\.))(?:[A-Za-z_]\w*\.)*_?(?:[A-Z]\w*)?(?:Error|Exception(?:Group)?)(?:_[A-Za-z]\w*)?:(?:\s|$)",
    ),
    # a binding module's exception named after its C library's lower-case prefix (nvmath's cudss.cuDSSError, NIXL's
    # nixl._bindings.nixlNotFoundError): qualified by its package and module, at the start of a line, as traceback.py
    # prints it, with a message that is not a lone number (a printed attribute: "stats.train.lastError: 0.01")
    (
        ("error:", "exception:"),
        r"^[ \t]*(?:[A-Za-z_]\w*\.){2,}_?[a-z][a-z0-9]*[A-Z]\w*(?:Error|Exception):(?:$|\s(?![ \t]*[-+]?[\d.]+(?:[eE][-+]?\d+)?[ \t]*$))",
    ),
    (
        ("errors.", "exceptions.", "error.", "exception."),
        r"(?:^|[\s(\[])(?:[A-Za-z_]\w*\.)*(?:errors|exceptions|error|exception)\.[A-Z]\w*:(?:\s|$)",
    ),
    (("error", "exception"), r"^(?:[A-Za-z_]\w*\.)*_?[A-Z]\w*(?:Error|Exception)\s*$"),  # a bare name: XlaRuntimeError
    # pytest's location line, which closes each entry of a failure's traceback (_pytest/_code/code.py,
    # ReprFileLocation: "{path}:{lineno}: {exception type}"): "triton/compiler.py:942: CompilationError", also
    # inside the box a rich console draws ("│ .../compiler.py:57: RuntimeError")
    (
        ("error", "exception"),
        r"^[\s│|]*(?:[A-Za-z]:)?[^\s:]+\.pyx?:\d+:\ (?:[A-Za-z_]\w*\.)*_?[A-Z]\w*(?:Error|Exception)\s*$",
    ),
    # a frame of a Python traceback (traceback.py's '  File "f.py", line 12, in fn'), pasted without its header
    # and exception line: Python prints frames in this shape when an exception propagates (a logging call's
    # stack_info prints them under "Stack (most recent call last):", which no healthy run here shows)
    (('file "',), r'^\s*File\ "[^"\n]+",\ line\ \d+,\ in\ \S'),
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
    # glibc's assert message cut after its location (__assert_fail prints "prog: file:line: function: Assertion
    # `expr' failed."; a long C++ signature wraps, and a paste keeps the first lines only): "python3:
    # /project/lib/Dialect/MMAv2.cpp:760:" alone on its line; only a program's name and a source file's path
    (
        (".c:", ".cc:", ".cpp:", ".cxx:", ".cu:", ".cuh:", ".h:", ".hh:", ".hpp:", ".hxx:", ".inl:", ".inc:"),
        r"^[\w.+-]{1,40}:\ (?:/|[A-Za-z]:[\\/]|\.{1,2}/)\S{0,300}\.(?:c|cc|cpp|cxx|cu|cuh|h|hh|hpp|hxx|inl|inc):\d+:\s*$",
    ),
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
    # Address", "received signal CUDA_EXCEPTION_14, Warp Illegal Address."; Nsight Eclipse Edition's debug view:
    # "(Suspended : Signal : CUDA_EXCEPTION_15:Invalid Managed Memory Access)"),
    # and the same exception as the driver's GPU core dump names it (CUDA_ENABLE_COREDUMP_ON_EXCEPTION: "coredump:
    # Detected an exception of type CUDBG_EXCEPTION_WARP_ILLEGAL_ADDRESS (14)", the debugger API's CUDBGException_t)
    (
        ("cuda exception", "cuda_exception_", "cudbg_exception_"),
        r"\bCUDA\ Exception:\ +[A-Z] | \bCUDA_EXCEPTION_\d+\b\ ?[,:] | \bCUDBG_EXCEPTION_(?!NONE\b)[A-Z_]+\b",
    ),
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
    # (``#0  kern<<<(54,1,1),(32,1,1)>>> () at k.cu:172``; a template kernel's frame spells its return type and
    # template arguments, spaces included: ``#0  0x... in void ns::kern<T, 1>(Params)<<<(28,2,1),(384,1,1)>>> ()``);
    # nobody pastes one from a run that went well
    ((">>>",), r"^\s*\#\d+\s+(?:0x[0-9a-fA-F]+\ in\ )?(?:\S[^\n]*?)?<<<\(\d+,\s*\d+,\s*\d+\),\s*\(\d+,\s*\d+,\s*\d+\)>>>"),
    # a host debugger's backtrace of a process that crashed or hung: gdb's frame of a shared library's function
    # (``#7  0x00007f837d1f35e9 in PMPI_Finalize () from .../libmpi.so.20``) and lldb's (``frame #2:
    # 0x00007fb090db0b85 libtorch_cuda.so`c10d::ProcessGroupNCCL::abort() + 664``); a backtrace is asked for
    # only when a process died or stopped answering
    (
        (" in ", "frame #"),
        r"^\s*(?:\#\d+\s+0x[0-9a-fA-F]{6,}\ in\ \S[^\n]*?\(\S*\)\ (?:from|at)\ \S|(?:\*\s*)?frame\ \#\d+:\ 0x[0-9a-fA-F]{6,}\ [\w.+-]+`\S)",
    ),
    # a crash handler's backtrace banner: UCX's on a fatal signal or a failed assertion ("==== backtrace (tid: 123)
    # ====", ucs/debug/debug.c; "==== backtrace ====" in older releases) and glibc's after it detected heap corruption
    # ("======= Backtrace: =========", malloc's abort path before glibc 2.26); printed only when the process dies
    (("backtrace",), r"^\s*={3,}\ (?:backtrace(?:\ \(tid:\s*\d+\))?|Backtrace:)\ ={3,}\s*$"),
    # a program's report of its own internal error, opening the line or a banner of asterisks (Haskell's Accelerate:
    # "*** Internal error in package accelerate ***"; "INTERNAL ERROR: ..." of compilers and solvers)
    (("internal error",), r"(?i:^\s*(?:\*+\s*)?internal\ error\b(?!\s*(?:counters?|counts?|rates?|stat\w*)\b))"),
    # a shell that could not find a program: bash's "X: command not found", Ubuntu's command-not-found
    # ("Command 'hipcc' not found, ..."), dash's "sh: 1: X: not found", cmd.exe's "'X' is not recognized as an
    # internal or external command"
    (
        ("command not found", "not found", "is not recognized"),
        r"\b[\w.+-]+:\ command\ not\ found\b | ^\s*Command\ '[^'\n]+'\ not\ found\b"
        r" | \bsh:\ \d+:\ [\w.+-]+:\ not\ found\b | '[^'\n]+'\ is\ not\ recognized\ as\ an\ internal\ or\ external\ command\b",
    ),
    # OpenCL's status names (Khronos cl.h; PyOpenCL prints them without the CL_ prefix after "failed: ") and the
    # programs' own "OpenCL error" reports; not clinfo's "<error: CL_...>" for a property a device does not report
    # (which the severity shape above still reads by its "error:")
    (
        ("cl_", "opencl error", "opencl unknown"),
        r"(?<!<error:\ )\bCL_(?:INVALID_[A-Z_]+|OUT_OF_(?:RESOURCES|HOST_MEMORY)|MEM_OBJECT_ALLOCATION_FAILURE"
        r"|(?:BUILD|COMPILE|LINK)_PROGRAM_FAILURE|DEVICE_NOT_AVAILABLE|COMPILER_NOT_AVAILABLE|PLATFORM_NOT_FOUND_KHR"
        r"|MAP_FAILURE|EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST|MISALIGNED_SUB_BUFFER_OFFSET)\b"
        r" | (?i:\bOpenCL\ (?:UNKNOWN\ )?(?:OPENCL\ )?error\b)",
    ),
    # --- compilers' IR parsers: libNVVM's ``<module> (81, 19): parse expected comma after load's type`` (LLVM's
    # own tools print ``<stdin>:81:19: error: ...``, an error severity above) ---
    (("): parse ",), r"\S\ \(\d+,\ \d+\):\ parse\ \S"),
    # a figure stated over a device's or hardware's limit, at any severity (NCCL prints its
    # ``ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856`` at INFO before the launch fails)
    (("exceed",), _LIMIT_EXCEEDED),
    # an exception's repr: AssertionError('...'), Error(...); not a function or kernel whose name ends so
    # (nvprof's "Kernel: getError(int, int, float*)", "cudaGetLastError()" quoted from code)
    (("error", "exception"), r"\b(?:[A-Z]\w*)?(?:Error|Exception)\("),
    (("exception", "***"), r"\bException\ in\ thread\b | make(?:\[\d+\])?:\ \*\*\*"),
    # LLVM's crash output, in every compiler that embeds it (Triton, XLA, NVVM, clang): llvm_unreachable's
    # "UNREACHABLE executed at f.cpp:12!" (lib/Support/ErrorHandling.cpp) and the signal handler's banner and
    # stack dump (lib/Support/PrettyStackTrace.cpp, Signals.cpp: "PLEASE submit a bug report to ...", "Stack dump:")
    (
        ("unreachable executed", "please submit a bug report", "stack dump"),
        r"\bUNREACHABLE\ executed\b | \bPLEASE\ submit\ a\ bug\ report\ to\b | ^\s*Stack\ dump(?:\ without\ symbol\ names\b[^\n]*)?:\s*$",
    ),
    # a container engine's refusal (the docker CLI's "Error response from daemon: ...", moby client/errors.go) and
    # runc's container-start failures (libcontainer: "error during container init: ...", "error running hook #1: ...")
    (
        ("error response from daemon", "error during container init", "error running hook", "error running prestart"),
        r"\bError\ response\ from\ daemon:\s*\S | \berror\ during\ container\ init:\s*\S"
        r" | \berror\ running\ (?:prestart\ )?hook\b[^\n]{0,20}:\s*\S",
    ),
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
    # GNU ld's missing library (binutils ld/ldfile.c: "%P: cannot find %s: %E"), printed before collect2's summary
    (("cannot find",), r"(?:^|[\s/])(?:[\w.-]*-)?ld(?:\.(?:bfd|gold))?:\ +cannot\ find\ +\S"),
    # the error-check macro most CUDA code copies (Stack Overflow's "gpuErrchk"): "GPUassert: <error text> <file> <line>",
    # and the same macro under a project's own name ("cuda assert: invalid argument .../gpu_cuda.h 48.")
    (
        ("gpuassert", "gpu assert", "gpu_assert", "cudaassert", "cuda assert", "cuda_assert"),
        r"\b(?:GPU|[Gg]pu|CUDA|[Cc]uda)[\ _]?[Aa]ssert(?:ion)?:\s*\S",
    ),
    # RAPIDS libraries' checks (RMM_EXPECTS / RMM_FAIL: "RMM failure at: file:193: reason", cuDF's CUDF_EXPECTS /
    # CUDF_FAIL: "cuDF failure at: file:12: reason"): a library's name, "failure at:", a source location
    (("failure at",), r"\b[A-Za-z][\w.-]*\ failure\ at:\s*\S+:\d+"),
    # --- hangs ---
    (("timeout",), r"^Timeout\ \(\d+:\d\d:\d\d\)! | ^\++\ Timeout\ \++"),  # faulthandler, pytest-timeout
    # an evaluation record's own failure, as kdiag writes its fields (diagnose.inputs._flat_evaluation): a harness's
    # verdict word ("verdict: FAIL_MUTATION") and the failure it names without a message ("failure_reason: timeout")
    (("verdict: fail", "failure_reason: "), r"^verdict:\ FAIL\w* | ^failure_reason:\ \S"),
    (
        ("timed out", "timing out", "timeout"),
        r"\btim(?:ed|ing)\ out\b | \b[Tt]imeout\ (?:exceeded|expired|reached)\b"
        r" | \b(?:[Cc]ollective|NCCL|[Oo]peration|[Kk]ernel|[Ll]aunch)\ timeout\b"
        # a job runner that ended the work at its limit (Modal's "Task's current input ... hit its timeout of 600s",
        # "exceeded its timeout of 300 seconds")
        r" | \b(?:hit|exceeded|reached)\ (?:its|the|a)\ timeout\ of\ \d",
    ),
    (("watchdog",), r"\b[Ww]atchdog\b.{0,80}(?:timeout|timed\ out|caught|detected|fired|terminat|abort)"),
    (("deadlock",), r"\bdeadlock(?:ed|\ detected)\b"),
    # --- results ---
    # a NaN printed as a result ([nan, 1.0]), or NaNs reported in a result ("Q gradient: NaNs!"); not in the values
    # a line labels as what goes in (``Input: [1.0, nan]``, ``Original activations for the edge-case test: [..,
    # NaN, inf]``): a test prints the special values it feeds a kernel, and a NaN that comes out is on the output's
    # line
    (
        ("nan",),
        r"^(?!\s*(?:\S+\s+){0,4}?(?:[Ii]nputs?|[Oo]riginal|[Ii]nitial)\b[^:=\n]{0,60}[:=]\s*[\[(])"
        r".*?(?:\bNaNs?\b | (?:^\s*|[\[(,:=]\s*)[-+]?nan(?=[\s\]),]|$)"
        r" | (?<=\d)\ +[-+]?nan(?=\ +[-+]?\.?\d|\s*$))",  # a cell of a table of figures: "0   nan   1.08e+03"
    ),
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
    # the other codes of absl::StatusCodeToString (absl/status/status.cc), as XLA/jaxlib and TF print a failed
    # status: "NOT_FOUND: ...", "PERMISSION_DENIED: ...", "Status: CANCELLED: ..." (OK never carries a message)
    (
        ("not_found:", "permission_denied:", "cancelled:", "already_exists:", "unauthenticated:", "unknown:",
         "aborted:", "unavailable:"),
        r"(?:^|[\s:\#(])(?:NOT_FOUND|PERMISSION_DENIED|CANCELLED|ALREADY_EXISTS|UNAUTHENTICATED|UNKNOWN|ABORTED"
        r"|UNAVAILABLE):\s+\S",
    ),
    # TensorFlow 1.x's names of the same codes (tensorflow/core/lib/core/status.cc error_name, "Resource
    # exhausted: OOM when allocating ..."): the several-word names at a line's start or after a failed
    # statement, a "Status:" or a log prefix; the one-word names ("Internal:", "Unknown:") only after those
    (
        ("resource exhausted:", "failed precondition:", "invalid argument:", "deadline exceeded:", "data loss:",
         "out of range:", "not found:", "already exists:", "internal:", "unimplemented:", "unknown:", "aborted:",
         "unavailable:", "cancelled:", "unauthenticated:", "permission denied:"),
        r"(?:^\s*|\]\s+)(?:Resource\ exhausted|Failed\ precondition|Invalid\ argument|Deadline\ exceeded|Data\ loss"
        r"|Out\ of\ range):\s+\S"
        r" | \b(?:failed|Status|status|[Ee]rror):\s+(?:Resource\ exhausted|Failed\ precondition|Invalid\ argument"
        r"|Deadline\ exceeded|Data\ loss|Out\ of\ range|Not\ found|Already\ exists|Internal|Unimplemented|Unknown"
        r"|Aborted|Unavailable|Cancelled|Unauthenticated|Permission\ denied):\s+\S",
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
    (  # a run that says its own output is wrong, or a report's title that does ("GEMM incorrect results", "Wrong
        # result on GeForce arch", and with the adjective after the noun as titles shorten it: "CUTLASS results incorrect")
        ("wrong", "incorrect"),
        r"\b(?:WRONG\ (?:ANSWER|RESULTS?)|[Ww]rong\ (?:answers?|results?|outputs?)|[Ii]ncorrect\ (?:results?|outputs?))\b"
        r" | \b(?:[Rr]esults?|[Oo]utputs?|[Aa]nswers?)\ (?:incorrect|wrong)\s*$",
    ),
    # a printed value its reporter marks as wrong: a comment that ends in the verdict ("print(f(x))  # tensor([7.9e4]),
    # incorrect"), a label that says so before the value ("int16 indexing (incorrect): [0. 1. 1. 1.]"), or a result
    # called garbage ("FP32 output produces garbage data"; not "garbage collection")
    (
        ("wrong", "incorrect", "garbage"),
        r"\#[^\n]*?[,;:(]\s*(?:incorrect|wrong|INCORRECT|WRONG)\s*\)?\s*$"
        r" | \((?:incorrect|wrong|INCORRECT|WRONG)\)\s*[:=]\s*\S"
        r" | \bgarbage\ (?:data|values?|outputs?|results?|numbers)\b | \b(?:produc|return|giv)\w*\ garbage\b",
    ),
    # a reporter's verdict written as a comment that is only the verdict, as bug reports mark the failing call
    # or the block of output after it ("torch.randint(...).sum() # BAD", a line "# => BAD", "f(x)  // wrong!",
    # "<-- WRONG"), not a comment that goes on ("# bad inputs are skipped") nor a column named so (nccl-tests'
    # header "... busbw #wrong")
    (
        ("bad", "wrong", "incorrect"),
        r"(?:\#(?![A-Za-z])|//|<-+)\s*(?:=>|->|:)?\s*(?:BAD|[Bb]ad|WRONG|[Ww]rong|INCORRECT|[Ii]ncorrect)"
        r"(?:\ (?:result|output|answer|value)s?)?\s*[!.]*\s*(?:\([^()\n]{0,80}\))?\s*$",
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
    # a compile or a build said not to work, in words ("can't compile with cupy.RawModule when ...", "unable to
    # build the extension"), unless the line says what was done instead (torch.compile's fallback to eager)
    (
        ("compile", "build"),
        r"(?i:\b(?:could\s*n[o']?t|unable\ to|cannot|can\s*not|can't)\ (?:compile|build)\b(?!-))"
        r"(?![^\n]*\b(?:fall(?:ing|s)?\ back|instead|skipp\w*)\b)",
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
    # --- a reporter's sentence that states the failure in words (an issue title, the symptom as the reporter
    # saw it): the words of the taxonomy's failure modes, in the shapes issue threads word them ---
    # a hang ("The testing freezes in gpu/test/...", "The `tinygemm2` kernel hung intermittently", "mixbench-cuda
    # hangs in the middle of test", "Sporadic hang or freeze in CUDA kernels", "one kernel thread stuck at ...")
    (
        ("hang", "hung", "freez", "froze", "stuck"),
        r"(?i:\b(?:hangs|hung|freezes|froze|(?:gets?|got|is|was|were|are|becomes?|remains?|thread|threads|kernel)\ stuck)\b)"
        r" | \b(?:[Hh]ang|[Ff]reeze)\ (?:in|on|at|when|while|during|after)\b",
    ),
    # memory that grows while a program runs ("the GPU memory consumptions increases over time", "GPU memory
    # usage grows continually over time", "GPU memory keeps increasing until out of memory"), a leak stated
    # as a finding ("a serious memory leak", "leaks GPU memory"); not an option's help ("search for memory leaks")
    (
        ("memory", "leak"),
        r"(?i:\bmemory\b[^\n]{0,40}?\b(?:increases|increasing|grows|growing|keeps\ (?:growing|increasing|rising)|rises|rising)\b"
        r"[^\n]{0,40}?\b(?:over\ time|until|continu\w*|steadily|every|each|per\ (?:step|iteration|call|epoch)|out\ of\ memory))"
        r" | (?i:\b(?:a|an|the|GPU|CUDA|device|serious|huge|big|slow)\ memory\ leaks?\b(?!\ at\ exit))"
        r" | (?i:\bleak(?:s|ing)\ (?:GPU\ |device\ |CUDA\ |host\ )?memory\b)",
    ),
    # values said to be wrong by what computes them ("the legacy CUDA code will give clearly wrong energies",
    # "jaxlib==0.1.61 on CPU/GPU computes incorrect values", "returns different values", "non-sensical DMC results")
    (
        ("wrong", "incorrect", "erroneous", "bogus", "sensical"),
        r"(?i:\b(?:give|gives|gave|giving|compute|computes|computed|computing|return|returns|returned|returning"
        r"|produce|produces|produced|producing|yield|yields|yielded|output|outputs|print|prints|printed|calculate|calculates"
        r"|calculated|get|gets|got|generate|generates|generated)\s+(?:(?:clearly|completely|totally|silently|sometimes"
        r"|slightly|very|some|the|a)\s+)*(?:wrong|incorrect|erroneous|bogus|non-?sensical)\s+\w)"
        r" | (?i:\bnon-?sensical\ \w*\s*(?:results?|values?|outputs?|answers?)\b)",
    ),
    # the right result said not to come ("I can not get the right result", "does not give the correct answer",
    # "fails to produce the expected output"): the same verdict with its negation on the other word
    (
        ("right", "correct", "expected"),
        r"(?i:\b(?:can\ ?not|can't|could\ ?not|couldn't|unable\ to|fail(?:s|ed)?\ to)\s+(?:get|obtain|reproduce|produce"
        r"|compute|return)\s+(?:the\s+)?(?:right|correct|expected)\s+(?:results?|answers?|outputs?|values?)\b)"
        r" | (?i:\b(?:doesn't|does\ not|don't|do\ not|didn't|did\ not|never)\s+(?:get|give|return|produce|compute|yield)"
        r"\s+(?:the\s+)?(?:right|correct|expected)\s+(?:results?|answers?|outputs?|values?)\b)",
    ),
    # results said to differ from run to run or between two ways of computing them ("the two GPU results are
    # different", "The print is different each time you run it", "recon images are different every time")
    (
        ("different", "inconsistent", "identical", "not the same"),
        r"(?i:\b(?:results?|outputs?|values?|answers?|prints?|images?|numbers?)\ (?:are|is|were|was)\ (?:(?:all|still|slightly)\ )?"
        r"(?:different|inconsistent|not\ (?:the\ same|identical|deterministic|reproducible))\b)"
        r" | (?i:\b(?:is|are)\ different\ (?:each|every)\ time\b)",
    ),
    # a check's verdict that two implementations disagree, ending its line: Triton's tutorials print
    # "❌ Triton and Torch differ" (python/tutorials/03-matrix-multiplication.py; "✅ Triton and Torch match" when
    # they agree), other checks "CPU and GPU differ", "kernel vs. reference differ"
    (
        ("differ",),
        r"\b(?:and|vs\.?|versus)\ [\w.\-]+(?:\ (?:results?|outputs?|values?))?\ differ\s*[.!]?\s*$",
    ),
    # one run said to behave as expected and another not ("prints -1.0 for ti.vulkan backend (as expected),
    # but 0.0 for ti.cuda"), or a kernel that returns part of its answer ("returns only half of the correct result")
    (
        ("as expected", "only half", "of the correct", "of the expected"),
        r"\bas\ expected\)?[,;]?\s+but\b"
        r" | (?i:\b(?:only|just)\ (?:half|a\ (?:half|third|quarter|fraction|part)|part)\ of\ the\ (?:correct|expected|right)\b)",
    ),
    # an integer overflow named as the finding ("which likely indicates a signed 32 bit integer overflow",
    # "Fix integer overflow in distances"; UBSan's "runtime error: signed integer overflow" is an error line above)
    (
        ("overflow",),
        r"(?i:\b(?:(?:un)?signed\ )?(?:(?:32|64)[-\ ]?bit\ )?(?:(?:un)?signed\ )?(?:integer|int(?:32|64)?)\ overflow(?:s|ed)?\b)",
    ),
    # an error said to come from a call, in the reporter's words ('calling `dr.texture` ... gives the error "tex or
    # mip input tensor not aligned to float4"', "I get the following error", "it throws this error", "fails with the
    # error"): the sentence before the quoted message, which a log without the message's own head has alone
    (
        ("error",),
        r"(?i:\b(?:gives?|gave|giving|get|gets|got|getting|throws?|threw|throwing|raises?|raised|raising|results?\ in"
        r"|fails?\ with|failed\ with|crash(?:es|ed)?\ with)\s+(?:the|an|this|that|these|following|the\ following)"
        r"(?:\s+\w+)?\s+errors?\b)",
    ),
    # a tool's own report that it stopped on a failure it calls critical (Dr.Jit's jitc_fail: "Critical Dr.Jit
    # compiler failure: jit_var(r12): unknown variable!"), at any severity
    (("critical",), r"\bCritical\ [\w.\ -]{0,40}?\b(?:failure|error)\b\s*:"),
    # an issue's title as its template tags it ("[BUG] Regression in examples/45_dual_gemm on H100", "[Bug] Kernel
    # hang in gdn_prefill_sm90", "bug: gpu ram leak ..."): the reporter's verdict that something fails
    (("[bug]",), r"^\s*\[(?:BUG|Bug|bug)\]:?\s+\S"),
)  # fmt: skip
_FLAGS = re.VERBOSE | re.MULTILINE


@functools.cache
def single_line_pattern() -> re.Pattern[str]:
    """Every pattern of the table at once, for a single line (compiled on first use)."""
    return re.compile("|".join(f"(?:{p})" for _, p in _PATTERNS), _FLAGS)
