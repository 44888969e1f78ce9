"""Reading what a child wrote: JSON manifests and ``.npy`` files, checked before anything is loaded.

Nothing a child writes is unpickled: ``numpy.load(..., allow_pickle=False)`` only, and only after
the file's name, size, header dtype and shape agree with the manifest entry.  bfloat16 and float8
arrive as raw bits (uint16 / uint8) and are decoded here, exactly, to float32.
numpy is imported lazily: the parent only needs it when there is something to compare.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

#: true dtype name -> the dtype of the bits on disk
STORAGE = {
    "float64": "<f8",
    "float32": "<f4",
    "float16": "<f2",
    "bfloat16": "<u2",
    "float8_e4m3fn": "|u1",
    "float8_e5m2": "|u1",
    "int64": "<i8",
    "int32": "<i4",
    "int16": "<i2",
    "int8": "|i1",
    "uint8": "|u1",
    "bool": "|b1",
    "complex64": "<c8",
    "complex128": "<c16",
}
FLOATS = ("float64", "float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2")
MAX_MANIFEST_BYTES = 64 << 20


class ResultInvalid(ValueError):
    """A child's output does not agree with its manifest (or is not what a manifest may say)."""


def read_json(path: Path) -> dict[str, Any] | None:
    """A child's JSON file; None when it is not there; ResultInvalid when it is not JSON."""
    try:
        if path.stat().st_size > MAX_MANIFEST_BYTES:
            raise ResultInvalid(f"{path.name} is larger than {MAX_MANIFEST_BYTES} bytes")
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ResultInvalid(f"{path.name} cannot be read: {e}") from e
    if not isinstance(data, dict):
        raise ResultInvalid(f"{path.name} is not a JSON object")
    return data


def load(folder: Path, entry: Any, *, check_hash: bool = False) -> Any:
    """The array of one manifest entry, its true dtype decoded (bf16/fp8 → float32)."""
    import numpy as np

    if not isinstance(entry, dict):
        raise ResultInvalid("a tensor entry is not an object")
    file, dtype, shape = entry.get("file"), entry.get("dtype"), entry.get("shape")
    if not isinstance(file, str) or "/" in file or "\\" in file or file.startswith(".") or not file.endswith(".npy"):
        raise ResultInvalid(f"bad file name {file!r}")
    if dtype not in STORAGE:
        raise ResultInvalid(f"{file}: unknown dtype {dtype!r}")
    if not isinstance(shape, list) or not all(isinstance(n, int) and n >= 0 for n in shape):
        raise ResultInvalid(f"{file}: bad shape {shape!r}")
    path = folder / file
    if not path.is_file() or path.is_symlink():
        raise ResultInvalid(f"{file}: missing")
    want = np.dtype(STORAGE[dtype])
    count = 1
    for n in shape:
        count *= n
    nbytes = count * want.itemsize
    if entry.get("nbytes") != nbytes:
        raise ResultInvalid(f"{file}: manifest says {entry.get('nbytes')} bytes, {dtype}{shape} is {nbytes}")
    with path.open("rb") as f:
        try:
            version = np.lib.format.read_magic(f)
            if version == (1, 0):
                hshape, fortran, hdtype = np.lib.format.read_array_header_1_0(f)
            else:
                hshape, fortran, hdtype = np.lib.format.read_array_header_2_0(f)
        except ValueError as e:
            raise ResultInvalid(f"{file}: not an .npy file ({e})") from e
        header_end = f.tell()
    if hdtype.hasobject or hdtype != want or list(hshape) != shape or fortran:
        raise ResultInvalid(f"{file}: holds {hdtype}{list(hshape)}, manifest says {dtype}{shape}")
    if path.stat().st_size != header_end + nbytes:
        raise ResultInvalid(f"{file}: {path.stat().st_size - header_end} data bytes, expected {nbytes}")
    arr = np.load(path, allow_pickle=False)
    if check_hash:
        import hashlib

        if hashlib.sha256(arr.tobytes()).hexdigest() != entry.get("sha256"):
            raise ResultInvalid(f"{file}: content does not match its sha256")
    return decode(arr, dtype)


def decode(arr: Any, dtype: str) -> Any:
    """Raw bits → values: bfloat16 and float8 as float32 (exact), everything else unchanged."""
    import numpy as np

    if dtype == "bfloat16":
        return (arr.astype(np.uint32) << 16).view(np.float32)
    if dtype == "float8_e5m2":  # the top byte of a float16
        return (arr.astype(np.uint16) << 8).view(np.float16).astype(np.float32)
    if dtype == "float8_e4m3fn":
        return _e4m3_table()[arr]
    return arr


def _e4m3_table() -> Any:
    import numpy as np

    out = np.empty(256, dtype=np.float32)
    for b in range(256):
        sign = -1.0 if b & 0x80 else 1.0
        exp, man = (b >> 3) & 0xF, b & 0x7
        if exp == 0xF and man == 0x7:
            out[b] = np.nan
        elif exp == 0:
            out[b] = sign * (man / 8.0) * 2.0**-6
        else:
            out[b] = sign * (1.0 + man / 8.0) * 2.0 ** (exp - 7)
    return out


def bits(arr: Any, dtype: str) -> Any:
    """The ordered-integer view used for ULP distances (None for non-float dtypes)."""
    import numpy as np

    if dtype not in FLOATS:
        return None
    if dtype == "float64":
        i = arr.astype(np.float64).view(np.int64).astype(np.float64)
        lim = float(2**63)
    elif dtype == "float16":
        i = arr.astype(np.float16).view(np.int16).astype(np.float64)
        lim = float(2**15)
    elif dtype == "float32":
        i = arr.astype(np.float32).view(np.int32).astype(np.float64)
        lim = float(2**31)
    else:  # bfloat16 and fp8 values were decoded to float32: measure in their own ulps
        step = {"bfloat16": 2**16, "float8_e4m3fn": 2**20, "float8_e5m2": 2**21}[dtype]
        i = np.floor(arr.astype(np.float32).view(np.int32).astype(np.float64) / step)
        lim = float(2**31) / step
    # two's complement sign-magnitude → a monotonic integer line
    return np.where(i < 0, -lim - i, i)
