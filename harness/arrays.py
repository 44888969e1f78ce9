"""Tensors across the process boundary: ``.npy`` files and a JSON manifest, never pickles.

A value handed to or returned by a kernel is encoded as a *structure* (JSON) whose leaves are
tensors (saved as ``<name>.npy``) or plain scalars::

    {"tuple": [{"t": "in0"}, {"t": "in1"}, {"v": 3}]}

and each saved tensor gets a manifest entry ``{"file", "dtype", "shape", "nbytes", "sha256"}``.
bfloat16 and float8 have no numpy dtype: their raw bit patterns are saved (uint16 / uint8) and
``dtype`` names the true type, so the parent can decode them exactly.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import torch

from diagnose.run.arrays import STORAGE

# true dtype name -> torch dtype; names are what the parent (diagnose/run/arrays.py) knows
TORCH_DTYPES: dict[str, torch.dtype] = {
    "float64": torch.float64,
    "float32": torch.float32,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "int64": torch.int64,
    "int32": torch.int32,
    "int16": torch.int16,
    "int8": torch.int8,
    "uint8": torch.uint8,
    "bool": torch.bool,
    "complex64": torch.complex64,
    "complex128": torch.complex128,
}
for _name in ("float8_e4m3fn", "float8_e5m2"):
    if hasattr(torch, _name):
        TORCH_DTYPES[_name] = getattr(torch, _name)
DTYPE_NAMES: dict[torch.dtype, str] = {v: k for k, v in TORCH_DTYPES.items()}
# saved as their bits: numpy has no such dtype
RAW_VIEW: dict[str, torch.dtype] = {"bfloat16": torch.int16, "float8_e4m3fn": torch.uint8, "float8_e5m2": torch.uint8}
# the numpy dtype of those bits on disk: the parent's table (diagnose/run/arrays.py), which checks
# every file against it, so both sides of the format agree by construction
RAW_NUMPY: dict[str, str] = {name: np.dtype(STORAGE[name]).name for name in RAW_VIEW}

# bound at import, before any user module runs: a submission that patches these later does not
# change what the harness writes or how it hashes
_sha256 = hashlib.sha256
_np_save = np.save
_replace = os.replace


class Unsupported(TypeError):
    """A value the harness cannot carry across (an object that is not a tensor or a scalar)."""


def to_numpy(t: torch.Tensor) -> tuple[np.ndarray, str]:
    """A CPU numpy array of the tensor's values (raw bits for bf16/fp8) and its true dtype name."""
    name = DTYPE_NAMES.get(t.dtype)
    if name is None:
        raise Unsupported(f"tensor dtype {t.dtype} cannot be saved")
    t = t.detach()
    if t.is_conj():
        t = t.resolve_conj()
    t = t.to("cpu").contiguous()
    arr = t.view(RAW_VIEW[name]).numpy().view(RAW_NUMPY[name]) if name in RAW_VIEW else t.numpy()
    return arr, name


def digest(t: torch.Tensor) -> str:
    arr, _ = to_numpy(t)
    return _sha256(arr.tobytes()).hexdigest()


def save_tensor(t: torch.Tensor, folder: Path, name: str) -> dict[str, Any]:
    arr, dtype = to_numpy(t)
    file = f"{name}.npy"
    _np_save(folder / file, arr, allow_pickle=False)
    return {
        "file": file,
        "dtype": dtype,
        "shape": list(arr.shape),
        "nbytes": int(arr.nbytes),
        "sha256": _sha256(arr.tobytes()).hexdigest(),
        "device": str(t.device),
        "strides": list(t.stride()),
    }


def load_tensor(folder: Path, entry: dict[str, Any], device: str) -> torch.Tensor:
    arr = np.load(folder / entry["file"], allow_pickle=False)
    dtype = entry["dtype"]
    if dtype in RAW_VIEW:
        t = torch.from_numpy(arr.view(np.uint16 if RAW_NUMPY[dtype] == "uint16" else np.uint8).copy())
        t = t.view(RAW_VIEW[dtype]).view(TORCH_DTYPES[dtype])
    else:
        t = torch.from_numpy(arr.copy())
    t = t.to(device)
    strides = entry.get("strides")
    if strides is not None and len(strides) == t.dim() and tuple(strides) != t.stride():
        t = restrided(t, [int(s) for s in strides])
    return t


