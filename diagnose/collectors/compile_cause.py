r"""What a CUDA C++ compile error says about its cause, beyond "the source is invalid".

Three readings of nvcc/NVRTC front-end errors (EDG: ``file(line): error: message``) that move the
fault away from the user's kernel:

- ``library_header``: the first error sits in a *library's* own header (CuPy's ``carray.cuh``,
  torch's ``include/``, CUTLASS, CUB/Thrust outside the toolkit, Eigen, pybind11) that the user's
  toolchain compiles.  Such headers compile with the CUDA versions the library supports; an error
  in them means the toolkit (or its headers on the include path) and the library do not match.
- ``needs_arch``/``gated_symbol``: the error names an intrinsic or overload that exists only from
  some architecture on: ``no instance of overloaded function "atomicAdd" matches the argument list``
  with ``argument types are: (double *, double)`` (sm_60), ``identifier "__hmax" is undefined``
  (sm_80).  The CUDA headers declare these under ``#if __CUDA_ARCH__ >= ...``, so the code compiles
  for newer targets and fails for older ones in the build's list.
- ``missing_header``/``missing_header_library``: an ``#include`` the preprocessor could not find, and the
  installed library whose own header asked for it (gcc's ``fatal error: X: No such file or directory``, which
  nvcc's host pass prints too; clang's ``'X' file not found``; EDG's ``cannot open source file "X"``).  A
  library's installed header that includes a file the installation lacks is the installation's: a package built
  without a header it needs, or a dependency's include directory (the CUDA toolkit's, for PyTorch's
  ``ATen/cuda`` headers) not on the include path.
- ``toolkit_clash``: a redefinition or an overload conflict on a name the CUDA headers declare
  (``cannot overload functions distinguished by return type alone`` on the project's own
  ``atomicAdd(float2*, float2)``, which CUDA 12.1 added; ``has already been defined (previous
  definition at line 109 of .../sm_90_rt.h)``; ``more than one instance of overloaded function``
  whose candidates are one toolkit declaration and one of the project's): the code compiled with
  older toolkits.

Which names are arch-gated comes from the toolkit's own headers: ``diagnose/data/cuda_arch_gates.json``
(made by ``scripts/gen-cuda-arch-gates`` from the declarations under ``#if ... __CUDA_ARCH__ >= N`` guards of
an installed toolkit's ``include/`` and ``include/crt/``), plus a few gates that older releases had and newer
ones lifted (half-precision ``__hmax`` was sm_80 only before CUDA 12; the CUDA C++ Programming Guide of each
release lists them): https://docs.nvidia.com/cuda/cuda-c-programming-guide/

>>> library_of_header(r"...\cupy/carray.cuh")
'CuPy'
>>> library_of_header("/opt/rocm/include/hip/nvcc_detail/hip_runtime_api.h")
'HIP'
>>> library_of_header("/usr/local/cuda/include/cub/cub.cuh") is None  # the toolkit's own copy
True
>>> library_of_header("kernels/scale.cu") is None
True
>>> arch_gate('no instance of overloaded function "atomicAdd" matches the argument list',
...           ["            argument types are: (double *, double)"])
('sm_60', 'atomicAdd(double *, double)')
>>> arch_gate('identifier "__hmax" is undefined', [])
('sm_80', '__hmax')
>>> arch_gate('identifier "__funnelshift_l" is undefined', [])
('sm_32', '__funnelshift_l')
>>> arch_gate('identifier "atomicExch_block" is undefined', [])  # sm_60_atomic_functions.h
('sm_60', 'atomicExch_block')
>>> arch_gate('identifier "__cluster_barrier_wait" is undefined', [])  # crt/sm_90_rt.h
('sm_90', '__cluster_barrier_wait')
>>> arch_gate('no instance of overloaded function "atomicMax" matches the argument list',
...           ["            argument types are: (long long *, long long)"])  # sm_32_atomic_functions.h
('sm_32', 'atomicMax(long long *, long long)')
>>> arch_gate('identifier "atomicExch" is undefined', []) is None  # declared for every arch
True
>>> missing_header("nlohmann/json.hpp: No such file or directory")  # gcc's cpp (also nvcc's host pass)
'nlohmann/json.hpp'
>>> missing_header("'cublas_v2.h' file not found"), missing_header('cannot open source file "cuda_fp16.h"')
('cublas_v2.h', 'cuda_fp16.h')
>>> missing_header("Cannot open include file: 'corecrt.h': No such file or directory")  # MSVC's C1083
'corecrt.h'
>>> missing_header('identifier "x" is undefined') is None
True
>>> header_owner("/opt/pytorch/torch/include/torch/csrc/distributed/c10d/NCCLUtils.hpp")
'PyTorch'
>>> header_owner("/usr/include/x86_64-linux-gnu/gnu/stubs.h"), header_owner("src/roi_align.cu")
('the system or CUDA toolkit', None)
>>> lowest_build_arch("nvcc -gencode arch=compute_35,code=sm_35 -gencode arch=compute_60,code=sm_60 -c a.cu")
'sm_35'
>>> lowest_build_arch("nvrtc: --gpu-architecture=compute_30") , lowest_build_arch("no arch here")
('sm_30', None)
>>> clash('cannot overload functions distinguished by return type alone',
...       ["  __attribute__((device)) inline void atomicAdd(float2 *addr, float2 val) {"])
'atomicAdd'
>>> clash('cannot overload functions distinguished by return type alone', ["  int helper(int x) {"]) is None
True
>>> clash('more than one instance of overloaded function "atomicAdd" matches the argument list:', [
...     '  function "atomicAdd(float2 *, float2)" (declared at line 109 of /usr/local/cuda/include/crt/sm_90_rt.h)',
...     '  function "mine::atomicAdd(float2 *, float2)" (declared at line 1)'])
'atomicAdd'
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

from diagnose.collectors import toolkit_release
from diagnose.facts import Diagnostic

_TOOLKIT_HEADERS = (
    "__nv_nvrtc_builtin_header",
    "/usr/local/cuda",
    "/opt/cuda",
    "/cuda/include",
    "/targets/x86_64-linux/include/",
    "/targets/sbsa-linux/include/",
    "/targets/aarch64-linux/include/",
    "/site-packages/nvidia/",
    "/usr/include/",
    "/usr/lib/gcc/",
    "crt/host_config.h",
    # headers only the CUDA toolkit ships, as NVRTC/Jitify name them (relative to the include root)
    "cooperative_groups/",
    "cooperative_groups.h",
    "NVIDIA GPU Computing Toolkit",
    "<command-line>",
)

#: header file names only the CUDA toolkit ships (its include/ directory, CUDA 13.0), recognised wherever the
#: include root lies (a conda env's or cluster module's copy, a path NVRTC was given with ``--include-path``)
_TOOLKIT_HEADER_NAMES = re.compile(
    r"(?:^|/)(?:cuda_(?:fp16|bf16|fp8|fp6|fp4)\.hpp?|cuda_(?:runtime|runtime_api|device_runtime_api)\.h"
    r"|cuda_(?:awbarrier|pipeline)(?:_helpers|_primitives)?\.h|device_launch_parameters\.h"
    r"|sm_\d+_(?:atomic_functions|intrinsics|rt)\.hpp?|vector_(?:types|functions)\.hpp?)$"
)


def in_toolkit_header(path: str) -> bool:
    """Whether ``path`` is a CUDA toolkit, NVRTC builtin or system header.

    >>> in_toolkit_header("/usr/local/cuda-13.0/bin/../targets/x86_64-linux/include/cuda_fp16.h")
    True
    >>> in_toolkit_header("/scratch/env/include/cuda_bf16.hpp")
    True
    >>> in_toolkit_header("kernels/scale.cu")
    False
    """
    p = path.replace("\\", "/")
    return any(h in p for h in _TOOLKIT_HEADERS) or bool(_TOOLKIT_HEADER_NAMES.search(p))


#: library include directories (checked after the toolkit's own: CUB/Thrust/libcu++ ship with CUDA too)
_LIBRARIES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(?:^|[/\\.])cupy(?:_backends)?[/\\]"), "CuPy"),
    (re.compile(r"torch[/\\]include[/\\]|(?:^|[/\\])(?:ATen|c10)[/\\]"), "PyTorch"),
    (re.compile(r"(?:^|[/\\])(?:cutlass|cute)[/\\]"), "CUTLASS"),
    (re.compile(r"(?:^|[/\\])cub[/\\]"), "CUB"),
    (re.compile(r"(?:^|[/\\])thrust[/\\]"), "Thrust"),
    (re.compile(r"(?:^|[/\\])(?:cuda[/\\]std|libcudacxx|cccl)[/\\]"), "CCCL (libcu++)"),
    (re.compile(r"(?:^|[/\\])(?:Eigen|unsupported[/\\]Eigen)[/\\]"), "Eigen"),
    (re.compile(r"(?:^|[/\\])pybind11[/\\]"), "pybind11"),
    (re.compile(r"(?:^|[/\\])tensorflow[/\\](?:core|compiler|third_party)[/\\]"), "TensorFlow"),
    (re.compile(r"(?:^|[/\\])(?:jaxlib|xla)[/\\]"), "XLA/jaxlib"),
    (re.compile(r"(?:^|[/\\])(?:cudf|rmm|raft)[/\\]"), "RAPIDS"),
    # Kokkos installs its headers flat as Kokkos_*.hpp (include/, include/Cuda/, include/impl/); its source tree
    # keeps them under core/src/
    (re.compile(r"(?:^|[/\\])Kokkos_\w+\.hpp$|(?:^|[/\\])kokkos[/\\]core[/\\]src[/\\]"), "Kokkos"),
    # HIP's installed headers (ROCm's include/hip/, with the CUDA-backed nvcc_detail/ or nvidia_detail/ that hipcc uses
    # on an NVIDIA GPU)
    (re.compile(r"(?:^|[/\\])include[/\\]hip[/\\]"), "HIP"),
    # the host toolchain on Windows: MSVC's own headers (VC/Tools/MSVC/<version>/include) and the Windows SDK's
    # (Windows Kits/10/Include/<version>/ucrt: corecrt.h), which MSVC's headers include
    (
        re.compile(
            r"[/\\]VC[/\\]Tools[/\\]MSVC[/\\][\d.]+[/\\]include[/\\]|[/\\]Windows Kits[/\\]\d+[/\\]Include[/\\]", re.I
        ),
        "MSVC and the Windows SDK",
    ),
)
_SITE_PKG = re.compile(r"(?:site|dist)-packages[/\\]([A-Za-z_][\w.-]*)[/\\]")

#: (function, argument types it needs, the first arch that has it); None: any arguments
_OVERLOADS: tuple[tuple[str, re.Pattern[str] | None, str], ...] = (
    ("atomicAdd", re.compile(r"^\((?:volatile )?double \*"), "sm_60"),
    ("atomicAdd", re.compile(r"^\((?:volatile )?__half2 \*"), "sm_60"),
    ("atomicAdd", re.compile(r"^\((?:volatile )?(?:__half|half) \*"), "sm_70"),
    ("atomicAdd", re.compile(r"^\((?:volatile )?__nv_bfloat162? \*"), "sm_80"),
    ("atomicAdd", re.compile(r"^\((?:volatile )?(?:float2|float4) \*"), "sm_90"),
    ("atomicAdd_block", None, "sm_60"),
    ("atomicAdd_system", None, "sm_60"),
    ("atomicCAS", re.compile(r"^\((?:volatile )?(?:unsigned short|short) \*"), "sm_70"),
)
#: intrinsics the CUDA headers declare only from an architecture on (``identifier "X" is undefined``)
_IDENTIFIERS: dict[str, str] = {
    **dict.fromkeys(("__hmax", "__hmin", "__hmax_nan", "__hmin_nan", "__hfma_relu", "__hmax2", "__hmin2"), "sm_80"),
    **dict.fromkeys(("__reduce_add_sync", "__reduce_min_sync", "__reduce_max_sync", "__reduce_and_sync"), "sm_80"),
    **dict.fromkeys(("__reduce_or_sync", "__reduce_xor_sync"), "sm_80"),
    **dict.fromkeys(("__match_any_sync", "__match_all_sync", "__nanosleep"), "sm_70"),
    **dict.fromkeys(("__dp4a", "__dp2a_lo", "__dp2a_hi"), "sm_61"),
    # sm_32_intrinsics.h declares these under `__CUDA_ARCH__ >= 320` (CUDA 13.0.88)
    **dict.fromkeys(("__funnelshift_l", "__funnelshift_lc", "__funnelshift_r", "__funnelshift_rc"), "sm_32"),
    **dict.fromkeys(("__ldg", "__ldcg", "__ldca", "__ldcs", "__ldlu", "__ldcv"), "sm_32"),
    **dict.fromkeys(("__stcg", "__stcs", "__stwb", "__stwt"), "sm_32"),
}
_GATES_FILE = Path(__file__).resolve().parent.parent / "data" / "cuda_arch_gates.json"


@functools.cache
def _header_gates() -> tuple[dict[str, str], dict[str, tuple[tuple[str, str], ...]]]:
    """(identifier -> first arch, name -> ((first parameter type, first arch), ...)) from the toolkit's headers."""
    try:
        data = json.loads(_GATES_FILE.read_text())
        idents = {str(k): str(v["arch"]) for k, v in data.get("identifiers", {}).items()}
        overloads = {str(k): tuple((str(t), str(a)) for t, a in v) for k, v in data.get("overloads", {}).items()}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return {}, {}
    return idents, overloads


