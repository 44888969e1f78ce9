"""Read what a stated contract lists, whatever library printed it.

A library that refuses an input states its contract: "FlashAttention only supports head dimension at
most 256", "X is only supported for fp16 and bf16", "supports only contiguous tensors", "BLOCK_SIZE_K //
group_size must be one of [1, 2, 4, 8]".  A message family (``contract-statements.yaml``) captures the
subject, the supported values (as printed) and, where printed, the refused value; the functions here
say what kind of values the contract lists, so the concept rules decide the owner from that kind, not
from one library's words:

>>> supported_kind("fp16 and bf16"), supported_kind("head dimension at most 256"), supported_kind("[1, 2, 4, 8]")
('dtype', 'size', 'size')
>>> supported_kind("contiguous tensors"), supported_kind("sm_80 and up"), supported_kind("CUDA 10.0 or higher")
('layout', 'arch', 'version')
>>> supported_kind("CPU, XPU, CUDA and MPS devices"), supported_kind("C++ wrapper")
('device', None)
"""

from __future__ import annotations

import re

from diagnose import concepts as C

#: a release of a component: "CUDA 10.0 or higher", "torch>=2.1", "driver 535", "version 3.8"
_VERSION = re.compile(
    r"(?i)\bversions?\b|\b(?:cuda|torch|pytorch|python|triton|jax|jaxlib|cudnn|nccl|driver|toolkit|rocm|cupy)"
    r"\s*(?:>=|==|v)?\s*\d+(?:\.\d+|\.x)+\b|\b(?:cuda|driver)\s+\d+\b(?!\s*(?:devices?|gpus?|tensors?))"
)
#: a GPU architecture or generation: "sm_80 and up", "compute capability 8.0", "Ampere GPUs", "CDNA4"
_ARCH = re.compile(
    r"(?i)\b(?:sm_?\d{2,3}[a-z]?\+?|compute[ _]capabilit(?:y|ies)|cc\s*\d|(?:pre-?)?(?:volta|turing|ampere|hopper|"
    r"blackwell|ada(?:\s+lovelace)?)\b|cdna\d|rdna\d|gfx\d+|(?:gpus?|devices?|architectures?)\s+(?:newer|later)\b)"
)
#: a dtype any framework names, or a class of them ("floating-point dtypes", "complex dtypes")
_DTYPE_WORD = re.compile(
    r"(?i)\b(?:torch\.|jnp\.|tl\.|np\.)?(?:b?float\d*\w*|half|double|bf16|fp\d+\w*|f(?:16|32|64)|u?int\d+|bool(?:ean)?|"
    r"complex\d*|s8|u8|e4m3\w*|e5m2\w*)\b|\b(?:floating[- ]point|integral|complex|real)\s+(?:d?types?|tensors?|inputs?)\b"
    r"|\bd\s?types?\b|\bdata\s+types?\b|\bscalar\s+types?\b"
)
#: a layout property: dense, aligned, strided, a memory format, a multiple of a number
_LAYOUT = re.compile(
    r"(?i)\bcontiguous\b|\bstrided\s+layout\b|\bchannels_?last\w*\b|\bmemory\s+format\b|\brow[- ]major\b"
    r"|\bcolumn[- ]major\b|\baligned\b|\balignment\b|\bstride\b|\bmultiples?\s+of\b|\bdivisible\s+by\b|\bdense\b"
)
#: a device kind: "CPU tensors", "CUDA, CPU, HPU, or MPS devices", "on one CUDA device"
_DEVICE = re.compile(
    r"(?i)\b(?:cpu|cuda|gpu|xpu|mps|hpu|tpu|meta)\b[\w ,]{0,40}?\b(?:tensors?|devices?|inputs?|arrays?)\b"
)
#: a size, count or shape value: a number, a list of them, "2D", "at most N", a size-like word with a number
_SIZE = re.compile(
    r"(?i)^\W*\d+(?:\s*(?:,|/|\bor\b|\band\b)\s*\d+)*\W*$|\b\d+-?d\b|\b(?:at\s+most|up\s+to|at\s+least|<=|>=|<|>)\s*\d+"
    r"|\b(?:dim(?:ension)?s?|size|sizes|length|rank|heads?|groups?|blocks?|tiles?|channels|batch)\b[^\n]{0,30}?\d+"
    r"|\b\d+\s*(?:or\s+(?:more|fewer|less)\s+)?(?:dim(?:ension)?s?|elements?|rows|columns|channels|heads)\b"
)


