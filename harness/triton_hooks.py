"""Watch every ``@triton.jit`` launch in a child: capture it, bounds-check it, compile it for a GPU.

Called in the kernel child *before* the user's module is imported::

    from harness import triton_hooks
    triton_hooks.install(out_dir, target_gpu="H100")
    ...                      # import the submission, run it
    triton_hooks.finish()    # also runs at exit; writes out_dir/triton_checks.json

What it does (Triton 3.7.1; the hooks are plain attribute patches, undone by nothing: the child
is thrown away):

1. **Launch capture.**  ``InterpretedFunction.run`` (under ``TRITON_INTERPRET=1``) and
   ``JITFunction.run`` (on a GPU) are wrapped.  Each launch is specialised exactly as ``@jit``
   would do it on a GPU: a ``JITFunction`` of the same Python function, Triton's own
   ``create_function_from_signature`` binder and ``JITFunction._pack_args`` with the CUDA backend
   of the target, so unit integers become ``constexpr 1``, 16-byte-aligned pointers and integers
   divisible by 16 get ``tt.divisibility 16``, and launch options (``num_warps``, ``num_stages``)
   are parsed by the backend.  Distinct specialisations are kept once, with a call count and grids.

2. **Bounds checks (interpreter only).**  The interpreter does no bounds checks.  The hooks wrap
   ``InterpreterBuilder.create_masked_load`` / ``create_masked_store`` (every ``tl.load`` /
   ``tl.store``, block pointers and tensor descriptors included) and the atomics, and check each
   *active* (masked-in) lane against the launch's tensor arguments (the argument's own extent,
   not its storage).  Pointer provenance is tracked cheaply: ``create_addptr`` tags its result
   with the argument allocation its base pointer lies in, and splat/broadcast/expand_dims/trans and
   ``where`` carry the tag, so ``x_ptr + offs`` running past the end of ``x`` is caught even when
   it lands inside a neighbouring argument.  An untagged pointer is checked against every
   argument.  Out-of-bounds loads still read what the interpreter reads (the run goes on); lanes
   far outside every argument's storage (more than ``WILD_BYTES``), which would segfault, read
   zero instead, and stores outside every argument's *storage* are dropped (they would corrupt
   the allocator's metadata and crash the child at some unrelated later point).  Stores that land
   in another argument's storage, or in a canary guard (:mod:`harness.canary`), go through, so
   the corruption they cause stays visible.  The checks file is flushed at the first
   out-of-bounds access, so a crash afterwards keeps the record.

3. **Compile for the target GPU.**  Each distinct launch is compiled once with
   ``triton.compile(ASTSource(fn, signature, constexprs, attrs), target=GPUTarget("cuda", cc, 32))``
   before it runs (so a kernel that then hangs is still compiled), with
   ``TRITON_DUMP_PTXAS_LOG`` and ``TRITON_ALWAYS_COMPILE`` switched on for the call and stdout
   captured: the ptxas ``-v`` log gives registers and spills.  Compile errors are kept as Triton
   prints them (``traceback.format_exception``), so ``diagnose.collectors.triton_errors`` and
   ``compiler`` read them as they read any log; ``metadata.shared`` is compared with the target's
   opt-in limit and, when over it, the ``OutOfResources`` text the launcher would raise on that GPU
   is kept too.  Under the interpreter every ``@jit`` function (the user's helpers and Triton's own
   ``tl.sum``, ``tl.zeros``, ``tl.cdiv`` ...) is an ``InterpretedFunction``: they are swapped for
   ``JITFunction`` twins for the duration of the compile, and ``InterpretedFunction.__call__`` is
   made to undo its ``triton.language`` patches on return (3.7.1 leaves them in place, which breaks
   every compile after the first interpreted launch of a kernel that calls a helper).

Cost (vector add, 2**20 float32, 1024 programs, 2 cores): the bare interpreter 0.41 s a launch,
with the checks 0.44 s (+6 %, about 7 us per load/store); the first launch of each distinct
specialisation adds its compile, 0.3 s for a vector add.

The file it writes (``triton_checks.json``, schema 1) is read by ``diagnose.run.triton_evidence``
in the parent, which never imports torch or triton.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import json
import os
import re
import signal
import sys
import time
import traceback
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = 1
FILE_NAME = "triton_checks.json"
#: loads this far outside every argument's storage read 0 instead of faulting the child
WILD_BYTES = 1 << 16
#: per-launch limits on what is kept (a kernel launched in a loop must not grow the file)
MAX_GRIDS = 4
MAX_TEXT = 20_000

# the targets Triton compiles for, when diagnose.envinfo.gpuspec cannot be imported
_FALLBACK_TARGETS: dict[str, tuple[str, str, int, int]] = {
    # name: (display, arch, cc, opt-in shared memory per block)
    "h100": ("H100", "sm_90", 90, 232448),
    "h200": ("H200", "sm_90", 90, 232448),
    "a100": ("A100", "sm_80", 80, 166912),
    "a10": ("A10", "sm_86", 86, 101376),
    "a10g": ("A10G", "sm_86", 86, 101376),
    "l4": ("L4", "sm_89", 89, 101376),
    "b200": ("B200", "sm_100", 100, 232448),
}

_REGS = re.compile(r"Used (\d+) registers")
_SPILLS = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")


@dataclass(frozen=True)
class Target:
    name: str  # as asked: "H100", "sm_90"
    display: str
    arch: str  # "sm_90"
    cc: int  # 90
    smem_limit: int | None  # opt-in shared memory per block, bytes


def resolve_target(name: str) -> Target:
    """The compile target for a GPU name or arch: ``H100`` → sm_90, cc 90, 232448 bytes."""
    try:
        from diagnose.envinfo.gpuspec import lookup

        spec = lookup(name)
        major, minor = spec.cc_tuple
        return Target(name, spec.display, spec.arch, major * 10 + minor, int(spec.smem_per_block_optin))
    except ImportError:
        pass
    key = name.strip().lower()
    if key in _FALLBACK_TARGETS:
        display, arch, cc, smem = _FALLBACK_TARGETS[key]
        return Target(name, display, arch, cc, smem)
    m = re.fullmatch(r"(?:sm_?|compute_)?(\d{2,3})[af]?", key)
    if m:
        return Target(name, f"sm_{m.group(1)}", f"sm_{m.group(1)}", int(m.group(1)), None)
    raise ValueError(f"unknown target GPU {name!r}")


# --- allocations and provenance ---------------------------------------------------------------


@dataclass(frozen=True)
class _Alloc:
    name: str  # the kernel argument ("x_ptr"; "desc.base" for a descriptor's base)
    start: int  # first byte of the argument's elements
    end: int  # one past its last byte
    storage_start: int  # the storage it lives in (guards of harness.canary included)
    storage_end: int
    elem: int  # the argument's element size
    dtype: str


def _tensor_alloc(name: str, t: Any) -> _Alloc | None:
    from triton.runtime.jit import TensorWrapper

    base = t.base if isinstance(t, TensorWrapper) else t
    try:
        elem = int(base.element_size())
        start = int(base.data_ptr())
        if base.numel() == 0:
            extent = 0
        else:
            extent = 1 + sum((s - 1) * st for s, st in zip(base.shape, base.stride(), strict=True) if s > 0)
        storage = base.untyped_storage()
        s_start = int(storage.data_ptr())
        s_end = s_start + int(storage.nbytes())
        return _Alloc(name, start, start + extent * elem, s_start, s_end, elem, str(base.dtype).replace("torch.", ""))
    except Exception:
        return None


def _allocs_of(names: list[str], args: list[Any], kwargs: dict[str, Any]) -> list[_Alloc]:
    from triton.tools.tensor_descriptor import TensorDescriptor

    out: list[_Alloc] = []

    def visit(name: str, arg: Any) -> None:
        if isinstance(arg, TensorDescriptor):
            visit(f"{name}.base", arg.base)
        elif isinstance(arg, tuple):
            for i, item in enumerate(arg):
                visit(f"{name}[{i}]", item)
        elif hasattr(arg, "data_ptr"):
            a = _tensor_alloc(name, arg)
            if a is not None:
                out.append(a)

    for i, arg in enumerate(args):
        visit(names[i] if i < len(names) else f"arg{i}", arg)
    for k, v in kwargs.items():
        visit(k, v)
    return out


_TAG = "kdiag_alloc"


def _tag_from_values(handle: Any, allocs: list[_Alloc]) -> _Alloc | None:
    """The argument a pointer handle points into: the one holding its lowest address (a base)."""
    data = handle.data
    if data.size == 0 or not allocs:
        return None
    lo = int(data.min())
    for a in allocs:
        if a.start <= lo < a.end:
            return a
    hi = int(data.max())
    for a in allocs:
        if a.start <= hi < a.end:
            return a
    return None


# --- the state of one child ---------------------------------------------------------------------


class _Launch:
    """One call being run: its record and the allocations of its arguments."""

    def __init__(self, rec: dict[str, Any]) -> None:
        self.rec = rec
        self.allocs: list[_Alloc] = []


class _State:
    def __init__(self, out_dir: Path, target: Target, interpreter: bool) -> None:
        self.out_dir = out_dir
        self.target = target
        self.interpreter = interpreter
        self.launches: list[dict[str, Any]] = []
        self.by_key: dict[str, dict[str, Any]] = {}
        self.calls = 0
        self.oob: dict[tuple[int, str, str], dict[str, Any]] = {}
        self.hook_errors: list[str] = []
        self.current: _Launch | None = None
        self.finished = False
        self.flushed_oob = False
        self.check_seconds = 0.0
        self.compile_seconds = 0.0
        self._jit: dict[int, tuple[Any, Any]] = {}  # id(InterpretedFunction) → (it, its JITFunction twin)
        self._binders: dict[int, Any] = {}
        self._backend: Any = None
        self._gpu_target: Any = None

    # -- output ----------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        canaries = None
        canary = sys.modules.get("harness.canary")
        if canary is not None:
            try:
                canaries = canary.check() if canary.guards() else None
            except Exception as exc:
                self.error(f"canary check: {exc!r}")
        return {
            "schema": SCHEMA,
            "finished": self.finished,
            "interpreter": self.interpreter,
            "target_gpu": self.target.name,
            "target_display": self.target.display,
            "target_arch": self.target.arch,
            "target_cc": self.target.cc,
            "smem_limit_bytes": self.target.smem_limit,
            "calls": self.calls,
            "launches": self.launches,
            "oob": list(self.oob.values()),
            "canaries": canaries,
            "check_seconds": round(self.check_seconds, 4),
            "compile_seconds": round(self.compile_seconds, 4),
            "hook_errors": self.hook_errors[:50],
        }

    def flush(self) -> None:
        try:
            self.out_dir.mkdir(parents=True, exist_ok=True)
            path = self.out_dir / FILE_NAME
            tmp = path.with_suffix(".json.tmp")
            tmp.write_text(json.dumps(self.to_json(), indent=1, default=str))
            os.replace(tmp, path)
        except Exception as exc:  # never take the child down over the checks file
            print(f"kdiag triton_hooks: cannot write {FILE_NAME}: {exc!r}", file=sys.stderr)

    def error(self, what: str) -> None:
        if len(self.hook_errors) < 200:
            self.hook_errors.append(what[:MAX_TEXT])

    # -- specialisation and compile -------------------------------------------------------

    def backend(self) -> tuple[Any, Any]:
        if self._backend is None:
            from triton.backends.compiler import GPUTarget
            from triton.compiler import make_backend

            self._gpu_target = GPUTarget("cuda", self.target.cc, 32)
            self._backend = make_backend(self._gpu_target)
        return self._backend, self._gpu_target

    def jit_twin(self, fn_obj: Any) -> Any:
        """A JITFunction of the same Python function (itself, for a JITFunction)."""
        from triton.runtime.jit import JITFunction

        if isinstance(fn_obj, JITFunction):
            return fn_obj
        held = self._jit.get(id(fn_obj))
        if held is None:
            kw = {k: v for k, v in getattr(fn_obj, "kwargs", {}).items() if k in _JIT_KWARGS}
            held = (fn_obj, JITFunction(fn_obj.fn, **kw))  # fn_obj kept alive: its id is the key
            self._jit[id(fn_obj)] = held
        return held[1]

    def specialise(self, jf: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        from triton.runtime.jit import create_function_from_signature

        backend, _ = self.backend()
        binder = self._binders.get(id(jf))
        if binder is None:
            binder = create_function_from_signature(jf.signature, jf.params, backend)
            self._binders[id(jf)] = binder
        kw = dict(kwargs)
        bound, specialization, options = binder(*args, **kw)
        options, signature, constexprs, attrs = jf._pack_args(backend, kw, bound, specialization, options)
        return bound, signature, constexprs, attrs, options

    def capture(self, fn_obj: Any, args: tuple[Any, ...], kwargs: dict[str, Any], grid: Any) -> dict[str, Any]:
        self.calls += 1
        jf = self.jit_twin(fn_obj)
        fn = jf.fn
        name = getattr(fn, "__name__", "?")
        file = getattr(getattr(fn, "__code__", None), "co_filename", None)
        line = getattr(getattr(fn, "__code__", None), "co_firstlineno", None)
        bound, signature, constexprs, attrs, options = self.specialise(jf, args, kwargs)
        names = list(signature)
        sig_json = {k: str(v) for k, v in signature.items()}
        const_json = {_path_name(names, p): _jsonable(v) for p, v in constexprs.items()}
        attr_json = {
            _path_name(names, p): {str(a[0]): _jsonable(a[1]) for a in v} for p, v in attrs.items() if v
        }
        opts = {k: getattr(options, k, None) for k in ("num_warps", "num_stages", "num_ctas", "maxnreg")}
        autotune = _in_autotuner_bench()
        key = json.dumps([file, line, name, sig_json, const_json, attr_json, opts], sort_keys=True, default=str)
        rec = self.by_key.get(key)
        grid_value = _grid_of(grid, bound)
        if rec is None:
            rec = {
                "id": len(self.launches),
                "kernel": name,
                "file": file,
                "line": line,
                "calls": 0,
                "grids": [],
                "signature": sig_json,
                "constexprs": const_json,
                "attrs": attr_json,
                "options": opts,
                "autotune_trial": autotune,
                "ran": 0,
                "run_error": None,
                "compile": None,
            }
            self.by_key[key] = rec
            self.launches.append(rec)
            rec["compile"] = self.compile(jf, signature, constexprs, attrs, options)
            self.flush()
        rec["calls"] += 1
        if grid_value is not None and grid_value not in rec["grids"] and len(rec["grids"]) < MAX_GRIDS:
            rec["grids"].append(grid_value)
        return rec

    def compile(self, jf: Any, signature: Any, constexprs: Any, attrs: Any, options: Any) -> dict[str, Any]:
        import triton
        from triton import knobs
        from triton.compiler import ASTSource
        from triton.runtime.errors import OutOfResources

        _, target = self.backend()
        out: dict[str, Any] = {"ok": False, "target_arch": self.target.arch}
        buf = io.StringIO()
        t0 = time.perf_counter()
        saved = (knobs.nvidia.dump_ptxas_log, knobs.compilation.always_compile, knobs.runtime.interpret)
        try:
            knobs.nvidia.dump_ptxas_log = True
            knobs.compilation.always_compile = True  # a cached kernel would not print its ptxas log
            knobs.runtime.interpret = False  # the code generator must not take interpreter paths
            with _helpers_as_jit(self, jf.fn), contextlib.redirect_stdout(buf):
                kernel = triton.compile(ASTSource(jf, signature, constexprs, attrs), target=target,
                                        options=options.__dict__)
            shared = int(kernel.metadata.shared)
            out.update(ok=True, shared=shared, num_warps=int(kernel.metadata.num_warps))
            limit = self.target.smem_limit
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
            self.compile_seconds += dt
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

    # -- bounds checks ------------------------------------------------------------------------

    def check(self, kind: str, ptrs: Any, mask: Any) -> Any:
        """Check a load/store; returns the mask to use (wild lanes removed) or None to keep it."""
        launch = self.current
        if launch is None or not launch.allocs:
            return None
        import numpy as np

        t0 = time.perf_counter()
        try:
            addrs = ptrs.data
            if addrs.size == 0:
                return None
            m = None if mask is None else np.broadcast_to(mask.data, addrs.shape)
            active = addrs if m is None or m.all() else addrs[m]
            if active.size == 0:
                return None
            elem = max(1, ptrs.get_element_ty().primitive_bitwidth // 8)
            lo, hi = int(active.min()), int(active.max())
            tag = ptrs.attr.get(_TAG)
            if tag is not None:
                if tag.start <= lo and hi + elem <= tag.end:
                    return None
            else:
                for a in launch.allocs:
                    if a.start <= lo and hi + elem <= a.end:
                        return None
            return self._out_of_bounds(kind, launch, addrs, m, active, elem, tag)
        except Exception as exc:
            self.error(f"check {kind}: {exc!r}")
            return None
        finally:
            self.check_seconds += time.perf_counter() - t0

    def _out_of_bounds(self, kind: str, launch: _Launch, addrs: Any, m: Any, active: Any, elem: int,
                       tag: _Alloc | None) -> Any:
        import numpy as np

        active = addrs.reshape(-1) if m is None else addrs[m]
        a64 = active.astype(np.int64, copy=False)
        if tag is not None:
            bad = (a64 < tag.start) | (a64 + elem > tag.end)
        else:
            inside = np.zeros(a64.shape, dtype=bool)
            for a in launch.allocs:
                inside |= (a64 >= a.start) & (a64 + elem <= a.end)
            bad = ~inside
        bad_addrs = a64[bad]
        if bad_addrs.size == 0:  # the lanes straddle two arguments, each lane inside one
            return None
        owner = tag or _nearest(launch.allocs, int(bad_addrs[0]))
        past = bad_addrs[bad_addrs >= owner.end]
        before = bad_addrs[bad_addrs < owner.start]
        if past.size:
            distance = int((int(past.max()) - owner.end) // owner.elem) + 1
        else:
            distance = -int((owner.start - int(before.min()) + owner.elem - 1) // owner.elem)
        # lanes outside every argument's storage: a store there corrupts the allocator; a far load faults
        in_storage = np.zeros(a64.shape, dtype=bool)
        near = np.zeros(a64.shape, dtype=bool)
        for a in launch.allocs:
            in_storage |= (a64 >= a.storage_start) & (a64 + elem <= a.storage_end)
            near |= (a64 >= a.storage_start - WILD_BYTES) & (a64 < a.storage_end + WILD_BYTES)
        drop = ~in_storage if kind != "load" else ~near
        dropped = int(drop.sum())
        program = list(getattr(_builder(), "grid_idx", (0, 0, 0)))
        key = (launch.rec["id"], kind, owner.name)
        rec = self.oob.get(key)
        if rec is None:
            rec = {
                "launch": launch.rec["id"],
                "kernel": launch.rec["kernel"],
                "kind": kind,
                "arg": owner.name,
                "arg_dtype": owner.dtype,
                "arg_elems": (owner.end - owner.start) // owner.elem,
                "tracked": tag is not None,  # provenance known (else: nearest argument)
                "ops": 0,
                "lanes": 0,
                "dropped_lanes": 0,
                "first_program": program,
                "first_line": _kernel_line(launch.rec.get("file")),
                "first_distance_elems": distance,
                "max_distance_elems": distance,
                "order": sum(r["ops"] > 0 for r in self.oob.values()),
            }
            self.oob[key] = rec
        rec["ops"] += 1
        rec["lanes"] += int(bad_addrs.size)
        rec["dropped_lanes"] += dropped
        if abs(distance) > abs(rec["max_distance_elems"]):
            rec["max_distance_elems"] = distance
        if not self.flushed_oob:
            self.flushed_oob = True
            self.flush()  # before the access: a crash now keeps the record
        if not dropped:
            return None
        keep = ~drop
        if m is None:
            return keep.reshape(addrs.shape)
        full = np.zeros(addrs.shape, dtype=bool)
        full[m] = keep
        return full


_JIT_KWARGS = ("version", "do_not_specialize", "do_not_specialize_on_alignment", "debug", "noinline", "repr",
               "launch_metadata")

_state: _State | None = None


def _nearest(allocs: list[_Alloc], addr: int) -> _Alloc:
    def dist(a: _Alloc) -> int:
        if addr >= a.end:
            return addr - a.end
        if addr < a.start:
            return a.start - addr
        return 0

    return min(allocs, key=dist)


def _path_name(names: list[str], path: Any) -> str:
    if isinstance(path, tuple) and path:
        head = names[path[0]] if isinstance(path[0], int) and path[0] < len(names) else str(path[0])
        return head + "".join(f"[{p}]" for p in path[1:])
    return str(path)


def _jsonable(v: Any) -> Any:
    if v is None or isinstance(v, bool | int | float | str):
        return v
    if isinstance(v, tuple | list):
        return [_jsonable(x) for x in v]
    inner = getattr(v, "value", None)  # tl.constexpr
    if inner is not None and type(v).__name__ == "constexpr":
        return _jsonable(inner)
    return str(v)


def _grid_of(grid: Any, bound: Any) -> list[int] | None:
    try:
        g = grid(bound) if callable(grid) else grid
        g = tuple(int(x) for x in g)
        return list(g + (1,) * (3 - len(g)))
    except Exception:
        return None


def _in_autotuner_bench() -> bool:
    f: types.FrameType | None = sys._getframe(1)
    while f is not None:
        if f.f_code.co_name == "_bench" and f.f_code.co_filename.endswith(os.path.join("runtime", "autotuner.py")):
            return True
        f = f.f_back
    return False


def _kernel_line(file: str | None) -> int | None:
    """The line of the kernel's source being interpreted (the rewritten kernel keeps its file)."""
    if not file:
        return None
    f: types.FrameType | None = sys._getframe(1)
    while f is not None:
        if f.f_code.co_filename == file:
            return f.f_lineno
        f = f.f_back
    return None


