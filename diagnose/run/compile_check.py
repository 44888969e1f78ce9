"""Compile a Python submission's CUDA sources (:mod:`diagnose.run.cuda_sources`) with the installed nvcc,
for the target arch, without a GPU and without running the submission.

Each CUDA source goes to ``<run dir>/build/`` and through ``nvcc -cubin -arch=sm_XX -Xptxas -v``: the
device pass only, so nothing is linked and no host compiler builds an object.  nvcc's front end still
reads the whole translation unit, host code included, so an undeclared identifier in a host wrapper is
found too.  Sources that include torch (every ``load_inline`` CUDA source: it is given
``torch/types.h``) get torch's own extension headers on the include path, found from where the torch
package lies (a file path; torch is not imported), the Python headers, and the flags
``torch.utils.cpp_extension`` compiles with.  Reading torch's headers is slow (tens of seconds):
each compile has a time limit.  Host-only C++ sources (``load_inline``'s ``cpp_sources``: the
declarations, with the pybind11 module load_inline writes after them for ``functions``; a ``.cpp``
file ``load`` names) go through the host compiler with ``-fsyntax-only`` once every CUDA source has
compiled: a missing ``;`` after a declaration, or a name in ``functions`` that no source declares,
fails there, as it fails load_inline's build of ``main.cpp``.  Without a host compiler they are
listed, not compiled.

torch's CUDA headers (``ATen/cuda/CUDAContext.h``, which most model-written sources include for
``at::cuda::getCurrentCUDAStream()``) include the CUDA math libraries' headers (cuSPARSE, cuBLAS, cuBLASLt,
cuSOLVER), and torch's CPU wheels lack ``c10/cuda/impl/cuda_cmake_macros.h``.  When a compile stops at one of
those headers on a machine that lacks it, the source is compiled a second time with kdiag's stand-in
declarations (``diagnose/data/cuda_stand_in/``: the libraries' handle and status types, no functions) on the
include path after every real folder.  A clean second compile checked the source's own code; an error in the
source's own code that names none of the stood-in libraries is the source's; an error that names one (a cuBLAS
call the stand-ins do not declare) or lies in torch's or the stand-in headers is not the source's, and the
check stays stopped at the missing header (:func:`stand_in_errors`).  A source that names such a library's
functions or constants, which the stand-ins do not declare (``cublasSgemm``, ``CUBLAS_OP_T``), cannot be checked
that way: its second compile is not run (:func:`undeclared_library_names`).
"""

from __future__ import annotations

import dataclasses
import re
import sysconfig
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from diagnose.run.cuda_sources import Found, Source

COMPILE_TIMEOUT_S = 240.0
#: torch.utils.cpp_extension's COMMON_NVCC_FLAGS, and the defines it adds to an extension's compile
TORCH_FLAGS = (
    "-D__CUDA_NO_HALF_OPERATORS__",
    "-D__CUDA_NO_HALF_CONVERSIONS__",
    "-D__CUDA_NO_BFLOAT16_CONVERSIONS__",
    "-D__CUDA_NO_HALF2_OPERATORS__",
    "--expt-relaxed-constexpr",
    "-DTORCH_EXTENSION_NAME=kdiag_check",
    "-DTORCH_API_INCLUDE_EXTENSION_H",
    "-std=c++17",
)
_REGS = re.compile(r"Used (\d+) registers")
_SPILL = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")
_SMEM = re.compile(r"(\d+) bytes smem")


@dataclass(frozen=True)
class Compiled:
    source: Source
    file: str  # the file written under the run dir (relative to it)
    argv: tuple[str, ...]
    ok: bool
    log: str
    timed_out: bool = False
    registers: int | None = None  # max over the kernels
    spilled: int = 0  # spill stores + loads, bytes
    shared: int = 0  # static shared memory, bytes (max over the kernels)
    outcome: Any = None  # the runner's Outcome of the nvcc child
    missing: str | None = None  # a header this machine lacks, included by torch's or the toolkit's own headers
    #: the header the first compile stopped at, when this is the second compile's result, with kdiag's stand-in
    #: declarations for the math libraries' headers (the source's own code compiled, or failed, past it)
    stood_in: str | None = None
    #: the stand-in compile's first error that involves a stood-in library, when that stopped it (not the source's)
    unchecked: str | None = None


