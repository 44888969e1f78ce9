"""Launch capture: every ``@triton.jit`` launch specialised exactly as ``@jit`` would on the target GPU
(``create_function_from_signature`` and ``JITFunction._pack_args`` with its CUDA backend), distinct
specialisations kept once with a call count and grids, and each compiled for the target once."""

from __future__ import annotations

import json
import os
import sys
import traceback
import types
from typing import Any

from harness import triton_state as S
from harness.triton_bounds import allocs_of
from harness.triton_state import MAX_GRIDS, MAX_TEXT, Launch, State
from harness.triton_target import backend, compile_for_target, jit_twin


class ArgumentsRejected(Exception):
    """The launch's arguments do not bind to the kernel's parameters: Triton's own binder (the ``dynamic_func``
    that ``create_function_from_signature`` generates) raised the ``TypeError`` a GPU launch raises."""

    def __init__(self, error: TypeError) -> None:
        super().__init__(str(error))
        self.error = error


def specialise(st: State, jf: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    from triton.runtime.jit import create_function_from_signature

    be, _ = backend(st.target.cc)
    binder = st.binders.get(id(jf))
    if binder is None:
        binder = create_function_from_signature(jf.signature, jf.params, be)
        st.binders[id(jf)] = binder
    kw = dict(kwargs)
    try:
        bound, specialization, options = binder(*args, **kw)
    except TypeError as exc:
        raise ArgumentsRejected(exc) from exc
    options, signature, constexprs, attrs = jf._pack_args(be, kw, bound, specialization, options)
    return bound, signature, constexprs, attrs, options


def capture(st: State, fn_obj: Any, args: tuple[Any, ...], kwargs: dict[str, Any], grid: Any) -> dict[str, Any]:
    st.calls += 1
    jf = jit_twin(fn_obj)
    fn = jf.fn
    name = getattr(fn, "__name__", "?")
    file = getattr(getattr(fn, "__code__", None), "co_filename", None)
    line = getattr(getattr(fn, "__code__", None), "co_firstlineno", None)
    bound, signature, constexprs, attrs, options = specialise(st, jf, args, kwargs)
    names = list(signature)
    sig_json = {k: str(v) for k, v in signature.items()}
    const_json = {_path_name(names, p): _jsonable(v) for p, v in constexprs.items()}
    attr_json = {_path_name(names, p): {str(a[0]): _jsonable(a[1]) for a in v} for p, v in attrs.items() if v}
    opts = {k: getattr(options, k, None) for k in ("num_warps", "num_stages", "num_ctas", "maxnreg")}
    autotune = _in_autotuner_bench()
    key = json.dumps([file, line, name, sig_json, const_json, attr_json, opts], sort_keys=True, default=str)
    rec = st.by_key.get(key)
    grid_value = _grid_of(grid, bound)
    if rec is None:
        rec = {
            "id": len(st.launches),
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
        st.by_key[key] = rec
        st.launches.append(rec)
        rec["compile"] = compile_for_target(st.target, jf, signature, constexprs, attrs, options)
        st.compile_seconds += rec["compile"].get("seconds") or 0.0
        st.flush()
    rec["calls"] += 1
    if grid_value is not None and grid_value not in rec["grids"] and len(rec["grids"]) < MAX_GRIDS:
        rec["grids"].append(grid_value)
    return rec


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


def wrap_run(original: Any) -> Any:
    def run(self: Any, *args: Any, grid: Any, warmup: Any, **kwargs: Any) -> Any:
        st = S.current
        if st is None or warmup:
            return original(self, *args, grid=grid, warmup=warmup, **kwargs)
        try:
            rec: dict[str, Any] | None = capture(st, self, args, kwargs, grid)
        except ArgumentsRejected as rejected:
            # what a GPU launch raises (the interpreter's own binding words it differently): the call's error
            raise rejected.error from None
        except Exception as exc:
            st.error(f"capture {getattr(self, '__name__', '?')}: {''.join(traceback.format_exception(exc))}")
            rec = None
        if rec is None:
            return original(self, *args, grid=grid, warmup=warmup, **kwargs)
        prev, st.current = st.current, Launch(rec)
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


def wrap_init_args(original: Any) -> Any:
    def _init_args_hst(self: Any, args_dev: Any, kwargs: Any) -> Any:
        args_hst, kwargs_hst = original(self, args_dev, kwargs)
        st = S.current
        if st is not None and st.current is not None:
            try:
                st.current.allocs = allocs_of(list(self.arg_names), list(args_hst), dict(kwargs_hst))
            except Exception as exc:
                st.error(f"allocations: {exc!r}")
        return args_hst, kwargs_hst

    return _init_args_hst
