"""Typed facts, one dataclass per evidence source.

Every collector returns one of these (or ``None`` when its source says nothing).
The :class:`~diagnose.evidence.Evidence` record holds one optional instance per
source, and the rule context is derived from these annotations: each scalar or
tuple-of-scalars field ``f`` of source ``s`` becomes the rule symbol ``s_f``
(``cuda_error``, ``oom_total_bytes``, ``py_exc_type``...).  Fields that hold
records (tuples of dataclasses) are kept for reports and the TUI but are not
visible to rules; every source exposes flat summaries of them instead, because
rule-engine re-coerces nested mappings on every lookup (about 5x slower).

Conventions, so rules stay simple:
- absent scalar → ``None`` (rules write ``(oom_total_bytes ?? 0) > 0``);
- absent list → ``()``; absent flag → ``False``;
- sizes are bytes (floats, so 80 GiB fits), line numbers are 1-based;
- ``lines`` holds the 1-based line numbers of the input the facts were read from,
  which is what a report cites.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Facts:
    lines: tuple[int, ...] = ()


# --- the log itself (always present) -------------------------------------------------


@dataclass(frozen=True)
class LogFacts(Facts):
    text: str = ""  # the (bounded) text rules may search with =~~
    line_count: int = 0
    bytes: int = 0
    truncated: bool = False  # the input was larger than the limit; head and tail kept
    windows: bool = False  # written on Windows: drive paths, DLL names, win_amd64 (diagnose.collectors.host_os)
    nix: bool = False  # written on NixOS or with Nix: the programs' paths are under /nix/store (host_os.nix)
    masked: bool = False  # the log speaks of a mask: masked rows of an attention or softmax (collectors.log_words)
    tpu: bool = False  # the program ran on a TPU, and the log shows no CUDA device (collectors.log_words)
    # the GPU runtime other than CUDA the log shows (chipStar, HIP/ROCm, OpenCL, SYCL, Metal), with no CUDA device
    gpu_runtime: str | None = None
    gtest_run: bool = False  # a googletest binary's run: a C++ test suite that wrote its inputs (collectors.log_words)
    # the compiler that wrote the failing kernel: "TorchInductor (torch.compile)", "Triton", "XLA", "Julia" (log_words)
    kernel_compiler: str | None = None
    multi_gpu: bool = False  # more than one GPU at work: a device ordinal above 0, a distributed run (log_words)
    cuda_toolkit: str | None = None  # a toolkit release ("CUDA 11.4", "cu118") or library ("thrust::sort") (log_words)
    host: str | None = None  # the machine that failed: Open MPI's "[HOST:PID] *** Process received signal" (log_words)
    regression_at: str | None = None  # "after upgrading to 2.3.0", "(63a976ff)": where it began (collectors.log_words)
    # the log's first line is a SyntaxError as str() gives it, "MESSAGE (FILE.py, line N)": "FILE.py, line N"
    syntax_error_at: str | None = None
    duplicate_symbol: str | None = None  # a symbol the linker says is defined twice (collectors.link_symbols)
    duplicate_symbol_library: str | None = None  # the CUDA library whose namespace it is in: "thrust", "cub"
    # the lock file (or the extensions root) a JIT extension load waits on (collectors.jit_lock)
    jit_lock_wait: str | None = None
    int32_wrapped: str | None = (
        None  # "2147483649 -> -2147483647": a value and its int32 wrap, both printed (collectors.int_wrap)
    )
    conda_env: str | None = None  # the conda installation or environment the log's paths are in (collectors.log_words)
    conda_build_prefix: str | None = None  # a conda-build prefix a package kept from its build (collectors.log_words)
    torch_version: str | None = None  # "1.6.0": the PyTorch release the log shows (collect_env, a wheel's version)
    torch_cuda_version: str | None = None  # "10.1": the CUDA that PyTorch release was built with, as shown
    launch_blocking: bool = False  # the run had CUDA_LAUNCH_BLOCKING=1 set, as the log shows (collectors.log_words)
    last_kernel: str | None = None  # the kernel a library's error report names as launched last (log_words)
    graphics_interop: str | None = None  # a CUDA graphics-interop call a failing line names (collectors.log_words)
    glsl_mesa_error: str | None = None  # the first error of a shader Mesa's GLSL compiler rejected (log_words)
    managed_prefetch: str | None = None  # a managed-memory prefetch a failing report names (collectors.log_words)
    cuda_ipc: str | None = None  # a CUDA IPC call a failing line names (collectors.log_words)
    ggml_arch_gap: str | None = None  # this-arch | newer-gpu | undecided: ggml's no-device-code report (log_words)
    ggml_arch_detail: str | None = None  # the arch that ran, the archs built, the GPU's capability when shown
    empty_input: str | None = None  # a line printing a zero count for the input: "(0 vertices, 0 edges)" (log_words)
    project_source: str | None = None  # a CUDA source of the program's own an error line names (log_words)
    intermittent: bool = False  # the log says the failure comes and goes (collectors.log_words)
    # a framework's shape check that refused an element count past int64: TensorFlow's "Encountered overflow when
    # multiplying 56541365074252 with 125091515651, result: -1" -> "56541365074252 with 125091515651" (log_words)
    shape_overflow: str | None = None
    # a pointer's alignment the log prints with a remainder other than 0: "a[1].data.ptr % 16 = 8" (log_words)
    pointer_misaligned: str | None = None
    # the compiled call on a line the log marks wrong: "jax.jit", "torch.compile", "tf.function" (log_words)
    compiled_wrong: str | None = None


# --- Python tracebacks --------------------------------------------------------------


@dataclass(frozen=True)
class Frame:
    file: str
    line: int | None
    func: str | None
    code: str | None = None


@dataclass(frozen=True)
class PyFacts(Facts):
    exc_type: str | None = None  # short name of the last exception raised: "OutOfMemoryError"
    exc_qualname: str | None = None  # as printed: "torch.OutOfMemoryError"
    exc_message: str | None = None  # first line(s) of its message
    exc_types: tuple[str, ...] = ()  # short names of every exception in the chain, in print order
    exc_messages: tuple[str, ...] = ()
    chained: bool = False
    user_file: str | None = None  # innermost frame outside site-packages and the stdlib
    user_line: int | None = None
    user_func: str | None = None
    # the user frame's line unpacks a tensor's dimensions into names (`B, C, H, W = x.shape`, `= w.stride()`):
    # with Python's unpack-count error, the code assumed a rank its tensor does not have
    unpacks_tensor_dims: bool = False
    # a TypeError raised where Triton's launcher takes the grid's length or first entry (`grid_size = len(grid)` in
    # runtime/jit.py, `len(grid)` in the interpreter): the kernel was launched with a grid that is not a tuple
    launch_grid_not_sequence: bool = False
    frame_count: int = 0
    frames: tuple[Frame, ...] = ()  # record: not visible to rules


# --- CUDA runtime / driver errors ---------------------------------------------------


@dataclass(frozen=True)
class CudaFacts(Facts):
    error: str | None = None  # normalised runtime name: "cudaErrorIllegalAddress"
    errors: tuple[str, ...] = ()  # every distinct normalised name, in order of appearance
    code: int | None = None  # numeric cudaError_t of `error`: the number the log printed, else today's
    code_old_numbering: bool = False  # `code` is as printed by a runtime before CUDA 10.1 (renumbered there)
    message: str | None = None  # the runtime's string: "an illegal memory access was encountered"
    form: str | None = None  # torch | torch-accelerator | cupy | triton | numba | raw | driver-api | legacy | hip
    api_call: str | None = None  # the API call named next to it, when printed: "cudaDeviceSynchronize()"
    # that call links or loads generated device code (cuLink*, cuModuleLoad*, cuLibraryLoad*, nvJitLink*), so the
    # error is about the code a compiler or JIT produced, before any kernel of it ran
    api_call_links: bool = False
    device_assert: bool = False  # a device-side assertion fired
    # one of `errors` is sticky: a kernel's fault that leaves the context unusable, so that every later call of the
    # process fails too (collectors.cuda_errors.STICKY); a later error of a program that goes on is its echo
    sticky: bool = False
    assert_message: str | None = None  # "Assertion `srcIndex < srcSelectDimSize` failed."
    # a symbol or kernel not found by name (diagnose.collectors.symbol_lookup): the dtype its name carries, the
    # capability that dtype's kernels need, and the GPUs' capabilities the log prints
    symbol_name: str | None = None  # "cast_f32_bf16"
    symbol_dtype: str | None = None  # bfloat16 | fp8
    symbol_need_cc: float | None = None  # 8.0 for bfloat16, 8.9 for fp8
    device_ccs: tuple[float, ...] = ()  # the distinct compute capabilities printed for the log's GPUs
    symbol_need_above_devices: bool = False  # every printed GPU is below symbol_need_cc
    # with no kernel image / an invalid device function: the one compute capability the log prints for its GPUs,
    # the CUDA release that removed that architecture (diagnose/data/cuda_arch_releases.yaml; None while every
    # release since its first builds for it), the toolkit release the log names, and how that release stands to
    # the architecture (toolkit_release.arch_side: too-old | dropped | inside)
    device_cc: float | None = None
    device_cc_removed_in: str | None = None
    toolkit_release: str | None = None
    device_cc_toolkit_side: str | None = None


# --- out of memory ------------------------------------------------------------------


@dataclass(frozen=True)
class OomFacts(Facts):
    kind: str | None = None  # torch | cupy | tensorflow | generic
    requested_bytes: float | None = None  # "Tried to allocate X"
    total_bytes: float | None = None  # "total capacity of X"
    free_bytes: float | None = None  # "of which X is free"
    process_bytes: float | None = None  # "this process has X memory in use" (incl. non-PyTorch)
    allocated_bytes: float | None = None  # "X is allocated by PyTorch"
    reserved_unallocated_bytes: float | None = None  # "X is reserved by PyTorch but unallocated"
    other_process_bytes: float | None = None  # sum of "Process N has X memory in use"
    other_process_count: int = 0
    progress: str | None = None  # a progress line before the report: "Epoch: [3]", "step 1200" (the job ran a while)
    # TensorFlow: the device's free memory when the session started ("Free memory: 1.93GiB" / "freeMemory:"),
    # before TensorFlow reserved its pool; total_bytes is the device's total printed beside it
    free_at_start_bytes: float | None = None
    pool_limit_bytes: float | None = None  # TensorFlow's BFC allocator: the pool it may use ("Limit:")
    pool_in_use_bytes: float | None = None  # ... and what the graph's tensors use of it ("InUse:")
    # memory outside this process, from the log's own figures: the device's total less its free memory at
    # the start (TensorFlow), or "Process N has X memory in use" (PyTorch)
    held_by_others_bytes: float | None = None
    # the figures show other processes held at most a tenth of the device (free about equal to total at the
    # start, or this process itself holding nine tenths of it): memory held by others is ruled out
    others_ruled_out: bool = False
    # PyTorch's figures: the device's memory that is neither free nor counted by its caching allocator (total less
    # free less reserved, or less "this process has"): other processes, the CUDA context, a display server
    unaccounted_bytes: float | None = None


# --- Triton -------------------------------------------------------------------------


@dataclass(frozen=True)
class TritonFacts(Facts):
    error: str | None = (
        None  # CompilationError | CompileTimeAssertionFailure | OutOfResources | PTXASError | InterpreterError | AutotunerError | ...
    )
    message: str | None = None  # the error's own message (for CompilationError, without the source excerpt)
    src_line: int | None = None  # kernel source line and column of a CompilationError
    src_col: int | None = None
    resource: str | None = None  # OutOfResources: "shared memory", "registers", ...
    required: float | None = None  # OutOfResources figures
    limit: float | None = None
    over_every_gpu: bool = False  # required is above the largest per-block limit of any GPU for that resource
    inner_error: str | None = None  # exception type wrapped by InterpreterError / CompilationError
    no_active_driver: bool = False  # "0 active drivers ([]). There should only be one."
    autotune_failures: int = (
        0  # configs the autotuner skipped ("Autotuning failed with ...", TRITON_PRINT_AUTOTUNING=1)
    )
    autotune_best_config: str | None = None  # "BLOCK: 64, num_warps: 4, ..." from "best config selected: ...;"
    # "2.4": the message is NumPy's own for behaviour that NumPy release removed (the interpreter runs the kernel on
    # NumPy arrays): NumPy newer than the Triton release was written against, not the kernel's types
    numpy_removal: str | None = None


# --- nvcc / NVRTC / ptxas / host compiler -------------------------------------------


@dataclass(frozen=True)
class Diagnostic:
    tool: str
    severity: str
    message: str
    file: str | None = None
    line: int | None = None
    log_line: int | None = None


@dataclass(frozen=True)
class CompilerFacts(Facts):
    tool: str | None = None  # nvcc | nvrtc | ptxas | host-compiler (the first that reported an error)
    error_count: int = 0
    errors: tuple[str, ...] = ()  # error messages, in order
    first_error: str | None = None
    first_error_file: str | None = None
    errors_in_toolkit_headers: bool = False  # every located error is inside CUDA/NVRTC/system headers
    glibc_inline_memcpy: bool = (
        False  # the first error is glibc's string.h calling memcpy unseen (nvcc < 8.0, glibc 2.23+)
    )
    ptxas_fatal: str | None = None
    unknown_arch: str | None = None  # "sm_89" from "Value 'sm_89' is not defined for option 'gpu-name'"
    # with unknown_arch (diagnose.collectors.toolkit_release, diagnose/data/cuda_arch_releases.yaml):
    toolkit_release: str | None = None  # "7.5": the one CUDA toolkit release the log names (nvcc --version, CMake)
    arch_first_release: str | None = None  # "8.0": the first release whose nvcc accepts unknown_arch
    arch_removed_in: str | None = None  # "13.0": the release that removed it (None: no release has)
    arch_toolkit_side: str | None = None  # too-old | dropped | inside: toolkit_release against those two
    arch_virtual: str | None = None  # "compute_20": for a compute_XX no release ever had (compute_21), the one to use
    unsupported_feature: str | None = None  # instruction/feature ptxas says the target lacks
    target_arch: str | None = None  # "sm_80" from "not supported on .target 'sm_80'"
    smem_bytes: float | None = None  # "uses too much shared data (0x... bytes, 0xc000 max)"
    smem_limit_bytes: float | None = None
    param_bytes: float | None = None  # "uses too much parameter space (0x9c48 bytes, 0x7ffc max)"
    param_limit_bytes: float | None = None
    param_limit_raised: bool = False  # the limit is already 32,764 bytes (PTX ISA 8.1 / CUDA 12.1, Volta and newer)
    registers: int | None = None  # max over functions in ptxas -v output
    spill_stores: int = 0  # bytes, summed over functions
    spill_loads: int = 0
    stack_bytes: int = 0
    host_compiler_unsupported: bool = False  # "unsupported GNU version"
    host_compiler_supported: str | None = None  # the range host_config.h states: "gcc 7 or older"
    host_compiler_ccbin: str | None = None  # a -ccbin value in that range: "g++-7"
    crash_tool: str | None = None  # the toolchain process that crashed: "'cudafe++' died due to signal 6"
    crash_not_ptxas: bool = False  # ... and it is not the PTX assembler (the front end, cicc, nvlink)
    # the host's C++ standard library header in which gcc found parameter packs not expanded ("bits/std_function.h",
    # "tuple"): the translation unit nvcc's front end rewrote, from a toolkit older than that library
    stdlib_pack_header: str | None = None
    # a warning that a statement computes a value and discards it ("expression has no effect", gcc's and clang's
    # -Wunused-value, MSVC's C4553), whether or not anything failed to build: its message and "file:line"
    discarded_value: str | None = None
    discarded_value_at: str | None = None
    library_header: str | None = None  # the library whose own header holds the first error ("CuPy")
    # the first error's file is a library the project carries in its tree ("nccl" for third_party/nccl/src/core.cu,
    # or a build line that compiles it there): that library's source, built with this project's toolchain
    vendored_library: str | None = None
    # the installed library whose header's `#error` directive is the first error ("desul", "Thrust"): its own
    # check that the build's configuration (flags, standard, what it was built with) is not one it supports
    error_directive_library: str | None = None
    needs_arch: str | None = None  # "sm_60": an error names an intrinsic/overload that exists from this arch on
    gated_symbol: str | None = None  # that intrinsic, with its argument types: "atomicAdd(double *, double)"
    # with needs_arch or removed_from_arch: the arch of the failing pass (EDG's "...compute_20.cpp1.ii"), else the
    # lowest arch a printed command line builds for ("sm_35")
    build_arch: str | None = None
    build_arch_below_need: bool = False  # build_arch is known and older than needs_arch: the arch guard hides it
    # the first error's undefined intrinsic has a documented first toolkit release
    # (diagnose.collectors.compile_api.INTRINSIC_RELEASES), whether or not an arch guard declares it:
    intrinsic_added_in: str | None = None  # "9.0" for __shfl_down_sync
    intrinsic_in_every_compile: bool = False  # its header is one nvcc includes into every .cu (no #include hides it)
    intrinsic_toolkit_side: str | None = None  # too-old | inside: the log's toolkit release against intrinsic_added_in
    # with needs_arch: no toolkit that declares the intrinsic builds for an arch below needs_arch (CUDA 9.0 added the
    # *_sync warp intrinsics, guarded at sm_30, and dropped Fermi), so the guard cannot be what hides it
    needs_arch_unbuildable: bool = False
    # "sm_70": an error names an intrinsic the CUDA headers declare only below this arch (the legacy warp shuffles
    # `__shfl*`, declared for sm_30 up to sm_70), and the log does not show the build below their floor
    removed_from_arch: str | None = None
    toolkit_clash: str | None = None  # a CUDA-declared name the code redefines or overloads in conflict
    # a redefinition with the toolkit's exact signature of an overload the headers declare from an arch on
    # (diagnose.collectors.compile_cause.redefined_gated_overload): that arch ("sm_60" for atomicAdd(double *)), and
    # whether every toolkit that builds for it declares the overload, so the code's arch guard let its copy through
    toolkit_clash_from_arch: str | None = None
    toolkit_clash_in_every_toolkit: bool = False
    # a function-like macro a header invokes with the wrong number of arguments: a macro defined before the header
    # shadows a function it declares ("nvtxRangePop" from `#define nvtxRangePop()`)
    macro_clash: str | None = None
    missing_header: str | None = None  # the first error is an #include not found: the header it named
    missing_header_library: str | None = None  # ... asked for by this installed library's own header ("PyTorch")
    # the missing header is one the CUDA toolkit ships (diagnose.collectors.compile_api.TOOLKIT_HEADERS):
    missing_header_component: str | None = None  # "CUB", "the CUDA runtime's header"
    missing_header_added_in: str | None = None  # "11.0" for cub/cub.cuh; None: every release ships it
    missing_header_toolkit_release: str | None = None  # "10.2": the one toolkit release the log names
    missing_header_toolkit_too_old: bool = False  # ... is older than missing_header_added_in
    # the missing header is one a framework release removed (diagnose.collectors.compile_api.REMOVED_FRAMEWORK_HEADERS):
    missing_header_removed_in: str | None = None  # "PyTorch 1.11"
    missing_header_removed_what: str | None = None  # "PyTorch's legacy THC headers"
    undefined_api: str | None = None  # the first error's undeclared name is a library's or a removed CUDA API's
    api_owner: str | None = None  # whose API: "NVBit", "CUB", "CUDA runtime"
    api_removed_in: str | None = None  # "CUDA 12.0": the toolkit release that removed it (documented)
    api_replacement: str | None = None  # "cuda::maximum": what the release that removed it says to use instead
    # the toolkit's own headers declare undefined_api (a Thrust name, diagnose/data/cuda_api_names.json), in api_header
    api_toolkit_declares: bool = False
    # a CUDA data type a later toolkit added (diagnose.collectors.compile_api.ADDED_CUDA_TYPES):
    api_added_in: str | None = None  # "11.0": the toolkit release that first declares undefined_api
    api_header: str | None = None  # "cuda_bf16.h": the toolkit header that declares it
    api_in_every_compile: bool = False  # that header is one nvcc includes into every .cu (library_types.h)
    api_toolkit_side: str | None = None  # too-old | inside: the log's toolkit release against api_added_in
    # the first error's undeclared name is a device intrinsic the toolkit's headers declare
    # (diagnose/data/cuda_intrinsics.json), with no architecture guard in them:
    toolkit_intrinsic: str | None = None  # "__hmul2_rn"
    toolkit_intrinsic_header: str | None = None  # "cuda_fp16.h": the header that declares it
    toolkit_intrinsic_in_every_compile: bool = False  # nvcc includes that header into every .cu
    toolkit_intrinsic_side: str | None = None  # declares | older: the log's toolkit release against the table's
    # the first error's undeclared name is one of the CUDA runtime or driver API that the toolkit's headers declare
    # (diagnose/data/cuda_api_names.json: functions, types, enum constants, flags):
    toolkit_api: str | None = None  # "cudaHostRegisterReadOnly"
    toolkit_api_header: str | None = None  # "driver_types.h": the header that declares it
    toolkit_api_in_every_compile: bool = False  # nvcc includes that header into every .cu (the runtime API's)
    toolkit_api_side: str | None = None  # declares | older: the log's toolkit release against the table's
    diagnostics: tuple[Diagnostic, ...] = ()  # record: not visible to rules


# --- compute-sanitizer --------------------------------------------------------------


@dataclass(frozen=True)
class SanitizerRecord:
    tool: str
    kind: str
    access: str | None = None
    space: str | None = None
    size: int | None = None
    address: str | None = None
    kernel: str | None = None
    thread: str | None = None
    block: str | None = None
    source: str | None = None  # "file.cu:42"
    allocation: str | None = None  # the nearest-allocation sentence
    log_line: int | None = None
    function: str | None = None  # innermost frame, where the access happened (kernel: outermost)
    message: str | None = None  # the report's first line as printed
    severity: str = "error"  # error | warning | info (racecheck and initcheck print warnings)
    hazards: int = 0  # racecheck: hazards this record stands for
    allocation_address: str | None = None  # "... the nearest allocation at 0x7cc43a800000 of size 1,024 bytes"
    allocation_size: int | None = None
    host_frame: str | None = None  # first host frame outside the CUDA driver and runtime
    accesses: tuple[str, ...] = ()  # racecheck: the accesses a hazard names, "write at raceWAW.cu:20"


@dataclass(frozen=True)
class SanitizerFacts(Facts):
    tool: str | None = None  # memcheck | racecheck | initcheck | synccheck
    error_count: int = 0  # from the summary when printed, else records counted
    warning_count: int = 0
    kinds: tuple[str, ...] = ()  # normalised kinds of every record: invalid-global-read, race-shared, ...
    first_kind: str | None = None
    access: str | None = None  # read | write (first record)
    space: str | None = None  # global | shared | local
    access_size: int | None = None
    kernel: str | None = None
    out_of_bounds: bool = False  # "Address 0x... is out of bounds"
    misaligned: bool = False
    allocation_relation: str | None = None  # before | after | inside
    allocation_distance_bytes: int | None = None
    race_hazards: int = 0
    barrier_error: bool = False
    uninitialized: bool = False
    leaks: int = 0
    api_error: str | None = None  # "cudaErrorInvalidValue" from "Program hit ... on CUDA API call"
    api_call: str | None = None  # the call that returned it: "cudaLaunchKernel" ("... on CUDA API call to X.")
    # the first report, as printed (see diagnose.collectors.sanitizer for which record each comes from)
    message: str | None = None  # its first line: "Invalid __global__ write of size 4 bytes"
    address: str | None = None  # the address it names: "0x87654320"
    null_address: str | None = None  # that address when it is a null pointer plus an offset below 1 MiB
    misaligned_by: int | None = None  # a misaligned access: its address modulo the access size (4: 8-byte read at ...4)
    # misaligned_by is odd: the address is inside an element of every type wider than a byte (a byte offset the
    # kernel added to a typed pointer, a packed struct), not a view that starts at another element
    misaligned_mid_element: bool = False
    thread: str | None = None  # "(57,0,0)"
    block: str | None = None  # "(0,0,0)"
    function: str | None = None  # the `at` line's device function, when the kernel called it (else None)
    source: str | None = None  # "memcheck_demo.cu:39": the innermost frame printed with a file and line
    device_frame: str | None = None  # the first "Device Frame:" (the caller of `function`)
    host_frame: str | None = None  # the first host frame outside the CUDA driver and runtime
    # that frame is a closed NVIDIA library's (no source line in the report): it launched the kernel
    launch_library: str | None = None  # "cuSOLVER"
    launch_module: str | None = None  # "libcusolver.so.10.0" (or the entry point, "cusolverDnZgesvd")
    allocation_address: str | None = None  # the nearest allocation's start: "0x7cc43a800000"
    allocation_size_bytes: int | None = None  # its size
    # an address after the allocation by exactly one power of two (>= 2^33) plus an offset inside it: 2^k
    allocation_high_bit_bytes: int | None = None
    # an access that starts inside the nearest allocation and runs past its end, on an allocation whose size is not a
    # multiple of the access size: the bytes past the end (3: a 4-byte read at byte 8 of a 9-byte buffer)
    allocation_tail_overrun_bytes: int | None = None
    accesses: tuple[str, ...] = ()  # racecheck: the two (or more) accesses of the first hazard
    # racecheck: the threads of the first hazard's accesses, where the report prints them: True when two of
    # them are in different warps (x // 32 differs, same y and z), False when all are in one warp
    race_across_warps: bool | None = None
    race_one_warp: bool = False  # race_across_warps is False: every thread printed is in one warp
    leaked_bytes: int | None = None  # bytes leaked, summed over the reports (or the LEAK SUMMARY's)
    unwritten_bytes: int | None = None  # initcheck unused memory: "Not written 80 bytes at offset 0x14"
    records: tuple[SanitizerRecord, ...] = ()  # record: not visible to rules


# --- environment messages in logs (NVML, driver, arch, kernel log) -------------------


@dataclass(frozen=True)
class EnvFacts(Facts):
    issues: tuple[str, ...] = ()  # normalised tags, see diagnose.collectors.environment
    xids: tuple[int, ...] = ()
    xid: int | None = None  # the first Xid
    gpu_arch: str | None = None  # "sm_120" from "... is not compatible with the current PyTorch installation"
    supported_archs: tuple[str, ...] = ()  # "sm_50 sm_60 ..." from the same message
    missing_library: str | None = None  # "libnvidia-ml.so.1"
    # Python's importer reported it ("ImportError: libcudart.so.9.2: cannot open shared object file"): a compiled
    # extension module being imported links it
    missing_library_at_import: bool = False
    # named by a full path in a cache or build folder a program writes its own libraries to at run time (a JIT's
    # cache under ~/.cache, torch_extensions, a temporary folder): the program's own build product, not a package's
    missing_library_in_cache: bool = False
    # named by a full path inside an installed package's own folder (site-packages, dist-packages) and not a CUDA or
    # NVIDIA component's name: one of the program's own plugins (a simulator backend, a target, a codec), chosen by
    # a name the run gave
    missing_library_in_package: bool = False
    missing_module: str | None = None  # "triton" from ModuleNotFoundError
    import_name: str | None = None  # ImportError: cannot import name X from Y
    import_from: str | None = None
    undefined_symbol: str | None = None  # "undefined symbol: X" from a shared object (ABI mismatch)
    # ... a plain C name (no C++ mangling) missing from a module the run built moments before, in a folder Python's
    # tempfile made (a harness's `/tmp/tmpab12cd34/kernel.so` looked up with dlsym): the module's own source lacks the
    # entry point or its link lacks a library; no release of anything installed is involved
    undefined_symbol_in_built: bool = False
    found_driver_version: int | None = None  # "The NVIDIA driver on your system is too old (found version 11040)"
    smi_driver: str | None = None  # nvidia-smi table
    smi_mem_used_mib: float | None = None
    smi_mem_total_mib: float | None = None
    smi_process_count: int | None = None
    smi_compute_mode: str | None = None
    pci_address: str | None = None  # the GPU a kernel-log fault names: "0000:b3:00.0" (Xid, fallen off the bus)
    nvml_library_version: str | None = None  # "NVML library version: 570.124", NVRM "the client has the version"
    kernel_module_version: str | None = None  # the loaded nvidia.ko: NVRM "this kernel module has the version"
    driver_message: str | None = None  # the line saying the driver is missing, not loaded, mismatched or too old
    missing_command: str | None = None  # "nvcc" from "sh: 1: nvcc: not found" (CUDA tools only)
    # "/usr/local/cuda/bin/nvcc" when the missing command was run by a path (a hard-coded toolkit location)
    missing_command_path: str | None = None
    denied_path: str | None = None  # "/dev/nvidiactl" from "... /dev/nvidiactl: Permission denied"
    permission_message: str | None = None  # the line that refused access
    toolkit_cuda_version: str | None = None  # "11.8": the CUDA torch.utils.cpp_extension detected
    torch_cuda_version: str | None = None  # "12.4": the CUDA that torch was compiled with


# --- message families and the concepts they carry (diagnose.catalogue) -------------------


@dataclass(frozen=True)
class ConceptFacts(Facts):
    """What the tools' own messages say, in words that outlive any one wording.

    Filled by :mod:`diagnose.collectors.families` from the message catalogue
    (``diagnose/data/catalogue/``): each matching family is named, and the values its named groups
    captured are normalised (:mod:`diagnose.concepts`), so a rule decides from "a required compute
    capability above the device's" whatever library printed it."""

    families: tuple[str, ...] = ()  # message families matched, in order of first appearance
    family_lines: tuple[int, ...] = ()  # the line each of `families` first matched, in the same order
    family: str | None = None  # the first family of error severity (None: only warnings matched)
    message: str | None = None  # the line that family matched, spaces collapsed, cut at 100 characters
    tools: tuple[str, ...] = ()  # the tools whose own messages matched: ptxas, nvml, xla, torch ...
    failed: bool = False  # a family of error severity matched: the log prints a failure
    component: str | None = None  # what a version message is about: driver, cuda-runtime, ptxas, cudnn, jaxlib ...
    need_version: str | None = None  # the version required (as printed)
    have_version: str | None = None  # the version found
    version_too_old: bool = False  # have_version is older than need_version
    # the versions come from a warning the library went on after, beside an error of that component's own messages
    version_from_warning: bool = False
    need_cc: float | None = None  # compute capability required: 8.0
    have_cc: float | None = None  # the device's (or the toolchain's highest, for a toolkit message)
    cc_too_low: bool = False  # need_cc > have_cc
    expected_dtype: str | None = None  # numpy-style names: float16, bfloat16, int64 ...
    found_dtype: str | None = None
    dtype_mismatch: bool = False
    expected_device: str | None = None  # cuda | cpu | meta | mps | tpu | rocm
    found_device: str | None = None
    device_mismatch: bool = False
    expected_shape: str | None = None  # an operand's shape (or size) the operation needed: "2x3", "3", "scalar"
    found_shape: str | None = None  # the one it got
    shape_mismatch: bool = False  # both read and different: the tool refused the operands' shapes
    resource: str | None = (
        None  # shared-memory | registers | threads-per-block | grid-dim | int32-index | device-memory ...
    )
    requested: float | None = None  # bytes for memory, counts otherwise
    limit: float | None = None
    over_limit: bool = False  # requested > limit
    # the GPU's free and total memory a tool printed when it failed (XLA/TensorFlow's "Memory usage: N bytes free, M
    # bytes total." after a handle it could not create), and whether the free memory is more than a library's
    # handle needs (at least 1 GiB): memory is then no cause of that failure
    device_free: float | None = None
    device_total: float | None = None
    device_free_ample: bool = False
    over_every_gpu: bool = False  # requested is over what any GPU allows (shared memory, threads, registers)
    contexts: tuple[str, ...] = ()  # what the log says about the input: fuzzer, input-load-failed, empty-input
    max_elements: float | None = None  # the largest element count of a shape the log prints: (1, 5120, 8, 384, 384)
    over_int32_elements: bool = False  # max_elements is past the int32 index range
    max_bytes: float | None = None  # the largest byte size of an array the log creates: arange(2**29 + 1, dtype=int32)
    over_int32_bytes: bool = False  # max_bytes is past 2^31 - 1: a 32-bit byte offset into it wraps
    printed_size: float | None = None  # the largest value printed for a size-like name: "N = 131072", "batch_size=8"
    subject: str | None = None  # what a stated check is about, as printed: "input", "head_dim"
    contract: str | None = None  # the contract a check states: contiguous | aligned | divisible | device
    contract_mode: str | None = None  # the failure mode of a broken contract: noncontiguous-input ...
    unsupported: str | None = None  # the value a tool says it does not support, as printed: "sm_75", "Half"
    unsupported_kind: str | None = None  # what kind of value that is: arch | dtype | parameter-value | version
    supported: str | None = None  # what a stated contract lists, as printed: "fp16 and bf16", "[1, 2, 4, 8]"
    subject_kind: str | None = None  # kernel-config: the subject is the kernel's own block constants or launch config


