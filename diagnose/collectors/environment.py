"""Environment messages in logs (NVML, driver, devices, arch, libraries, kernel log, nvidia-smi) → EnvFacts.

The messages say the machine or the software stack is wrong, not the kernel.  A real
sample (captured here: ``.venv/bin/python -c 'import pynvml; pynvml.nvmlInit()'``,
nvidia-ml-py 13.615.71, no NVIDIA driver)::

    OSError: libnvidia-ml.so.1: cannot open shared object file: No such file or directory
    ...
    pynvml.NVMLError_LibraryNotFound: NVML Shared Library Not Found

Tags in ``EnvFacts.issues`` (rule symbol ``env_issues``), in order of first appearance:

=============================  =====================================================================
``nvml-driver-not-loaded``     ``NVMLError_DriverNotLoaded`` / ``Driver Not Loaded``
``nvml-driver-mismatch``       ``Failed to initialize NVML: Driver/library version mismatch``
``nvml-library-not-found``     ``NVMLError_LibraryNotFound``, ``NVML Shared Library Not Found``,
                               ``libnvidia-ml.so.1: cannot open shared object file``
``driver-too-old``             PyTorch's ``The NVIDIA driver on your system is too old (found version
                               11040)`` (→ ``found_driver_version``)
``no-driver``                  ``Found no NVIDIA driver on your system``, ``NVIDIA-SMI has failed
                               because it couldn't communicate with the NVIDIA driver``,
                               ``libcuda.so.1`` missing
``nvidia-smi-not-found``       ``nvidia-smi: command not found`` / ``not found``
``cuda-visible-devices-empty`` ``CUDA_VISIBLE_DEVICES`` set to ``""``, ``-1``, ``none`` or ``NoDevFiles``
``torch-arch-unsupported``     ``... with CUDA capability sm_120 is not compatible with the current
                               PyTorch installation`` (→ ``gpu_arch``, ``supported_archs``)
``paddle-arch-unsupported``    PaddlePaddle's ``The GPU compute capability in your current machine is 90, which is
                               not supported by Paddle`` (→ ``gpu_arch``)
``fork-after-cuda-init``       ``Cannot re-initialize CUDA in forked subprocess``
``torch-cpu-build``            ``Torch not compiled with CUDA enabled``
``exclusive-compute-mode``     nvidia-smi compute mode ``E. Process`` / ``E. Thread``
``compute-mode-prohibited``    nvidia-smi compute mode ``Prohibited``
``ecc-uncorrectable``          the kernel log's ``DBE (double bit error)``, Xid 48/94/95
``xid``                        any ``NVRM: Xid (PCI:...): N`` line (→ ``xids``, ``xid``); also
``xid-hardware``, ``xid-driver``, ``xid-application``, ``xid-mixed`` from diagnose/data/xid.yaml
                               (``xid-application``: 13, 31, 43, 45 - usually the application)
``gpu-fallen-off-bus``         ``fallen off the bus``, with or without an Xid 79
``missing-library``            ``libX.so.N: cannot open shared object file``, ``Could not load
                               library X.dll`` (→ ``missing_library``)
``missing-library-then-its-error`` a library a warning said did not load (``Could not load dynamic
                               library 'libcusolver.so.11'; dlerror: ...``) that a later error names
                               (→ ``missing_library``)
``missing-module``             ``ModuleNotFoundError: No module named 'triton'`` (→ ``missing_module``)
``import-mismatch``            ``ImportError: cannot import name 'X' from 'Y'`` (→ ``import_name``,
                               ``import_from``)
``abi-mismatch``               ``undefined symbol: X``, ``symbol X version L not defined in file L with link time
                               reference`` (→ ``undefined_symbol``)
``cuda-toolkit-torch-mismatch`` ``The detected CUDA version (X) mismatches the version that was used to compile PyTorch (Y)``
``cuda-home-not-set``          ``CUDA_HOME environment variable is not set``
``nvcc-not-found``             ``nvcc: not found``, ``nvcc: command not found``,
                               ``No such file or directory: 'nvcc'``, and nvcc run by a path that holds
                               nothing (``bash: /usr/local/cuda/bin/nvcc: No such file or directory``,
                               zsh's ``no such file or directory: /usr/local/cuda/bin/nvcc``, Python's
                               ``No such file or directory: '/usr/local/cuda/bin/nvcc'``)
``permission-denied``          ``Permission denied`` on ``/dev/nvidia*``; NVML ``Insufficient Permissions``
``mig``                        MIG in use: ``MIG-`` device ids, ``MIG mode``, an nvidia-smi MIG table,
                               ``GPU-I:`` in an Xid line
=============================  =====================================================================

CUDA errors (``no CUDA-capable device is detected``, ``invalid device ordinal``, ``no kernel image
...``, ``all CUDA-capable devices are busy or unavailable``, ``uncorrectable ECC error encountered``,
``the provided PTX was compiled with an unsupported toolchain``, ``the launch timed out ...``,
``CUDA driver version is insufficient ...``, ``CUDA driver is a stub library``) are the CUDA
collector's facts (``cuda_error``, ``cuda_errors``), in every surface form; this collector does not
tag them again, so one line is one fact with one owner.

The values in those messages, for explanations (read only when the log has one of the messages
above, so a PCI address or a driver version alone makes no facts):

- ``pci_address``: the GPU a kernel-log line names when an Xid or "fallen off the bus" is there
  (``NVRM: Xid (PCI:0000:06:00): 79``, ``NVRM: The NVIDIA GPU 0000:b3:00.0``);
- ``nvml_library_version`` and ``kernel_module_version``: the two halves of a driver (nvidia-smi's
  ``NVML library version: 570.124``; the kernel module's ``API mismatch: the client has the version X,
  but this kernel module has the version Y``, ``/proc/driver/nvidia/version`` and its load line
  ``NVIDIA UNIX Open Kernel Module for x86_64  570.158.01``);
- ``driver_message``: the line of the first driver message (no-driver, nvml-driver-not-loaded,
  nvml-driver-mismatch, driver-too-old);
- ``missing_command``: the CUDA tool a shell, Python or Windows says is not there (``sh: 1: nvcc: not
  found``, ``bash: nvidia-smi: command not found``, ``zsh: command not found: nvcc``, ``No such file or
  directory: 'nvcc'``, ``'nvcc' is not recognized as ...``);
- ``denied_path`` and ``permission_message``: the refused device node (``/dev/nvidiactl``) and the line;
- ``toolkit_cuda_version`` and ``torch_cuda_version``: the two CUDA versions of
  cuda-toolkit-torch-mismatch, however the message is wrapped.

An ``nvidia-smi`` table fills ``smi_driver``, ``smi_mem_used_mib``/``smi_mem_total_mib`` (the
first GPU row), ``smi_process_count`` (rows under *Processes*, 0 when none is listed; unset when the section is
cut short after its header) and
``smi_compute_mode`` (normalised like GpuFacts: ``Default``, ``Exclusive_Process``,
``Exclusive_Thread``, ``Prohibited``).

>>> f = parse('''pynvml.NVMLError_LibraryNotFound: NVML Shared Library Not Found''')
>>> f.issues
('nvml-library-not-found',)
>>> f = parse("NVRM: Xid (PCI:0000:06:00): 79, GPU has fallen off the bus.")
>>> f.issues, f.xids, f.xid
(('xid', 'xid-hardware', 'gpu-fallen-off-bus'), (79,), 79)
>>> parse("RuntimeError: CUDA error: an illegal memory access was encountered") is None
True
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

from diagnose.collectors.gate_words import gate, words_in
from diagnose.facts import EnvFacts
from diagnose.log_records import logged_traceback_spans, reported_exception

# (tag, literal needles): a tag is set when any needle occurs.  Regex extraction runs only after.
_SIMPLE: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("nvml-driver-not-loaded", ("NVMLError_DriverNotLoaded", "NVML_ERROR_DRIVER_NOT_LOADED", "Driver Not Loaded")),
    ("nvml-driver-mismatch", ("Driver/library version mismatch", "Driver/Library version mismatch")),
    (
        "nvml-library-not-found",
        (
            "NVMLError_LibraryNotFound",
            "NVML Shared Library Not Found",
            "NVML_ERROR_LIBRARY_NOT_FOUND",
            "libnvidia-ml.so.1: cannot open shared object",
        ),
    ),
    (
        "driver-too-old",
        ("NVIDIA driver on your system is too old",),
    ),
    (
        "no-driver",
        (
            "Found no NVIDIA driver on your system",
            "couldn't communicate with the NVIDIA driver",
            "libcuda.so.1: cannot open shared object",
        ),
    ),
    ("nvidia-smi-not-found", ("nvidia-smi: command not found", "nvidia-smi: not found")),
    ("torch-arch-unsupported", ("is not compatible with the current PyTorch installation",)),
    # PaddlePaddle's start-up check (paddle/phi/backends/gpu/gpu_resources.cc): "The GPU compute capability in your
    # current machine is 90, which is not supported by Paddle, it is recommended to install the corresponding wheel
    # package according to the installation information on the official Paddle website."
    ("paddle-arch-unsupported", ("which is not supported by Paddle",)),
    ("fork-after-cuda-init", ("Cannot re-initialize CUDA in forked subprocess",)),
    ("torch-cpu-build", ("Torch not compiled with CUDA enabled",)),
    ("ecc-uncorrectable", ("DBE (double bit error)",)),
    # the Xid 79 / osinit.c text, and the "off of" users write when they quote it (as failure_lines does)
    ("gpu-fallen-off-bus", ("fallen off the bus", "fallen off of the bus")),
    ("cuda-home-not-set", ("CUDA_HOME environment variable is not set",)),
    (
        "nvcc-not-found",
        ("nvcc: not found", "nvcc: command not found", "No such file or directory: 'nvcc'", "'nvcc' is not recognized"),
    ),
)
# nvcc run by a path that holds nothing (a build or a library that hard-codes /usr/local/cuda/bin/nvcc while the
# toolkit is elsewhere or absent), as each launcher words it: bash's "bash: line 1: /usr/local/cuda/bin/nvcc: No
# such file or directory" (and a system(3) "sh" that is bash), zsh's "zsh: no such file or directory:
# /usr/local/cuda/bin/nvcc", Python's "FileNotFoundError: [Errno 2] No such file or directory:
# '/usr/local/cuda/bin/nvcc'" (tests/fixtures/environment/captured-nvcc-not-at-path-*.txt); dash's "sh: 1:
# /usr/local/cuda/bin/nvcc: not found" is the "nvcc: not found" above
_PADDLE_ARCH = re.compile(r"compute capability in your current machine is (\d{2,3}), which is not supported by Paddle")
_NVCC_PATH_NEEDLES = ("nvcc: No such file or directory", "/nvcc'", "no such file or directory: ")
_NVCC_AT_PATH = re.compile(
    r"((?:[\w.~+-]*[/\\])+nvcc(?:\.exe)?): (?:No such file or directory|not found)"
    r"|\bno such file or directory: ((?:[\w.~+-]*[/\\])+nvcc)\b"
    r"|No such file or directory: '((?:[\w.~+-]*[/\\])+nvcc(?:\.exe)?)'"
)

# needles of the extractors below (tags set by regex)
_OTHER_NEEDLES = (
    "Xid",
    "cannot open shared object file",
    "Could not load library",
    "Could not find module",
    "cannot be found",
    "No module named",
    "cannot import name",
    "undefined symbol",
    "undefined\n",
    "with link time reference",
    "mismatches the version that was used to compile",
    "Permission denied",
    "Insufficient Permissions",
    "CUDA_VISIBLE_DEVICES",
    "MIG",
    "NVIDIA-SMI",
    *_NVCC_PATH_NEEDLES,
)

_ALL_NEEDLES = tuple(n for _t, ns in _SIMPLE for n in ns) + _OTHER_NEEDLES

_XID = re.compile(r"NVRM: Xid \(([^)]*)\): (\d+)")
_FOUND_VERSION = re.compile(r"too old \(found version (\d+)\)")
_ARCH = re.compile(r"with CUDA capability (sm_\d+a?) is not compatible with the current PyTorch installation")
_SUPPORTED = re.compile(r"current PyTorch install supports CUDA capabilities((?: (?:sm|compute)_\d+a?)+)")
_IMPORT_ERROR_HEAD = re.compile(r"\bImportError: $")
_MISSING_SO = re.compile(r"([\w.+-]+\.so(?:\.[\w]+)*): cannot open shared object file")
_MISSING_DLL = re.compile(r"Could not (?:load|locate|find module) (?:library )?'?([\w.+-]+\.dll)")
# numba: "libNVVM cannot be found", "libcudart cannot be found" (a library the toolkit should have provided)
_LIB_NOT_FOUND = re.compile(r"\b(lib[A-Za-z]+\w*) cannot be found")
_NO_MODULE = re.compile(r"No module named '([\w.]+)'")
#: a folder Python's tempfile.mkdtemp() made ("tmp" and eight of [a-z0-9_]): a module built in it was built by this
#: run, moments before (a persistent cache's module, torchinductor's or torch_extensions', may be a stale one instead)
_FRESH_TEMP_DIR = re.compile(r"[\\/]tmp[a-z0-9_]{8}[\\/]")
#: the folders programs build their own shared libraries into at run time: a per-user cache (~/.cache/<package>/,
#: Windows' AppData\Local), PyTorch's torch_extensions, a temporary folder
_BUILT_BY_PROGRAM = re.compile(r"[\\/](?:\.cache|AppData[\\/]Local|tmp)[\\/]|torch_extensions", re.I)
#: an installed package's own folder (not the nvidia-* wheels' CUDA components, which are under site-packages too)
_IN_PACKAGE = re.compile(r"[\\/](?:site|dist)-packages[\\/](?!nvidia[\\/])", re.I)
#: the names of CUDA's and NVIDIA's own libraries (the toolkit's, the driver's, the math and communication libraries')
_CUDA_COMPONENT = re.compile(
    r"^(?:lib)?(?:cu(?:da|dart|blas|fft|rand|sparse|solver|dnn|pti|file|tensor|dss|quantum|statevec|tensornet)"
    r"|nccl|nvrtc|nvJitLink|nvToolsExt|nvvm|npp|nvjpeg|nvshmem|nvidia-|nvcuvid|nvinfer|nvonnxparser|nvptxcompiler)",
    re.I,
)


def _path_before(text: str, line_start: int, name_start: int) -> str:
    """The path the file name at ``name_start`` is written under: the text back to the last space or quote.

    >>> _path_before("OSError: /home/u/.cache/keops/nvrtc_jit.so: cannot", 0, 30)
    '/home/u/.cache/keops/'
    """
    head = text[line_start:name_start]
    cut = max(head.rfind(c) for c in " \t'\"`(")
    return head[cut + 1 :]


_IMPORT = re.compile(r"cannot import name '([\w.]+)' from '([\w.]+)'")
# pasted logs wrap long lines: "…gnu.so: undefined\n symbol: _ZN3c10…"
_CUDA_MISMATCH = re.compile(
    r"detected CUDA version \(([\d.]+)\)\s+mismatches the version that was used to\s+compile\s+PyTorch \(([\d.]+)\)"
)
# glibc's versioned form is "undefined symbol: NAME, version LIB" (elf/dl-lookup.c): the name ends at the comma
_UNDEF = re.compile(r"undefined\s+symbol: ?([^\s,]+)")
# its other versioned-symbol error (elf/dl-lookup.c, a "relocation error"): "symbol NAME version LIB not defined in
# file LIB with link time reference" (older releases put a comma after NAME): the file was linked against a copy of
# LIB whose version node has NAME, and the copy loaded does not, the same skew as "undefined symbol"
_UNDEF_VERSIONED = re.compile(
    r"\bsymbol ([^\s,]+),? version (\S+) not defined in file (\S+?):? with link time reference"
)
_PERM = re.compile(r"/dev/nvidia[\w-]*\S*: Permission denied|Permission denied[^\n]{0,80}/dev/nvidia")
_CVD = re.compile(r"CUDA_VISIBLE_DEVICES\s*[=:]\s*(?:\"\"|''|-1\b|none\b|NoDevFiles\b|$)", re.MULTILINE | re.IGNORECASE)
_MIG = re.compile(r"\bMIG-(?:GPU-)?[0-9a-fA-F]{8}-|\bMIG mode\b|\bMIG devices:|GPU-I:\d+")

# the GPU a kernel-log line names: "NVRM: Xid (PCI:0000:06:00): 79", "NVRM: The NVIDIA GPU 0000:b3:00.0",
# "NVRM: GPU at PCI:0000:06:00: GPU-...": domain:bus:device[.function]
_NVRM_PCI = re.compile(r"NVRM:[^\n]*?\b(?:PCI:)?([0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(?:\.[0-7])?)\b")
# the two halves of a driver: nvidia-smi's "NVML library version: 570.124"; the kernel module's
# "NVRM: API mismatch: the client has the version 535.129.03, but NVRM: this kernel module has the version
# 535.104.05", /proc/driver/nvidia/version's "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05",
# and the load line "NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  570.158.01"
_NVML_LIB = re.compile(r"NVML library version: ?([\d.]+\d)|the client has the version ([\d.]+\d)")
_KMOD = re.compile(
    r"this kernel module has the version ([\d.]+\d)|NVIDIA UNIX (?:Open )?(?:\w+ )?Kernel Module(?: for \w+)? +([\d.]+\d)"
)
# a shell, Python or Windows saying a CUDA tool is not there (bash, sh/dash, zsh, fish, make, subprocess,
# cmd.exe, PowerShell, which); only the toolkit's and the driver's commands are named
_CUDA_TOOL = (
    r"(?:[\w.~-]*[/\\])*(nvcc|nvidia-smi|ptxas|nvlink|fatbinary|cuobjdump|nvdisasm|compute-sanitizer|cuda-memcheck"
    r"|cuda-gdb|ncu|nsys|nvprof)(?:\.exe)?"
)
_TOOL_NAMES = (
    "nvcc",
    "nvidia-smi",
    "ptxas",
    "nvlink",
    "fatbinary",
    "cuobjdump",
    "nvdisasm",
    "compute-sanitizer",
    "cuda-memcheck",
    "cuda-gdb",
    "ncu",
    "nsys",
    "nvprof",
)
_MISSING_COMMAND = re.compile(
    r"\b" + _CUDA_TOOL + r": (?:[Cc]ommand not found|not found|No such file or directory)\b"
    r"|command not found: " + _CUDA_TOOL + r"\b"
    r"|Unknown command:? '?" + _CUDA_TOOL + r"\b"
    r"|No such file or directory: '" + _CUDA_TOOL + r"'"
    r"|'" + _CUDA_TOOL + r"' is not recognized as"
    r"|The term '" + _CUDA_TOOL + r"' is not recognized"
    r"|which: no " + _CUDA_TOOL + r" in "
    r"|\bno such file or directory: " + _CUDA_TOOL + r"\b"
)
_DEV_NODE = re.compile(r"/dev/nvidia[\w-]*(?:/[\w-]+)?")
_MAX_MESSAGE = 200

_SMI_HEAD = re.compile(r"NVIDIA-SMI ([\d.]+)\s+Driver Version: ([\d.]+)")
_SMI_MEM = re.compile(r"(\d+)MiB\s*/\s*(\d+)MiB\s*\|\s*(?:\d+|N/A)%?\s+(Default|E\. Process|E\. Thread|Prohibited)")
_SMI_MEM_ONLY = re.compile(r"(\d+)MiB\s*/\s*(\d+)MiB")
_SMI_PROC = re.compile(r"^\|\s+\d+\s+(?:N/A\s+N/A\s+|\d+\s+\d+\s+)?\d+\s+[CGM+]+\s+\S.*\b(?:\d+MiB|N/A)\s*\|\s*$")
_COMPUTE_MODE = {
    "Default": "Default",
    "E. Process": "Exclusive_Process",
    "E. Thread": "Exclusive_Thread",
    "Prohibited": "Prohibited",
}


@functools.cache
def xid_table() -> dict[int, dict[str, Any]]:
    """diagnose/data/xid.yaml by number (loaded once, on the first Xid seen)."""
    import yaml

    path = Path(__file__).resolve().parent.parent / "data" / "xid.yaml"
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's, where PyYAML has it: the same data
    return {int(e["number"]): e for e in yaml.load(path.read_text(encoding="utf-8"), Loader=loader)}


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def _line_at(text: str, index: int) -> str:
    """The line that holds ``index``, stripped (cut when it is very long)."""
    start = text.rfind("\n", 0, index) + 1
    end = text.find("\n", index)
    line = text[start : end if end >= 0 else len(text)].strip()
    return line if len(line) <= _MAX_MESSAGE else line[: _MAX_MESSAGE - 3] + "..."


class _Tags:
    """Tags with the offset they were found at (so they come out in order of appearance) and their lines."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.found: list[tuple[int, str]] = []
        self.lines: set[int] = set()

    def __call__(self, name: str, at: int) -> None:
        self.found.append((at, name))
        self.lines.add(_line_of(self.text, at))