@dataclass(frozen=True)
class Check:
    arch: str
    compiled: tuple[Compiled, ...]
    listed: tuple[str, ...] = ()  # sources found and not compiled (host C++), and why
    unresolved: tuple[str, ...] = ()

    @property
    def cuda(self) -> tuple[Compiled, ...]:
        return tuple(c for c in self.compiled if c.source.lang == "cuda")

    @property
    def failed(self) -> Compiled | None:
        """The first source that does not compile because of itself (not a header this machine lacks)."""
        return next((c for c in self.compiled if not c.ok and not c.timed_out and c.missing is None), None)

    @property
    def incomplete(self) -> Compiled | None:
        """The first source whose check stopped at a header this machine lacks."""
        return next((c for c in self.compiled if c.missing is not None), None)

    @property
    def ok(self) -> bool:
        return bool(self.compiled) and all(c.ok for c in self.compiled)

    @property
    def log(self) -> str:
        return "\n".join(c.log.rstrip("\n") for c in self.compiled if c.log) + "\n"

    def summary(self) -> str:
        """``compiles for sm_90: 10 registers, 0 bytes spilled, 0 bytes shared memory``."""
        cuda = self.cuda
        regs = max((c.registers for c in cuda if c.registers is not None), default=None)
        spilled = sum(c.spilled for c in cuda)
        shared = max((c.shared for c in cuda), default=0)
        text = f"{regs if regs is not None else '?'} registers, {spilled} bytes spilled, {shared} bytes shared memory"
        n = len(cuda)
        what = "its CUDA source" if n == 1 else f"its {n} CUDA sources"
        host = sum(1 for c in self.compiled if c.source.lang == "cpp" and c.ok)
        also = f"; its host C++ ({'the bindings' if host == 1 else f'{host} sources'}) compiles" if host else ""
        stood = next((c.stood_in for c in self.compiled if c.stood_in), None)
        if stood:
            also += (f"; {stood.split(' (')[0]} and the other CUDA math libraries' headers torch's headers include "
                     "were stood in by kdiag's declarations (calls into those libraries were not checked)")  # fmt: skip
        return f"compiles for {self.arch} ({what}): {text}{also}"


def find_nvcc(env: Mapping[str, str]) -> str | None:
    from diagnose.envinfo import stack

    return stack.find_binary("nvcc", env)


def torch_include_dirs(snapshot: Mapping[str, Any] | None) -> list[str]:
    """torch/include and torch/include/torch/csrc/api/include, from the torch package's folder: the one the
    environment snapshot read ``torch/version.py`` from, else where Python would import torch from."""
    folder: Path | None = None
    sw = (snapshot or {}).get("software") or {}
    origin = str(((sw.get("torch") or {}).get("cuda") or {}).get("from") or "")
    if origin.startswith("file:") and origin.endswith("version.py"):
        folder = Path(origin.removeprefix("file:")).parent
    if folder is None or not folder.is_dir():
        import importlib.util

        try:
            spec = importlib.util.find_spec("torch")  # finds the folder; imports nothing
        except (ImportError, ValueError):
            spec = None
        if spec is None or not spec.origin:
            return []
        folder = Path(spec.origin).parent
    inc = folder / "include"
    return [str(p) for p in (inc, inc / "torch" / "csrc" / "api" / "include") if p.is_dir()]


def nvcc_check_argv(nvcc: str, source: Path, out: Path, arch: str, includes: list[str]) -> list[str]:
    a = arch.removeprefix("sm_").removeprefix("compute_")
    flags = ["-gencode", f"arch=compute_{a},code=sm_{a}"] if a.endswith(("a", "f")) else [f"-arch=sm_{a}"]
    inc = [f"-I{d}" for d in includes]
    torch = [*TORCH_FLAGS, "-w"] if includes else []
    return [nvcc, "-cubin", "-Xptxas", "-v", "-lineinfo", *flags, *torch, *inc, "-o", str(out), str(source)]


def cuda_include_dirs(nvcc: str) -> list[str]:
    """The toolkit's include folder, which torch.utils.cpp_extension puts on every compile of an extension that
    has CUDA sources, its host C++ included (``include_paths("cuda")``: CUDA_HOME/include, unless that is
    /usr/include, which the compiler searches anyway): the host C++ of a load_inline module may include
    <cuda_runtime.h>.  The first of CUDA_HOME, CUDA_PATH and the folders around nvcc that holds the runtime's
    header."""
    import os

    homes = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), str(Path(nvcc).parent.parent),
             str(Path(nvcc).resolve().parent.parent), "/usr/local/cuda"]  # fmt: skip
    for home in homes:
        inc = Path(home) / "include" if home else None
        if inc is not None and (inc / "cuda_runtime.h").is_file():  # a wrapper script's folder has none
            return [] if str(inc) == "/usr/include" else [str(inc)]
    return []