def _base_type(text: str) -> str:
    """A parameter or argument type without qualifiers and spacing: "const __half2" -> "__half2"."""
    words = [w for w in re.sub(r"\*", " * ", text).split() if w not in ("const", "volatile")]
    if "int" in words and sum(w not in ("int", "*") for w in words) > 0:
        words.remove("int")  # "unsigned short int" is "unsigned short"
    return " ".join(words) if words else text.strip()


def _header_overload(fn: str, args: str | None) -> str | None:
    """The first arch of ``fn``'s guarded overload whose first parameter the first argument type fits."""
    if not args:
        return None
    first = _base_type(args.strip("()").split(",")[0])
    return next((arch for t, arch in _header_gates()[1].get(fn, ()) if _base_type(t) == first), None)


#: the toolkit release that first declared an arch-gated overload a project often defines itself: CUDA 8.0 added the
#: double ``atomicAdd`` with sm_60 (its programming guide: "The 64-bit floating-point version of atomicAdd() is only
#: supported by devices of compute capability 6.x and higher"; CUDA 8.0 is also the first nvcc that builds sm_60), and
#: CUDA 12.1 the float2/float4 ones for sm_90, which nvcc 11.8 already built
_OVERLOAD_RELEASES: dict[tuple[str, str], str] = {
    ("atomicAdd", "double *"): "8.0",
    ("atomicAdd", "float2 *"): "12.1",
    ("atomicAdd", "float4 *"): "12.1",
}
#: EDG's redefinition of a function with the toolkit's exact signature: 'function "atomicAdd(double *, double)" has
#: already been defined' (nvcc 13.0 adds "(previous definition at line 93 of .../sm_60_atomic_functions.h)")
_REDEFINED_SIGNATURE = re.compile(r"function \"(?P<fn>\w+)(?P<args>\([^\"]*\))\" has already been defined")