def _xids(text: str, tag: _Tags, kw: dict[str, Any]) -> None:
    """Kernel-log Xid lines: every number, and what diagnose/data/xid.yaml says each one points at."""
    lines = tag.lines
    xids: list[int] = []
    if "Xid" in text:
        for xm in _XID.finditer(text):
            xids.append(int(xm.group(2)))
            lines.add(_line_of(text, xm.start()))
            if "GPU-I:" in xm.group(1):
                tag("mig", xm.start())
        if xids:
            at = text.find("NVRM: Xid")
            tag("xid", at)
            table = xid_table()
            for x in dict.fromkeys(xids):
                entry = table.get(x)
                if entry is None:
                    continue
                tag("xid-application" if entry.get("application_fault") else f"xid-{entry['origin']}", at)
                if x in (48, 94, 95):
                    tag("ecc-uncorrectable", at)
            kw["xids"] = tuple(dict.fromkeys(xids))
            kw["xid"] = xids[0]


def _torch_messages(text: str, kw: dict[str, Any]) -> None:
    """The figures in PyTorch's driver-too-old and arch-not-compatible messages."""
    if "too old (found version" in text:
        m = _FOUND_VERSION.search(text)
        if m:
            kw["found_driver_version"] = int(m.group(1))
    if "is not compatible with the current PyTorch" in text:
        m = _ARCH.search(text)
        if m:
            kw["gpu_arch"] = m.group(1)
        m = _SUPPORTED.search(text)
        if m:
            kw["supported_archs"] = tuple(m.group(1).split())
    if "which is not supported by Paddle" in text:
        m = _PADDLE_ARCH.search(text)
        if m:
            kw["gpu_arch"] = f"sm_{m.group(1)}"