def find_host_compiler(env: Mapping[str, str]) -> str | None:
    """The C++ compiler torch.utils.cpp_extension would use: $CXX, else c++."""
    import shutil

    cxx = env.get("CXX")
    if cxx and shutil.which(cxx, path=env.get("PATH")):
        return shutil.which(cxx, path=env.get("PATH"))
    return shutil.which("c++", path=env.get("PATH")) or shutil.which("g++", path=env.get("PATH"))


def host_check_argv(cxx: str, source: Path, includes: list[str]) -> list[str]:
    """``c++ -fsyntax-only``, with the defines and standard torch.utils.cpp_extension builds main.cpp with."""
    defines = [f for f in TORCH_FLAGS if f.startswith("-D") and "CUDA_NO" not in f]
    return [cxx, "-fsyntax-only", "-std=c++17", "-w", *defines, *[f"-I{d}" for d in includes], str(source)]


# gcc/clang "fatal error: cusparse.h: No such file or directory", EDG 'cannot open source file "cusparse.h"'
_MISSING = re.compile(
    r"^(?P<file>[^\n:]+?)(?::\d+:\d+: fatal error: (?P<a>[^:\n]+): No such file or directory"
    r"|\((?P<line>\d+)\): catastrophic error: cannot open source file \"(?P<b>[^\"\n]+)\")",
    re.M,
)


#: the public headers of GPU libraries that ship beside nvcc as toolkit components or as their own packages (cuBLAS:
#: cublas_v2.h, cublasLt.h; cuFFT: cufft.h, cufftXt.h; cuRAND: curand_kernel.h; cuSOLVER: cusolverDn.h; NPP: nppi.h;
#: CUTLASS/CuTe: cutlass/gemm/..., cute/tensor.hpp ...): a machine whose toolkit lacks the component cannot compile a
#: source that includes one, whatever the source is, so the check stops there rather than blaming the source
_LIBRARY_HEADER = re.compile(
    r"^(?:(?:cublas|cudnn|cufft|curand|cusparse|cusolver|cutensor|npp|cupti|magma)\w*|nccl|nvshmemx?|nvjpeg|nvml)\.h$"
    r"|^(?:cutlass|cute)/"
)


def library_header(header: str) -> str | None:
    """The library a missing header belongs to, when it is a GPU library's public header.

    >>> library_header("cublasLt.h"), library_header("cutlass/gemm/device/gemm.h"), library_header("my_kernels.h")
    ('cublasLt.h', 'cutlass/gemm/device/gemm.h', None)
    """
    return header if _LIBRARY_HEADER.search(header.strip()) else None


#: kdiag's stand-in declarations for the math libraries' headers torch's CUDA headers include (see its README.md)
STAND_IN_DIR = Path(__file__).resolve().parents[1] / "data" / "cuda_stand_in"
#: an identifier of a stood-in library: its functions and types (cublasSgemm, cublasLtMatmulDesc_t, cusparseSpMM ...)
#: and constants (CUBLAS_OP_T, CUSPARSE_INDEX_32I ...), torch's own wrappers of them (_cublasGetErrorEnum)
_STOOD_IN_NAME = re.compile(r"(?<![A-Za-z0-9])(?:cublas|cusparse|cusolver|CUBLAS|CUSPARSE|CUSOLVER)\w*")
# an error's first line: EDG's (nvcc) 'FILE(12): error: ...', gcc/clang's 'FILE:12:5: error: ...'
_ERROR = re.compile(
    r"^(?P<file>[^\n(]+?)\((?P<line>\d+)\): (?:catastrophic )?error: (?P<msg>.*)$"
    r"|^(?P<gfile>[^\n:]+?):(?P<gline>\d+):(?:\d+:)? (?:fatal )?error: (?P<gmsg>.*)$",
    re.M,
)


_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def _names(text: str) -> set[str]:
    return set(_STOOD_IN_NAME.findall(_COMMENT.sub(" ", text)))


def undeclared_library_names(text: str) -> list[str]:
    """The stood-in libraries' identifiers a source names (outside comments) that the stand-ins do not declare
    (``cublasSgemm``, ``CUBLAS_OP_T``): a compile with the stand-ins cannot check such a source, so it is not run.

    >>> undeclared_library_names("cublasHandle_t h; // cublasCreate(&h)\\nif (s != CUBLAS_STATUS_SUCCESS) {}")
    []
    >>> undeclared_library_names("cublasStatus_t s = cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N);")
    ['CUBLAS_OP_N', 'CUBLAS_OP_T', 'cublasSgemm']
    """
    declared: set[str] = set()
    for header in STAND_IN_DIR.rglob("*.h"):
        declared |= _names(header.read_text(encoding="utf-8"))
    return sorted(_names(text) - declared)