def supported_kind(raw: str | None) -> str | None:
    """What kind of values a stated contract lists: ``version`` | ``arch`` | ``dtype`` | ``layout`` |
    ``device`` | ``size``; None when the words name none of them (an option, a feature, a mode).

    Versions and arches come first: "bf16 only on sm_80 and up" is about the GPU, "CUDA 11.8 or higher"
    about the stack, whatever dtype or device word sits beside them.

    >>> supported_kind("GPUs with compute capability of at least 8.0"), supported_kind("2D tensors")
    ('arch', 'size')
    >>> supported_kind("float32, float64, complex64, and complex128"), supported_kind("runtime dst scales")
    ('dtype', None)
    >>> supported_kind(None), supported_kind("tensors with 2 or more dimensions")
    (None, 'size')
    """
    if not raw:
        return None
    s = raw.strip()
    if _VERSION.search(s):
        return "version"
    if _ARCH.search(s):
        return "arch"
    if _LAYOUT.search(s):
        return "layout"
    if _DEVICE.search(s):
        return "device"
    if _dtype_list(s):
        return "dtype"
    if _SIZE.search(s):
        return "size"
    return None


def _dtype_list(s: str) -> bool:
    """Whether ``s`` lists dtypes: dtype names (``fp16 and bf16``, ``[torch.float16, torch.bfloat16]``) or a
    class of them (``floating-point dtypes``).

    >>> _dtype_list("fp16 and bf16 data type"), _dtype_list("int8 and e4m3fn weights"), _dtype_list("[1, 2]")
    (True, True, False)
    """
    return _DTYPE_WORD.search(s) is not None


def layout_contract(raw: str | None) -> str | None:
    """The contract a layout statement names (``diagnose.concepts.CONTRACT_MODES``): ``contiguous``,
    ``aligned``, ``divisible``; or ``device`` for a device statement.

    >>> layout_contract("contiguous tensors"), layout_contract("16-byte aligned pointers"), layout_contract("a multiple of 8")
    ('contiguous', 'aligned', 'divisible')
    >>> layout_contract("CPU tensors"), layout_contract("head size 64")
    ('device', None)
    """
    if not raw:
        return None
    s = raw.lower()
    if re.search(r"\bmultiples?\s+of\b|\bdivisible\s+by\b", s):
        return "divisible"
    if re.search(r"\baligned\b|\balignment\b", s):
        return "aligned"
    # a memory format (channels_last, row-major) is a layout of the same kind: the strides the code reads
    if re.search(
        r"\bcontiguous\b|\bstrided\s+layout\b|\bstride\b|\bdense\b|\b(?:row|column)[- ]major\b|\bchannels_?last|\bmemory\s+format\b",
        s,
    ):
        return "contiguous"
    if supported_kind(raw) == "device":
        return "device"
    return None


#: what follows a contract's values on its line: the refused value ("but got 3", "got: torch.float32",
#: "(got 512)", "but found Half", "but is 3D"), or words that end the statement ("for now", ", we will ...")
_GOT = re.compile(
    r"(?i)[\s,;:.(]*\b(?:but\s+(?:got|found|received|is|was)|got|found|received|was\s+given|you\s+passed)\s*:?\s*(?:(?:a|an|d?type)\s+)?"
    r"(?P<got>[`'\"]?[\w.:+-]+[`'\"]?(?:\s*x\s*\d+)*)\)?[^\n]*$"
)
_TAIL = re.compile(
    r"(?i)\s*(?:[,;(]\s*)?(?:(?:right\s+)?now|for\s+now|currently|at\s+the\s+moment|at\s+this\s+time|yet|"
    r"(?:but|we|please|so|and\s+we|which|instead|for\s+\w+\s+(?:backend|device|kernels?))\b[^\n]*)\s*$"
)


def _value_like(s: str) -> bool:
    """Whether a word after "got"/"found" is a value (a number, a dtype, an arch, a device, a name as code
    prints it) rather than the start of a sentence.

    >>> _value_like("16"), _value_like("torch.float32"), _value_like("Long"), _value_like("mps"), _value_like("input")
    (True, True, True, True, False)
    """
    if re.search(r"\d|^[A-Z]|[.:_]", s):
        return True
    return bool(C.unsupported_kind(s) or C.device_kind(s))