# a line logged at warning or info severity: glog/absl's "W1203 10:00:00.1 …" and TensorFlow's timestamped
# "2021-03-01 10:00:00.123456: W tensorflow/…" (its dso_loader warns and carries on without the GPU library:
# "Ignore above cudart dlerror if you do not have a GPU set up on your machine"), Python's "UserWarning: …", NCCL's
# "host:pid:tid [0] NCCL INFO …" (its optional plugins and symbols probed and not found: "dlvsym failed on X …
# undefined symbol: X"), and structured loggers' INFO and DEBUG levels ("level=INFO", "[DEBUG]")
_WARNED_LINE = re.compile(
    r"^(?:\S+\s+)?(?:[WI]\d{4} \d\d:\d\d:\d\d|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?: [WI] )"
    r"|\b(?:User|Runtime|Deprecation|Import)?Warning: |\bNCCL INFO\b|\blevel=(?:INFO|DEBUG)\b|\[(?:INFO|DEBUG)\]",
)


def _first_not_warned(
    pattern: re.Pattern[str], text: str, skip: list[tuple[int, int]] | None = None
) -> re.Match[str] | None:
    """The first match of ``pattern`` on a line not logged as a warning, nor a report's field holding an exception's
    ``repr`` (:func:`~diagnose.log_records.reported_exception`), nor inside one of the ``skip`` spans (a traceback a
    warning logged): a library or module the program warned about, or reported unloadable, and went on without is
    not what failed.

    >>> line = "2021-03-01 10:00:00.1: W tensorflow/x/dso_loader.cc:60] Could not load dynamic library "
    >>> _first_not_warned(_MISSING_SO, line + "'a.so'; dlerror: a.so: cannot open shared object file") is None
    True
    >>> _first_not_warned(_MISSING_SO, "OSError: b.so: cannot open shared object file")[1]
    'b.so'
    >>> probe = "h:1:2 [1] NCCL INFO dlvsym failed on f - /lib/libmlx5.so: undefined symbol: f, version MLX5_1.25"
    >>> _first_not_warned(_UNDEF, probe) is None, _first_not_warned(_UNDEF, probe + "\\nImportError: undefined symbol: g")[1]
    (True, 'g')
    """
    for m in pattern.finditer(text):
        if skip and any(a <= m.start() < b for a, b in skip):
            continue
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        line = text[start : end if end >= 0 else len(text)]
        if not _WARNED_LINE.search(line) and not reported_exception(line):
            return m
    return None