def stand_in_header(log: str) -> str | None:
    """The header a compile stopped at, when kdiag has a stand-in for it (``cusparse.h``, ``cublas_v2.h``,
    ``c10/cuda/impl/cuda_cmake_macros.h`` ...).

    >>> stand_in_header("/t/include/ATen/cuda/CUDAContextLight.h:10:10: fatal error: cusparse.h: No such file or directory")
    'cusparse.h'
    >>> stand_in_header('/r/s.cu(3): catastrophic error: cannot open source file "cufft.h"') is None
    True
    """
    m = _MISSING.search(log)
    header = (m.group("a") or m.group("b")).strip() if m else ""
    return header if header and ".." not in header and (STAND_IN_DIR / header).is_file() else None


def stand_in_errors(log: str, source: Path) -> tuple[list[str], list[str]]:
    r"""A compile with the stand-ins that failed: its errors in the source's own code that involve none of the
    stood-in libraries (the source's), and the others (a call into a library the stand-ins do not declare, an
    error in torch's or the stand-in headers, a header still missing): the machine's gap.  Each error is its
    first line with the source line a compiler quotes after it.

    >>> own, lib = stand_in_errors(
    ...     '/r/b/s.cu(9): error: identifier "scal" is undefined\n      y[i] = scal;\n             ^\n\n'
    ...     '/r/b/s.cu(12): error: identifier "cublasSgemm" is undefined\n      cublasSgemm(h);\n      ^\n', Path("s.cu"))
    >>> own, lib
    (['/r/b/s.cu(9): error: identifier "scal" is undefined'], ['/r/b/s.cu(12): error: identifier "cublasSgemm" is undefined'])
    """
    own: list[str] = []
    other: list[str] = []
    lines = log.splitlines()
    for i, line in enumerate(lines):
        m = _ERROR.match(line)
        if m is None:
            continue
        where = (m.group("file") or m.group("gfile") or "").strip()
        quoted = []
        for nxt in lines[i + 1 : i + 4]:  # the quoted source line (and caret) that follow, until the next message
            if not nxt.strip() or _ERROR.match(nxt) or nxt.startswith(("In file included", "                 from")):
                break
            quoted.append(nxt)
        text = "\n".join([line, *quoted])
        mine = Path(where).name == source.name and str(STAND_IN_DIR) not in where
        if _MISSING.match(
            line
        ):  # a header still missing: the source's own only when it is neither torch's nor a library's
            mine = missing_header(line, source) is None
        (own if mine and not _STOOD_IN_NAME.search(text) else other).append(line.strip())
    return own, other


def missing_header(log: str, source: Path) -> str | None:
    """``header (included by FILE)`` when the compile stopped at a header that a file other than the
    submission's own source includes (torch's CUDA headers want cuSPARSE, cuBLAS ...): the machine lacks it; or
    ``header (a GPU library's header)`` when the source includes a library's public header this machine lacks."""
    m = _MISSING.search(log)
    if m is None:
        return None
    header, where = m.group("a") or m.group("b"), m.group("file").strip()
    if Path(where).name == source.name:
        if library_header(header):
            return f"{header} (a GPU library's header, which the source includes)"
        return None  # the submission includes it itself: its own error (or its own dependency)
    inc = where.split("/include/", 1)[-1] if "/include/" in where else Path(where).name
    return f"{header} (included by {inc})"


def figures(log: str) -> tuple[int | None, int, int]:
    regs = [int(m.group(1)) for m in _REGS.finditer(log)]
    spilled = sum(int(a) + int(b) for a, b in _SPILL.findall(log))
    shared = max((int(m.group(1)) for m in _SMEM.finditer(log)), default=0)
    return (max(regs) if regs else None), spilled, shared