def _builder() -> Any:
    from triton.runtime import interpreter

    return interpreter.interpreter_builder


@contextlib.contextmanager
def _helpers_as_jit(state: _State, fn: Any) -> Any:
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
                setattr(obj, attr, state.jit_twin(inner))
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
                    g[name] = state.jit_twin(value)
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


# --- the patches ---------------------------------------------------------------------------------


def _wrap_run(original: Any) -> Any:
    def run(self: Any, *args: Any, grid: Any, warmup: Any, **kwargs: Any) -> Any:
        st = _state
        if st is None or warmup:
            return original(self, *args, grid=grid, warmup=warmup, **kwargs)
        try:
            rec: dict[str, Any] | None = st.capture(self, args, kwargs, grid)
        except Exception as exc:
            st.error(f"capture {getattr(self, '__name__', '?')}: {''.join(traceback.format_exception(exc))}")
            rec = None
        if rec is None:
            return original(self, *args, grid=grid, warmup=warmup, **kwargs)
        prev, st.current = st.current, _Launch(rec)
        try:
            result = original(self, *args, grid=grid, warmup=warmup, **kwargs)
            rec["ran"] += 1
            return result
        except BaseException as exc:
            if rec["run_error"] is None:
                rec["run_error"] = f"{type(exc).__name__}: {exc}"[:MAX_TEXT]
            raise
        finally:
            st.current = prev

    run.__kdiag_wrapped__ = True  # type: ignore[attr-defined]
    return run