# --- where the failing code lives (diagnose.collectors.location) ---------------------


@dataclass(frozen=True)
class LocationFacts(Facts):
    """Where the failing code lives, read from any framework's evidence: Python traceback frames,
    sanitizer kernel names and backtrace frames, C++ backtraces, CUDA ``file:line`` in the log,
    compiler crash banners."""

    kind: str | None = None  # user | library | generated | toolchain
    library: str | None = None  # the library, code generator or tool: "flash-attn", "cuBLAS", "TorchInductor", "ptxas"
    frame: str | None = None  # the frame, kernel name or banner that decided it, as printed (cut)
    user_frame: str | None = None  # the innermost frame of the user's own code ("train.py:42"): the caller
    source_line: str | None = None  # a source location of the failing code the log prints ("kernel.cu:44")
    offsets_only: bool = False  # the log has device or native frames, all without a source line (only offsets)
    compiler_crash: bool = False  # a compiler or code generator crashed or failed an internal assertion
    checkout: bool = False  # the library's failing code is in a source tree under a user's home (a developer's build)
    test_suite: str | None = None  # the library whose own test suite the failing command runs: "numba", "CUB/Thrust"
    test_suite_compiler: bool = False  # that library compiles and launches the kernels it tests (numba, Triton, JAX)
    # the package manager building the library's code from a temporary tree: luarocks, pip, conda-build, Spack, vcpkg
    package_build: str | None = None


