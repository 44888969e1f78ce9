"""Bounds checks with pointer provenance, under the Triton interpreter (which does none).

``InterpreterBuilder.create_masked_load`` / ``create_masked_store`` (every ``tl.load`` / ``tl.store``,
block pointers and tensor descriptors included) and the atomics are wrapped: each *active* lane is
checked against the launch's tensor arguments (the argument's own extent, not its storage).
``create_addptr`` tags its result with the argument its base pointer lies in, and
splat/broadcast/expand_dims/trans and ``where`` carry the tag; an untagged pointer is checked
against every argument.  Lanes far outside every argument's storage (``WILD_BYTES``) read zero
instead of faulting; stores outside every argument's storage are dropped.
"""

from __future__ import annotations

import sys
import time
import types
from dataclasses import dataclass
from typing import Any

from harness import triton_state as S
from harness.triton_state import Launch, State

#: loads this far outside every argument's storage read 0 instead of faulting the child
WILD_BYTES = 1 << 16


@dataclass(frozen=True)
class Alloc:
    name: str  # the kernel argument ("x_ptr"; "desc.base" for a descriptor's base)
    start: int  # first byte of the argument's elements
    end: int  # one past its last byte
    storage_start: int  # the storage it lives in (guards of harness.canary included)
    storage_end: int
    elem: int  # the argument's element size
    dtype: str


def _tensor_alloc(name: str, t: Any) -> Alloc | None:
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
        return Alloc(name, start, start + extent * elem, s_start, s_end, elem, str(base.dtype).replace("torch.", ""))
    except Exception:
        return None


def allocs_of(names: list[str], args: list[Any], kwargs: dict[str, Any]) -> list[Alloc]:
    from triton.tools.tensor_descriptor import TensorDescriptor

    out: list[Alloc] = []

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


TAG = "kdiag_alloc"


def tag_from_values(handle: Any, allocs: list[Alloc]) -> Alloc | None:
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


def check(st: State, kind: str, ptrs: Any, mask: Any) -> Any:
    """Check a load/store; returns the mask to use (wild lanes removed) or None to keep it."""
    launch = st.current
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
        tag = ptrs.attr.get(TAG)
        if tag is not None:
            if tag.start <= lo and hi + elem <= tag.end:
                return None
        else:
            for a in launch.allocs:
                if a.start <= lo and hi + elem <= a.end:
                    return None
        return _out_of_bounds(st, kind, launch, addrs, m, active, elem, tag)
    except Exception as exc:
        st.error(f"check {kind}: {exc!r}")
        return None
    finally:
        st.check_seconds += time.perf_counter() - t0


#: an argument with more elements than this is not tracked for overlapping stores (the map would be too large)
WRITERS_MAX_ELEMS = 1 << 22


