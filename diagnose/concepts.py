"""Normalise the values a decision rests on, whatever wording or framework printed them.

A message family (:mod:`diagnose.catalogue`) captures raw values with named groups: a compute
capability as ``sm_80``, ``compute_90a``, ``8.6`` or ``86``; a size as ``0xc000``, ``49152``,
``48 KiB`` or ``16.00 GiB``; a version as ``12.4``, ``11.8.0``, ``535.104.05`` or CUDA's integer
``12040``.  The functions here turn them into one form each, so rules compare numbers, not words.

>>> compute_capability("sm_90a"), compute_capability("compute_75"), compute_capability("8.6")
(9.0, 7.5, 8.6)
>>> compute_capability("86"), compute_capability("120"), compute_capability("sm_100f")
(8.6, 12.0, 10.0)
>>> size_bytes("0xc000"), size_bytes("48 KiB"), size_bytes("16.00 GiB"), size_bytes("232,448")
(49152.0, 49152.0, 17179869184.0, 232448.0)
>>> size_bytes("1.5G"), size_bytes("nonsense")
(1610612736.0, None)
>>> version_tuple("12.4"), version_tuple("12040"), version_tuple("535.104.05"), version_tuple("v2.3.1+cu121")
((12, 4), (12, 4), (535, 104, 5), (2, 3, 1))
>>> older("11.8", "12.1"), older("12.1", "12.1.0"), older("7.5", "7.4")
(True, False, False)
>>> dtype_name("torch.float16"), dtype_name("Half"), dtype_name("f32"), dtype_name("bf16")
('float16', 'float16', 'float32', 'bfloat16')
>>> device_kind("cuda:0"), device_kind("CPU"), device_kind("gpu"), device_kind("TFRT_CPU_0")
('cuda', 'cpu', 'cuda', 'cpu')
>>> shape("(2, 3)"), shape("(3,)"), shape("4x3"), shape("torch.Size([2, 3])"), shape("42"), shape("()")
('2x3', '3', '4x3', '2x3', '42', 'scalar')
>>> shape("x"), shape("(a, b)")
(None, None)
"""

from __future__ import annotations

import re

#: the largest element index a signed 32-bit integer holds
INT32_MAX = 2**31 - 1

_CC = re.compile(r"^(?:sm|compute|lto|arch=compute|code=sm)?_?(\d+)(?:\.(\d+))?[a-z]?$", re.I)


def compute_capability(raw: str | None) -> float | None:
    """``sm_80`` / ``compute_90a`` / ``8.6`` / ``86`` / ``120`` → 8.0 / 9.0 / 8.6 / 8.6 / 12.0."""
    if not raw:
        return None
    m = _CC.match(raw.strip().strip("'\"`"))
    if not m:
        return _cc_hex(raw) or capability_tuple(raw) or architecture_first_cc(raw)
    major, minor = m.group(1), m.group(2)
    if minor is not None:
        return float(f"{int(major)}.{int(minor)}")
    if len(major) == 1:
        return float(major)
    if len(major) in (2, 3):
        return float(f"{int(major[:-1])}.{major[-1]}")
    return None


_CC_HEX = re.compile(r"^0x([0-9a-f]{1,2})([0-9a-f]{2})$", re.I)


def _cc_hex(raw: str) -> float | None:
    """The SM version as TensorRT's builder prints it, ``(major << 8) | minor`` in hexadecimal (``Unsupported SM:
    0x809`` is 8.9, ``0x601`` 6.1, ``0xa00`` 10.0).

    >>> _cc_hex("0x809"), _cc_hex("0x601"), _cc_hex("0xa00"), _cc_hex("0xc000"), _cc_hex("0x8")
    (8.9, 6.1, 10.0, None, None)
    """
    m = _CC_HEX.match(raw.strip())
    if not m:
        return None
    major, minor = int(m.group(1), 16), int(m.group(2), 16)
    return float(f"{major}.{minor}") if 1 <= major <= 15 and minor < 10 else None


#: the first compute capability of each GPU architecture NVIDIA names (CUDA C++ Programming Guide, "Compute
#: Capabilities"): a requirement stated as "Ampere or newer" is compute capability 8.0 or newer
ARCHITECTURE_FIRST_CC = {
    "kepler": 3.0,
    "maxwell": 5.0,
    "pascal": 6.0,
    "volta": 7.0,
    "turing": 7.5,
    "ampere": 8.0,
    "ada": 8.9,
    "ada lovelace": 8.9,
    "hopper": 9.0,
    "blackwell": 10.0,
}