def redefined_gated_overload(message: str) -> tuple[str, bool] | None:
    """(the arch from which the CUDA headers declare the overload the code defines again, whether every toolkit that
    builds for that arch declares it) for a redefinition with the toolkit's exact signature, else None.

    Where every toolkit that builds for the arch declares the overload, no toolkit release can have added it under the
    code: the code's own definition reached an arch the headers already cover, so its ``__CUDA_ARCH__`` guard (``#if
    !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600`` around the toolkit's case) is what let it through.

    >>> redefined_gated_overload('function "atomicAdd(double*, double)" has already been defined')
    ('sm_60', True)
    >>> redefined_gated_overload('function "atomicAdd(float2 *, float2)" has already been defined (previous '
    ...     'definition at line 109 of /usr/local/cuda-13.0/bin/../targets/x86_64-linux/include/crt/sm_90_rt.h)')
    ('sm_90', False)
    >>> redefined_gated_overload('cannot overload functions distinguished by return type alone') is None
    True
    """
    m = _REDEFINED_SIGNATURE.search(message)
    if not m:
        return None
    arch = _header_overload(m.group("fn"), m.group("args"))
    if arch is None:
        return None
    first = _base_type(m.group("args").strip("()").split(",")[0])
    added = next(
        (r for (fn, t), r in _OVERLOAD_RELEASES.items() if fn == m.group("fn") and _base_type(t) == first), None
    )
    arch_first = toolkit_release.arch_releases(arch)[0]
    every = (
        added is not None
        and arch_first is not None
        and toolkit_release.release_key(added) <= toolkit_release.release_key(arch_first)
    )
    return arch, every