# --- exit status --------------------------------------------------------------------


@dataclass(frozen=True)
class ExitFacts(Facts):
    code: int | None = None
    signal: str | None = None  # SIGSEGV, SIGABRT, SIGKILL, ...
    timed_out: bool = False
    oom_killed: bool = False  # the kernel's OOM killer ended it
    core_dumped: bool = False
    # the failed assertion printed before the process ended (glibc's "file:153: func: Assertion `cond' failed.", a
    # CUDA device assert's "Assertion `cond` failed."): its condition, and where it stands when the line says
    assertion: str | None = None  # softmax_success
    assertion_at: str | None = None  # apex/contrib/csrc/multihead_attn/self_multihead_attn_cuda.cu:153
    # an uncaught C++ exception's message, as libstdc++'s terminate handler prints it ("terminate called after
    # throwing an instance of 'std::runtime_error'" then "  what():  [custatevec] %initialization error ...")
    uncaught: str | None = None


# --- numerical comparison (read from logs; `kdiag run` fills more) -------------------


@dataclass(frozen=True)
class NumericsFacts(Facts):
    mismatch: bool = False
    mismatched: int | None = None
    total: int | None = None
    fraction: float | None = None
    max_abs: float | None = None
    max_rel: float | None = None
    nan_in_output: bool = False
    shape_mismatch: bool = False
    dtype_mismatch: bool = False
    # the mismatched elements a message prints with both values (GPU MODE's verbose_allclose: "ERROR AT (i, j):
    # received expected"), and how many of them are NaN/Inf in the output where the reference is finite
    shown_pairs: int = 0
    shown_nonfinite_new: int = 0
    shown_zero_new: int = 0  # ... and how many are exactly 0 in the output where the reference is a nonzero number
    # a result printed as an array whose every element is Inf or NaN (3 or more, "[inf, inf, inf, ...]"), with no
    # reference beside it: how many non-finite elements it printed (diagnose.collectors.numerics)
    printed_nonfinite: int = 0
    # a launch configuration of the same sweep whose check passed before this mismatch ("All results match for
    # block_size=512."): the failure depends on the block size
    passed_block_size: int | None = None
    # the problem size a CUDA library's own check printed with its failed verdict (CUTLASS's examples and profiler:
    # "Disposition: Failed" beside "Problem Size: 1088x2048x2048x1", or the run's --m= --n= --k=): "1088x2048x2048x1"
    problem_size: str | None = None
    checker: str | None = None  # the library whose own check against a reference printed the verdict: "CUTLASS"
    # one call printed as it is and through a compiler with different results (diagnose.comparisons): the
    # compiler's wrapper as written (``jax.jit``, ``torch.compile``), and whether both results are exact (truth
    # values, whole numbers), which no reordering of floating-point operations changes
    compiled_path: str | None = None
    compiled_path_exact: bool = False
    # kdiag run only (diagnose/run/compare.py, numerics.py): the first failing output, else the closest
    dtype: str | None = None  # the reference's dtype: float32, bfloat16, int64 ...
    significand_bits: int | None = None  # of that dtype, implicit bit included: 24 float32, 11 float16, 8 bf16
    where: str | None = None  # none | tail | head | rows | columns | periodic | everywhere | scattered
    tail_block: int | None = None  # the largest block size (16..1024) whose last full block ends where the errors start
    tail_blocks: tuple[int, ...] = ()  # every block size that explains the tail that way
    tail_axis: int | None = None  # the axis of the tail; None: the flat output's tail
    period: int | None = None  # the bad positions repeat every `period` elements (flat, or along the last axis)
    bad_rows: int = 0  # rows (along the last axis) wrong in every element
    bad_cols: int = 0  # columns wrong in every element
    transposed: bool = False  # the output holds the reference transposed
    shift: int | None = None  # the output holds the reference shifted: out[i] == ref[i - shift] along shift_axis
    shift_axis: int | None = None
    segment: int | None = None  # out == ref + a constant per segment of this many elements (last axis), first one right
    sentinel_elems: int = 0  # wrong elements still holding the allocation sentinel (never written)
    zero_elems: int = 0  # wrong elements exactly 0 where the reference is not
    nan_new: int = 0  # NaN in the output where the reference has a number
    posinf_new: int = 0  # +Inf where the reference has none
    neginf_new: int = 0
    nonfinite_lost: int = 0  # NaN/Inf of the reference the output does not reproduce
    nonfinite_computed: int = 0  # NaN/Inf the reference lacks, not counting never-written sentinel NaNs
    max_ulp: float | None = None  # in the dtype's own ULPs, over elements finite on both sides
    ulp_hist: tuple[int, ...] = ()  # elements per ULP distance: 0, 1, 2-4, 5-16, 17-256, >256, NaN/Inf mismatch
    median_rel: float | None = None  # median relative error (elements whose reference is not 0)
    precision_bits: float | None = None  # significant bits the output keeps: -log2(median_rel), capped
    error_growth: float | None = None  # median rel error at the longest reduction / at the shortest (declared sizes)
    growth_position: float | None = None  # median rel error, last quarter of the last axis / first quarter
    error_grows: bool = False  # error_growth >= 2 or growth_position >= 2
    scale: float | None = None  # every wrong element is the reference times this one factor
    scale_by_column: bool = False  # ... plus an offset per column (the factor applied before a per-column bias)
    wrapped_bits: int | None = None  # integer output: every wrong element off by a nonzero multiple of 2**bits
    # that factor read against the failing size: "sqrt(1024/768): cols=768 counted as 1024" (a size rounded up to
    # the block or the next power of two, or its square root), None when no declared figure explains it
    scale_padded: str | None = None
    reduction_lens: tuple[int, ...] = ()  # input elements per output element at each compared size
    nondeterministic: bool = False  # identical runs of the kernel gave other bits
    expected_variation: bool = False  # outputs differ from the reference, all within tolerance: a pass
    exact: bool = False  # every compared element bitwise equal to the reference's


