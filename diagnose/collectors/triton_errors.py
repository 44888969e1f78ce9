r"""Triton's own failures: compile errors, resource limits, ptxas, interpreter, autotuner, driver.

A real sample (``tests/fixtures/triton/compile-arange-non-pow2.log``: Triton 3.7.1 compiling a
kernel with ``tl.arange(0, 200)`` for sm_90 on this machine, no GPU), its last lines::

    triton.compiler.errors.CompilationError: at 2:11:
    def fill(x_ptr, n):
        offs = tl.arange(0, 200)
               ^
    arange's range must be a power of 2

What is read (``error`` is the short class name):

- ``CompilationError`` / ``CompileTimeAssertionFailure`` / ``UnsupportedLanguageConstruct``
  (``at L:C:``, the source excerpt, a caret line, the message): ``src_line``, ``src_col`` and
  ``message`` without the excerpt.  A message that is an exception's repr
  (``NameError('x is not defined')``) is unwrapped into ``inner_error`` and ``message``; a plain one
  takes ``inner_error`` from the chained cause printed above it (``ValueError: ...``).  When the
  outer error is only the call site of a failing ``@jit`` helper (no message), the helper's block is
  the one reported;
- ``OutOfResources``: ``resource``, ``required``, ``limit``;
- ``PTXASError``: the header plus ptxas's stderr lines as ``message``;
- ``InterpreterError``: the wrapped exception's type and message;
- ``AutotunerError``; ``MLIRError`` for an MLIR diagnostic ``error: 'tt.addptr' op ...``;
- ``RuntimeError: 0 active drivers ([]). There should only be one.`` → ``no_active_driver``;
- ``TRITON_PRINT_AUTOTUNING=1`` output: ``autotune_failures`` (configs skipped) and
  ``autotune_best_config``; the skipped configs' errors do not set ``error`` (the run went on);
- known Triton language messages printed without a Triton exception around them
  (``invalid operands of type pointer<fp16> and triton.language.fp32``; a feature the target arch
  lacks: ``type fp8e4nv not supported in this architecture. The supported fp8 dtypes are (...)``,
  ``num_ctas > 1 requires NVIDIA SM90+ (Hopper). Current target is sm_80. ...``) give ``message`` only.

>>> f = parse(_SAMPLE)
>>> f.error, f.src_line, f.src_col, f.message, f.inner_error
('CompilationError', 2, 11, "arange's range must be a power of 2", None)
>>> f.lines
(1, 4, 5)
>>> f = parse("triton.runtime.errors.InterpreterError: ValueError(\"arange's range must be a power of 2\")")
>>> f.error, f.inner_error, f.message
('InterpreterError', 'ValueError', "arange's range must be a power of 2")
>>> f = parse("triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 524288, "
...           "Hardware limit: 232448. Reducing block sizes or `num_stages` may help.")
>>> f.error, f.resource, f.required, f.limit
('OutOfResources', 'shared memory', 524288.0, 232448.0)
>>> f = parse("OutOfResources: shared memory, Required: 147456, Hardware limit: 101376")
>>> f.error, f.resource, f.required, f.limit
('OutOfResources', 'shared memory', 147456.0, 101376.0)
>>> f = parse("OutOfResources: Required 102,400 B > Hardware limit 98,304 B")
>>> f.error, f.resource, f.required, f.limit
('OutOfResources', 'shared memory', 102400.0, 98304.0)
>>> parse("OutOfResources: smem, Required: 99 KiB, Hardware limit: 48 KiB").limit
49152.0
>>> f = parse("OutOfMemoryError: out of resource: triton_tem_fused_flex_attention_0\nRequired: 139776  Hardware limit: 101376")
>>> f.resource, f.required
('shared memory', 139776.0)
>>> parse("RuntimeError: 0 active drivers ([]). There should only be one.").no_active_driver
True
>>> parse("all good") is None
True
"""

from __future__ import annotations

import ast
import bisect
import functools
import re
from dataclasses import dataclass, field

from diagnose.collectors.gate_words import gate
from diagnose.facts import TritonFacts

_SAMPLE = """\
triton.compiler.errors.CompilationError: at 2:11:
def fill(x_ptr, n):
    offs = tl.arange(0, 200)
           ^
arange's range must be a power of 2
"""

# any of these must occur before a regex runs (most logs have none)
_MARKERS = (
    "CompilationError",
    "CompileTimeAssertionFailure",
    "UnsupportedLanguageConstruct",
    "out of resource:",
    "OutOfResources:",
    "PTXAS",
    "InterpreterError",
    "AutotunerError",
    "Autotuning",
    "active drivers",
    "' op ",
    "invalid operands of type",
    "arange's range",
    "Input shapes should have",
    "not supported in this architecture",
    "requires NVIDIA SM",
)