#: the error words of a later line that names the library a warning said did not load
_ERROR_WORDS = re.compile(r"(?i)\berror\b|\bfail(?:ed|ure|s)?\b|\bstatus\b|\bnot initialized\b")
#: names too common to tie a later line to the library (libcuda.so.1 is the driver's: its own tags)
_COMMON_STEMS = frozenset({"cuda", "c", "m", "dl", "rt", "stdc++", "gcc_s", "python3"})


def _warned_then_failed(text: str) -> re.Match[str] | None:
    """A library a warning said did not load (TensorFlow's / jaxlib's dso_loader: "Could not load dynamic
    library 'libcusolver.so.11'; dlerror: ...") that a later error names (``cusolverDnCreate(&handle)
    failed: cuSolver internal error``): the program went on without it and failed in it, so the failed load
    decides, whatever status the later error prints.

    >>> w = "2021-10-19 12:49:58.2: W x/dso_loader.cc:64] Could not load dynamic library 'libcusolver.so.11'; "
    >>> w += "dlerror: libcusolver.so.11: cannot open shared object file: No such file or directory\\n"
    >>> _warned_then_failed(w + "RuntimeError: jaxlib/cusolver.cc:51: cusolverDnCreate(&handle) failed: cuSolver internal error")[1]
    'libcusolver.so.11'
    >>> _warned_then_failed(w + "Epoch 1 loss 0.3") is None
    True
    """
    low = text.lower()
    seen: set[str] = set()
    for m in _MISSING_SO.finditer(text):
        stem = re.sub(r"^lib|\.so.*$", "", m.group(1)).lower()
        if len(stem) < 4 or stem in _COMMON_STEMS or stem in seen:
            continue
        seen.add(stem)
        pos, tries = text.find("\n", m.end()), 0
        while pos >= 0 and tries < 200:  # a bounded look: the error follows the failed load, not 10^5 lines on
            tries += 1
            hit = low.find(stem, pos)
            if hit < 0:
                break
            start, end = low.rfind("\n", 0, hit) + 1, text.find("\n", hit)
            line = text[start : end if end >= 0 else len(text)]
            if _ERROR_WORDS.search(line) and not _WARNED_LINE.search(line):
                return m
            pos = end
    return None