# --- the machine: NVML and the software stack (kdiag env / kdiag run) ---------------


@dataclass(frozen=True)
class GpuFacts(Facts):
    nvml_ok: bool = False  # nvmlInit succeeded
    nvml_error: str | None = None  # NVML error name when it did not: "NVMLError_LibraryNotFound"
    driver_version: str | None = None  # "570.158.01"
    cuda_driver_version: int | None = None  # nvmlSystemGetCudaDriverVersion: 12080 = 12.8
    device_count: int = 0
    visible_devices: str | None = None  # CUDA_VISIBLE_DEVICES as set for the target (None: unset)
    name: str | None = None  # the GPU the target uses (index 0 of the visible ones)
    arch: str | None = None  # "sm_90"
    smem_optin_bytes: float | None = None  # that arch's opt-in shared memory per block (diagnose/data/gpus.yaml)
    mem_total_bytes: float | None = None
    mem_used_bytes: float | None = None
    mem_free_bytes: float | None = None
    other_process_count: int = 0  # compute processes on the GPU other than the target
    other_process_bytes: float | None = None
    compute_mode: str | None = None  # Default | Exclusive_Process | Prohibited
    mig_enabled: bool = False
    mig_instances: int = 0
    ecc_enabled: bool = False
    ecc_uncorrectable_volatile: int = 0
    ecc_uncorrectable_aggregate: int = 0
    retired_pages_pending: bool = False
    row_remap_failure: bool = False
    row_remap_pending: bool = False
    xids: tuple[int, ...] = ()  # Xid events NVML reported during the run
    throttle_reasons: tuple[str, ...] = ()
    torch_version: str | None = None
    torch_cuda: str | None = None  # the CUDA torch was built with ("12.8"); None for a CPU build
    torch_arch_list: tuple[str, ...] = ()  # "sm_80", "sm_90", ...
    triton_version: str | None = None
    runtime_cuda_version: int | None = None  # cudaRuntimeGetVersion of the runtime found: 13000
    nvcc_version: str | None = None
    problems: tuple[str, ...] = ()  # normalised tags the snapshot itself shows (see diagnose.envinfo)


