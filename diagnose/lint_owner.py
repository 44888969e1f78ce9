"""Lint: advice for a kernel's author reaches a framework's own kernels only with the owner's alternative.

A CUDA runtime status reaches kdiag in several wordings: the runtime's own (a C++ program's check
macro), PyTorch's (``RuntimeError: CUDA error: MESSAGE``, c10's check of every launch) and CuPy's
(``cupy_backends.cuda.api.runtime.CUDARuntimeError: NAME: MESSAGE``).  In a framework's wording the
launching kernel is as often the framework's own op (a reduction, an embedding, a CUB sort) as the
reader's, and a fix that only tells the kernel's author what to change (grid-stride loops,
``__launch_bounds__``, ``-maxrregcount``, ``int64_t`` offsets) sends the reader of a stock op into
code they do not own.

For each match example that carries a runtime status in another wording, the rule is run on the same
status in each framework's wording; where it still matches, the fix a report shows there (the
framework's key, else the default) is rendered, and advice for the kernel's author without a word on
the framework's or a library's kernel (upgrade, report upstream) is a problem: key the fix by that
framework and say what to do when the kernel is not the reader's.

>>> bool(author_advice("Cap registers with `__launch_bounds__(256)` or `-maxrregcount=64`."))
True
>>> bool(owner_named("When the op is PyTorch's own, upgrade PyTorch and report it upstream."))
True
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from diagnose import explain as X
from diagnose.rules import Rule, RuleProblem

#: advice that changes a kernel's code or its build: only its author can follow it
_AUTHOR = re.compile(
    r"grid-stride|__launch_bounds__|-maxrregcount|-Xptxas|<<<|\bint64_t\b|__syncthreads|\b(?:blockIdx|threadIdx)\b"
    r"|\bfold [\w ]{0,40}\binto x\b",
    re.IGNORECASE,
)
#: what to do when the kernel is a framework's or a library's
_OWNER = re.compile(r"\bupstream\b|\bupgrade\b|\b(?:PyTorch|CuPy|library|framework)'s\b", re.IGNORECASE)

#: a CUDA runtime status as each framework words it: PyTorch's c10 check (c10/cuda/CUDAException.cpp,
#: quoted by e.g. graphdeco-inria/gaussian-splatting#1213) and CuPy's CUDARuntimeError (its ``str()`` in
#: cupy-cuda13x 14.2, cupy_backends/cuda/api/runtime)
WORDINGS: dict[str, str] = {
    "torch": "RuntimeError: CUDA error: {cuda_message}\n",
    "cupy": "cupy_backends.cuda.api.runtime.CUDARuntimeError: {cuda_error}: {cuda_message}\n",
}


def author_advice(text: str) -> list[str]:
    """The advice for a kernel's author ``text`` gives (each once, in order)."""
    return list(dict.fromkeys(m.group(0) for m in _AUTHOR.finditer(text or "")))


def owner_named(text: str) -> bool:
    """``text`` says what to do when the kernel is a framework's or a library's."""
    return _OWNER.search(text or "") is not None


def _fix_for(rule: Rule, framework: str) -> str:
    e = rule.explain
    return dict(e.fixes).get(framework, e.fix)


def check_fix_owner(rule: Rule, contexts: Sequence[tuple[int, Mapping[str, Any]]]) -> list[RuleProblem]:
    """On the rule's runtime statuses in each framework's wording, a fix with author-only advice names the
    framework's or a library's kernel too."""
    from diagnose.collectors import collect

    candidates = [fw for fw in WORDINGS if author_advice(_fix_for(rule, fw))]
    if not candidates:
        return []
    out: list[RuleProblem] = []
    for line, ctx in contexts:
        error, message = ctx.get("cuda_error"), ctx.get("cuda_message")
        if not error or not message or X.framework(ctx) in WORDINGS:
            continue
        for fw in list(candidates):
            try:
                ev = collect(WORDINGS[fw].format(cuda_error=error, cuda_message=message))
                if not set(rule.requires) <= ev.present():
                    continue
                worded = ev.context()
                if not rule.matches(worded) or X.framework(worded) != fw:
                    continue
                fix = X.render(_fix_for(rule, fw), worded)
            except Exception:
                continue  # an example that cannot be read is reported by the example checks
            found = author_advice(fix)
            if found and not owner_named(fix):
                candidates.remove(fw)  # once per rule and framework
                out.append(
                    RuleProblem(
                        rule.path,
                        line,
                        f"explain.fix gives the kernel's author's steps ({', '.join(found)}) on this status in "
                        f"{fw}'s wording, where the kernel is often {fw}'s own op: key the fix by framework "
                        f"(fix: {{default: ..., {fw}: ...}}) and say what to do when the kernel is not the reader's "
                        "(upgrade, report upstream)",
                    )
                )
    return out