def split_got(raw: str | None) -> tuple[str | None, str | None]:
    """A captured contract statement → (the supported values, the refused value where printed).

    >>> split_got("head dimension at most 256")
    ('head dimension at most 256', None)
    >>> split_got("[1, 2, 4, 8], but got 16")
    ('[1, 2, 4, 8]', '16')
    >>> split_got("fp16 and bf16 data type, got torch.float32.")
    ('fp16 and bf16 data type', 'torch.float32')
    >>> split_got("head size 64, 128, and 256 for now")
    ('head size 64, 128, and 256', None)
    >>> split_got("2D tensors, got 3D")
    ('2D tensors', '3D')
    >>> split_got("floating-point dtypes, X1 got: Long")
    ('floating-point dtypes', 'Long')
    >>> split_got("boolean masks, but got dtype Float")
    ('boolean masks', 'Float')
    >>> split_got("CUDA, CPU, HPU, or MPS devices. Found input tensors on meta device.")
    ('CUDA, CPU, HPU, or MPS devices', None)
    """
    if not raw:
        return None, None
    s = re.split(r"\.\s+(?=[A-Z])", raw.strip(), maxsplit=1)[0]  # the statement's own sentence
    got = None
    m = _GOT.search(s)
    if m is not None and m.start() > 0:
        got = m.group("got").strip("`'\"").rstrip(".") or None
        if got is not None and not _value_like(got):  # "Found input tensors on ...": a word, not a value
            got = None
        # "..., X1 got: Long": the operand's name before "got" is not one of the supported values
        s = re.sub(r",\s*[A-Za-z_]\w{0,11}$", "", s[: m.start()])
    for _ in range(3):
        t = _TAIL.sub("", s)
        if t == s:
            break
        s = t
    s = s.strip().rstrip(".,;:!").strip()
    return (s or None), got


#: a kernel's own compile-time configuration, by the names kernels give it: Triton's and CUDA's
#: upper-case block/tile constants (``BLOCK_SIZE_K``, ``BLOCK_M``, ``TILE_N``, ``GROUP_SIZE_M``,
#: ``SPLIT_K``), a launch's ``num_warps``/``num_stages``/``num_ctas`` (a value printed as ``constexpr[...]`` is
#: left to Triton's own families, which name the language rule it breaks)
_CONFIG = re.compile(
    r"\b(?:BLOCK|TILE|WARP|STAGE|GROUP_SIZE|SPLIT|NUM_WARPS|NUM_STAGES|THREADS|CTA)[A-Z0-9_]*\b"
    r"|\b[A-Z][A-Z0-9]*_(?:BLOCK|TILE|WARPS?|STAGES)\w*\b|\bnum_(?:warps|stages|ctas)\b"
)


def subject_kind(raw: str | None, supported: str | None = None) -> str | None:
    """``kernel-config`` when the subject of a contract is the kernel's own compile-time configuration
    (its block constants, its launch's warps and stages), or the supported values start with one ("only
    supports num_ctas == 1"); else None: a caller's value (``block_size``, a head dimension, ``K``) is an input.

    >>> subject_kind("BLOCK_SIZE_K // group_size"), subject_kind("num_warps"), subject_kind("block_size")
    ('kernel-config', 'kernel-config', None)
    >>> subject_kind("launcher", "num_ctas == 1"), subject_kind("K"), subject_kind(None)
    ('kernel-config', None, None)
    """
    if raw and _CONFIG.search(raw):
        return "kernel-config"
    if supported and _CONFIG.match(supported.strip()):
        return "kernel-config"
    return None


#: the ``unsupported_kind`` each kind of supported values gives (``diagnose.concepts.unsupported_kind``)
KIND_OF_SUPPORTED = {"dtype": "dtype", "arch": "arch", "size": "parameter-value", "version": "version"}


def refused_kind(supported: str | None, got: str | None) -> str | None:
    """What kind of value a contract statement refuses, from the refused value where it names a kind
    (``Half``, ``sm_75``), else from the supported values (``KIND_OF_SUPPORTED``).

    >>> refused_kind("fp16 and bf16", None), refused_kind("[64, 128]", "torch.float32"), refused_kind("2D", "3D")
    ('dtype', 'dtype', 'parameter-value')
    >>> refused_kind("contiguous tensors", None), refused_kind("CUDA 11.0 or higher", "10.2")
    (None, 'version')
    """
    kind = supported_kind(supported)
    if kind == "version":  # "CUDA 11.0 or higher, got 10.2": the number is a version, not a size
        return "version"
    return C.unsupported_kind(got) or KIND_OF_SUPPORTED.get(kind or "")
