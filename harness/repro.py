#!/usr/bin/env python3
"""Reproduce a kdiag finding without kdiag: python repro.py  (exit 1: it fails; 0: it did not reproduce).

Written by `kdiag run` from harness/repro.py (the template; importing it runs nothing); PARAMS below is
the failing input it found.  The script imports the files by path, makes the inputs as the run did, applies the change the probe made (values, layout),
runs the kernel and the reference, and compares them with the tolerance the run used.  Every tensor
the kernel allocates, and every input, gets a guard region after its last element: a kernel that
writes past the end changes it (reads past the end are not visible here; kdiag's interpreter checks
or compute-sanitizer see them).
"""

import importlib.util
import json  # noqa: F401  (the written script's PARAMS line is json.loads(...))
import os
import sys
from pathlib import Path

PARAMS: dict = {}  # kdiag run replaces this line with the failing input
GUARD_BYTES = 64 * 1024

import torch  # noqa: E402  (torch does not import triton: TRITON_INTERPRET can still be set)

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
if DEVICE == "cpu":
    os.environ.setdefault("TRITON_INTERPRET", "1")  # Triton kernels run in Triton's interpreter on CPU


def assemble(files):
    """A GPU MODE problem's files importable by the names its task.yml gives them (``utils`` from the
    folder above, ...), where they lie."""
    import importlib.abc

    mapping = dict(files or ())

    class Files(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname, path=None, target=None):
            source = mapping.get(fullname)
            return importlib.util.spec_from_file_location(fullname, source) if source else None

    if mapping:
        sys.meta_path.insert(0, Files())


def load(path, name):
    p = Path(path)
    sys.path.insert(0, str(p.parent))
    spec = importlib.util.spec_from_file_location(name, p)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def tmap(value, fn):
    if isinstance(value, torch.Tensor):
        return fn(value)
    if isinstance(value, (tuple, list)):
        return type(value)(tmap(v, fn) for v in value)
    if isinstance(value, dict):
        return {k: tmap(v, fn) for k, v in value.items()}
    return value


def leaves(value):
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in leaves(v)]
    if isinstance(value, dict):
        return [x for v in value.values() for x in leaves(v)]
    return []


FLOATS = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16, "float64": torch.float64}


def change_values(t):
    v = PARAMS["values"] or {}
    if not t.is_floating_point():
        if "batch" in v and t.dim() and t.shape[0] == v["from"]:
            return batch(t, v["batch"], v["from"])
        return t
    if "cast" in v:
        return t.to(FLOATS[v["cast"][1]]) if t.dtype == FLOATS[v["cast"][0]] else t
    if "scale" in v:
        lim = torch.finfo(t.dtype).max / 4
        return (t.double() * v["scale"]).clamp(-lim, lim).to(t.dtype)
    if "near_max" in v:
        peak = float(t.abs().max()) if t.numel() else 0.0
        return t if peak == 0 else (t.double() * (torch.finfo(t.dtype).max * v["near_max"] / peak)).to(t.dtype)
    if "batch" in v and t.dim() and t.shape[0] == v["from"]:
        return batch(t, v["batch"], v["from"])
    return t