def architecture_first_cc(raw: str) -> float | None:
    """An architecture's name → its first compute capability.

    >>> architecture_first_cc("Ampere"), architecture_first_cc("Ada Lovelace"), architecture_first_cc("Fermi2")
    (8.0, 8.9, None)
    """
    return ARCHITECTURE_FIRST_CC.get(" ".join(raw.lower().split()))


_CC_TUPLE = re.compile(r"^\(?\s*(\d{1,2})\s*,\s*(\d)\s*\)?$")


def capability_tuple(raw: str) -> float | None:
    """The ``(major, minor)`` form Python prints for ``torch.cuda.get_device_capability()`` (xFormers,
    torch): ``(8, 0)`` / ``12, 0`` → 8.0 / 12.0.

    >>> capability_tuple("(8, 0)"), capability_tuple("12, 0"), capability_tuple("(8, 0, 1)")
    (8.0, 12.0, None)
    """
    m = _CC_TUPLE.match(raw.strip())
    return float(f"{int(m.group(1))}.{int(m.group(2))}") if m else None


_UNITS = {
    "": 1,
    "b": 1,
    "byte": 1,
    "bytes": 1,
    "k": 1 << 10,
    "kb": 1 << 10,
    "kib": 1 << 10,
    "m": 1 << 20,
    "mb": 1 << 20,
    "mib": 1 << 20,
    "g": 1 << 30,
    "gb": 1 << 30,
    "gib": 1 << 30,
    "t": 1 << 40,
    "tb": 1 << 40,
    "tib": 1 << 40,
}
_SIZE = re.compile(r"^([0-9][0-9,_]*(?:\.[0-9]+)?)\s*([a-z]*)$", re.I)


def size_bytes(raw: str | None) -> float | None:
    """A size as printed (``0xc000``, ``49152``, ``48 KiB``, ``16.00 GiB``, ``1.5G``) → bytes.

    Binary units throughout: GPU tools print KiB-based figures under "KB"/"GB" labels."""
    if raw is None:
        return None
    s = raw.strip().rstrip(".")
    if re.fullmatch(r"0x[0-9a-f]+", s, re.I):
        return float(int(s, 16))
    m = _SIZE.match(s)
    if not m:
        return None
    unit = _UNITS.get(m.group(2).lower())
    if unit is None:
        return None
    try:
        return float(m.group(1).replace(",", "").replace("_", "")) * unit
    except ValueError:
        return None


def number(raw: str | None) -> float | None:
    """A plain count as printed (``1024``, ``2,147,483,648``, ``0x400``, ``2^31``)."""
    if raw is None:
        return None
    s = raw.strip().replace(",", "").replace("_", "")
    try:
        if s.lower().startswith("0x"):
            return float(int(s, 16))
        if "^" in s:
            base, exp = s.split("^", 1)
            return float(int(base) ** int(exp))
        return float(s)
    except ValueError:
        return None


_VERSION = re.compile(r"(\d+(?:\.\d+)*)")