def _libraries(text: str, tag: _Tags, kw: dict[str, Any]) -> None:
    """Missing shared libraries and modules, imports of names that are not there, undefined symbols."""
    if (
        "cannot open shared object file" in text
        or "Could not load library" in text
        or "Could not locate" in text
        or "Could not find module" in text
        or "cannot be found" in text
    ):
        m = _first_not_warned(_MISSING_SO, text) or _first_not_warned(_MISSING_DLL, text)
        m = m or _first_not_warned(_LIB_NOT_FOUND, text)
        if m:
            kw["missing_library"] = m.group(1)
            tag("missing-library", m.start())
            # CPython's importer words a compiled module's dependency it could not load as "ImportError: <dlerror>"
            line_start = text.rfind("\n", 0, m.start()) + 1
            if m.re is _MISSING_SO and _IMPORT_ERROR_HEAD.search(text[line_start : m.start()]):
                kw["missing_library_at_import"] = True
            folder = _path_before(text, line_start, m.start(1))
            if _BUILT_BY_PROGRAM.search(folder):
                kw["missing_library_in_cache"] = True
            elif _IN_PACKAGE.search(folder) and not _CUDA_COMPONENT.match(m.group(1)):
                kw["missing_library_in_package"] = True
        else:
            m = _warned_then_failed(text)
            if m:
                kw["missing_library"] = m.group(1)
                tag("missing-library-then-its-error", m.start())
    if "No module named" in text:
        # a caught import a warning logged, or a warning that names the module (torch's "UserWarning: Failed to
        # initialize NumPy: No module named 'numpy'"): an optional dependency the program went on without
        m = _first_not_warned(_NO_MODULE, text, skip=logged_traceback_spans(text))
        if m:
            kw["missing_module"] = m.group(1)
            tag("missing-module", m.start())
    if "cannot import name" in text:
        m = _IMPORT.search(text)
        if m:
            kw["import_name"], kw["import_from"] = m.group(1), m.group(2)
            tag("import-mismatch", m.start())
    if "undefined symbol" in text or ("undefined\n" in text and "symbol:" in text):
        m = _first_not_warned(_UNDEF, text)
        if m:
            kw["undefined_symbol"] = m.group(1)
            line_start = text.rfind("\n", 0, m.start()) + 1
            if not m.group(1).startswith("_Z") and _FRESH_TEMP_DIR.search(text[line_start : m.start()]):
                kw["undefined_symbol_in_built"] = True
            tag("abi-mismatch", m.start())
    if "undefined_symbol" not in kw and "with link time reference" in text:
        m = _UNDEF_VERSIONED.search(text)
        if m:
            kw["undefined_symbol"] = m.group(1)
            tag("abi-mismatch", m.start())