_NO_INSTANCE = re.compile(r"no instance of (?:overloaded )?function \"(?P<fn>\w+)\" matches the argument list")
#: EDG's (nvcc's and NVRTC's front end) undeclared name; diagnose.collectors.compile_api reads it too
UNDEFINED_IDENTIFIER = re.compile(r"identifier [\"'](?P<name>\w+)[\"'] is undefined")
_ARG_TYPES = re.compile(r"argument types are: (?P<args>\([^\n]*\))")

_CLASH = re.compile(
    r"cannot overload functions distinguished by return type alone|has already been defined|invalid redeclaration"
    r"|redefinition of"
)
#: names the CUDA headers declare (atomics, intrinsics, vector-type helpers)
_CUDA_NAME = re.compile(
    r"\b(?P<name>atomic(?:Add|Sub|Exch|Min|Max|Inc|Dec|CAS|And|Or|Xor)(?:_block|_system)?"
    r"|__(?:h|shfl|ldg|ld[cgl]?|st[cgs]?w?|float2half|half2float|float2bfloat16|bfloat162float|nv_)\w*"
    r"|make_(?:float|int|uint|double|half|long|ulong|short|char)\d\w*)\s*\("
)
_QUOTED = re.compile(r"\"(?P<name>\w+)(?:\(|\")")
_AMBIGUOUS = re.compile(r"more than one instance of overloaded function \"(?P<fn>[\w:]+)\" matches")
#: where EDG says a candidate or an earlier definition is: "(declared at line 109 of /usr/.../sm_90_rt.h)"
_DECLARED = re.compile(r"(?:declared|previous definition) at line \d+ of \"?(?P<path>[^\")\n]+)")
_DECLARED_HERE = re.compile(r"\(declared at line \d+\)")  # a candidate in the file being compiled


def _in_toolkit(path: str) -> bool:
    return in_toolkit_header(path)


#: the preprocessor's "include not found", in the words of gcc's cpp (``%s: No such file or directory``, libcpp's
#: errno message), clang (``'%0' file not found``, err_pp_file_not_found), EDG (``cannot open source file``) and MSVC
#: (C1083, ``Cannot open include file: '%s': No such file or directory``)
_MISSING_HEADER = (
    re.compile(r"^(?P<h>[\w./+-]+\.\w+|[\w./+-]+): [Nn]o such file or directory$"),
    re.compile(r"^'(?P<h>[^'\n]+)' file not found$"),
    re.compile(r'^cannot open source file "(?P<h>[^"\n]+)"'),
    # MSVC's C1083 for an #include (cl.exe, and nvcc's host pass on Windows)
    re.compile(r"^Cannot open include file: '(?P<h>[^'\n]+)': No such file or directory$"),
    # the preprocessor's "fatal error: thrust/count.h" with its reason cut off where a report shortens the line: a
    # bare header path (a folder and a name, or a header's extension) is no other fatal error's message
    re.compile(r"^(?P<h>[\w.+-]+(?:/[\w.+-]+)+|[\w+-]+\.(?:h|hh|hpp|hxx|cuh|inl))$"),
)


def missing_header(message: str) -> str | None:
    """The header an ``#include`` named that the preprocessor could not find, else None."""
    msg = message.strip()
    for rx in _MISSING_HEADER:
        m = rx.match(msg)
        if m:
            return m.group("h")
    return None


def header_owner(path: str | None) -> str | None:
    """Whose installed header ``path`` is: a library's name, ``the system or CUDA toolkit``, or None (the
    project's own file)."""
    if not path:
        return None
    if in_toolkit_header(path):
        return "the system or CUDA toolkit"
    return library_of_header(path)


def library_of_header(path: str | None) -> str | None:
    """The library whose own header ``path`` is (None: the user's file or the CUDA toolkit's)."""
    if not path:
        return None
    if in_toolkit_header(path):
        return None
    p = path.strip()
    if not re.search(r"\.(?:h|hh|hpp|hxx|cuh|inl|inc|tcc)$|[/\\]include[/\\]", p):
        return None  # a .cu/.cpp source is the project's translation unit, not a header it includes
    for rx, name in _LIBRARIES:
        if rx.search(p):
            return name
    m = _SITE_PKG.search(p)
    return m.group(1) if m else None