def version_tuple(raw: str | None) -> tuple[int, ...] | None:
    """``12.4`` / ``11.8.0`` / ``535.104.05`` / CUDA's integer ``12040`` → a comparable tuple."""
    if not raw:
        return None
    m = _VERSION.search(raw)
    if not m:
        return None
    text = m.group(1)
    if "." not in text and len(text) in (4, 5) and text.endswith("0"):
        # CUDA's integer form: 1000 * major + 10 * minor (11040 = 11.4, 9020 = 9.2)
        n = int(text)
        return (n // 1000, (n % 1000) // 10)
    return tuple(int(p) for p in text.split("."))


def older(have: str | None, need: str | None) -> bool | None:
    """True when version ``have`` is older than ``need`` (missing trailing parts count as 0)."""
    a, b = version_tuple(have), version_tuple(need)
    if a is None or b is None:
        return None
    width = max(len(a), len(b))
    return a + (0,) * (width - len(a)) < b + (0,) * (width - len(b))


_DTYPES = {
    "half": "float16",
    "float16": "float16",
    "fp16": "float16",
    "f16": "float16",
    "float": "float32",
    "float32": "float32",
    "fp32": "float32",
    "f32": "float32",
    "double": "float64",
    "float64": "float64",
    "fp64": "float64",
    "f64": "float64",
    "bfloat16": "bfloat16",
    "bf16": "bfloat16",
    "int": "int32",
    "int32": "int32",
    "i32": "int32",
    "s32": "int32",
    "long": "int64",
    "int64": "int64",
    "i64": "int64",
    "s64": "int64",
    "int16": "int16",
    "short": "int16",
    "int8": "int8",
    "char": "int8",
    "uint8": "uint8",
    "byte": "uint8",
    "u8": "uint8",
    "bool": "bool",
    "pred": "bool",
    "float8_e4m3fn": "float8_e4m3fn",
    "fp8e4nv": "float8_e4m3fn",
    "f8e4m3fn": "float8_e4m3fn",
    "float8_e5m2": "float8_e5m2",
    "fp8e5": "float8_e5m2",
    "f8e5m2": "float8_e5m2",
    "complex64": "complex64",
    "complexfloat": "complex64",
    "complex128": "complex128",
    "complexdouble": "complex128",
}


def dtype_name(raw: str | None) -> str | None:
    """A dtype as any framework prints it (``torch.float16``, ``Half``, ``f32``, ``bf16``) → numpy-style name."""
    if not raw:
        return None
    s = raw.strip().strip("'\"`").lower()
    s = s.rsplit(".", 1)[-1]  # torch.float16, jnp.float32, tl.float16
    s = s.removesuffix("tensor").removesuffix("type") or s  # HalfTensor → half
    return _DTYPES.get(s, s if re.fullmatch(r"[a-z0-9_]+", s) else None)


def device_kind(raw: str | None) -> str | None:
    """``cuda:0`` / ``gpu`` / ``CUDA`` → cuda; ``cpu`` / ``TFRT_CPU_0`` → cpu; ``meta``, ``mps``, ``tpu``, ``rocm``."""
    if not raw:
        return None
    s = raw.strip().strip("'\"`").lower()
    for kind, words in (
        ("cuda", ("cuda", "gpu", "nvidia")),
        ("cpu", ("cpu", "host")),
        ("meta", ("meta",)),
        ("mps", ("mps",)),
        ("tpu", ("tpu",)),
        ("rocm", ("rocm", "hip")),
    ):
        if any(w in s for w in words):
            return kind
    return None


_SHAPE = re.compile(r"^(?:[A-Za-z_.]*\()?\[?\(?\s*(\d+(?:\s*[x,]\s*\d+)*)?\s*,?\s*\)?\]?\)?$")


def shape(raw: str | None) -> str | None:
    """A printed shape (``(2, 3)``, ``(3,)``, ``4x3``, ``torch.Size([2, 3])``, a bare size ``42``) → ``2x3``,
    ``3``, ``4x3``, ``2x3``, ``42``; an empty one (``()``) → ``scalar``; anything else → None."""
    if not raw:
        return None
    m = _SHAPE.match(raw.strip())
    if m is None:
        return None
    if m.group(1) is None:
        return "scalar" if any(c in raw for c in "([") else None
    return "x".join(re.findall(r"\d+", m.group(1)))


#: the failure mode each stated contract breaks (TAXONOMY.md, runtime-assumption)
CONTRACT_MODES = {
    "contiguous": "noncontiguous-input",
    "aligned": "misaligned-input",
    "divisible": "shape-not-multiple-of-block",
    "device": "device-mismatch",
    "minimum": "shape-below-minimum",
    "maximum": "shape-exceeds-kernel-limit",
}


def contract_mode(contract: str | None) -> str | None:
    """The failure mode of a broken contract: ``contiguous`` → ``noncontiguous-input``; unknown → None.

    >>> contract_mode("aligned"), contract_mode("Divisible"), contract_mode("sorted")
    ('misaligned-input', 'shape-not-multiple-of-block', None)
    """
    return CONTRACT_MODES.get((contract or "").strip().lower())


_ARCH_VALUE = re.compile(
    r"^(?:sm_?\d+[a-z]?|compute_\d+[a-z]?|gfx\d+\w*|pre-?\w+|(?:this|the current|your) (?:gpu|device|target|architecture)"
    r"|(?:gpu )?arch(?:itecture)?s?|compute capability.*|cc ?\d.*|volta|turing|ampere|hopper|blackwell|ada)$",
    re.I,
)


def unsupported_kind(raw: str | None) -> str | None:
    """What kind of value a tool refuses: a GPU arch (``sm_75``, ``this GPU``, ``pre-Volta``) → ``arch``,
    a dtype any framework names (``Half``, ``torch.bfloat16``, ``fp8e4nv``) → ``dtype``; else None.

    >>> unsupported_kind("sm_75"), unsupported_kind("this GPU"), unsupported_kind("pre-Volta")
    ('arch', 'arch', 'arch')
    >>> unsupported_kind("Half"), unsupported_kind("torch.bfloat16"), unsupported_kind("widget")
    ('dtype', 'dtype', None)
    """
    if not raw:
        return None
    s = raw.strip().strip("'\"`").strip()
    if _ARCH_VALUE.match(s):
        return "arch"
    name = dtype_name(s)
    return "dtype" if name in set(_DTYPES.values()) else None