def restrided(t: torch.Tensor, strides: list[int]) -> torch.Tensor:
    """``t``'s values in the layout they were saved from: the strides a caller's tensor had (a transposed view,
    rows of a wider buffer, a broadcast dimension), so that the kernel and the check see the layout the inputs were
    made in, not a contiguous copy. A layout that cannot be rebuilt leaves ``t`` as it is."""
    try:
        # a broadcast dimension (stride 0): one slice of it, expanded back
        zero = [i for i, (n, st) in enumerate(zip(t.shape, strides, strict=True)) if st == 0 and n > 1]
        base = t
        for i in zero:
            base = base.narrow(i, 0, 1)
        inner = [1 if i in zero else st for i, st in enumerate(strides)]
        out = torch.empty_strided(tuple(base.shape), tuple(inner), dtype=t.dtype, device=t.device)
        out.copy_(base)
        return out.expand(t.shape) if zero else out
    except (RuntimeError, ValueError):
        return t


def _scalar(v: Any) -> bool:
    return v is None or isinstance(v, bool | int | float | str)


def encode(value: Any, folder: Path, prefix: str, tensors: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Save every tensor in ``value`` under ``folder``; return the JSON structure that rebuilds it."""
    if isinstance(value, torch.Tensor):
        name = f"{prefix}{len(tensors)}"
        tensors[name] = save_tensor(value, folder, name)
        return {"t": name}
    if isinstance(value, torch.dtype):
        return {"dtype": DTYPE_NAMES.get(value, str(value))}
    if isinstance(value, torch.device):
        return {"device": str(value)}
    if _scalar(value):
        return {"v": value}
    if isinstance(value, tuple | list):
        items = [encode(v, folder, prefix, tensors) for v in value]
        return {"tuple": items} if isinstance(value, tuple) else {"list": items}
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"dict": {k: encode(v, folder, prefix, tensors) for k, v in value.items()}}
    raise Unsupported(
        f"cannot carry a {type(value).__name__} across processes (tensors, scalars, tuples, lists, dicts)"
    )


def decode(struct: dict[str, Any], folder: Path, tensors: dict[str, dict[str, Any]], device: str) -> Any:
    if "t" in struct:
        return load_tensor(folder, tensors[struct["t"]], device)
    if "v" in struct:
        return struct["v"]
    if "dtype" in struct:
        return TORCH_DTYPES.get(struct["dtype"], struct["dtype"])
    if "device" in struct:
        return torch.device(device if struct["device"].split(":")[0] in ("cpu", "cuda") else struct["device"])
    if "tuple" in struct:
        return tuple(decode(s, folder, tensors, device) for s in struct["tuple"])
    if "list" in struct:
        return [decode(s, folder, tensors, device) for s in struct["list"]]
    if "dict" in struct:
        return {k: decode(s, folder, tensors, device) for k, s in struct["dict"].items()}
    raise Unsupported(f"unknown structure node {sorted(struct)}")


def leaves(value: Any, struct: dict[str, Any]) -> list[tuple[str, Any]]:
    """(tensor name, tensor) pairs of a decoded value, in the structure's order."""
    if "t" in struct:
        return [(struct["t"], value)]
    out: list[tuple[str, Any]] = []
    if "tuple" in struct or "list" in struct:
        for v, s in zip(value, struct.get("tuple", struct.get("list")), strict=False):
            out += leaves(v, s)
    elif "dict" in struct:
        for k, s in struct["dict"].items():
            out += leaves(value[k], s)
    return out


def write_json(path: Path, data: Any) -> None:
    """Atomically: a crash mid-write leaves the previous file, never half of one."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, allow_nan=True))
    _replace(tmp, path)


def map_leaves(value: Any, struct: dict[str, Any], fn: Any) -> Any:
    """The value with every tensor leaf replaced by ``fn(name, tensor)``."""
    if "t" in struct:
        return fn(struct["t"], value)
    if "tuple" in struct:
        return tuple(map_leaves(v, s, fn) for v, s in zip(value, struct["tuple"], strict=True))
    if "list" in struct:
        return [map_leaves(v, s, fn) for v, s in zip(value, struct["list"], strict=True)]
    if "dict" in struct:
        return {k: map_leaves(value[k], s, fn) for k, s in struct["dict"].items()}
    return value


def label(size: dict[str, Any]) -> str:
    """``n=4096,dtype=float16`` for a size dict; ``default`` for none."""
    return ",".join(f"{k}={v}" for k, v in size.items()) or "default"


def jsonable(value: Any) -> Any:
    """Plain JSON data (what is not is written as its str)."""
    return json.loads(json.dumps(value, default=str, allow_nan=True))
