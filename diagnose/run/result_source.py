"""The static source checks of ``kdiag run``, applied to a result file's kernel (never imported, never run).

A KernelBench run directory keeps each sample's generated kernel beside ``eval_results.json``; a result
record may also carry its code.  The checks ``kdiag run`` makes on a submission's source read that code
the same way: one stride argument for two axes of a pointer offset (:mod:`diagnose.run.stride_reuse`),
a running sum kept in float16 / bfloat16 (:mod:`diagnose.run.accumulator`), and a float32 ``tl.dot``
left at Triton's default input precision, TF32 on sm_80 and newer GPUs (read here from the source, as
the result file's GPU ran it).  They become run facts with ``target = "kernelbench-result"``; the
``kernelbench-result-*`` rules read them together with the result's own mismatch.

>>> src = '''
... import triton
... import triton.language as tl
... @triton.jit
... def mm(a_ptr, b_ptr, c_ptr, BLOCK: tl.constexpr):
...     r = tl.arange(0, BLOCK)
...     a = tl.load(a_ptr + r[:, None] * BLOCK + r[None, :])
...     b = tl.load(b_ptr + r[:, None] * BLOCK + r[None, :])
...     tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], tl.dot(a, b))
... '''
>>> [d.line for d in tf32_dots(src)]
[9]
>>> tf32_dots(src.replace("tl.dot(a, b)", 'tl.dot(a, b, input_precision="ieee")'))
[]
>>> tf32_dots(src.replace("tl.dot(a, b)", "tl.dot(a.to(tl.float16), b.to(tl.float16))"))
[]
>>> source_facts(src, hardware="NVIDIA A100-SXM4-80GB")["tf32_dot"]
True
>>> source_facts(src, hardware="Tesla V100-SXM2-32GB")
{}
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from diagnose import facts as F
from diagnose.evidence import Evidence
from diagnose.run import accumulator as AC
from diagnose.run import cuda_sources as CS
from diagnose.run import ext_symbols as ES
from diagnose.run import py_names as PN
from diagnose.run import stride_reuse as SR
from diagnose.run import triton_names as TN
from diagnose.run.triton_source import jit_functions, nested_function_defs, parse_source

#: what the run facts say the facts came from
TARGET = "kernelbench-result"

#: the operands are (or may be) 16-bit: a tl.dot on them does not use TF32
_NARROW_HINT = re.compile(
    r"\btl\.(?:float16|bfloat16|float8\w*)\b|\btorch\.(?:float16|half|bfloat16)\b|\.half\(\)|\.bfloat16\(\)"
)
#: GPUs before Ampere (sm_80) have no TF32: their float32 tl.dot multiplies in full float32
_PRE_AMPERE = re.compile(
    r"V100|\bT4\b|P100|P40|\bP4\b|K80|K40|M60|M40|Titan V|Titan Xp?|RTX 20\d0|GTX|Quadro RTX", re.I
)
_HARDWARE = re.compile(r"^hardware: (.+)$", re.M)


@dataclass(frozen=True)
class Tf32Dot:
    line: int  # the tl.dot call's line
    code: str  # that line, stripped


def _precision_kept(call: ast.Call) -> bool:
    """The call asks for exact float32 products, or for a precision not known here (a variable)."""
    for kw in call.keywords:
        if kw.arg == "input_precision":
            return not (isinstance(kw.value, ast.Constant) and kw.value.value == "tf32")
        if kw.arg == "allow_tf32":
            return not (isinstance(kw.value, ast.Constant) and kw.value.value is True)
    return False


def _is_dot(call: ast.Call) -> bool:
    f = call.func
    return (isinstance(f, ast.Attribute) and f.attr == "dot") or (isinstance(f, ast.Name) and f.id == "dot")


def tf32_dots(text: str) -> list[Tf32Dot]:
    """``tl.dot`` calls of the ``@triton.jit`` functions left at the default (TF32) input precision, when
    nothing in the source makes the operands 16-bit (none when it does not parse)."""
    tree = parse_source(text)
    if tree is None or _NARROW_HINT.search(text):
        return []
    lines = text.splitlines()
    out = []
    for fn in jit_functions(tree):
        for node in ast.walk(fn):
            if isinstance(node, ast.Call) and _is_dot(node) and not _precision_kept(node):
                code = lines[node.lineno - 1].strip() if 0 < node.lineno <= len(lines) else ""
                out.append(Tf32Dot(node.lineno, code))
    return out


def hardware_of(text: str) -> str | None:
    """The GPU a KernelBench record names (``hardware: NVIDIA A100-SXM4-80GB``), if it names one."""
    m = _HARDWARE.search(text)
    return m.group(1).strip() if m else None


def source_facts(text: str, *, path: Path | None = None, hardware: str | None = None) -> dict[str, Any]:
    """Run facts from a kernel's source: stride reuse, a narrow accumulator, a TF32 ``tl.dot`` (the last only
    when the GPU that ran it has TF32, or is not named).  Empty when the source shows none of them."""
    facts: dict[str, Any] = {}
    reuse = SR.triton_stride_reuse(text)
    if reuse:
        r = reuse[0]
        facts.update(stride_reused=r.stride, stride_reused_line=r.line, stride_reused_code=r.code[:160],
                     stride_reused_indices=f"{r.indices[0]} and {r.indices[1]}")  # fmt: skip
    accs = AC.scan(path) if path is not None else AC.triton_accumulators(text)
    if accs:
        a = accs[0]
        facts.update(narrow_accumulator=a.dtype, narrow_accumulator_var=a.var, narrow_accumulator_line=a.line,
                     narrow_accumulator_code=a.code[:160], narrow_accumulator_how=a.how)  # fmt: skip
    if tf32_dots(text) and not (hardware and _PRE_AMPERE.search(hardware)):
        facts["tf32_dot"] = True
    if facts:
        facts["target"] = TARGET
    return facts


def read_source(source: str | None, code: str | None) -> tuple[str | None, Path | None]:
    """The kernel's text: the record's own code, else the file it names (``None`` when neither can be read)."""
    if code:
        return code, None
    if not source:
        return None, None
    path = Path(source)
    try:
        return path.read_text(encoding="utf-8", errors="replace"), path
    except OSError:
        return None, None


def with_source_facts(ev: Evidence, text: str, *, path: Path | None = None, record_text: str = "") -> Evidence:
    """``ev`` with the source's run facts, when it has no run facts of its own (a result record) and the
    source shows any."""
    if ev.run is not None:
        return ev
    facts = source_facts(text, path=path, hardware=hardware_of(record_text))
    if _COMPILE_FAILED.search(record_text) and "tl." in text:
        unknown = TN.unknown_in_source(text, *TN.installed_language())
        if unknown:
            facts.update(triton_name_unknown=unknown, target=TARGET)
        tree = parse_source(text)
        nested = nested_function_defs(tree) if tree is not None else []
        if nested:
            kernel, name, line = nested[0]
            facts.update(triton_nested_def=f"{name} (line {line}, inside {kernel})", target=TARGET)
    if _PTX_LOAD_FAILED.search(record_text):
        facts.update(_ptx_facts(text))
    if _NOT_COMPILED.search(record_text):
        facts.update(_unloadable(text))
    if "build_directory" in text and "No such file" in record_text:
        missing = _BUILD_DIR_FILE.search(record_text)
        if missing and re.search(r"build_directory\s*=", text):
            facts.update(extension_build_dir_missing=missing.group(1), target=TARGET)
    if _NOT_BUILT.search(record_text) and "load_inline" in text:
        unlinked = ES.unlinked(CS.extract_text(text))
        if unlinked:
            facts.update(extension_unlinked=f"{unlinked[0].name}: {unlinked[0].problem}", target=TARGET)
    return ev.replace(run=F.RunFacts(**facts)) if facts else ev


def with_record_facts(ev: Evidence, record_text: str) -> Evidence:
    r"""``ev`` with what a record or a log shows without its kernel (a fork that keeps no kernel files, a pasted
    traceback): a compile failure on a ``triton.language`` name (or a tensor's attribute) that no Triton release
    defines, read from the recorded message and checked against the installed Triton's language as
    :func:`diagnose.run.triton_names.unknown_name` does (nothing is concluded when that Triton is older than the newest
    release kdiag knows, or the name is one that moved).

    >>> from diagnose.evidence import Evidence
    >>> rec = "triton.compiler.errors.CompilationError: at 1:4: AttributeError(\"module 'triton.language' has no "
    >>> rec += "attribute 'tanh'\")\ncompiled: True\n"
    >>> got = with_record_facts(Evidence(), rec).run
    >>> got is None or got.triton_name_unknown == "tanh"
    True
    >>> with_record_facts(Evidence(), "compiled: False\n").run is None
    True
    """
    if ev.run is not None:
        return ev
    t = ev.triton
    if t is not None and t.over_every_gpu and t.resource == "shared memory" and _EVALUATED.search(record_text):
        # the harness ran the problem at its own sizes: a config no GPU holds there is the kernel's, not the input's
        return ev.replace(run=F.RunFacts(evaluated_smem_over_every_gpu=t.required, target=TARGET))
    if not _COMPILE_FAILED.search(record_text):
        return ev
    unknown = TN.unknown_name(record_text, TN.installed_language()[0])
    return ev.replace(run=F.RunFacts(triton_name_unknown=unknown, target=TARGET)) if unknown else ev


#: a KernelBench-format evaluation record as kdiag reads it (inputs._kb_text and _flat_evaluation write these
#: fields): the harness evaluated the problem at the sizes the problem fixes
_EVALUATED = re.compile(r"(?m)^compiled: (?:True|False)\ncorrectness: (?:True|False)$")


#: the driver refused a PTX module it was given: CUresult 218 / cudaErrorInvalidPtx ("a PTX JIT compilation failed")
_PTX_LOAD_FAILED = re.compile(r"CUDA_ERROR_INVALID_PTX|cudaErrorInvalidPtx|a PTX JIT compilation failed", re.I)


def _ptx_facts(text: str) -> dict[str, Any]:
    """What the installed ptxas says of a kernel written in PTX (a model's answer: its fenced block): its first error
    on a line of the text; empty when the text is not PTX, assembles, or no assembler is installed."""
    import os

    from diagnose.inputs import unfenced
    from diagnose.run import ptx_check

    ptx = unfenced(text)
    if not ptx_check.is_ptx(ptx):
        return {}
    got = ptx_check.check(ptx, os.environ)
    if got is None or got[1] is None:
        return {}
    return {"ptx_error": got[1], "ptx_assembler": got[0], "target": TARGET}


#: a result that says the sample was never built (KernelBench's ``compiled: False``): the file may not even load
_NOT_COMPILED = re.compile(r"(?m)^compiled: False$")


def _unloadable(text: str) -> dict[str, Any]:
    """Why a kernel file cannot load, read from it: it does not parse (``source_not_python``), or what the harness
    calls uses a module name the file never binds (``source_unbound_name``, as :func:`unbound_module_name` decides);
    empty when neither.

    >>> _unloadable("x = (1,\\n")["source_not_python"]
    "line 1: '(' was never closed"
    >>> _unloadable("import torch\\nclass ModelNew:\\n    def __init__(self):\\n        self.a = math.sqrt(5)\\n")
    {'source_unbound_name': 'math (line 4)', 'target': 'kernelbench-result'}
    >>> _unloadable("import math\\nv = math.sqrt(5)\\n")
    {}
    """
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        return {"source_not_python": f"line {exc.lineno}: {exc.msg}", "target": TARGET}
    except ValueError:
        return {}
    unbound = unbound_module_name(text, tree)
    return {"source_unbound_name": unbound, "target": TARGET} if unbound else {}


def unbound_module_name(text: str, tree: ast.Module) -> str | None:
    """The first name the harness's entry points use that nothing in the file binds (:func:`diagnose.run.py_names.
    undefined`: no import, assignment or definition, not Python's own), when the file uses it as a module
    (``math.sqrt``); None otherwise, and for a file that can bind names unseen (``from m import *``, ``exec``)."""
    modules = {n.value.id for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}
    first = next((u for u in PN.undefined(text) if u.name in modules), None)
    return f"{first.name} (line {first.line})" if first else None


#: torch's load_inline writing its sources into a build folder that is not there: the folder
_BUILD_DIR_FILE = re.compile(r"No such file or directory: '([^'\n]{1,300})[\\/](?:main\.cpp|cuda\.cu|sycl\.sycl)'")
#: a result that says the sample's extension did not build or load (a declaration that does not link is the cause
#: only then: a sample that ran has linked)
_NOT_BUILT = re.compile(r"(?m)^compiled: False$|undefined symbol")
#: a result that says the sample's Triton kernel did not compile (a name no release has is the cause only then):
#: Triton's CompilationError or one of its subclasses (triton/compiler/errors.py), or the AttributeError of a
#: ``triton.language`` name the front end could not find, which older harnesses kept without its CompilationError
_COMPILE_FAILED = re.compile(
    r"(?m)CompilationError|UnsupportedLanguageConstruct|CompileTimeAssertionFailure|^compiled: False$"
    r"|module 'triton\.language(?:\.\w+)?' has no attribute"
)