def _wrap_init_args(original: Any) -> Any:
    def _init_args_hst(self: Any, args_dev: Any, kwargs: Any) -> Any:
        args_hst, kwargs_hst = original(self, args_dev, kwargs)
        st = _state
        if st is not None and st.current is not None:
            try:
                st.current.allocs = _allocs_of(list(self.arg_names), list(args_hst), dict(kwargs_hst))
            except Exception as exc:
                st.error(f"allocations: {exc!r}")
        return args_hst, kwargs_hst

    return _init_args_hst


def _patch_interpreter() -> None:
    from triton.runtime import interpreter as interp

    B = interp.InterpreterBuilder
    interp.GridExecutor._init_args_hst = _wrap_init_args(interp.GridExecutor._init_args_hst)

    orig_load, orig_store = B.create_masked_load, B.create_masked_store
    orig_rmw, orig_cas, orig_addptr = B.create_atomic_rmw, B.create_atomic_cas, B.create_addptr

    def _mask_handle(mask: Any, keep: Any) -> Any:
        import numpy as np
        import triton.language as tl

        if mask is None:
            return interp.TensorHandle(keep, tl.int1)
        return interp.TensorHandle(np.logical_and(np.broadcast_to(mask.data, keep.shape), keep), mask.dtype)

    def create_masked_load(self: Any, ptrs: Any, mask: Any, other: Any, *rest: Any, **kw: Any) -> Any:
        st = _state
        keep = st.check("load", ptrs, mask) if st is not None else None
        if keep is not None:
            mask = _mask_handle(mask, keep)
        return orig_load(self, ptrs, mask, other, *rest, **kw)

    def create_masked_store(self: Any, ptrs: Any, value: Any, mask: Any, *rest: Any, **kw: Any) -> Any:
        st = _state
        keep = st.check("store", ptrs, mask) if st is not None else None
        if keep is not None:
            mask = _mask_handle(mask, keep)
        return orig_store(self, ptrs, value, mask, *rest, **kw)

    def create_atomic_rmw(self: Any, op: Any, ptr: Any, val: Any, mask: Any, sem: Any, scope: Any) -> Any:
        st = _state
        keep = st.check("atomic", ptr, mask) if st is not None else None
        if keep is not None:
            mask = _mask_handle(mask, keep)
        return orig_rmw(self, op, ptr, val, mask, sem, scope)

    def create_atomic_cas(self: Any, ptr: Any, cmp: Any, val: Any, sem: Any, scope: Any) -> Any:
        st = _state
        if st is not None:
            st.check("atomic", ptr, None)  # no mask to narrow: recorded, and run as the interpreter does
        return orig_cas(self, ptr, cmp, val, sem, scope)

    def create_addptr(self: Any, ptr: Any, offset: Any) -> Any:
        out = orig_addptr(self, ptr, offset)
        st = _state
        if st is not None and st.current is not None and st.current.allocs:
            tag = ptr.attr.get(_TAG) or _tag_from_values(ptr, st.current.allocs)
            if tag is not None:
                out.attr[_TAG] = tag
        return out

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

    B.create_masked_load = create_masked_load
    B.create_masked_store = create_masked_store
    B.create_atomic_rmw = create_atomic_rmw
    B.create_atomic_cas = create_atomic_cas
    B.create_addptr = create_addptr

    # ops that reshape a pointer block carry its provenance
    def carry(name: str, arg_index: int) -> None:
        orig = getattr(B, name)

        def op(self: Any, *args: Any) -> Any:
            out = orig(self, *args)
            src = args[arg_index]
            tag = getattr(src, "attr", None) and src.attr.get(_TAG)
            if tag is not None and isinstance(out, interp.TensorHandle):
                out.attr[_TAG] = tag
            return out

        setattr(B, name, op)

    carry("create_splat", 1)
    carry("create_broadcast", 0)
    carry("create_expand_dims", 0)
    carry("create_trans", 0)

    orig_select = B.create_select

    def create_select(self: Any, cond: Any, lhs: Any, rhs: Any) -> Any:
        out = orig_select(self, cond, lhs, rhs)
        a, b = lhs.attr.get(_TAG), rhs.attr.get(_TAG)
        if a is not None and a is b:
            out.attr[_TAG] = a
        return out

    B.create_select = create_select

    # block pointers and descriptors build their pointers from a base handle
    for cls in (interp.BlockPointerHandle, interp.TensorDescHandle):
        orig_mat = cls.materialize_pointers

        def materialize_pointers(self: Any, *args: Any, _orig: Any = orig_mat) -> Any:
            ptrs, masks = _orig(self, *args)
            st = _state
            if st is not None and st.current is not None and st.current.allocs:
                tag = self.base.attr.get(_TAG) or _tag_from_values(self.base, st.current.allocs)
                if tag is not None:
                    ptrs.attr[_TAG] = tag
            return ptrs, masks

        cls.materialize_pointers = materialize_pointers