# --- a live run (kdiag run): what the runner and the checks outside the submission saw --


@dataclass(frozen=True)
class RunFacts(Facts):
    target: str | None = None  # command | cuda-file | kernel-module | kernelbench | gpumode
    gpu_present: bool = False  # a usable GPU was visible to the attempt
    interpreter: bool = False  # Triton kernels ran under TRITON_INTERPRET=1 (no GPU)
    target_gpu: str | None = None  # the GPU the kernels were also compiled for: "H100"
    target_arch: str | None = None  # its arch: "sm_90"
    result_missing: bool = False  # the submission exited without writing a result ("no-result")
    result_invalid: str | None = None  # why a result file was rejected (shape/dtype/size/format)
    inputs_mutated: bool = False  # the kernel changed an input it was given
    output_unwritten: bool = False  # the output still holds the sentinel it was allocated with
    canary_corrupted: bool = False  # a guard region around a runner-made input was overwritten
    canary_tensor: str | None = None  # which argument's guard was hit
    oob_loads: int = 0  # interpreter loads outside every argument's allocation
    oob_stores: int = 0
    oob_kernel: str | None = None  # the @triton.jit kernel that did it
    oob_distance_elems: int | None = None  # how far past the end (elements) the first one was
    # two programs of one launch storing (plain tl.store, not an atomic) to the same element (harness.triton_bounds)
    store_overlap_elems: int = 0  # elements stored by more than one program
    # of those, elements a program stored another value into than an earlier one left: updates a GPU loses (a split
    # sum added with load + store), though the interpreter, running programs in order, gets the right result
    store_overlap_differ_elems: int = 0
    store_overlap_arg: str | None = None  # the argument: "out_ptr"
    store_overlap_kernel: str | None = None
    store_overlap_programs: str | None = None  # the first two programs: "(0, 0, 0) and (1, 0, 0)"
    launches: int = 0  # @triton.jit launches captured
    compiled_shared_bytes: float | None = None  # largest metadata.shared over compiled launches
    smem_limit_bytes: float | None = None  # the target GPU's opt-in limit per block
    compiled_registers: int | None = None  # largest registers/thread (ptxas)
    compiled_spills: int = 0  # spill stores + loads, bytes
    compile_failed: bool = False  # compiling a launched kernel for the target GPU failed
    sizes_declared: tuple[str, ...] = ()  # "n=4096", ... from SIZES
    sizes_failed: tuple[str, ...] = ()  # the declared sizes whose outputs did not match
    rungs: tuple[str, ...] = ()  # ladder rungs that ran: plain, launch-blocking, memcheck, ...
    rungs_unavailable: tuple[str, ...] = ()  # rungs that could not run here, and why: "memcheck: no GPU"
    device: str | None = None  # where the kernel ran: cpu | cuda
    compiled: bool = False  # cuda-file: nvcc built the binary
    sizes_missing: tuple[str, ...] = ()  # declared sizes the kernel child wrote no output for
    mutated_inputs: tuple[str, ...] = ()  # the inputs the kernel changed: "in0", ...
    unwritten_elems: int = 0  # output elements still holding the allocation sentinel (never written)
    unwritten_fraction: float | None = None  # of the output elements at the first size that has any
    unwritten_pattern: str | None = None  # all | tail | head | scattered
    exact_fraction: float | None = None  # of the failing output's elements, bitwise equal to the reference's
    values_permuted: bool = False  # the failing output holds the reference's values, some in the wrong places
    kernel_raised: bool = False  # the kernel raised an exception at some size
    reference_failed: bool = False  # the reference could not run: nothing to compare against
    # probes (diagnose/run/probes.py): inputs outside the declared contract; probes.json has the matrix
    probes: str | None = None  # none | quick | full: the probe set that ran (None: none ran)
    probe_count: int = 0  # probes that ran and were judged (skipped ones not counted)
    probe_skipped: int = 0  # probes outside what the reference (or make_inputs) accepts
    probe_failed: tuple[str, ...] = ()  # labels of the failing probes: "n=4097", "transposed in0"
    probe_failed_kinds: tuple[str, ...] = ()  # nonmultiple | size-one | empty | noncontiguous | misaligned | ...
    probe_failed_verdicts: tuple[str, ...] = ()  # how they failed: oob | mismatch | crash
    probe_crash_error: str | None = None  # the error the first probe that crashed raised (its first 200 characters)
    probe_nonmultiple_failed: bool = False  # a size not a multiple of common blocks (n±1, a prime) failed
    probe_size_one_failed: bool = False
    # every size probe that failed has one size above another ("n > m"), every declared size not (diagnose/run/probes.py)
    probe_fails_where: str | None = None
    probe_empty_failed: bool = False  # size 0
    probe_noncontiguous_failed: bool = False  # transposed / strided views of the inputs
    probe_misaligned_failed: bool = False  # inputs starting 1 element into a larger buffer
    probe_dtype_failed: bool = False  # another dtype the reference accepts
    probe_large_failed: bool = False  # large-magnitude values (x 1e4, near the dtype max)
    probe_seed_failed: bool = False  # a declared size with inputs from another seed (inside the contract)
    probe_nondeterministic: bool = False  # repeated identical runs gave different bits
    probe_oob: bool = False  # a failing probe read or wrote out of bounds (interpreter checks, canaries)
    # the kernel's accumulator type read from its source (diagnose/run/accumulator.py): a candidate, not a verdict
    narrow_accumulator: str | None = None  # float16 | bfloat16 | float8: a sum kept in it inside a loop
    narrow_accumulator_var: str | None = None  # its name: "acc"
    narrow_accumulator_line: int | None = None  # where it is declared, in the target file
    narrow_accumulator_code: str | None = None  # that line: "acc = tl.zeros((BLOCK,), dtype=tl.float16)"
    narrow_accumulator_how: str | None = None  # what was seen: "updated in a loop at line 25 ..."
    tf32_dot: bool = False  # a float32 tl.dot ran with TF32 operands (input_precision "tf32", the GPU's default)
    extension_unlinked: str | None = None  # a load_inline function whose declaration and definition do not link
    # the folder a sample's own load_inline/load call names as its build_directory, which the record says did not
    # exist when torch wrote the sources there ("No such file or directory: '/tmp/k_build/main.cpp'")
    extension_build_dir_missing: str | None = None
    triton_name_unknown: str | None = None  # a triton.language name no release defines ("astype"): run/triton_names.py
    # a harness's evaluation at its problem's fixed sizes (a KernelBench record: compiled, correctness) failed on a
    # Triton config needing this much shared memory per block, over every GPU's limit: run/result_source.py
    evaluated_smem_over_every_gpu: float | None = None
    triton_nested_def: str | None = None  # a function defined inside a @triton.jit one: "gelu (line 27, inside k)"
    # a kernel written in PTX whose load failed (CUDA_ERROR_INVALID_PTX), assembled here (diagnose/run/ptx_check.py)
    ptx_error: str | None = None  # ptxas's first error on a line of it: "line 25: Unexpected non-ASCII character ..."
    ptx_assembler: str | None = None  # the ptxas that checked it
    # a result that recorded no build (`compiled: False`), read from its kernel file (diagnose/run/result_source.py)
    source_not_python: str | None = None  # the file does not parse: "line 26: '(' was never closed"
    source_unbound_name: str | None = None  # a name used as `X.attr` the file never binds: "math (line 128)"
    # one stride argument for two axes of one pointer offset, read from the Triton source (diagnose/run/stride_reuse.py)
    stride_reused: str | None = None  # the argument: "stride_xm"
    stride_reused_line: int | None = None  # the offset's line in the target file
    stride_reused_code: str | None = None  # that line
    stride_reused_indices: str | None = None  # the two indices it multiplies: "rows[:, None] and cols[None, :]"
    # the first atomic read-modify-write in the target's source (diagnose/run/atomic_updates.py)
    atomic_update: str | None = None  # "tl.atomic_add at line 31: tl.atomic_add(out_ptr + row, part)"
    # a masked load filled with 0 feeding a max or min (diagnose/run/mask_fill.py): a candidate, not a verdict
    mask_fill_reduction: str | None = None  # "tl.max at line 6 reads `x`, loaded at line 5 with other=0.0: ..."
    # an online softmax's accumulator added to without the rescale its denominator gets (diagnose/run/online_softmax.py)
    online_softmax_unscaled: str | None = None  # "`acc` adds tl.dot at line 52 without the rescale by `alpha` ..."
    # the reduction-length sweep (diagnose/run/accum_sweep.py): the failing size re-run with a shorter reduction
    accum_sweep_param: str | None = None  # the size that is the reduction length: "cols", "K"
    accum_sweep_values: tuple[int, ...] = ()  # its values that ran, shortest first, the declared one last
    accum_sweep_median_rel: tuple[float, ...] = ()  # the median relative error at each
    accum_sweep_skipped: str | None = None  # why no sweep ran although the errors looked like accumulation
    # the power-of-two check (diagnose/run/tail_lanes.py): the failing size re-run with one size rounded up
    pow2_passes: str | None = None  # the rounded-up size that passed: "features=1024"


# --- the knowledge base (kdiag kb): what people taught kdiag about this failure ----------


@dataclass(frozen=True)
class KbFacts(Facts):
    fingerprint: str | None = None  # the failure's normalised signature, hashed (diagnose.kb.fingerprint)
    seen_count: int = 0  # distinct earlier observations of this fingerprint
    first_seen: str | None = None  # ISO date of the first one
    last_seen: str | None = None
    label_state: str | None = None  # confirmed | corrected; None: no person labelled it
    label_category: str | None = None  # the category a person gave it
    label_mode: str | None = None  # the failure mode a person gave it
    label_by: str | None = None
    label_note: str | None = None
    label_count: int = 0  # how many times people labelled it
    summary: str | None = None  # "seen 14 times since 2026-11-02; labelled environment/driver-too-old by ana"
