r"""A device symbol or kernel looked up by name and not found: the dtype its name carries, and the GPUs the log
prints the compute capability of.

``named symbol not found`` (``cudaErrorSymbolNotFound`` / ``CUDA_ERROR_NOT_FOUND``, from ``cuModuleGetFunction``,
``cudaGetSymbolAddress`` or a framework loading a kernel by its name) has three owners: a build without code for
the GPU's architecture, a kernel the source compiles only for newer GPUs, and a name the device code never
defines.  A kernel whose name carries a reduced-precision dtype settles the second when the log also prints the
GPU's capability: bfloat16 arithmetic needs sm_80 and fp8 conversions sm_89 (ptxas's own refusals, "Feature
'.bf16' requires .target sm_80 or higher", "Feature 'cvt with .e4m3x2' requires .target sm_89 or higher"), so
sources guard such kernels with ``#if __CUDA_ARCH__ >= 800`` / ``>= 890`` and an older GPU has none of them.

The capability is read where a tool prints it in its own format: deviceQuery's ``CUDA Capability Major/Minor
version number:    7.5`` (cuda-samples, Samples/1_Utilities/deviceQuery/deviceQuery.cpp) and the ``compute_cap``
column of ``nvidia-smi --query-gpu=...,compute_cap --format=csv`` (nvidia-smi's documented query field: "The CUDA
Compute Capability, represented as Major DOT Minor").  Programs that list their GPUs at start-up print it too:
TensorFlow's device description (``core/common_runtime/gpu/gpu_device.cc``: ``device: 0, name: GeForce GTX 1080,
pci bus id: 0000:01:00.0, compute capability: 6.1``; TensorFlow 1.x's ``Found device 0 with properties: name: ...
major: 6 minor: 1 memoryClockRate(GHz): ...``) and the xmrig miners' GPU list (xmrig-nvidia and xmrig-cuda,
``print_gpu``/``printThreads``: `` * GPU #0: NVS 310 @ 1046/875 MHz 64x2 8x25 arch:21 SMX:1``, ``arch:%d%d``
being the major and the minor digit).

>>> symbol_dtype('Error: DriverError(CUDA_ERROR_NOT_FOUND, "named symbol not found") when loading cast_f32_bf16')
('cast_f32_bf16', 'bfloat16', 8.0)
>>> symbol_dtype("named symbol not found: affine_f8_e4m3")
('affine_f8_e4m3', 'fp8', 8.9)
>>> symbol_dtype("CUDA error cudaErrorSymbolNotFound [/src/bf16/bulk.cuh:239]: named symbol not found") is None
True
>>> printed_device_ccs("  CUDA Capability Major/Minor version number:    7.5\n")
(7.5,)
>>> printed_device_ccs("name, compute_cap, driver_version\nTesla T4, 7.5, 535.1\nNVIDIA A100-SXM4-40GB, 8.0, 535.1\n")
(7.5, 8.0)
>>> printed_device_ccs(" * GPU #0:       NVS 310 @ 1046/875 MHz 64x2 8x25 arch:21 SMX:1")
(2.1,)
>>> printed_device_ccs("(device: 0, name: Tesla K80, pci bus id: 0000:00:1e.0, compute capability: 3.7)")
(3.7,)
>>> printed_device_ccs("name: GeForce GTX 1080 Ti major: 6 minor: 1 memoryClockRate(GHz): 1.582")
(6.1,)

Where the log names its GPUs without a capability, the name decides it (diagnose/data/gpu_names.yaml, NVIDIA's
list), read in the forms tools list devices in: nvidia-smi's table row and ``-L`` line, deviceQuery's ``Device 0:
"..."``, and a program's own ``Device``/``GPU N``/``Using device`` line.

>>> named_device_ccs("GPU 0: NVIDIA GeForce GTX 960 (UUID: GPU-5e1f)")
(5.2,)
>>> named_device_ccs('Device 0: "Tesla K40m"'), named_device_ccs("Device Tesla K40m")
((3.5,), (3.5,))
>>> named_device_ccs("|   0  NVIDIA GeForce RTX 3090     Off |  00000000:01:00.0  On |   N/A |")
(8.6,)
>>> named_device_ccs("GPU 0: GeForce GTX TITAN X (UUID: GPU-1)"), named_device_ccs("works on my GTX 960")
((), ())
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import yaml

GPU_NAMES = Path(__file__).resolve().parent.parent / "data" / "gpu_names.yaml"

_NOT_FOUND = re.compile(r"named symbol not found|\bCUDA_ERROR_NOT_FOUND\b|\bcudaErrorSymbolNotFound\b")
#: an identifier standing alone: not part of a path, a file name or a longer word
_IDENT = re.compile(r"(?<![\w/.\\-])[A-Za-z_][A-Za-z0-9_]*(?![\w/.\\-])")
#: dtype words as kernel names spell them, each a whole part of the name (between underscores or at its ends)
_DTYPES: tuple[tuple[re.Pattern[str], str, float], ...] = (
    (re.compile(r"(?:^|_)(?:bf16|bfloat16)(?:_|$)", re.I), "bfloat16", 8.0),
    (re.compile(r"(?:^|_)(?:fp8|f8e4m3|f8e5m2|f8_e4m3|f8_e5m2|e4m3|e5m2)(?:_|$)", re.I), "fp8", 8.9),
)
_DEVICE_QUERY = re.compile(r"CUDA Capability Major/Minor version number:\s+(\d+)\.(\d+)")
_CSV_CC = re.compile(r"^\d+\.\d+$")
_TF_DEVICE = re.compile(r"\bpci bus id: [^,()]*, compute capability: (\d+)\.(\d+)")
_TF1_PROPS = re.compile(r"\bmajor: (\d+) minor: (\d+) memoryClockRate")
#: "%d%d": one digit each below 10.0; a three-digit value is a two-digit major (12.0 prints "120")
_XMRIG = re.compile(r"\barch:(\d{1,2})(\d) (?:SMX|smx):\d+")
#: the forms printed inline (major and minor as two groups), each with a word every match holds
_INLINE_CC = (
    ("Capability Major/Minor", _DEVICE_QUERY),
    ("compute capability: ", _TF_DEVICE),
    ("memoryClockRate", _TF1_PROPS),
    ("arch:", _XMRIG),
)


#: a line that lists a GPU by name: nvidia-smi's table row and -L line, deviceQuery's, a program's device line
_DEVICE_NAME = re.compile(
    r"^\|\s+\d+\s+(?P<smi>[^|]+?)\s+(?:On|Off)\s+\|"
    r"|\bGPU \d+: (?P<list>[^(\n]+?) \(UUID"
    r"|\bDevice \d+: \"(?P<query>[^\"\n]+)\""
    r"|(?:\b(?:Using (?:CUDA )?)?[Dd]evice(?: \[?\d+\]?)?|\bGPU ?#?\d+)\s*[:=]?\s+(?P<line>(?:NVIDIA )?(?:GeForce|Tesla|Quadro|TITAN|RTX|NVS)\b[^,;(\n]*)",
    re.MULTILINE,
)


@cache
def _names() -> tuple[tuple[re.Pattern[str], float], ...]:
    loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    data = yaml.load(GPU_NAMES.read_text(encoding="utf-8"), Loader=loader)
    return tuple((re.compile(g["name"], re.IGNORECASE), float(g["cc"])) for g in data["gpus"])


def cc_of_name(name: str) -> float | None:
    """The compute capability of the GPU ``name`` names, when the name alone decides it."""
    name = name.strip().removeprefix("NVIDIA ").strip()
    return next((cc for rx, cc in _names() if rx.search(name)), None)


def named_device_ccs(text: str) -> tuple[float, ...]:
    """The distinct compute capabilities of the GPUs the log lists by name, in order (names two architectures
    share give none)."""
    if not any(w in text for w in ("GPU", "Device", "device", "|")):
        return ()
    found: list[float] = []
    for m in _DEVICE_NAME.finditer(text):
        name = next(g for g in m.groups() if g)
        cc = cc_of_name(name)
        if cc is not None:
            found.append(cc)
    return tuple(dict.fromkeys(found))


def named_device_line(text: str) -> int | None:
    """The line (1-based) of the first GPU the log lists by a name that decides its capability, else None."""
    for m in _DEVICE_NAME.finditer(text):
        if cc_of_name(next(g for g in m.groups() if g)) is not None:
            return text.count("\n", 0, m.start()) + 1
    return None


def device_ccs(text: str) -> tuple[float, ...]:
    """The GPUs' compute capabilities: those the log prints, else those the names it lists give."""
    return printed_device_ccs(text) or named_device_ccs(text)