def batch(t, new, old):
    return t[:new].clone() if new <= old else torch.cat([t] * (-(-new // old)), 0)[:new].clone()


INT_OF = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
GUARDS = []


def guarded_copy(t, layout=None):
    """A copy of t with a guard region after it (and laid out as the probe did: transposed, strided, offset)."""
    if layout == "transpose" and t.dim() >= 2:
        inner = guarded_copy(t.transpose(-1, -2).contiguous())
        return inner.transpose(-1, -2)
    if layout == "stride2" and t.dim() >= 1:
        wide = torch.full(
            (*t.shape[:-1], 2 * t.shape[-1]), 1000.0 if t.is_floating_point() else 7, dtype=t.dtype, device=t.device
        )
        wide[..., ::2] = t
        return guarded_copy(wide)[..., ::2]
    if layout == "pad_rows" and t.dim() >= 2:
        wide = torch.full(
            (*t.shape[:-1], 2 * t.shape[-1]), 1000.0 if t.is_floating_point() else 7, dtype=t.dtype, device=t.device
        )
        wide[..., : t.shape[-1]] = t
        return guarded_copy(wide)[..., : t.shape[-1]]
    if layout == "offset1":
        flat = torch.cat([t.reshape(-1)[:1].clone() if t.numel() else t.reshape(-1), t.reshape(-1)])
        return guarded_copy(flat)[1:].view(t.shape)
    buf = guard_buffer(t.numel(), t.dtype, t.device, "input")
    out = buf[: t.numel()].view(t.shape)
    out.copy_(t)
    return out


def guard_buffer(numel, dtype, device, what):
    esize = torch.empty(0, dtype=dtype).element_size()
    extra = max(1, GUARD_BYTES // esize)
    buf = _empty(numel + extra, dtype=dtype, device=device)
    tail = buf[numel:].view(INT_OF[esize])
    tail.fill_(0x5A if esize == 1 else int.from_bytes(bytes([0x5A] * esize), "little", signed=True))
    GUARDS.append((what, buf, numel, tail.clone()))
    return buf


_empty = torch.empty


class GuardAllocations:
    """While the kernel runs, torch.empty/empty_like/empty_strided/new_empty return views of guarded buffers."""

    def __enter__(self):
        self.saved = (torch.empty, torch.empty_like, torch.empty_strided, torch.Tensor.new_empty)

        def wrap(fn):
            def alloc(*a, **k):
                t = fn(*a, **k)
                if not isinstance(t, torch.Tensor) or t.numel() == 0:
                    return t
                extent = 1 + sum((s - 1) * st for s, st in zip(t.shape, t.stride(), strict=False))
                buf = guard_buffer(extent, t.dtype, t.device, "a tensor the kernel allocated")
                return buf.as_strided(t.shape, t.stride())

            return alloc

        torch.empty, torch.empty_like, torch.empty_strided = (wrap(f) for f in self.saved[:3])
        torch.Tensor.new_empty = wrap(self.saved[3])
        return self

    def __exit__(self, *exc):
        torch.empty, torch.empty_like, torch.empty_strided, torch.Tensor.new_empty = self.saved
        return False


def make_and_run():
    seed, size, kind = PARAMS["seed"], PARAMS["size"], PARAMS["kind"]
    layout = PARAMS["layout"] or {}
    lay = layout.get("kind")
    laid = set(layout.get("tensors") or [])
    if kind == "kernel-module":
        mod = load(PARAMS["submission"], "kdiag_target")
        torch.manual_seed(seed)
        made = mod.make_inputs(DEVICE, seed=seed, **size)
        inputs = tuple(made) if isinstance(made, (tuple, list)) else (made,)
        inputs = tmap(inputs, change_values)
        expected = mod.reference(*tmap(inputs, lambda t: t.clone()))
        names = iter(range(10**6))
        k_inputs = tmap(inputs, lambda t: guarded_copy(t, lay if f"in{next(names)}" in laid else None))
        with GuardAllocations():
            got = mod.kernel(*k_inputs)
    elif kind == "kernelbench":
        ref, sub = load(PARAMS["reference"], "kdiag_reference"), load(PARAMS["submission"], "kdiag_target")
        torch.manual_seed(seed)
        init = list(ref.get_init_inputs())
        torch.manual_seed(seed)
        args = tmap(list(ref.get_inputs()), lambda t: change_values(t.to(DEVICE)))

        def forward(cls, a):
            torch.manual_seed(seed)
            model = cls(*tmap(init, lambda t: t.to(DEVICE))).to(DEVICE)
            with torch.no_grad():
                return model(*a)

        expected = forward(ref.Model, tmap(args, lambda t: t.clone()))
        names = iter(range(len(leaves(init)), 10**6))
        k_args = tmap(args, lambda t: guarded_copy(t, lay if f"in{next(names)}" in laid else None))
        with GuardAllocations():
            got = forward(getattr(sub, "ModelNew", None) or sub.Model, k_args)  # Model: a drop-in problem file
    else:  # gpumode
        assemble(PARAMS.get("files"))
        ref, sub = load(PARAMS["reference"], "kdiag_reference"), load(PARAMS["submission"], "kdiag_target")
        torch.manual_seed(seed)
        data = tmap(ref.generate_input(**size), change_values)
        expected = ref.ref_kernel(tmap(data, lambda t: t.clone()))
        names = iter(range(10**6))
        k_data = tmap(data, lambda t: guarded_copy(t, lay if f"in{next(names)}" in laid else None))
        with GuardAllocations():
            got = sub.custom_kernel(k_data)
    if DEVICE == "cuda":
        torch.cuda.synchronize()
    return got, expected


def compare(got, expected):
    bad = 0
    g, e = leaves(got), leaves(expected)
    if len(g) != len(e):
        print(f"the kernel returned {len(g)} tensors, the reference {len(e)}")
        return 1
    for i, (o, r) in enumerate(zip(g, e, strict=True)):
        o, r = o.detach().cpu(), r.detach().cpu()
        if tuple(o.shape) != tuple(r.shape):
            print(f"output {i}: shape {tuple(o.shape)}, reference {tuple(r.shape)}")
            bad += 1
            continue
        name = str(r.dtype).replace("torch.", "")
        if name in PARAMS["tolerance"] and o.dtype.is_floating_point:
            atol, rtol = PARAMS["tolerance"][name]
            o64, r64 = o.double(), r.double()
            finite = torch.isfinite(o64) & torch.isfinite(r64)
            close = (o64 - r64).abs() <= atol + rtol * r64.abs()
            same = (torch.isnan(o64) & torch.isnan(r64)) | (o64 == r64)
            wrong = ~torch.where(finite, close, same)
        else:
            wrong = o != r.to(o.dtype)
        k = int(wrong.sum())
        if k:
            bad += 1
            idx = torch.nonzero(wrong)[:10]
            print(f"output {i}: {k}/{wrong.numel()} elements outside the tolerance; first bad indices:")
            for j in idx.tolist():
                j = tuple(j)
                print(f"  {list(j)}: got {o[j].item()!r}, expected {r[j].item()!r}")
    return bad


def main():
    print(
        f"repro: {PARAMS['kind']} {PARAMS['submission']} at {PARAMS['size'] or 'its default size'}, "
        f"seed {PARAMS['seed']}, on {DEVICE}" + (", TRITON_INTERPRET=1" if os.environ.get("TRITON_INTERPRET") else "")
    )
    print(f"  kdiag saw: {PARAMS['failure']} ({PARAMS['what']})")
    try:
        got, expected = make_and_run()
    except Exception as e:
        import traceback

        traceback.print_exc()
        print(f"FAILS: the kernel raised {type(e).__name__}: {e}")
        return 1
    failed = compare(got, expected)
    for what, buf, numel, pattern in GUARDS:
        esize = buf.element_size()
        tail = buf[numel:].view(INT_OF[esize])
        hit = torch.nonzero(tail != pattern).flatten()
        if hit.numel():
            failed += 1
            print(
                f"{what} ({numel} elements, {buf.dtype}): {hit.numel()} elements written past its end, "
                f"{int(hit[0])}..{int(hit[-1])} past the last one"
            )
    print("FAILS" if failed else "did not reproduce: outputs match and no guard was written")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