def note_stores(st: State, ptrs: Any, mask: Any, value: Any = None) -> None:
    """Remember which program stored each element of the argument a plain ``tl.store`` writes; an element an
    earlier program of the same launch stored too is a write-write race on a GPU (the interpreter runs the
    programs in order, so there the later one silently wins), and so are two lanes of one store writing
    different values to one element (a load-add-store histogram: one of the updates is lost).  Only stores
    whose pointer's argument is known."""
    launch = st.current
    tag = ptrs.attr.get(TAG) if launch is not None else None
    if launch is None or tag is None or tag.end <= tag.start:
        return
    import numpy as np

    t0 = time.perf_counter()
    try:
        n = (tag.end - tag.start) // tag.elem
        if n > WRITERS_MAX_ELEMS:
            return
        addrs = ptrs.data.astype(np.int64, copy=False)
        m = None if mask is None else np.broadcast_to(mask.data, addrs.shape)
        active = addrs.reshape(-1) if m is None else addrs[m]
        vals = None
        inside = (active >= tag.start) & (active + tag.elem <= tag.end)
        if value is not None and getattr(value, "data", None) is not None:
            v = np.broadcast_to(value.data, addrs.shape)
            vals = (v.reshape(-1) if m is None else v[m])[inside]
        active = active[inside]
        if active.size == 0:
            return
        idx = (active - tag.start) // tag.elem
        gx, gy, gz = (int(v) for v in getattr(_builder(), "grid_idx", (0, 0, 0)))
        program = gx + (gy << 20) + (gz << 40)
        writers = launch.writers.get(tag.name)
        if writers is None:
            writers = launch.writers[tag.name] = np.full(n, -1, dtype=np.int64)
        before = writers[idx]
        clash = (before >= 0) & (before != program)
        # a program storing another value than the one an earlier program left there: a sum split over programs
        # (split-K partials added with load + store) loses updates on a GPU, though the interpreter's order is right
        differ = np.zeros(idx.size, dtype=bool)
        if vals is not None:
            stored = launch.stored.get(tag.name)
            if stored is None:
                stored = launch.stored[tag.name] = np.full(n, np.nan)
            new = vals.astype(np.float64, copy=False)
            prev = stored[idx]
            differ = clash & ~((new == prev) | (np.isnan(new) & np.isnan(prev)))
            stored[idx] = new
        if vals is not None and np.unique(idx).size < idx.size:
            order = np.argsort(idx, kind="stable")
            si, sv = idx[order], vals[order]
            same = (si[1:] == si[:-1]) & (sv[1:] != sv[:-1])  # two lanes, one element, different values
            if same.any():
                lanes = np.zeros(idx.size, dtype=bool)
                lanes[order[1:][same]] = True
                clash |= lanes
                differ |= lanes
                before = np.where(lanes, program, before)
        if clash.any():
            key = (launch.rec["id"], tag.name)
            rec = st.overlap.get(key)
            if rec is None:
                other = int(before[clash][0])
                rec = st.overlap[key] = {
                    "launch": launch.rec["id"],
                    "kernel": launch.rec["kernel"],
                    "arg": tag.name,
                    "arg_elems": n,
                    "elems": 0,
                    "differ_elems": 0,
                    "first_elem": int(idx[clash][0]),
                    "programs": [[other & 0xFFFFF, (other >> 20) & 0xFFFFF, other >> 40], [gx, gy, gz]],
                }
            rec["elems"] = min(n, rec["elems"] + int(np.unique(idx[clash]).size))  # per store: an upper bound
            rec["differ_elems"] = min(n, rec["differ_elems"] + int(np.unique(idx[differ]).size))
        writers[idx] = program
    except Exception as exc:
        st.error(f"note stores: {exc!r}")
    finally:
        st.check_seconds += time.perf_counter() - t0


def _out_of_bounds(
    st: State, kind: str, launch: Launch, addrs: Any, m: Any, active: Any, elem: int, tag: Alloc | None
) -> Any:
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
    rec = st.oob.get(key)
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
            "order": sum(r["ops"] > 0 for r in st.oob.values()),
        }
        st.oob[key] = rec
    rec["ops"] += 1
    rec["lanes"] += int(bad_addrs.size)
    rec["dropped_lanes"] += dropped
    if abs(distance) > abs(rec["max_distance_elems"]):
        rec["max_distance_elems"] = distance
    if not st.flushed_oob:
        st.flushed_oob = True
        st.flush()  # before the access: a crash now keeps the record
    if not dropped:
        return None
    keep = ~drop
    if m is None:
        return keep.reshape(addrs.shape)
    full = np.zeros(addrs.shape, dtype=bool)
    full[m] = keep
    return full


def _nearest(allocs: list[Alloc], addr: int) -> Alloc:
    def dist(a: Alloc) -> int:
        if addr >= a.end:
            return addr - a.end
        if addr < a.start:
            return a.start - addr
        return 0

    return min(allocs, key=dist)


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


def patch_interpreter() -> None:
    """Wrap the interpreter's memory operations with the bounds checks, and carry pointer provenance."""
    from triton.runtime import interpreter as interp

    _patch_memory_ops(interp)
    _patch_provenance(interp)
    _skip_discarded_overflow_checks(interp)


def _skip_discarded_overflow_checks(interp: Any) -> None:
    """Switch off the interpreter's integer-overflow sanitizer where its assert would be dropped anyway.

    For every 32-bit integer add, sub and mul the sanitizer recomputes the operation in int64 and
    compares it with the type's range, then hands the result to ``device_assert``, which returns at
    once unless the options' ``debug`` is on, and the interpreter's options never turn it on.  The
    arithmetic is thrown away, yet it is about a third of the interpreter's time on index-heavy
    kernels.  Where ``debug`` is on, the check stays.
    """
    import dataclasses

    builder = interp.interpreter_builder
    options = getattr(builder, "options", None)
    debug_off = dataclasses.is_dataclass(options) and not getattr(options, "debug", True)
    if debug_off and getattr(options, "sanitize_overflow", False):
        builder.options = dataclasses.replace(options, sanitize_overflow=False)