def _setup(text: str, tag: _Tags, kw: dict[str, Any]) -> None:
    """How the machine is set up: toolkit versions, device permissions, visible devices, MIG."""
    if "mismatches the version that was used to compile" in text:
        # torch.utils.cpp_extension: "The detected CUDA version (12.2) mismatches the version that was
        # used to compile PyTorch (11.3)": the toolkit that builds an extension is not torch's CUDA
        m = _CUDA_MISMATCH.search(text)
        if m:
            tag("cuda-toolkit-torch-mismatch", m.start())
            kw["toolkit_cuda_version"], kw["torch_cuda_version"] = m.group(1), m.group(2)
    denied = []
    if "Permission denied" in text and "/dev/nvidia" in text:
        m = _PERM.search(text)
        if m:
            tag("permission-denied", m.start())
            denied.append(m.start())
            node = _DEV_NODE.search(m.group(0))
            if node:
                kw["denied_path"] = node.group(0)
    if "Insufficient Permissions" in text:
        tag("permission-denied", text.find("Insufficient Permissions"))
        denied.append(text.find("Insufficient Permissions"))
    if denied:
        kw["permission_message"] = _line_at(text, min(denied))
    if "CUDA_VISIBLE_DEVICES" in text:
        m = _CVD.search(text)
        if m:
            tag("cuda-visible-devices-empty", m.start())
    if "MIG" in text:
        m = _MIG.search(text)
        if m:
            tag("mig", m.start())