_COMPILE_CLASSES = ("CompilationError", "CompileTimeAssertionFailure", "UnsupportedLanguageConstruct")
_COMPILE = re.compile(
    r"^.*?\b(?:triton\.compiler\.errors\.)?(CompilationError|CompileTimeAssertionFailure|UnsupportedLanguageConstruct)"
    r": at (\d+):(\d+):[ \t]*$",
    re.M,
)
# the same classes printed without the "at L:C:" source excerpt: `CompilationError: NameError('tl is not defined')`
_COMPILE_BARE = re.compile(
    r"^.*?\b(?:triton\.compiler\.errors\.)?(CompilationError|CompileTimeAssertionFailure|UnsupportedLanguageConstruct)"
    r": (?!at \d+:\d+:)(.+)$",
    re.M,
)
_AUTOTUNE_FAILED = re.compile(r"^.*?Autotuning failed with (.*)$", re.M)
_AUTOTUNE_BEST = re.compile(r"best config selected: (.*?);?[ \t]*$", re.M)
_AT = re.compile(r"at (\d+):(\d+):[ \t]*$")
# three generations of the wording: "shared memory, Required: N, Hardware limit: N" (3.x),
# "Hardware limitation: N" (2.x), and triton.code_gen's run-together "shared memoryRequired: NHardware limit: N";
# a pasted log may wrap the line after a comma ("shared memory,\nRequired: 98304, Hardware limit: 65536.");
# reports often quote it by the class name alone ("OutOfResources: shared memory, Required: 147456,
# Hardware limit: 101376", the "out of resource:" of its str() left out)
# Triton prints bare integers (errors.py in every release: f"..., Required: {required}, Hardware limit: {limit}"),
# but a report retyping it prints the figures the way people write bytes: thousands separators, a unit, a ">"
# between them and the resource left out ("OutOfResources: Required 102,400 B > Hardware limit 98,304 B")
_OOR_NUM = r"(\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:[ \t]*(B|bytes|KiB|KB)\b)?"
_OOR = re.compile(
    r"(?:out of resource|\bOutOfResources):(?![ \t]*out of resource:)[ \t]*(?:([^,\n]+?),?[ \t]*\n?[ \t]*)??Required:?[ \t]*"
    + _OOR_NUM
    + r"[ \t]*[,>]?[ \t]*\n?[ \t]*Hardware limit(?:ation)?:?[ \t]*"
    + _OOR_NUM
)
# what Triton's compiler raises OutOfResources for (compiler.py: "shared memory", "tensor memory", "threads"); of
# these only shared memory is counted in bytes, so a figure with a byte unit and no resource named is shared memory
_OOR_RESOURCE_ALIASES = {"smem": "shared memory", "shared mem": "shared memory", "shmem": "shared memory"}
_OOR_UNIT_BYTES = {"B": 1, "bytes": 1, "KiB": 1024, "KB": 1024}
#: a kernel's name where the resource stands: TorchInductor's generated kernels (triton_poi_/red_/per_/tem_/for_...),
#: and any one-word identifier with an underscore (no resource Triton names is written that way)
_KERNEL_NAME = re.compile(r"^(?:triton_\w+|[A-Za-z]\w*_\w*\d\w*)$")


@functools.cache
def _smem_limits() -> frozenset[float]:
    """The per-block shared-memory limits GPUs report (the 48 KiB default, and each arch's opt-in maximum in
    diagnose/data/gpus.yaml), which Triton prints as the hardware limit."""
    from diagnose.envinfo import gpuspec

    specs = [gpuspec.lookup(a) for a in gpuspec.archs()]
    return frozenset(float(v) for s in specs for v in (s.smem_per_block_default, s.smem_per_block_optin))


def _oor_figure(number: str, unit: str | None) -> float:
    """One figure of an OutOfResources message in bytes (or the resource's own unit when none is printed)."""
    return float(number.replace(",", "")) * _OOR_UNIT_BYTES.get(unit or "", 1)


