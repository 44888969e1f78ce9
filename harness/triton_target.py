"""Compile each distinct launch for the target GPU (``triton.compile`` with the CUDA backend of that GPU),
keeping the ptxas ``-v`` log (registers, spills), compile errors as Triton prints them and shared memory
against the GPU's opt-in limit.  The GPU's figures come from the parent's table
(``diagnose/data/gpus.yaml``), read here by path: the harness imports nothing of kdiag."""

from __future__ import annotations

import contextlib
import functools
import io
import re
import sys
import time
import traceback
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

GPUS_YAML = Path(__file__).resolve().parent.parent / "diagnose" / "data" / "gpus.yaml"
MAX_TEXT = 20_000
_REGS = re.compile(r"Used (\d+) registers")
_SPILLS = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")


@dataclass(frozen=True)
class Target:
    name: str  # as asked: "H100", "sm_90"
    display: str
    arch: str  # "sm_90"
    cc: int  # 90
    smem_limit: int | None  # opt-in shared memory per block, bytes


@functools.cache
def _table() -> dict[str, Any]:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with GPUS_YAML.open() as fh:
        data: dict[str, Any] = yaml.load(fh, Loader=loader)
    return data


def _norm(name: str) -> str:
    """As diagnose.envinfo.gpuspec normalises a GPU name: "NVIDIA H100 80GB HBM3" → "h100-80gb-hbm3"."""
    s = name.strip().lower()
    s = re.sub(r"\b(nvidia|geforce|tesla)\b", " ", s)
    s = re.sub(r"[\s_/]+", "-", s.strip())
    return re.sub(r"-+", "-", s).strip("-")


def _arch_of(text: str) -> str | None:
    s = text.strip().lower()
    m = re.fullmatch(r"(?:sm|compute)_?(\d{2,3})[af]?", s)
    if m:
        return f"sm_{m.group(1)}"
    m = re.fullmatch(r"(\d{1,2})\.(\d)", s)
    return f"sm_{m.group(1)}{m.group(2)}" if m else None


def _gpu_key(name: str) -> str | None:
    n = _norm(name)
    for key, g in _table()["gpus"].items():
        for alias in [key, g.get("display", ""), *g.get("aliases", []), *g.get("nvml_names", [])]:
            a = _norm(str(alias)) if alias else ""
            if a and (a == n or a.replace("-", "") == n.replace("-", "")):
                return str(key)
    return None


def resolve_target(name: str) -> Target:
    """The compile target for a GPU name or arch: ``H100`` → sm_90, cc 90, 232448 bytes."""
    table = _table()
    arch = _arch_of(name)
    display = None
    if arch is None:
        key = _gpu_key(name)
        if key is None:
            raise ValueError(f"unknown target GPU {name!r}; known GPUs: {', '.join(table['gpus'])}")
        arch, display = table["gpus"][key]["arch"], table["gpus"][key].get("display", key)
    spec = table["archs"].get(arch)
    if spec is None:
        raise ValueError(f"no spec for arch {arch!r} ({name!r}); known archs: {', '.join(table['archs'])}")
    major, minor = str(spec["cc"]).split(".")
    display = display or f"{arch} ({spec['family']})"
    return Target(name, display, arch, int(major) * 10 + int(minor), int(spec["smem_per_block_optin"]))


JIT_KWARGS = (
    "version",
    "do_not_specialize",
    "do_not_specialize_on_alignment",
    "debug",
    "noinline",
    "repr",
    "launch_metadata",
)


@functools.cache
def backend(cc: int) -> tuple[Any, Any]:
    """Triton's CUDA backend for compute capability ``cc`` (90), and its GPUTarget."""
    from triton.backends.compiler import GPUTarget
    from triton.compiler import make_backend

    target = GPUTarget("cuda", cc, 32)
    return make_backend(target), target


_TWINS: dict[int, tuple[Any, Any]] = {}  # id(InterpretedFunction) → (it, its JITFunction twin)


def jit_twin(fn_obj: Any) -> Any:
    """A JITFunction of the same Python function (itself, for a JITFunction)."""
    from triton.runtime.jit import JITFunction

    if isinstance(fn_obj, JITFunction):
        return fn_obj
    held = _TWINS.get(id(fn_obj))
    if held is None:
        kw = {k: v for k, v in getattr(fn_obj, "kwargs", {}).items() if k in JIT_KWARGS}
        held = (fn_obj, JITFunction(fn_obj.fn, **kw))  # fn_obj kept alive: its id is the key
        _TWINS[id(fn_obj)] = held
    return held[1]