def _patch_memory_ops(interp: Any) -> None:
    B = interp.InterpreterBuilder
    orig_load, orig_store = B.create_masked_load, B.create_masked_store
    orig_rmw, orig_cas, orig_addptr = B.create_atomic_rmw, B.create_atomic_cas, B.create_addptr

    def _mask_handle(mask: Any, keep: Any) -> Any:
        import numpy as np
        import triton.language as tl

        if mask is None:
            return interp.TensorHandle(keep, tl.int1)
        return interp.TensorHandle(np.logical_and(np.broadcast_to(mask.data, keep.shape), keep), mask.dtype)

    def create_masked_load(self: Any, ptrs: Any, mask: Any, other: Any, *rest: Any, **kw: Any) -> Any:
        st = S.current
        keep = check(st, "load", ptrs, mask) if st is not None else None
        if keep is not None:
            mask = _mask_handle(mask, keep)
        return orig_load(self, ptrs, mask, other, *rest, **kw)

    def create_masked_store(self: Any, ptrs: Any, value: Any, mask: Any, *rest: Any, **kw: Any) -> Any:
        st = S.current
        if st is not None:
            note_stores(st, ptrs, mask, value)
        keep = check(st, "store", ptrs, mask) if st is not None else None
        if keep is not None:
            mask = _mask_handle(mask, keep)
        return orig_store(self, ptrs, value, mask, *rest, **kw)

    def create_atomic_rmw(self: Any, op: Any, ptr: Any, val: Any, mask: Any, sem: Any, scope: Any) -> Any:
        st = S.current
        keep = check(st, "atomic", ptr, mask) if st is not None else None
        if keep is not None:
            mask = _mask_handle(mask, keep)
        return orig_rmw(self, op, ptr, val, mask, sem, scope)

    def create_atomic_cas(self: Any, ptr: Any, cmp: Any, val: Any, sem: Any, scope: Any) -> Any:
        st = S.current
        if st is not None:
            check(st, "atomic", ptr, None)  # no mask to narrow: recorded, and run as the interpreter does
        return orig_cas(self, ptr, cmp, val, sem, scope)

    def create_addptr(self: Any, ptr: Any, offset: Any) -> Any:
        out = orig_addptr(self, ptr, offset)
        st = S.current
        if st is not None and st.current is not None and st.current.allocs:
            tag = ptr.attr.get(TAG) or tag_from_values(ptr, st.current.allocs)
            if tag is not None:
                out.attr[TAG] = tag
        return out

    B.create_masked_load = create_masked_load
    B.create_masked_store = create_masked_store
    B.create_atomic_rmw = create_atomic_rmw
    B.create_atomic_cas = create_atomic_cas
    B.create_addptr = create_addptr


def _patch_provenance(interp: Any) -> None:
    """Ops that reshape a pointer block, ``where``, and block pointers / descriptors carry the tag."""
    B = interp.InterpreterBuilder

    def carry(name: str, arg_index: int) -> None:
        orig = getattr(B, name)

        def op(self: Any, *args: Any) -> Any:
            out = orig(self, *args)
            src = args[arg_index]
            tag = getattr(src, "attr", None) and src.attr.get(TAG)
            if tag is not None and isinstance(out, interp.TensorHandle):
                out.attr[TAG] = tag
            return out

        setattr(B, name, op)

    carry("create_splat", 1)
    carry("create_broadcast", 0)
    carry("create_expand_dims", 0)
    carry("create_trans", 0)

    orig_select = B.create_select

    def create_select(self: Any, cond: Any, lhs: Any, rhs: Any) -> Any:
        out = orig_select(self, cond, lhs, rhs)
        a, b = lhs.attr.get(TAG), rhs.attr.get(TAG)
        if a is not None and a is b:
            out.attr[TAG] = a
        return out

    B.create_select = create_select

    # block pointers and descriptors build their pointers from a base handle
    for cls in (interp.BlockPointerHandle, interp.TensorDescHandle):
        orig_mat = cls.materialize_pointers

        def materialize_pointers(self: Any, *args: Any, _orig: Any = orig_mat) -> Any:
            ptrs, masks = _orig(self, *args)
            st = S.current
            if st is not None and st.current is not None and st.current.allocs:
                tag = self.base.attr.get(TAG) or tag_from_values(self.base, st.current.allocs)
                if tag is not None:
                    ptrs.attr[TAG] = tag
            return ptrs, masks

        cls.materialize_pointers = materialize_pointers