#: whether the log holds one of the needles, from one pass over it (diagnose.collectors.gate_words)
_has_needle = gate(_ALL_NEEDLES)


def parse(text: str) -> EnvFacts | None:
    if not _has_needle(text):
        return None
    tag = _Tags(text)
    found = words_in(text)  # the needles the log holds (the gate's pass)
    for name, needles in _SIMPLE:
        hits = [text.find(n) for n in needles if n in found]
        if hits:
            tag(name, min(hits))
    kw: dict[str, Any] = {}
    if "nvcc" in text and any(n in found for n in (*_NVCC_PATH_NEEDLES, "nvcc: not found")):
        m = _NVCC_AT_PATH.search(text)
        if m:
            tag("nvcc-not-found", m.start())
            kw["missing_command_path"] = next(g for g in m.groups() if g)
    _xids(text, tag, kw)
    _torch_messages(text, kw)
    _libraries(text, tag, kw)
    _setup(text, tag, kw)
    if "NVIDIA-SMI" in text:
        _smi(text, kw, tag, tag.lines)
    if not tag.found and not kw:
        return None
    _driver(text, tag, kw)
    issues = tuple(dict.fromkeys(name for _at, name in sorted(tag.found, key=lambda p: p[0])))
    return EnvFacts(lines=tuple(sorted(tag.lines)), issues=issues, **kw)