#: the temporary trees package managers build a package in, with the package's name: luarocks'
#: ``/tmp/luarocks_<rock>-<version>-<N>-<random>/`` (its build of a rockspec), pip's ``/tmp/pip-build-<random>/<name>/``
#: (before pip 10) and ``/tmp/pip-install-<random>/<name>_<hash>/``, conda-build's ``conda-bld/<name>_<timestamp>/work/``,
#: Spack's ``spack-stage-<name>-<version>-<hash>/``, vcpkg's ``buildtrees/<port>/``; pip's ``pip-req-build-<random>``
#: (a URL or VCS requirement) names no package
_PACKAGE_BUILDS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            r"(?:^|[/\\])luarocks_(?P<name>[A-Za-z][\w.]*(?:-[A-Za-z][\w.]*)*)-(?:scm|dev|\d[\w.]*)-\d+-\w+[/\\]"
        ),
        "luarocks",
    ),
    (re.compile(r"(?:^|[/\\])pip-build-\w+[/\\](?P<name>[A-Za-z][\w.-]*)[/\\]"), "pip"),
    (re.compile(r"(?:^|[/\\])pip-install-\w+[/\\](?P<name>[A-Za-z][\w.-]*?)(?:_[0-9a-f]{32})?[/\\]"), "pip"),
    (re.compile(r"(?:^|[/\\])pip-(?:req-build|wheel)-\w+[/\\]"), "pip"),
    (re.compile(r"(?:^|[/\\])conda-bld[/\\](?P<name>[A-Za-z][\w.-]*?)_\d{10,}[/\\]"), "conda-build"),
    (re.compile(r"(?:^|[/\\])spack-stage-(?P<name>[a-z][\w-]*?)-[\w.]+-[a-z0-9]{32}[/\\]"), "Spack"),
    (re.compile(r"(?:^|[/\\])buildtrees[/\\](?P<name>[A-Za-z][\w.-]*)[/\\]"), "vcpkg"),
)


def package_build(path: str | None) -> tuple[str | None, str] | None:
    """(the package, the package manager) when ``path`` is in a tree a package manager builds a package in
    (luarocks, pip, conda-build, Spack, vcpkg), else None; the package is None where the tree does not name it.

    >>> package_build("/tmp/luarocks_cutorch-scm-1-8088/cutorch/lib/THC/THCTensorMathPointwise.cuh")
    ('cutorch', 'luarocks')
    >>> package_build("/tmp/pip-install-k2x_9d/flash-attn_0123456789abcdef0123456789abcdef/csrc/k.cu")
    ('flash-attn', 'pip')
    >>> package_build("/opt/conda/conda-bld/magma_1687352114032/work/src/x.cu")
    ('magma', 'conda-build')
    >>> package_build("/tmp/u/spack-stage/spack-stage-kokkos-4.1.00-abcdefghijklmnopqrstuvwxyz012345/spack-src/a.hpp")
    ('kokkos', 'Spack')
    >>> package_build("/home/me/project/src/kernel.cu") is None
    True
    """
    if not path:
        return None
    for rx, manager in _PACKAGE_BUILDS:
        m = rx.search(path)
        if m:
            return (m.groupdict().get("name") or None), manager
    return None


#: an installed package's include directory: a prefix (``~/.local``, ``/usr/local``, ``/opt/<pkg>``, a conda or
#: spack environment, a CMake ``install``/``_deps`` tree) then ``include/<library>/``
_INSTALLED_INCLUDE = re.compile(
    r"(?:^|[/\\])(?:\.local|usr[/\\]local|opt|(?:ana|mini)conda\d?|envs[/\\][^/\\\s]+|spack[/\\]opt[/\\]\S*?"
    r"|install|_deps[/\\][^/\\\s]+)[/\\](?:[^/\\\s]+[/\\])?include[/\\](?P<lib>[A-Za-z_][\w.+-]*)[/\\]"
)
#: gcc/clang print the directive (``error: #error text``), EDG (nvcc's front end) ``#error directive: text``
_ERROR_DIRECTIVE = re.compile(r"^#\s*error\b")


def error_directive_library(first: Diagnostic) -> str | None:
    """The installed library whose header's ``#error`` directive is the build's first error, or None.

    A library's headers check the configuration they are compiled in (relocatable device code, the C++
    standard, the CUDA version, how the library itself was built) with ``#error``; the CUDA toolkit's own
    headers are left out (their ``#error`` is about how the project uses them: cublas.h with cublas_v2.h).

    >>> error_directive_library(Diagnostic("host-compiler", "error",
    ...     "#error Relocatable device code mode incompatible with desul atomics configuration",
    ...     file="/home/u/.local/include/desul/atomics/Macros.hpp"))
    'desul'
    >>> error_directive_library(Diagnostic("host-compiler", "error",
    ...     '#error "It is an error to include both cublas.h and cublas_v2.h"',
    ...     file="/usr/local/cuda/include/cublas_v2.h")) is None
    True
    >>> error_directive_library(Diagnostic("host-compiler", "error", "#error unsupported", file="src/mine.h")) is None
    True
    """
    if not first.file or not _ERROR_DIRECTIVE.match(first.message.strip()) or in_toolkit_header(first.file):
        return None
    known = library_of_header(first.file)
    if known:
        return known
    m = _INSTALLED_INCLUDE.search(first.file.strip())
    return m.group("lib") if m else None


