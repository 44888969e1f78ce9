"""Message families (diagnose/data/catalogue/) → ConceptFacts: which families a log prints, and the
values their messages carry, normalised.

The families come from the tools' own message catalogues, so a wording this project never saw
still matches when the tool printed it.  A sample, ptxas 13.0 given PTX from a newer toolkit
(the message text is in ``strings bin/ptxas``)::

    ptxas fatal   : Unsupported .version 9.1; current version is '9.0'

Concept values are normalised (``diagnose.concepts``) and compared here, so rules read flags
such as ``concept_version_too_old`` or ``concept_cc_too_low`` instead of parsing numbers.

>>> from diagnose.catalogue import Catalogue, Family, Message
>>> import re
>>> fam = Family(id="demo-cc", tool="demo", title="t", category=None, failure_mode=None, severity="error",
...     confidence=0.8, priority=45, messages=(Message("x", "y"),),
...     patterns=(re.compile(r"needs compute capability (?P<need_cc>[\\d.]+), device has (?P<have_cc>[\\d.]+)"),),
...     concepts=(), explain={}, references=(), examples=(), path="p", line=1)
>>> f = facts_from(Catalogue((fam,)), "boom\\nkernel needs compute capability 8.0, device has 7.5\\n")
>>> f.families, f.need_cc, f.have_cc, f.cc_too_low, f.lines
(('demo-cc',), 8.0, 7.5, True, (2,))
>>> facts_from(Catalogue((fam,)), "all good") is None
True
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from diagnose import concepts as C
from diagnose import contract_values as V
from diagnose.catalogue import Catalogue, Hit, default_catalogue
from diagnose.facts import ConceptFacts
from diagnose.regex_literals import lowered, may_match


@functools.cache
def _every_gpu_limits() -> dict[str, float]:
    """The largest value any GPU in diagnose/data/gpus.yaml allows, per resource."""
    from diagnose.envinfo import gpuspec

    specs = [gpuspec.lookup(a) for a in gpuspec.archs()]
    return {
        "shared-memory": float(max(s.smem_per_block_optin for s in specs)),
        "threads-per-block": float(max(s.max_threads_per_block for s in specs)),
        "registers": float(max(s.regs_per_thread for s in specs)),
        "registers-per-block": float(max(s.regs_per_block for s in specs)),
        "int32-index": float(C.INT32_MAX),
    }


def parse(text: str) -> ConceptFacts | None:
    return facts_from(default_catalogue(), text)


#: a printed shape: 2 to 8 integers in brackets after a word that says it is one
#: (``torch.Size([4, 1024])``, ``shape=(2, 3)``, TensorRT's ``dimensions are [4,65536,65536]``) ...
_NAMED_SHAPE = re.compile(
    r"(?:Size\(\[|shape\s*[=:]?\s*[\[(]|size\s*[=:]\s*[\[(]|dim(?:ension)?s?(?:\s+are)?\s*[=:]?\s*[\[(]|strided\(\s*\()"
    r"\s*(\d+(?:\s*,\s*\d+){1,7})\s*,?\s*[\])]",
    re.I,
)
#: ... or a bare tuple where a tensor's description puts it (``Place(gpu:0), (1, 5120, 8, 384, 384)>``,
#: a line that is only a shape): these count for the size, never for an empty dimension (a printed
#: list of values can hold a 0)
_BARE_SHAPE = re.compile(r"(?:\),\s*\(|^\s*\()\s*(\d+(?:\s*,\s*\d+){1,7})\s*,?\s*\)", re.M)
_EMPTY_DIM = re.compile(r"(?:^|,)\s*0\s*(?:,|$)")
#: where a named shape can start (its case-folded leading word), and the "(", digits and "," every bare
#: shape holds: literal-led searches, many times cheaper than the case-folded scans they gate
_NAMED_START = re.compile("size|shape|dim|strided")
_MAY_NAMED = may_match(_NAMED_SHAPE)
_MAY_BARE = re.compile(r"\(\s*\d+\s*,").search


def _named_shapes(head: str) -> Iterator[re.Match[str]]:
    """``_NAMED_SHAPE.finditer(head)``: on ASCII text the regex is tried only where its leading word is."""
    if not _MAY_NAMED(head):
        return
    if not head.isascii():  # case folding beyond ASCII: the scan itself
        yield from _NAMED_SHAPE.finditer(head)
        return
    end = 0
    for word in _NAMED_START.finditer(lowered(head)):
        if word.start() < end:
            continue
        m = _NAMED_SHAPE.match(head, word.start())
        if m is not None:
            end = m.end()
            yield m


def _bare_shapes(head: str) -> Iterator[re.Match[str]]:
    if not _MAY_BARE(head):
        return
    for m in _BARE_SHAPE.finditer(head):
        if not _is_stride(head, m):
            yield m


#: a tuple that is a tensor's strides, not its shape: the one after the size in ``empty_strided(size,
#: stride)`` / ``as_strided(x, size, stride)``, or one printed after the word ``stride``
_STRIDE_CONTEXT = re.compile(r"strided?\b|strided\(", re.I)


#: the label of a limit, not of a tensor: a device-properties listing (``grid dim: (2147483647,65535,65535)``,
#: ``Max dimension size of a thread block (x,y,z): (1024, 1024, 64)``) or a stated maximum; a launch's
#: grid or block dimensions count blocks and threads, not a tensor's elements
_LIMIT_LABEL = re.compile(
    r"\b(?:max(?:imum)?|limits?|allowed|supported)\b|\b(?:grid|block|threads?)[ _]?(?:dim(?:ension)?s?|size)\b"
    r"|\bmax_?(?:grid|threads?|block)",  # cudaDeviceProp's field names: maxGridSize, maxThreadsDim
    re.I,
)


def _is_limit(head: str, m: re.Match[str]) -> bool:
    """Whether the tuple ``m`` is printed under a limit's label on its line (see ``_LIMIT_LABEL``).

    >>> _is_limit("x: torch.Size([4, 1024])", next(_named_shapes("x: torch.Size([4, 1024])")))
    False
    """
    start = head.rfind("\n", 0, m.start()) + 1
    return _LIMIT_LABEL.search(head, start, m.start(1)) is not None


def _is_stride(head: str, m: re.Match[str]) -> bool:
    """Whether the bare tuple ``m`` is printed as strides (its element product is no size at all).

    >>> _is_stride("buf = empty_strided((4096, 64), (64, 1))", next(_BARE_SHAPE.finditer("buf = empty_strided((4096, 64), (64, 1))")))
    True
    """
    start = head.rfind("\n", 0, m.start()) + 1
    return _STRIDE_CONTEXT.search(head, max(start, m.start() - 200), m.start()) is not None


def shape_facts(text: str) -> tuple[float | None, bool]:
    """The largest element count of a printed shape, and whether a named shape has an empty dimension.

    >>> shape_facts("Out{auto_0_[LoDTensor<float, Place(gpu:0), (1, 5120, 8, 384, 384)>]}")
    (6039797760.0, False)
    >>> shape_facts("x: torch.Size([0, 128])  by thread (0,0,0) in block (7,0,0)")
    (0.0, True)
    >>> shape_facts("_output: tensor volume exceeds (2^31)-1, dimensions are [4,65536,65536])")
    (17179869184.0, False)
    >>> shape_facts("no shapes here (PCI:0000:06:00)\\n[0, 1, 2]")
    (None, False)

    A device-properties listing prints limits, not sizes (CUDA-CenterPoint's ``GetDeviceInfo``, the CUDA
    samples' deviceQuery):

    >>> shape_facts("block dim: (1024,1024,64)\\ngrid dim: (2147483647,65535,65535)")
    (None, False)
    >>> shape_facts("maxThreadsDim: (1024, 1024, 64)\\nmaxGridSize: (2147483647, 65535, 65535)")
    (None, False)
    """
    head = text[:200_000]
    best: float | None = None
    empty = False
    for scan, named in ((_named_shapes, True), (_bare_shapes, False)):
        for m in scan(head):
            if _is_limit(head, m):
                continue
            dims = m.group(1)
            n = 1.0
            for d in dims.split(","):
                n *= float(d)
            best = n if best is None else max(best, n)
            empty = empty or (named and bool(_EMPTY_DIM.search(dims)))
    return best, empty


#: a name a repro script prints its input's size under: a batch, a count of rows, tokens, queries
_SIZE_NAME = re.compile(r"[NMB]|batch(?:_size)?|bs|numel|seq_?len|num_[a-z]+|n_[a-z]+|nq")
#: ``N = 131072``, ``batch_size: 65536``, ``num_tokens=4096`` (not ``GB: 12``, ``x.N = 3``):
#: ``(?<![\w.-])([NMB]|batch(?:_size)?|bs|numel|seq_?len|num_[a-z]+|n_[a-z]+|nq)\s*[=:]\s*(\d{1,15})(?![\w.])``, each
#: name's lookbehind (no word character, dot or hyphen before it) written after its first letter: the same matches, and
#: with every branch led by a letter ``re`` looks for those letters alone instead of trying the names everywhere
_NAMED_SIZE = re.compile(
    "("
    + "|".join(
        f"{name[0]}(?<![\\w.-]{name[0]}){name[1:]}"
        for name in ("N", "M", "B", "batch(?:_size)?", "bs", "numel", "seq_?len", "num_[a-z]+", "n_[a-z]+", "nq")
    )
    + r")\s*[=:]\s*(\d{1,15})(?![\w.])"
)
#: Python's ``print("i, N", i, N)``: a line of names, then as many integers
_PRINT_ROW = re.compile(
    r"^[ \t]*((?:[A-Za-z_]\w*[ \t]*,[ \t]*)+[A-Za-z_]\w*)[ \t]+((?:-?\d+[ \t]+)+-?\d+)[ \t]*$", re.M
)


def printed_size(text: str) -> float | None:
    """The largest value the log prints for a size-like name (see ``_SIZE_NAME``), or None.

    >>> printed_size("i, N 16 65536\\ni, N 17 131072\\nTHCudaCheck FAIL ...")
    131072.0
    >>> printed_size("batch_size=64, lr: 0.1\\nnum_tokens: 4096")
    4096.0
    >>> printed_size("GPU 0: 80 GB: 12 used, epoch: 3") is None
    True
    """
    head = text[:200_000]
    best: float | None = None
    for m in _NAMED_SIZE.finditer(head) if ("=" in head or ":" in head) else ():
        best = max(best or 0.0, float(m.group(2)))
    for m in _PRINT_ROW.finditer(head) if "," in head else ():
        names = [n.strip() for n in m.group(1).split(",")]
        values = m.group(2).split()
        if len(names) != len(values):
            continue
        for name, value in zip(names, values, strict=True):
            if _SIZE_NAME.fullmatch(name):
                best = max(best or 0.0, float(value))
    return best


#: free device memory past which a CUDA library's handle did not fail for memory: creating a cuDNN or cuBLAS handle
#: takes tens to a few hundred MiB (its workspace and the kernels it loads), and the handles that fail for memory
#: show a few MiB free once the framework took its pool
HANDLE_MEMORY_AMPLE = float(2**30)


def facts_from(catalogue: Catalogue, text: str) -> ConceptFacts | None:
    hits = catalogue.scan(text)
    max_elements, empty = shape_facts(text)
    over_int32 = max_elements is not None and max_elements > C.INT32_MAX
    max_bytes = created_bytes(text)
    over_bytes = max_bytes is not None and max_bytes > C.INT32_MAX
    if not hits:
        if not (over_int32 or empty or over_bytes):
            return None
        # no family, but a shape that decides between owners once a failure is known
        return ConceptFacts(
            max_elements=max_elements,
            over_int32_elements=over_int32,
            contexts=("empty-input",) if empty else (),
            max_bytes=max_bytes,
            over_int32_bytes=over_bytes,
        )
    # errors first: when a warning and an error both carry a value, the error's is the one that failed; an
    # error family's message on a line that says the program takes a fallback ("..., falling back to fp16")
    # is a warning: the program goes on
    lines = text.split("\n") if _FALLBACK.search(text) else None
    errors = [h for h in hits if h.family.severity == "error" and not (lines and _fallback_taken(lines, h.line))]
    # a warning's text raised as an exception's message is the failure: the program did not go on with the
    # fallback the warning announces (XLA's "ptxas too old. Falling back to the driver" as an XlaRuntimeError)
    raised = [h for h in hits if h.family.severity == "warning" and _raised_on(text, h.line)]
    errors += raised
    ordered = errors + [h for h in hits if h.family.severity != "error" and h not in raised]
    raw: dict[str, str] = {}
    version_from_warning = False
    for h in ordered:
        values = _values(h)
        if h.family.severity != "error" and not _version_warning_counts(values, errors):
            values = {k: v for k, v in values.items() if k not in _VERSION_KEYS}
        if "need_version" in values and "need_version" not in raw:
            version_from_warning = h.family.severity != "error"
        for key, value in values.items():
            raw.setdefault(key, value)
    first = errors[0] if errors else None
    first_error = first.family.id if first else None
    need_cc, have_cc = C.compute_capability(raw.get("need_cc")), C.compute_capability(raw.get("have_cc"))
    exp_dt, found_dt = C.dtype_name(raw.get("expected_dtype")), C.dtype_name(raw.get("found_dtype"))
    exp_dev, found_dev = C.device_kind(raw.get("expected_device")), C.device_kind(raw.get("found_device"))
    exp_shape, found_shape = C.shape(raw.get("expected_shape")), C.shape(raw.get("found_shape"))
    resource = _resource(raw.get("resource"))
    requested, limit = _amount(raw.get("requested"), raw), _amount(raw.get("limit"), raw)
    device_free = C.size_bytes(raw.get("device_free"))
    if resource == "int32-index" and limit is None:
        limit = float(C.INT32_MAX)
    every = _every_gpu_limits().get(resource or "")
    contexts = [v for h in hits for k, v in h.family.concepts if k == "context"]
    # a stated contract's values (contract-statements.yaml): the refused value where printed, and what the
    # listed values are (dtypes, sizes, a layout ...) decides the contract when the family states none
    supported, got = V.split_got(raw.get("supported"))
    unsupported = raw.get("unsupported") or got
    refused = V.refused_kind(supported, got) if supported else None
    contract = raw.get("contract") or (V.layout_contract(supported) if supported else None)
    if empty:
        contexts.append("empty-input")
    return ConceptFacts(
        lines=tuple(sorted({h.line for h in hits})),
        families=tuple(h.family.id for h in hits),
        family_lines=tuple(h.line for h in hits),
        family=first_error,
        message=_message(text, first.line) if first else None,
        tools=tuple(dict.fromkeys(h.family.tool for h in hits)),
        failed=first_error is not None,
        component=raw.get("component"),
        need_version=raw.get("need_version"),
        have_version=raw.get("have_version"),
        version_too_old=bool(C.older(raw.get("have_version"), raw.get("need_version"))),
        version_from_warning=version_from_warning,
        need_cc=need_cc,
        have_cc=have_cc,
        cc_too_low=need_cc is not None and have_cc is not None and need_cc > have_cc,
        expected_dtype=exp_dt,
        found_dtype=found_dt,
        dtype_mismatch=exp_dt is not None and found_dt is not None and exp_dt != found_dt,
        expected_device=exp_dev,
        found_device=found_dev,
        device_mismatch=exp_dev is not None and found_dev is not None and exp_dev != found_dev,
        expected_shape=exp_shape,
        found_shape=found_shape,
        shape_mismatch=exp_shape is not None and found_shape is not None and exp_shape != found_shape,
        resource=resource,
        requested=requested,
        limit=limit,
        over_limit=requested is not None and limit is not None and requested > limit,
        device_free=device_free,
        device_total=C.size_bytes(raw.get("device_total")),
        device_free_ample=device_free is not None and device_free >= HANDLE_MEMORY_AMPLE,
        over_every_gpu=requested is not None and every is not None and requested > every,
        contexts=tuple(dict.fromkeys(contexts)),
        max_elements=max_elements,
        over_int32_elements=over_int32,
        max_bytes=max_bytes,
        over_int32_bytes=over_bytes,
        printed_size=printed_size(text),
        subject=raw.get("subject"),
        contract=contract,
        contract_mode=C.contract_mode(contract),
        unsupported=unsupported,
        unsupported_kind=raw.get("unsupported_kind") or C.unsupported_kind(unsupported) or refused,
        supported=supported,
        subject_kind=V.subject_kind(raw.get("subject"), supported),
    )


#: an array created with a size and a dtype in the log (a REPL line, a repro script):
#: ``cupy.arange(pow(2,29)+1, dtype=cupy.int32)``, ``torch.zeros(2**31, dtype=torch.uint8)``
_CREATED = re.compile(
    r"\b(?:arange|zeros|ones|empty|full|rand|randn|randint)\(\s*(?P<size>[0-9(p][0-9*+\-<() ,pow]*?)\s*,"
    r"\s*dtype\s*=\s*(?P<dtype>[\w.]+)"
)
_SIZE_EXPR = re.compile(r"[0-9*+\-<() ,pow]+")
_ITEMSIZE = {
    "bool": 1, "int8": 1, "uint8": 1, "float8_e4m3fn": 1, "float8_e5m2": 1,
    "int16": 2, "float16": 2, "bfloat16": 2,
    "int32": 4, "float32": 4,
    "int64": 8, "float64": 8, "complex64": 8,
    "complex128": 16,
}  # fmt: skip


def _size_value(expr: str) -> float | None:
    """A size written as integer arithmetic (``pow(2,29)+1``, ``2**31``, ``1 << 30``, ``(4096, 1024)``) → its
    element count; None for anything else.

    >>> _size_value("pow(2,29)+1"), _size_value("2**31"), _size_value("1 << 30"), _size_value("(4096, 1024)")
    (536870913.0, 2147483648.0, 1073741824.0, 4194304.0)
    >>> _size_value("n + 1"), _size_value("2**2**2**2**2")
    (None, None)
    """
    import ast

    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except (SyntaxError, ValueError):
        return None

    def value(node: ast.AST) -> int | None:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.Tuple):
            out = 1
            for elt in node.elts:
                v = value(elt)
                if v is None:
                    return None
                out *= v
            return out
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "pow":
            if len(node.args) == 2 and not node.keywords:
                return power(value(node.args[0]), value(node.args[1]))
            return None
        if isinstance(node, ast.BinOp):
            a, b = value(node.left), value(node.right)
            if a is None or b is None:
                return None
            if isinstance(node.op, ast.Pow):
                return power(a, b)
            if isinstance(node.op, ast.LShift):
                return a << b if 0 <= b <= 64 else None
            ops = {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b}
            return ops.get(type(node.op))
        return None

    def power(a: int | None, b: int | None) -> int | None:
        return a**b if a is not None and b is not None and 0 <= b <= 64 and abs(a) <= 1 << 16 else None

    got = value(tree.body)
    return float(got) if got is not None and 0 <= got < 1 << 64 else None


def created_bytes(text: str) -> float | None:
    """The largest byte size of an array the log creates with a size and a dtype.

    >>> created_bytes(">>> cupy.arange(pow(2,29)+1, dtype=cupy.int32)")
    2147483652.0
    >>> created_bytes("x = torch.zeros((1024, 1024), dtype=torch.float16)"), created_bytes("zeros(n, dtype=f)")
    (2097152.0, None)
    """
    if "dtype" not in text:
        return None
    best: float | None = None
    for m in _CREATED.finditer(text[:200_000]):
        n = _size_value(m["size"]) if _SIZE_EXPR.fullmatch(m["size"]) else None
        size = _ITEMSIZE.get(C.dtype_name(m["dtype"]) or "")
        if n is not None and size is not None:
            best = max(best or 0.0, n * size)
    return best


_RESOURCES = {
    "shared memory": "shared-memory",
    "smem": "shared-memory",
    "shared": "shared-memory",
    "registers": "registers",
    "regs": "registers",
    "threads": "threads-per-block",
    "memory": "device-memory",
}


def _resource(raw: str | None) -> str | None:
    if raw is None:
        return None
    s = raw.strip().lower()
    return _RESOURCES.get(s, s.replace(" ", "-"))


#: a fallback the program takes, on the same line as the message: "falling back to", "falls back on"; not when the
#: line also says the fallback itself failed or names an exception
_FALLBACK = re.compile(r"(?i)\bfall(?:s|ing)?[ -]?back\s+(?:to|on)\b")
_FALLBACK_FAILED = re.compile(r"(?i)\b(?:error|exception|traceback|fatal|abort(?:ed|ing)?|failed|failure)\b")


#: a raised exception's header on a line: ``XlaRuntimeError: UNIMPLEMENTED: ...``, ``RuntimeError: ...``, a qualified
#: ``jaxlib.xla_extension.XlaRuntimeError: ...`` (a log prefix may stand before it)
_RAISE = re.compile(r"(?:^|[\s:\]])(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception): ", re.M)


def _raised_on(text: str, line: int) -> bool:
    r"""Line ``line`` (1-based) of ``text`` is a raised exception's header line.

    >>> _raised_on("W1 x\njaxlib.xla_extension.XlaRuntimeError: UNIMPLEMENTED: ptxas too old.", 2)
    True
    >>> _raised_on("2024-01-01 W ptxas too old. Falling back to the driver to compile.", 1)
    False
    """
    start = 0
    for _ in range(line - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            return False
    end = text.find("\n", start)
    return bool(_RAISE.search(text, start, end if end >= 0 else len(text)))


def _fallback_taken(lines: list[str], line: int) -> bool:
    """Line ``line`` (1-based) says the program goes on with a fallback and names no failure.

    >>> _fallback_taken(["Note: bf16 is not supported on this GPU, falling back to fp16"], 1)
    True
    >>> _fallback_taken(["RuntimeError: X not supported, falling back to Y failed"], 1)
    False
    """
    got = lines[line - 1] if 0 < line <= len(lines) else ""
    return bool(_FALLBACK.search(got)) and not _FALLBACK_FAILED.search(got)


def _message(text: str, line: int) -> str | None:
    """Line ``line`` (1-based) of ``text``, its runs of spaces collapsed, cut at 300 characters (an
    explanation shows less, cut at a word after the prefixes: diagnose.explain)."""
    lines = text.split("\n", line)
    got = " ".join(lines[line - 1].split()) if len(lines) >= line else ""
    return (got if len(got) <= 300 else got[:297] + "...") or None


#: the values a version message gives: a warning's count only beside a failure of the component it names
_VERSION_KEYS = frozenset({"component", "need_version", "have_version"})


def _version_warning_counts(values: dict[str, str], errors: list[Hit]) -> bool:
    """Whether a warning's versions (a library built with one release of a component finding another, which it
    goes on with: Paddle's "compiled with CUDNN 7.6, but CUDNN version in your machine is 7.3") bear on the log's
    failure: an error of that component's own messages is printed (a cuDNN status after a cuDNN warning).  A
    healthy run prints the warning too, and a failure of another part of the stack is not the mismatch's.
    """
    component = (values.get("component") or "").lower()
    if not component or not (values.keys() & {"need_version", "have_version"}):
        return True
    for h in errors:
        named = {h.family.tool.lower(), dict(h.family.concepts).get("component", "").lower()}
        if any(n.startswith(component) for n in named if n):
            return True
    return False


def _values(hit: Hit) -> dict[str, str]:
    out = dict(hit.family.concepts)
    out.update({k: v.strip() for k, v in hit.groups.items() if v and v.strip()})
    return out


def _amount(raw: str | None, values: dict[str, str]) -> float | None:
    if raw is None:
        return None
    if values.get("unit") == "count":
        return C.number(raw)
    got = C.size_bytes(raw)
    return got if got is not None else C.number(raw)