def install(out_dir: Path, *, target_gpu: str = "H100") -> None:
    """Start watching Triton launches in this process; ``finish()`` (or exit) writes the checks."""
    global _state
    if _state is not None:
        return
    from triton import knobs
    from triton.runtime import interpreter as interp
    from triton.runtime.jit import JITFunction

    interpret = bool(knobs.runtime.interpret)
    # the code generator imports gluon, which asserts its helpers are JITFunctions unless the
    # interpreter is on: import it now, while it is, so compiles can switch it off
    import triton.compiler.code_generator  # noqa: F401
    _state = _State(Path(out_dir), resolve_target(target_gpu), interpret)
    if not getattr(interp.InterpretedFunction.run, "__kdiag_wrapped__", False):
        interp.InterpretedFunction.run = _wrap_run(interp.InterpretedFunction.run)
        JITFunction.run = _wrap_run(JITFunction.run)
        _patch_interpreter()
    atexit.register(finish)
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _on_sigterm)
    _state.flush()


def _on_sigterm(signum: int, frame: Any) -> None:
    finish()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)


def finish() -> None:
    """Write ``triton_checks.json`` (final); safe to call more than once."""
    st = _state
    if st is None:
        return
    st.finished = True
    st.flush()


def state() -> dict[str, Any] | None:
    """What would be written now (for tests and the kernel child's own report)."""
    return _state.to_json() if _state is not None else None



def oob_totals() -> dict[Any, int]:
    """Out-of-bounds operations so far per record (the kernel child diffs them per size)."""
    st = _state
    return {} if st is None else {k: int(r["ops"]) for k, r in st.oob.items()}


def oob_since(before: dict[Any, int]) -> dict[str, Any] | None:
    """What was added since ``before = oob_totals()``: loads, stores and the first such record's figures."""
    st = _state
    if st is None:
        return None
    loads = stores = 0
    first: dict[str, Any] | None = None
    for key, rec in st.oob.items():
        added = int(rec["ops"]) - before.get(key, 0)
        if added <= 0:
            continue
        if rec["kind"] == "load":
            loads += added
        else:
            stores += added
        if first is None or rec["order"] < first["order"]:
            first = rec
    if first is None:
        return None
    return {
        "loads": loads,
        "stores": stores,
        "kernel": first["kernel"],
        "arg": first["arg"],
        "distance_elems": first["max_distance_elems"],
    }