_BUILD_ARCH = re.compile(r"(?:-arch[= ]|--gpu-architecture[= ]|\barch=|\bcode=)(?:sm|compute)_(?P<n>\d{2,3})[a-z]?\b")


def lowest_build_arch(text: str) -> str | None:
    """The lowest architecture a printed nvcc/NVRTC command line builds for (``-arch=sm_35``,
    ``-gencode arch=compute_35,code=sm_35``, ``--gpu-architecture=compute_30``), or None."""
    found = [int(m.group("n")) for m in _BUILD_ARCH.finditer(text)]
    return f"sm_{min(found)}" if found else None


#: the device pass EDG was compiling when it failed, from its summary line: ``N errors detected in the compilation
#: of "/tmp/tmpxft_..._k.compute_20.cpp1.ii"`` (nvcc compiles the source once per virtual architecture it builds)
_FAILING_PASS = re.compile(r"\.compute_(?P<n>\d{2,3})[a-z]?\.cpp1\.ii\b")

#: the legacy warp intrinsics' window: sm_30_intrinsics.h declares ``__shfl``, ``__shfl_up``, ``__shfl_down`` and
#: ``__shfl_xor`` inside ``#if ... __CUDA_ARCH__ >= 300`` (every toolkit since CUDA 5.0) and, from CUDA 9.0 on,
#: only for ``__CUDA_ARCH__ < 700`` (the ``_sync`` forms replace them; cuda_arch_gates.json's ``declared_below``)
_LEGACY_FLOOR = "sm_30"


def failing_pass_arch(text: str) -> str | None:
    """The architecture of the device pass whose compilation failed, from EDG's summary line, or None.

    >>> failing_pass_arch('2 errors detected in the compilation of "/tmp/tmpxft_0000_00000000-13_k.compute_20.cpp1.ii".')
    'sm_20'
    >>> failing_pass_arch('1 error detected in the compilation of "k.cu".') is None
    True
    """
    found = [int(m.group("n")) for m in _FAILING_PASS.finditer(text)]
    return f"sm_{min(found)}" if found else None


def removed_from_arch(message: str) -> tuple[str, str] | None:
    """(the arch it is gone from, the name) when ``message`` is an undefined identifier the CUDA headers declare
    only below some architecture (the legacy warp shuffles, gone from sm_70 on).

    >>> removed_from_arch('identifier "__shfl_down" is undefined')
    ('sm_70', '__shfl_down')
    >>> removed_from_arch('identifier "__shfl_down_sync" is undefined') is None
    True
    """
    m = UNDEFINED_IDENTIFIER.search(message)
    if not m:
        return None
    below = _declared_below().get(m.group("name"))
    return (below, m.group("name")) if below else None


@functools.cache
def _declared_below() -> dict[str, str]:
    try:
        data = json.loads(_GATES_FILE.read_text())
        return {str(k): str(v) for k, v in data.get("declared_below", {}).items()}
    except (OSError, ValueError, TypeError, AttributeError):
        return {}


def arch_number(arch: str | None) -> int | None:
    m = re.search(r"(\d+)", arch or "")
    return int(m.group(1)) if m else None


#: a library another project carries in its own tree: the folders projects vendor dependencies in (``third_party/``,
#: ``3rdparty/``, ``external/``, ``vendor/``, ``deps/``, ``submodules/``) and CMake FetchContent's ``_deps/<name>-src/``
_VENDORED = re.compile(
    r"(?:^|[/\\\s])(?:third[_-]?party|3rd[_-]?party|externals?|vendor(?:ed)?|deps|submodules?)[/\\]"
    r"(?P<lib>[A-Za-z][\w.+-]*)[/\\]"
    r"|(?:^|[/\\])_deps[/\\](?P<dep>[A-Za-z][\w.+-]*?)-(?:src|build)[/\\]"
)


_DIAGNOSTIC = re.compile(r"\b(?:error|warning)\b\s*:|errors? detected", re.I)


def vendored_library(text: str, file: str | None) -> str | None:
    """The vendored library whose source ``file`` (the first error's) is: a vendor folder in its path, or in
    the path of the build line that compiles it (make's ``Compiling src/x.cu > .../third_party/lib/build/x.o``,
    a compile command naming the file), else None.

    >>> vendored_library("", "/src/proj/third_party/cutlass/include/cute/x.hpp")
    'cutlass'
    >>> log = "Compiling src/core.cu  > /home/u/caffe2/third_party/nccl/build/obj/core.o\\nsrc/core.cu(7): error: x"
    >>> vendored_library(log, "src/core.cu")
    'nccl'
    >>> vendored_library("nvcc -Werror -c deps/cub/k.cu", "deps/cub/k.cu"), vendored_library("", "_deps/fmt-src/a.cu")
    ('cub', 'fmt')
    >>> vendored_library("nvcc -c third_party/lib/my_core.cu\\ncore.cu(3): error: x", "core.cu") is None
    True
    >>> vendored_library("nvcc -c kernels/scale.cu -o build/scale.o", "kernels/scale.cu") is None
    True
    """
    if not file:
        return None
    m = _VENDORED.search(file)
    if m:
        return m.group("lib") or m.group("dep")
    # the file's name as a whole path component (src/core.cu, not my_core.cu), on the build's line for it
    named = re.compile(r"(?:^|[\s/\\\"'=])" + re.escape(file.replace("\\", "/")) + r"(?=$|[\s\"',:;)])")
    for line in text.splitlines()[:400]:
        if named.search(line.replace("\\", "/")) and not _DIAGNOSTIC.search(line):
            m = _VENDORED.search(line)
            if m:
                return m.group("lib") or m.group("dep")
    return None