def device_cc_line(text: str) -> int | None:
    """The line that shows the GPU's capability: where it is printed, else where the GPU is named."""
    return printed_device_cc_line(text) or named_device_line(text)


def symbol_dtype(line: str) -> tuple[str, str, float] | None:
    """(the kernel's name, its dtype, the compute capability that dtype's kernels need) when ``line`` reports a
    symbol not found and names a kernel whose name carries a reduced-precision dtype."""
    if not _NOT_FOUND.search(line):
        return None
    for m in _IDENT.finditer(line):
        name = m.group(0)
        for rx, dtype, cc in _DTYPES:
            if rx.search(name):
                return name, dtype, cc
    return None


def symbol_dtype_in(text: str) -> tuple[str, str, float] | None:
    """:func:`symbol_dtype` of the first line of ``text`` that has one."""
    return next((hit for line in text.splitlines() if (hit := symbol_dtype(line))), None)


def printed_device_ccs(text: str) -> tuple[float, ...]:
    """The distinct compute capabilities the log prints for its GPUs, in order (deviceQuery, nvidia-smi's CSV)."""
    found: list[float] = []
    for word, rx in _INLINE_CC:
        if word in text:
            found += [float(f"{int(a)}.{int(b)}") for a, b in rx.findall(text)]
    if "compute_cap" in text:
        lines = text.splitlines()
        for i, line in enumerate(lines):
            cols = [c.strip() for c in line.split(",")]
            if "compute_cap" not in cols:
                continue
            k = cols.index("compute_cap")
            for row in lines[i + 1 :]:
                vals = [c.strip() for c in row.split(",")]
                if len(vals) != len(cols) or not _CSV_CC.match(vals[k]):
                    break
                found.append(float(vals[k]))
    return tuple(dict.fromkeys(found))


def printed_device_cc_line(text: str) -> int | None:
    r"""The line (1-based) of the first compute capability the log prints for a GPU in a form read inline
    (deviceQuery, TensorFlow's device line or properties, the xmrig list), else None.

    >>> printed_device_cc_line("start\n * GPU #0:       NVS 310 @ 1046/875 MHz 64x2 8x25 arch:21 SMX:1\n")
    2
    """
    hits = [m.start() for _, rx in _INLINE_CC if (m := rx.search(text))]
    return text.count("\n", 0, min(hits)) + 1 if hits else None