#: tags whose message is the driver's (missing, not loaded, mismatched, too old): ``driver_message``
_DRIVER_TAGS = ("no-driver", "nvml-driver-not-loaded", "nvml-driver-mismatch", "driver-too-old")


def _driver(text: str, tag: _Tags, kw: dict[str, Any]) -> None:
    """The values in the messages already tagged: the GPU's PCI address, the two driver versions, the
    driver's own line, the missing command.  Read only when the log has an environment message, so a
    log that merely mentions a PCI address or a driver version stays without environment facts."""
    found = {name: at for at, name in sorted(tag.found, reverse=True)}  # each tag's first offset
    if "NVRM" in text and ("xid" in found or "gpu-fallen-off-bus" in found):
        m = _NVRM_PCI.search(text)
        if m:
            kw["pci_address"] = m.group(1)
    if "version" in text or "Kernel Module" in text:
        m = _NVML_LIB.search(text)
        if m:
            kw["nvml_library_version"] = m.group(1) or m.group(2)
        m = _KMOD.search(text)
        if m:
            kw["kernel_module_version"] = m.group(1) or m.group(2)
    at = [found[t] for t in _DRIVER_TAGS if t in found]
    if at:
        kw["driver_message"] = _line_at(text, min(at))
    command = _missing_command(text)
    if command:
        kw["missing_command"] = command


def _missing_command(text: str) -> str | None:
    """The first CUDA tool a shell says is missing; only the lines that name a tool are searched."""
    best: tuple[int, str] | None = None
    for tool in _TOOL_NAMES:
        at, seen = text.find(tool), 0
        while at >= 0 and seen < 50 and (best is None or at < best[0]):
            m = _MISSING_COMMAND.search(_line_at(text, at))
            if m:
                best = (at, next(g for g in m.groups() if g))
                break
            at, seen = text.find(tool, at + 1), seen + 1
    return best[1] if best else None


def _smi(text: str, kw: dict[str, Any], tag: Any, lines: set[int]) -> None:
    """Read an nvidia-smi table: driver, first GPU's memory and compute mode, listed processes."""
    m = _SMI_HEAD.search(text)
    if not m:
        return
    start = m.start()
    kw["smi_driver"] = m.group(2)
    lines.add(_line_of(text, start))
    # "NVIDIA-SMI 410.48 ... Driver Version: 410.48" and the table below it
    body = text[start : start + 20_000]
    mem = _SMI_MEM.search(body)
    if mem:
        kw["smi_mem_used_mib"] = float(mem.group(1))
        kw["smi_mem_total_mib"] = float(mem.group(2))
        mode = _COMPUTE_MODE[mem.group(3)]
        kw["smi_compute_mode"] = mode
        if mode in ("Exclusive_Process", "Exclusive_Thread"):
            tag("exclusive-compute-mode", start + mem.start())
        elif mode == "Prohibited":
            tag("compute-mode-prohibited", start + mem.start())
    else:
        mem2 = _SMI_MEM_ONLY.search(body)
        if mem2:
            kw["smi_mem_used_mib"] = float(mem2.group(1))
            kw["smi_mem_total_mib"] = float(mem2.group(2))
    p = body.find("Processes:")
    if p >= 0:
        # counted only from a whole section: one that says it lists none, or ends in its closing border; a table
        # cut short after its header (a pasted excerpt) says nothing about the processes
        count, whole = 0, "No running processes found" in body[p : p + 2_000]
        for line in body[p:].splitlines()[1:]:
            s = line.strip()
            if not s:
                break
            if not s.startswith(("|", "+")):
                break
            if s.startswith("+"):
                whole = True
                break
            if _SMI_PROC.match(s):
                count += 1
        if whole:
            kw["smi_process_count"] = count
