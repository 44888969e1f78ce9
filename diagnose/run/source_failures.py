"""Failures a clean compile does not rule out, read from the submission when it cannot run here.

The CUDA sources compiled, and without a GPU the run stops there (no-result).  Two failures that come before any
kernel runs, on every machine, are still visible in the source: a ``cpp_extension.load`` whose sources define no
Python module (the import fails: :mod:`diagnose.run.ext_module`), and a name the harness's entry points use that
nothing defines (``NameError`` when ``forward`` is called: :mod:`diagnose.run.py_names`).  Each is reported as the
message Python would give, so the rules that know that message decide.
"""

from __future__ import annotations

import dataclasses

from diagnose.run import assemble as A
from diagnose.run import compile_check as CC
from diagnose.run import ext_module as EM
from diagnose.run import ladder as L
from diagnose.run import py_names as PN
from diagnose.run import runfacts as R
from diagnose.run.context import RunContext
from diagnose.run.result import RunResult


def _fail(ctx: RunContext, check: CC.Check, log: str, read: str, note: str) -> RunResult:
    facts = dataclasses.replace(R.base_facts(ctx, rungs=("compile",), compiled=True), target_arch=check.arch)
    ev = A.evidence(ctx, log, None, facts)
    diag = ctx.matcher.diagnose(ev)
    rung = L.Rung("compile", f"nvcc -cubin for {check.arch} (the submission's CUDA sources), then {read}")
    last = check.compiled[-1]
    ctx.log.rung(rung, list(last.argv), "build", last.outcome, "fail", diag, True)
    ctx.log.note(note)
    res = ctx.finish("fail", diag, ev)
    return dataclasses.replace(res, checked=(check.summary(),))


def _no_module(ctx: RunContext, check: CC.Check, text: str) -> RunResult | None:
    assert ctx.target.path is not None
    found = EM.no_module(text, ctx.target.path.parent)
    if found is None:
        return None
    files = ", ".join(found.files)
    api = found.api
    log = (f"{check.log.rstrip()}\nthe sources compile; none defines PYBIND11_MODULE, so the library {api}() builds "
           f"(line {found.line}) has no module to import:\nImportError: dynamic module does not define module export "
           f"function (PyInit_{found.name})\n")  # fmt: skip
    read = f"the sources {api}() builds ({files}) searched for the PYBIND11_MODULE it imports (read, not built)"
    verb = "defines" if len(found.files) == 1 and api == "load" else "define"
    given = " and no functions" if api == "load_inline" else ""
    note = (f"line {found.line}: {api}(name={found.name!r}{given}) builds {files}, which {verb} no PYBIND11_MODULE: "
            f"importing it fails with 'dynamic module does not define module export function (PyInit_{found.name})', "
            "on any machine")  # fmt: skip
    return _fail(ctx, check, log, read, note)


def _undefined(ctx: RunContext, check: CC.Check, text: str) -> RunResult | None:
    assert ctx.target.path is not None
    found = PN.undefined(text)
    if not found:
        return None
    u = found[0]
    log = (f'Traceback (most recent call last):\n  File "{ctx.target.path}", line {u.line}, in {u.function}\n'
           f"NameError: name '{u.name}' is not defined\n")  # fmt: skip
    read = f"the names {u.function} uses, against what the submission defines (read, not run)"
    others = "".join(f"; {o.function} also uses {o.name} (line {o.line})" for o in found[1:4])
    note = (f"line {u.line}: {u.function} uses {u.name}, which nothing in the submission defines (a #define in the "
            f"CUDA source is not a Python name): NameError when the harness calls it, on any machine{others}")  # fmt: skip
    return _fail(ctx, check, log, read, note)


def after_clean_compile(ctx: RunContext, check: CC.Check) -> RunResult | None:
    """A failure the source shows although its CUDA compiled, or None (then the answer is no-result)."""
    if ctx.target.path is None:
        return None
    try:
        text = ctx.target.path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return _no_module(ctx, check, text) or _undefined(ctx, check, text)