_OOR_RAISED = re.compile(r"\bOutOfResources: out of resource:")
_PTXAS = re.compile(r"PTXASError: (?:PTXAS error: ?)?(.*)$", re.M)
_INTERP = re.compile(r"\bInterpreterError: (.*)$", re.M)
_AUTOTUNER = re.compile(r"\bAutotunerError: (?:Autotuner error: ?)?(.*)$", re.M)
_DRIVER = re.compile(r"(\d+) active drivers \((.*?)\)\. There should only be one\.")
_MLIR = re.compile(r"\berror: ('[\w.]+' op .*)$", re.M)
_KNOWN = re.compile(
    r"^(?:.*?\b([A-Za-z_]\w*): )?(arange's range must be a power of 2|invalid operands of type [^\n]*?"
    r"|cannot add pointers together|Input shapes should have M >= \d+, N >= \d+ and K >= \d+[^\n]*?"
    # features the target arch lacks (triton/language/semantic.py, triton/backends/nvidia/compiler.py)
    r"|type fp8\w* not supported in this architecture\.(?: The supported fp8 dtypes are \([^)\n]*\))?"
    r"|num_ctas > 1 requires NVIDIA SM\d+\+(?: \(\w+\))?\.(?: Current target is sm_\d+\w*\.)?[^\n]*?"
    r")['\")]*[ \t]*$",
    re.M,
)
_REPR = re.compile(r"^([A-Za-z_][\w.]*)\((.*)\)$", re.S)
# where a block of message lines ends
_BLOCK_END = ("Traceback (most recent call last)", "The above exception", "During handling of the above")


@dataclass
class _Found:
    pos: int
    error: str
    message: str | None = None
    src_line: int | None = None
    src_col: int | None = None
    inner_error: str | None = None
    lines: list[int] = field(default_factory=list)


