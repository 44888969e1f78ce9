"""What the children do for a probe entry (``diagnose/run/probes.py`` chooses the probes).

A probe entry of the inputs child's spec (``"probes": [...]``) is::

    {"label": "n=4097", "size": {"n": 4097}, "seed": 0,
     "values": {"cast": ["float32", "float16"]} | {"scale": 1e4} | {"near_max": 0.25} | {"batch": 17},
     "layout": {"kind": "transpose" | "pad_rows" | "stride2" | "offset1", "tensors": ["in0", "in1"]},
     "repeat": 3}

- ``values`` change what ``make_inputs`` made, in the inputs child: the saved files hold the
  probe's values, so the kernel and the reference see the same ones.
- ``layout`` changes only how the kernel child hands them over (the files stay contiguous): the
  reference gets the same logical values, contiguous.  :func:`lay_out` builds a *carrier* buffer
  (contiguous, what the canary guards) and the view of it the kernel gets: transposed storage, rows
  of a wider buffer (a column slice: row stride 2 x the row length), every other element, or a view
  starting one element into the buffer (not 16-byte aligned).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

FLOAT_DTYPES = (torch.float64, torch.float32, torch.float16, torch.bfloat16)
GAP_VALUE = 1000.0  # what lies between the elements of a strided view: a kernel that ignores strides reads it


def transform_values(value: Any, spec: dict[str, Any] | None, *, args_only: bool) -> Any:
    """``make_inputs``' value with the probe's value change applied (inputs child)."""
    if not spec:
        return value
    if args_only and isinstance(value, dict) and "args" in value:  # KernelBench: the forward's inputs only
        return {**value, "args": transform_values(value["args"], spec, args_only=False)}
    if "batch" in spec:
        return _batch(value, int(spec["batch"]), int(spec.get("from", -1)))
    return _map(value, lambda t: _one(t, spec))


def _map(value: Any, fn: Callable[[torch.Tensor], torch.Tensor]) -> Any:
    if isinstance(value, torch.Tensor):
        return fn(value)
    if isinstance(value, tuple | list):
        return type(value)(_map(v, fn) for v in value)
    if isinstance(value, dict):
        return {k: _map(v, fn) for k, v in value.items()}
    return value


def _one(t: torch.Tensor, spec: dict[str, Any]) -> torch.Tensor:
    if t.dtype not in FLOAT_DTYPES:
        return t
    if "cast" in spec:
        src, dst = spec["cast"]
        names = {
            torch.float32: "float32",
            torch.float16: "float16",
            torch.bfloat16: "bfloat16",
            torch.float64: "float64",
        }
        if names.get(t.dtype) != src:
            return t
        return t.to(getattr(torch, dst))
    if "scale" in spec:
        limit = torch.finfo(t.dtype).max / 4
        return (t.double() * float(spec["scale"])).clamp(-limit, limit).to(t.dtype)
    if "near_max" in spec:
        peak = float(t.abs().max()) if t.numel() else 0.0
        if peak == 0.0:
            return t
        target = torch.finfo(t.dtype).max * float(spec["near_max"])
        return (t.double() * (target / peak)).to(t.dtype)
    return t


def _batch(value: Any, new: int, old: int) -> Any:
    """Every tensor whose first dimension is ``old`` cut or extended (rows repeated) to ``new``."""

    def fn(t: torch.Tensor) -> torch.Tensor:
        if t.dim() == 0 or t.shape[0] != old or old <= 0:
            return t
        if new <= old:
            return t[:new].clone()
        reps = -(-new // old)
        return torch.cat([t] * reps, dim=0)[:new].clone()

    return _map(value, fn)


def lay_out(t: torch.Tensor, kind: str) -> tuple[torch.Tensor, Callable[[torch.Tensor], torch.Tensor]]:
    """(carrier, view): ``view(carrier)`` equals ``t`` element for element, laid out as ``kind``."""
    if kind == "transpose" and t.dim() >= 2:
        carrier = t.transpose(-1, -2).contiguous()
        return carrier, lambda c: c.transpose(-1, -2)
    if kind == "stride2" and t.dim() >= 1:
        shape = (*t.shape[:-1], 2 * t.shape[-1])
        carrier = torch.full(shape, GAP_VALUE if t.is_floating_point() else 7, dtype=t.dtype, device=t.device)
        carrier[..., ::2] = t
        return carrier, lambda c: c[..., ::2]
    if kind == "pad_rows" and t.dim() >= 2:
        shape = (*t.shape[:-1], 2 * t.shape[-1])
        carrier = torch.full(shape, GAP_VALUE if t.is_floating_point() else 7, dtype=t.dtype, device=t.device)
        carrier[..., : t.shape[-1]] = t
        last = t.shape[-1]
        return carrier, lambda c: c[..., :last]
    if kind == "offset1":
        flat = torch.empty(t.numel() + 1, dtype=t.dtype, device=t.device)
        flat[1:] = t.reshape(-1)
        flat[:1] = flat[1:2] if t.numel() else 0
        shape = tuple(t.shape)
        return flat, lambda c: c[1:].view(shape)
    return t, lambda c: c
