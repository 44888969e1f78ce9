"""Lint: the steps a report gives speak the language of the code in the log.

A fix or a deciding check is read by someone holding the log's program.  Two kinds of advice do
nothing for some of them:

- **Python packaging** (``pip list``, ``pip install``, ``conda list``, "the versions the framework
  release pins") for a plain CUDA C++ program, which installs no wheel;
- **CUDA C++ build options** (``-Xptxas``, ``-maxrregcount``, ``__launch_bounds__``) for a kernel written
  in Numba, JAX or Triton, whose compiler takes no nvcc flag and whose source has no such qualifier.

:func:`check_rule_language` renders a rule's fix (the one for each match example's framework, like a
report) and its caveats on each of its match examples, and reports foreign advice;
:func:`check_unmatched_language` does the same for every kind of ``diagnose/data/unmatched.yaml``,
whose check is chosen by framework alone.

>>> foreign_advice("Run `pip list | grep -i nvidia` and compare.", "cuda")
['pip list']
>>> foreign_advice("Cap registers with `__launch_bounds__(256)` or `-maxrregcount=64`.", "numba")
['__launch_bounds__', '-maxrregcount']
>>> foreign_advice("Cap registers with `__launch_bounds__(256)`.", "torch")
[]

A third kind is one framework's packaging given for another's log (``pip install -U "jax[cuda12]"`` for
a message TensorFlow printed): :func:`foreign_packaging`.

>>> foreign_packaging('Install the cuDNN it wants (`pip install -U "jax[cuda12]"`).', None)
['jax[cuda12]']
>>> foreign_packaging('Install the cuDNN it wants (`pip install -U "jax[cuda12]"`).', "jax")
[]
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from diagnose import explain as X
from diagnose.rule_model import Rule, RuleProblem

#: advice that only a Python environment can follow
_PY_PACKAGING = re.compile(
    r"\bpip3?\ (?:list|install|show|freeze)\b|\bconda\ (?:list|install)\b|\bversions?\ the\ framework\ release\ pins\b",
    re.VERBOSE,
)
#: advice that only CUDA C++ compiled by nvcc can follow
_CUDA_C_BUILD = re.compile(r"-Xptxas\b|-maxrregcount\b|__launch_bounds__")
#: framework -> the advice that does not fit its programs (torch and CuPy programs build CUDA C++
#: extensions and raw kernels, so build options fit them; a Triton kernel launched by hand is Python)
FOREIGN: dict[str, tuple[re.Pattern[str], ...]] = {
    "cuda": (_PY_PACKAGING,),
    "numba": (_CUDA_C_BUILD,),
    "jax": (_CUDA_C_BUILD,),
    "triton": (_CUDA_C_BUILD,),
}
SEVERITY = "error"
#: one framework's own packaging: advice that installs it does nothing for a log of another framework (a
#: cuDNN or driver message that TensorFlow prints too is not answered by ``pip install "jax[cuda12]"``)
PACKAGING: dict[str, re.Pattern[str]] = {
    "jax": re.compile(r"\bjax\[cuda\d*(?:[_-]\w+)?\]|\bpip3?\ install\b[^`\n]*\bjaxlib\b", re.VERBOSE),
    "torch": re.compile(r"download\.pytorch\.org/whl|\bpip3?\ install\ (?:-U\ )?torch\b", re.VERBOSE),
    "cupy": re.compile(r"\bcupy-cuda\d+x?\b"),
}
#: framework -> the frameworks whose install brings its own (a torch wheel pins the Triton it runs)
_PINS: dict[str, tuple[str, ...]] = {"triton": ("torch",)}


def foreign_advice(text: str, framework: str | None) -> list[str]:
    """The advice in ``text`` that a program of ``framework`` cannot follow (each once, in order)."""
    found: list[str] = []
    for rx in FOREIGN.get(framework or "", ()):
        found += [m.group(0) for m in rx.finditer(text or "")]
    return list(dict.fromkeys(found))


def foreign_packaging(text: str, framework: str | None) -> list[str]:
    """The installs of a framework other than ``framework`` that ``text`` advises (each once, in order)."""
    found: list[str] = []
    for fw, rx in PACKAGING.items():
        if fw != framework and fw not in _PINS.get(framework or "", ()):
            found += [m.group(0) for m in rx.finditer(text or "")]
    return list(dict.fromkeys(found))


def check_rule_language(rule: Rule, contexts: Sequence[tuple[int, Mapping[str, Any]]]) -> list[RuleProblem]:
    """On each match example, the fix for its framework and the caveats give no advice foreign to it."""
    e = rule.explain
    out = []
    for line, ctx in contexts:
        fw = X.framework(ctx)
        fix = dict(e.fixes).get(fw or "", e.fix)
        key = f"fix{'.' + fw if fw and fw in dict(e.fixes) else ''}"
        # a log kdiag names no framework for may still be that framework's (a bare jaxlib message); one that
        # names another (TensorFlow, Paddle) is not
        named = fw or ("another framework" if X.names_other_framework(ctx) else None)
        leaked = foreign_packaging(X.render(fix, ctx), fw) if named else []
        if leaked:
            out.append(
                RuleProblem(
                    rule.path,
                    line,
                    f"explain.{key} installs {', '.join(leaked)} on a match example written in "
                    f"{named}: give that install in the framework's own fix "
                    "(fix: {default: ..., jax: ...}) and keep the default to what any program can do",
                    severity=SEVERITY,
                )
            )
        if fw not in FOREIGN:
            continue
        for key, text in ((f"fix{'.' + fw if fw in dict(e.fixes) else ''}", fix), ("caveats", e.caveats or "")):
            found = foreign_advice(X.render(text, ctx), fw)
            if found:
                out.append(
                    RuleProblem(
                        rule.path,
                        line,
                        f"explain.{key} gives {', '.join(found)} on a match example written in {fw}: key the "
                        f"fix by framework (fix: {{default: ..., {fw}: ...}}) or keep that advice out of the text",
                        severity=SEVERITY,
                    )
                )
    return out


#: CUDA's own tools and limits: no step a program on a TPU can take
CUDA_ONLY = re.compile(
    r"\bcompute-sanitizer\b|\bnvidia-smi\b|\bnvidia-[*\w-]+-cu\d+\b|\b65535\b|\bCUDA_LAUNCH_BLOCKING\b|\bcuda-gdb\b"
    r"|\bnvcc\b|\bcuobjdump\b|__syncthreads|\b(?:racecheck|memcheck|initcheck)\b"
)


def check_unmatched_language() -> list[RuleProblem]:
    """Every kind of the unmatched table: the check each framework gets gives no advice foreign to it, and
    the check a JAX program on a TPU, or a program on another GPU runtime, gets names no CUDA tool."""
    from diagnose.unmatched import default_kinds

    out = []
    for kind in default_kinds():
        tpu_text = "" if kind.platform == "cuda" else kind.check_for("jax", "tpu")
        found = list(dict.fromkeys(m.group(0) for m in CUDA_ONLY.finditer(tpu_text)))
        if found:
            out.append(
                RuleProblem(
                    "diagnose/data/unmatched.yaml",
                    1,
                    f"kind {kind.kind}: the check a JAX log from a TPU gets names {', '.join(found)}: give it a "
                    "`tpu:` text",
                    severity=SEVERITY,
                )
            )
        # a program on another GPU runtime (HIP/ROCm, OpenCL, SYCL, Metal) gets no CUDA tool either
        other = (
            ""
            if kind.platform == "cuda"
            else " ".join(kind.check_for(fw, "gpu-other") for fw in (None, "cuda", "torch"))
        )
        found = list(dict.fromkeys(m.group(0) for m in CUDA_ONLY.finditer(other)))
        if found:
            out.append(
                RuleProblem(
                    "diagnose/data/unmatched.yaml",
                    1,
                    f"kind {kind.kind}: the check a log from another GPU runtime gets names {', '.join(found)}: "
                    "give it a `gpu-other:` text",
                    severity=SEVERITY,
                )
            )
        for fw in FOREIGN:
            found = foreign_advice(kind.check_for(fw), fw)
            if found:
                out.append(
                    RuleProblem(
                        "diagnose/data/unmatched.yaml",
                        1,
                        f"kind {kind.kind}: the check a {fw} log gets names {', '.join(found)}: give it a "
                        f"`{fw}:` text, or keep that advice out of the default",
                        severity=SEVERITY,
                    )
                )
    return out