def compile_for_target(
    tgt: Target, jf: Any, signature: Any, constexprs: Any, attrs: Any, options: Any
) -> dict[str, Any]:
    import triton
    from triton import knobs
    from triton.compiler import ASTSource
    from triton.runtime.errors import OutOfResources

    _, target = backend(tgt.cc)
    out: dict[str, Any] = {"ok": False, "target_arch": tgt.arch}
    buf = io.StringIO()
    t0 = time.perf_counter()
    saved = (knobs.nvidia.dump_ptxas_log, knobs.compilation.always_compile, knobs.runtime.interpret)
    try:
        knobs.nvidia.dump_ptxas_log = True
        knobs.compilation.always_compile = True  # a cached kernel would not print its ptxas log
        knobs.runtime.interpret = False  # the code generator must not take interpreter paths
        with _helpers_as_jit(jf.fn), contextlib.redirect_stdout(buf):
            kernel = triton.compile(
                ASTSource(jf, signature, constexprs, attrs), target=target, options=options.__dict__
            )
        shared = int(kernel.metadata.shared)
        out.update(ok=True, shared=shared, num_warps=int(kernel.metadata.num_warps))
        limit = tgt.smem_limit
        if limit is not None:
            out["smem_over_limit"] = shared > limit
            if shared > limit:
                # what CompiledKernel._init_handles raises at the first launch on that GPU
                exc = OutOfResources(shared, limit, "shared memory")
                out["launch_error_text"] = f"triton.runtime.errors.OutOfResources: {exc}"
    except Exception as exc:
        out["error_type"] = type(exc).__name__
        out["error_text"] = "".join(traceback.format_exception(exc))[-MAX_TEXT:]
    finally:
        knobs.nvidia.dump_ptxas_log, knobs.compilation.always_compile, knobs.runtime.interpret = saved
        dt = time.perf_counter() - t0
        out["seconds"] = round(dt, 3)
    log = buf.getvalue()
    if log.strip():
        out["log"] = log[-MAX_TEXT:]
    regs = [int(m) for m in _REGS.findall(log)]
    spills = [(int(a), int(b)) for a, b in _SPILLS.findall(log)]
    out["registers"] = max(regs) if regs else None
    out["spill_stores"] = sum(s for s, _ in spills)
    out["spill_loads"] = sum(lo for _, lo in spills)
    return out


@contextlib.contextmanager
def _helpers_as_jit(fn: Any) -> Any:
    """Swap ``InterpretedFunction`` objects the compile can reach for ``JITFunction`` twins, then restore.

    Under ``TRITON_INTERPRET=1`` every ``@jit`` function is an ``InterpretedFunction``: the user's
    helpers, and Triton's own standard library (``tl.sum``, ``tl.cdiv``, ``tl.sigmoid`` ...).  The
    code generator calls those as plain Python functions, which patches ``triton.language`` for
    the interpreter for good and breaks this compile and every later one.  So, for the duration of
    the compile: the globals of the kernel and of every helper it reaches, user modules those
    globals name, every ``triton.language`` module and the ``tl.tensor`` class.
    """
    from triton.runtime.interpreter import InterpretedFunction

    swapped: list[tuple[Any, str, Any]] = []  # (namespace dict or object, name, original)
    seen: set[int] = set()
    todo: list[Any] = [fn]

    def swap_attrs(obj: Any) -> None:
        if id(obj) in seen:
            return
        seen.add(id(obj))
        for attr, inner in list(vars(obj).items()):
            if isinstance(inner, InterpretedFunction):
                swapped.append((obj, attr, inner))
                setattr(obj, attr, jit_twin(inner))
                todo.append(inner.fn)

    try:
        for name, mod in list(sys.modules.items()):
            if name.startswith("triton.language") and isinstance(mod, types.ModuleType):
                swap_attrs(mod)
                tensor_cls = vars(mod).get("tensor")
                if isinstance(tensor_cls, type):
                    swap_attrs(tensor_cls)
        while todo:
            f = todo.pop()
            g = getattr(f, "__globals__", None)
            if g is None or id(g) in seen:
                continue
            seen.add(id(g))
            for name, value in list(g.items()):
                if isinstance(value, InterpretedFunction):
                    swapped.append((g, name, value))
                    g[name] = jit_twin(value)
                    todo.append(value.fn)
                elif isinstance(value, types.ModuleType) and _user_module(value):
                    swap_attrs(value)
        yield
    finally:
        for ns, name, original in reversed(swapped):
            if isinstance(ns, dict):
                ns[name] = original
            else:
                setattr(ns, name, original)


def _user_module(mod: types.ModuleType) -> bool:
    file = getattr(mod, "__file__", None) or ""
    return bool(file) and "site-packages" not in file and not file.startswith(sys.base_prefix)


def restore_lang_after_helper_calls() -> None:
    """Make ``InterpretedFunction.__call__`` undo its ``triton.language`` patches on return."""
    from triton.runtime import interpreter as interp

    # A @jit helper called from a kernel (tl.zeros, tl.sum, the user's own) patches
    # triton.language for the interpreter on every call and never restores it (Triton 3.7.1
    # InterpretedFunction.__call__): after the first interpreted launch, modules the kernel's own
    # scope did not patch (triton.language.core, .math) stay patched, and every later compile for
    # the GPU runs interpreter code on IR values.  The same call, restoring its patches on return:
    def __call__(self: Any, *args: Any, **kwargs: Any) -> Any:
        scope = interp._patch_lang(self.fn)
        try:
            fn = self.rewrite()
            try:
                return fn(*args, **kwargs)
            except Exception as e:
                raise interp.InterpreterError(repr(e)) from e
        finally:
            scope.restore()

    interp.InterpretedFunction.__call__ = __call__