def arch_gate(message: str, after: list[str], build_arch: str | None = None) -> tuple[str, str] | None:
    """(first arch, symbol) when ``message`` (with the lines printed ``after`` it) names an intrinsic or
    overload the CUDA headers declare only from some architecture on.  ``build_arch`` (the architecture the
    failing pass compiled for, when the log shows it) places a name the headers declare only inside a window
    (the legacy warp shuffles: sm_30 up to sm_70): below the window's floor, the floor is what it needs.

    >>> arch_gate('identifier "__shfl" is undefined', [], "sm_20")
    ('sm_30', '__shfl')
    >>> arch_gate('identifier "__shfl" is undefined', [], "sm_80") is None  # gone from sm_70 on: not a floor
    True
    """
    legacy = removed_from_arch(message)
    if legacy:
        n = arch_number(build_arch)
        floor = arch_number(_LEGACY_FLOOR)
        return (_LEGACY_FLOOR, legacy[1]) if n is not None and floor is not None and n < floor else None
    m = _NO_INSTANCE.search(message)
    if m:
        args = next((a.group("args") for a in map(_ARG_TYPES.search, after[:3]) if a), None)
        for fn, types, arch in _OVERLOADS:
            if fn == m.group("fn") and (types is None or (args is not None and types.search(args))):
                return arch, f"{fn}{args or '(...)'}"
        name = m.group("fn")
        first = _header_overload(name, args) or _header_gates()[0].get(name)
        return (first, f"{name}{args or '(...)'}") if first else None
    m = UNDEFINED_IDENTIFIER.search(message)
    if m:
        name = m.group("name")
        first = _IDENTIFIERS.get(name) or _header_gates()[0].get(name)
        return (first, name) if first else None
    frag = fragment_gate(message)
    if frag:
        return frag
    member = namespace_member(message, after)
    if member:
        first = _NAMESPACE_GATES.get(member)
        n, need = arch_number(build_arch), arch_number(first)
        if first and (n is None or need is None or n < need):
            return first, "::".join(member)
    return None


#: the WMMA names crt/mma.h (CUDA 13.0.88) declares only from an architecture on: the whole ``nvcuda::wmma``
#: namespace under ``__CUDA_ARCH__ >= 700``, ``wmma::experimental`` (the sub-byte s4/u4/b1 precisions) under
#: ``__CUDA_SUBBYTE_IMMA__`` (``>= 730``: sm_75 is the first such GPU) and ``wmma::precision`` (tf32) under
#: ``__CUDA_AMPERE_MMA__`` (``>= 800``); the whole namespace only counts where the build's arch shows it below sm_70
#: (a file that never includes mma.h fails the same way)
_NAMESPACE_GATES: dict[tuple[str, str], str] = {
    ("wmma", "precision"): "sm_80",
    ("wmma", "experimental"): "sm_75",
}
#: the element types whose ``wmma::fragment`` specialisations crt/mma.h (CUDA 13.0.88) defines only from an
#: architecture on: 8-bit integers under ``__CUDA_IMMA__`` (``__CUDA_ARCH__ >= 720``), the sub-byte ``experimental``
#: precisions under ``__CUDA_SUBBYTE_IMMA__`` (``>= 730``), bfloat16, double and tf32 under ``__CUDA_AMPERE_MMA__``
#: (``>= 800``); below it the fragment is an incomplete type
_FRAGMENT_GATES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b(?:__)?nv_bfloat16\b|\bdouble\b|\bprecision::tf32\b"), "sm_80"),
    (re.compile(r"\bexperimental::precision::"), "sm_75"),
    (re.compile(r"\b(?:signed|unsigned) char\b"), "sm_72"),
)
_INCOMPLETE_FRAGMENT = re.compile(r'incomplete type "(?P<type>(?:nvcuda::)?wmma::fragment<[^"]*>)"')


def fragment_gate(message: str) -> tuple[str, str] | None:
    """(first arch, the fragment type) when EDG says a ``wmma::fragment`` is an incomplete type for an element type
    crt/mma.h specialises only from an architecture on (the build compiled for one below it).

    >>> fragment_gate('incomplete type "nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 16, nv_bfloat16, '
    ...               'nvcuda::wmma::col_major>" (aka "...") is not allowed')[0]
    'sm_80'
    >>> fragment_gate('incomplete type "nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, __half, '
    ...               'nvcuda::wmma::row_major>" is not allowed') is None
    True
    """
    m = _INCOMPLETE_FRAGMENT.search(message)
    if not m:
        return None
    return next(((arch, m.group("type")) for rx, arch in _FRAGMENT_GATES if rx.search(m.group("type"))), None)


_NO_MEMBER = re.compile(r'namespace "(?:\w+::)*(?P<ns>\w+)" has no member "(?P<name>\w+)"')
_NOT_A_NAMESPACE = re.compile(r'name followed by "::" must be a class or namespace name')