class _Text:
    """The log with cheap offset → line-number lookups."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts: list[int] | None = None

    def line_of(self, pos: int) -> int:
        if self._starts is None:
            self._starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        return bisect.bisect_right(self._starts, pos)

    def lines_after(self, pos: int, limit: int = 40) -> list[str]:
        """Up to ``limit`` lines after the line containing ``pos``."""
        nl = self.text.find("\n", pos)
        if nl < 0:
            return []
        return self.text[nl + 1 :].split("\n", limit)[:limit]


def unwrap_repr(message: str) -> tuple[str | None, str]:
    """``ValueError('x')`` → ``("ValueError", "x")``; anything else is returned as is.

    >>> unwrap_repr("IncompatibleTypeErrorImpl('invalid operands of type pointer<fp16> and triton.language.float32')")
    ('IncompatibleTypeErrorImpl', 'invalid operands of type pointer<fp16> and triton.language.float32')
    >>> unwrap_repr("BLOCK must be <= 128")
    (None, 'BLOCK must be <= 128')
    """
    m = _REPR.match(message.strip())
    if not m or m.group(2)[:1] not in ("'", '"'):
        return None, message
    try:
        value = ast.literal_eval(m.group(2))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None, message
    if isinstance(value, str):
        return m.group(1).rsplit(".", 1)[-1], value
    return None, message


def _message_block(lines: list[str]) -> list[str]:
    out: list[str] = []
    for line in lines:
        if not line.strip() or line.startswith(_BLOCK_END):
            break
        out.append(line)
    return out


def _compile_block(t: _Text, pos: int, error: str, src_line: int, src_col: int) -> _Found:
    """The excerpt after ``at L:C:``: skip to the caret line, the message follows it."""
    after = t.lines_after(pos, 60)
    header = t.line_of(pos)
    found = _Found(pos, error, src_line=src_line, src_col=src_col, lines=[header])
    caret = next((i for i, line in enumerate(after[:16]) if line.strip() == "^"), None)
    if caret is None:  # "<source unavailable>" and the like: the message is what follows the first line
        body = _message_block(after[1:]) if after and after[0].startswith(" <source") else []
        start = 1
    else:
        body = _message_block(after[caret + 1 :])
        start = caret + 1
        found.lines.append(header + caret + 1)
    if body:
        found.lines.extend(range(header + start + 1, header + start + 1 + len(body)))
        found.inner_error, found.message = unwrap_repr("\n".join(body))
    return found


def _chained_cause(t: _Text, pos: int, message: str) -> str | None:
    """The type of an exception printed above ``pos`` with the same message (``raise ... from e``)."""
    first = message.split("\n", 1)[0]
    pat = re.compile(r"^([A-Za-z_][\w.]*): " + re.escape(first) + r"[ \t]*$", re.M)
    best = None
    for m in pat.finditer(t.text, 0, pos):
        name = m.group(1).rsplit(".", 1)[-1]
        if name not in _COMPILE_CLASSES:
            best = name
    return best


def _ptxas_block(t: _Text, m: re.Match[str]) -> _Found:
    found = _Found(m.start(), "PTXASError", message=m.group(1).strip(), lines=[t.line_of(m.start())])
    after = t.lines_after(m.start(), 60)
    if after and after[0].strip() == "`ptxas` stderr:":
        stderr = []
        for line in after[1:]:
            if line.startswith(("Repro command:", *_BLOCK_END)):
                break
            if line.strip():
                stderr.append(line.rstrip())
        found.message = "\n".join([found.message or "", *stderr]).strip()
        first = found.lines[0]
        found.lines.extend(range(first + 1, first + 2 + len(after[1 : 1 + len(stderr)])))
    return found


def _compile_errors(t: _Text, raised: list[_Found]) -> None:
    """CompilationError and its subclasses, with the kernel source position when printed."""
    text = t.text
    if "CompilationError" in text or "CompileTimeAssertionFailure" in text or "UnsupportedLanguageConstruct" in text:
        for m in _COMPILE.finditer(text):
            if "Autotuning failed with" in m.group(0):
                continue  # the autotuner printed it and went on
            raised.append(_compile_block(t, m.start(), m.group(1), int(m.group(2)), int(m.group(3))))
        if not raised:
            for m in _COMPILE_BARE.finditer(text):
                if "Autotuning failed with" in m.group(0):
                    continue
                inner, message = unwrap_repr(m.group(2).strip())
                raised.append(
                    _Found(m.start(), m.group(1), message=message, inner_error=inner, lines=[t.line_of(m.start())])
                )


def _autotune(t: _Text) -> tuple[int, str | None, list[int]]:
    """How many autotuner configs failed, the best config it reported, and their lines."""
    text = t.text
    autotune_failures = 0
    best: str | None = None
    autotune_lines: list[int] = []
    if "Autotuning" in text:
        for m in _AUTOTUNE_FAILED.finditer(text):
            autotune_failures += 1
            autotune_lines.append(t.line_of(m.start()))
        for m in _AUTOTUNE_BEST.finditer(text):
            best = m.group(1).strip()
            autotune_lines.append(t.line_of(m.start()))
    return autotune_failures, best, autotune_lines


def _out_of_resources(t: _Text, raised: list[_Found]) -> tuple[str | None, float | None, float | None]:
    """The first raised OutOfResources: the resource, what was required and the hardware limit."""
    text = t.text
    resource: str | None = None
    required: float | None = None
    limit: float | None = None
    if "out of resource:" in text or "OutOfResources:" in text:
        oor = None
        for m in _OOR.finditer(text):
            line_start = text.rfind("\n", 0, m.start()) + 1
            if "Autotuning failed with" in text[line_start : m.start()]:
                continue
            oor = oor or m  # the first raised one: repeats of it are the same error logged again
        if oor is not None:
            named = (oor.group(1) or "").strip()
            if _KERNEL_NAME.match(named):
                # TorchInductor names the kernel there ("out of resource: triton_tem_fused_..."), not the resource
                named = ""
            resource = _OOR_RESOURCE_ALIASES.get(named.lower(), named) or None
            if resource is None and (oor.group(3) or oor.group(5)):
                resource = "shared memory"
            required, limit = _oor_figure(oor.group(2), oor.group(3)), _oor_figure(oor.group(4), oor.group(5))
            if resource is None and limit in _smem_limits():
                resource = "shared memory"  # the limit is a GPU's per-block shared memory, to the byte
            sentence_end = text.find("\n", oor.start())
            sentence = text[oor.start() : sentence_end if sentence_end >= 0 else len(text)].strip()
            # every line of the message: a pasted log may wrap the figures, which decide, onto the next line
            first, last = t.line_of(oor.start()), t.line_of(oor.end() - 1)
            raised.append(_Found(oor.start(), "OutOfResources", message=sentence, lines=list(range(first, last + 1))))
    return resource, required, limit


def _other_errors(t: _Text, raised: list[_Found]) -> None:
    """PTXAS, interpreter, autotuner and MLIR errors."""
    text = t.text
    if "PTXAS" in text:
        raised.extend(_ptxas_block(t, m) for m in _PTXAS.finditer(text))

    if "InterpreterError" in text:
        for m in _INTERP.finditer(text):
            inner, message = unwrap_repr(m.group(1).strip())
            raised.append(
                _Found(m.start(), "InterpreterError", message=message, inner_error=inner, lines=[t.line_of(m.start())])
            )

    if "AutotunerError" in text:
        for m in _AUTOTUNER.finditer(text):
            raised.append(_Found(m.start(), "AutotunerError", message=m.group(1).strip(), lines=[t.line_of(m.start())]))

    if "' op " in text:
        for m in _MLIR.finditer(text):
            raised.append(_Found(m.start(), "MLIRError", message=m.group(1).strip(), lines=[t.line_of(m.start())]))


def _over_every_gpu(resource: str | None, required: float | None) -> bool:
    """Whether an OutOfResources requirement is above what any GPU allows per block."""
    if resource is None or required is None:
        return False
    from diagnose.collectors.families import _every_gpu_limits

    key = {"shared memory": "shared-memory", "registers": "registers", "threads": "threads-per-block"}
    every = _every_gpu_limits().get(key.get(resource.strip().lower(), ""))
    return every is not None and required > every


#: whether the log holds one of them, from one pass over it (diagnose.collectors.gate_words)
_has_marker = gate(_MARKERS)


def parse(text: str) -> TritonFacts | None:
    if not _has_marker(text):
        return None
    t = _Text(text)
    raised: list[_Found] = []
    _compile_errors(t, raised)
    autotune_failures, best, autotune_lines = _autotune(t)
    resource, required, limit = _out_of_resources(t, raised)
    _other_errors(t, raised)

    no_driver = False
    driver_line: int | None = None
    if "active drivers" in text:
        d = _DRIVER.search(text)
        if d and d.group(1) == "0":
            no_driver, driver_line = True, t.line_of(d.start())

    primary = _choose(raised)
    if primary is None and (
        "invalid operands of type" in text
        or "arange's range" in text
        or "pointers" in text
        or "Input shapes" in text
        or "this architecture" in text
        or "requires NVIDIA SM" in text
    ):
        k = _KNOWN.search(text)
        if k:
            primary = _Found(k.start(), "", message=k.group(2), inner_error=k.group(1), lines=[t.line_of(k.start())])

    if primary is None and not no_driver and not autotune_failures and best is None:
        return None

    lines: list[int] = []
    if primary is not None:
        if primary.error in _COMPILE_CLASSES and primary.message and primary.inner_error is None:
            primary.inner_error = _chained_cause(t, primary.pos, primary.message)
        lines.extend(primary.lines)
    if driver_line is not None:
        lines.append(driver_line)
    lines.extend(autotune_lines)
    return TritonFacts(
        lines=tuple(sorted(set(lines))),
        error=(primary.error or None) if primary else None,
        message=primary.message if primary else None,
        src_line=primary.src_line if primary else None,
        src_col=primary.src_col if primary else None,
        resource=resource,
        required=required,
        limit=limit,
        over_every_gpu=_over_every_gpu(resource, required),
        inner_error=primary.inner_error if primary else None,
        no_active_driver=no_driver,
        autotune_failures=autotune_failures,
        autotune_best_config=best,
        numpy_removal=numpy_removal(primary.message) if primary and primary.message else None,
    )


#: NumPy's own messages for behaviour its 2.x releases removed (strings of numpy 2.4.6's
#: ``_core/_multiarray_umath`` and ``numpy/__init__.py``), with the release that removed it:
#: 2.4 expired the 1.25 deprecation of converting an array with ``ndim > 0`` to a Python scalar
#: (``int(a)``/``float(a)``/``__index__`` on a one-element 1-d array); 2.0 removed the aliases listed in
#: ``numpy/_expired_attrs_2_0.py`` (``np.float_``, ``np.NaN``, ...) and the 1.x C ABI
_NUMPY_REMOVALS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"only 0-dimensional arrays can be converted to Python scalars"), "2.4"),
    (re.compile(r"`np\.\w+` was removed in the NumPy 2\.0 release"), "2.0"),
    (re.compile(r"compiled using NumPy 1\.x cannot be run in\s+NumPy 2"), "2.0"),
)


def numpy_removal(message: str) -> str | None:
    """The NumPy release that removed what ``message`` (NumPy's own error) says is gone, else None.

    >>> numpy_removal("only 0-dimensional arrays can be converted to Python scalars")
    '2.4'
    >>> numpy_removal("`np.float_` was removed in the NumPy 2.0 release. Use `np.float64` instead.")
    '2.0'
    >>> numpy_removal("only integer scalar arrays can be converted to a scalar index") is None
    True
    """
    return next((release for rx, release in _NUMPY_REMOVALS if rx.search(message)), None)


def _choose(found: list[_Found]) -> _Found | None:
    """The error to report: the last one printed (a traceback prints the outermost last), skipping
    outer CompilationErrors that only mark the call site of a failing helper."""
    with_message = [f for f in found if f.message]
    pool = with_message or found
    return max(pool, key=lambda f: f.pos) if pool else None