def check(
    found: Found,
    build: Path,
    arch: str,
    nvcc: str,
    snapshot: Mapping[str, Any] | None,
    run: Any,
    cxx: str | None = None,
) -> Check:
    """Compile every CUDA source, then (``cxx``: the host compiler) check the host C++ ones;
    ``run(argv, folder, timeout) -> Outcome`` is the run's child runner."""
    build.mkdir(parents=True, exist_ok=True)
    compiled: list[Compiled] = []
    listed: list[str] = []
    torch_inc: list[str] | None = None
    order = sorted(enumerate(found.sources), key=lambda p: p[1].lang != "cuda")  # CUDA first
    for i, src in order:
        if src.lang != "cuda" and (cxx is None or not any(c.source.lang == "cuda" for c in compiled)):
            listed.append(f"{src.origin}: host C++, not compiled" + ("" if cxx else " (no host compiler)"))
            continue
        includes: list[str] = []
        if src.needs_torch and not src.device_only:
            if torch_inc is None:
                torch_inc = torch_include_dirs(snapshot)
                py = sysconfig.get_paths().get("include")
                if torch_inc and py and Path(py).is_dir():
                    torch_inc.append(py)
            if not torch_inc:
                listed.append(f"{src.origin}: includes torch, and torch's headers were not found")
                continue
            includes = torch_inc
        if src.lang == "cuda":
            name = f"source{i}_{src.api}.cu"
            path = build / name
            path.write_text(src.text, encoding="utf-8")
            argv = nvcc_check_argv(nvcc, path, build / f"source{i}.cubin", arch, includes)
        else:
            assert cxx is not None
            name = f"source{i}_{src.api}.cpp"
            path = build / name
            path.write_text(src.text, encoding="utf-8")
            argv = host_check_argv(cxx, path, [*includes, *cuda_include_dirs(nvcc)])
        outcome = run(argv, build / f"source{i}", COMPILE_TIMEOUT_S)
        log = outcome.stdout.read_text() + outcome.stderr.read_text()
        ok = outcome.exit_code == 0 and not outcome.timed_out
        regs, spilled, shared = figures(log)
        missing = None if ok else missing_header(log, path)
        got = Compiled(
            src, f"build/{name}", tuple(argv), ok, log, outcome.timed_out, regs, spilled, shared, outcome, missing
        )
        if missing is not None and stand_in_header(log):
            beyond = undeclared_library_names(src.text)
            if beyond:  # a compile with the stand-ins would stop at these: the library's gap, found without it
                named = ", ".join(beyond[:3]) + (" ..." if len(beyond) > 3 else "")
                got = dataclasses.replace(
                    got, unchecked=f"the source names {named}, which the stand-ins do not declare"
                )
            else:
                got = _with_stand_ins(got, path, src.lang == "cuda", build / f"source{i}_stand_in", run)
        compiled.append(got)
        if not got.ok:
            break  # the first source that does not compile is the finding
    return Check(arch, tuple(compiled), tuple(listed), found.unresolved)


def stand_in_argv(argv: tuple[str, ...], cuda: bool) -> list[str]:
    """The same compile with the stand-in folder searched after every real include folder (``-idirafter``, which
    nvcc hands its host compiler's preprocessor): a header that is installed is always the one read."""
    flags = ["-Xcompiler", f"-idirafter,{STAND_IN_DIR}"] if cuda else ["-idirafter", str(STAND_IN_DIR)]
    return [*argv[:-1], *flags, argv[-1]]  # the source stays last


def _with_stand_ins(first: Compiled, path: Path, cuda: bool, folder: Path, run: Any) -> Compiled:
    """The second compile, with kdiag's stand-ins for the math libraries' headers: its result when it compiles or
    fails in the source's own code; else the first compile's stop at the missing header, with the stand-in
    compile's first error that involves a stood-in library (``unchecked``)."""
    argv = stand_in_argv(first.argv, cuda)
    outcome = run(argv, folder, COMPILE_TIMEOUT_S)
    log = outcome.stdout.read_text() + outcome.stderr.read_text()
    ok = outcome.exit_code == 0 and not outcome.timed_out
    stood = first.missing
    if ok:
        regs, spilled, shared = figures(log)
        return Compiled(first.source, first.file, tuple(argv), True, log, False, regs, spilled, shared, outcome,
                        None, stood)  # fmt: skip
    own, other = ([], []) if outcome.timed_out else stand_in_errors(log, path)
    if own and not other:
        return Compiled(first.source, first.file, tuple(argv), False, log, False, outcome=outcome, stood_in=stood)
    why = re.sub(r"^\S*/", "", other[0])[:200] if other else ("it timed out" if outcome.timed_out else "it failed")
    return dataclasses.replace(first, unchecked=f"compiled with them, its errors involve those libraries or torch's "
                               f"headers, not the source's own code: {why}")  # fmt: skip