def namespace_member(message: str, after: list[str]) -> tuple[str, str] | None:
    """(namespace, name) of a qualified name EDG did not find: ``namespace "nvcuda::wmma" has no member
    "precision"``, or ``name followed by "::" must be a class or namespace name`` with the caret under the name in
    the source excerpt printed after it.

    >>> namespace_member('namespace "nvcuda::wmma" has no member "precision"', [])
    ('wmma', 'precision')
    >>> namespace_member('name followed by "::" must be a class or namespace name',
    ...                  ["    f<wmma::precision::tf32> a;", "            ^"])
    ('wmma', 'precision')
    >>> namespace_member('name followed by "::" must be a class or namespace name', ["    foo::x;", "    ^"]) is None
    True
    """
    m = _NO_MEMBER.search(message)
    if m:
        return m.group("ns"), m.group("name")
    if not _NOT_A_NAMESPACE.search(message) or len(after) < 2:
        return None
    source, caret = after[0], after[1]
    col = caret.find("^")
    if col < 0 or caret[:col].strip():
        return None
    name = re.match(r"\w+", source[col:])
    qualifier = re.search(r"(\w+)::\s*$", source[:col])
    return (qualifier.group(1), name.group(0)) if name and qualifier else None


def clash(message: str, after: list[str]) -> str | None:
    """The CUDA-declared name a redefinition or overload conflict is on, when it is one."""
    amb = _AMBIGUOUS.search(message)
    if amb:
        # the candidates EDG lists: one declared in a toolkit header and one elsewhere is the clash
        where = [m.group("path") for m in map(_DECLARED.search, after[:6]) if m]
        own = sum(1 for line in after[:6] if _DECLARED_HERE.search(line))
        toolkit = any(_in_toolkit(p) for p in where if p)
        return amb.group("fn").split("::")[-1] if toolkit and (own or any(not _in_toolkit(p) for p in where)) else None
    if not _CLASH.search(message):
        return None
    prev = _DECLARED.search(message)
    q = _QUOTED.search(message)
    if prev and q and _in_toolkit(prev.group("path")):
        return q.group("name")  # "has already been defined (previous definition at line 109 of .../sm_90_rt.h)"
    for text in (message, *after[:2]):
        m = _CUDA_NAME.search(text)
        if m:
            return m.group("name")
    q = _QUOTED.search(message)
    if q and _CUDA_NAME.search(q.group("name") + "("):
        return q.group("name")
    return None


# A function-like macro invoked with the wrong number of arguments: a header calls (or declares) a function
# whose name a macro defined before it shadows, e.g. a project's `#define nvtxRangePop()` meeting the toolkit's
# `int nvtxRangePop(void);`.  The compilers' own wordings: GCC 12 cpplib ('macro "%s" passed %u arguments, but
# takes just %u', 'macro "%s" requires %u arguments, but only %u given', strings of cc1plus; captured here with
# nvcc 13.0 in tests/fixtures/compiler/nvcc-macro-shadows-toolkit-function.log), clang ('too many|too few
# arguments provided to function-like macro invocation', DiagnosticLexKinds.td, the name in the next note
# "macro 'X' defined here"), MSVC (warnings C4002 'too many arguments for function-like macro invocation
# 'X'' and C4003 'not enough arguments ...': their codes, whatever the compiler's language) and EDG
# (cudafe++ 13.0: 'too many|too few arguments in invocation of %n', a macro rendered as 'macro "X"').
_MACRO_ARITY = re.compile(
    r"""macro ["'](?P<gcc>\w+)["'] (?:passed \d+ arguments?, but takes just \d+|requires \d+ arguments?, but only \d+ given)"""
    r"""|\bwarning C400[23]\b[^\n]*?['"`](?P<msvc>\w+)['"`]\s*$"""
    r"""|\btoo (?:many|few) arguments in invocation of macro ["'](?P<edg>\w+)["']"""
    r"""|\btoo (?:many|few) arguments provided to function-like macro invocation(?P<clang>)""",
    re.M,
)
_MACRO_DEFINED_HERE = re.compile(r"""note: macro ['"](?P<name>\w+)['"] defined here""")


def macro_arity_clash(text: str) -> str | None:
    """The name of a function-like macro that a header invokes with another number of arguments than it takes.

    >>> macro_arity_clash('nvToolsExt.h:1099:45: error: macro "nvtxRangePop" passed 1 arguments, but takes just 0')
    'nvtxRangePop'
    >>> macro_arity_clash("nvToolsExt.h(941): warning C4002: too many arguments for function-like macro "
    ...                   "invocation 'nvtxRangePop'")
    'nvtxRangePop'
    >>> macro_arity_clash("a.h:3:9: error: too many arguments provided to function-like macro invocation\\n"
    ...                   "b.cu:1:9: note: macro 'max' defined here")
    'max'
    >>> macro_arity_clash("x.cu(3): error: too many arguments in function call") is None
    True
    """
    if "macro" not in text:
        return None
    for m in _MACRO_ARITY.finditer(text):
        name = m.group("gcc") or m.group("msvc") or m.group("edg")
        if name:
            return name
        here = _MACRO_DEFINED_HERE.search(text, m.end(), m.end() + 2000)
        if here:
            return here.group("name")
    return None
