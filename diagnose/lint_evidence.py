"""Lint of a rule's explanation against its own examples: the text names this input's values, and the
fix gives no advice for a framework the examples do not come from.

``what`` and ``why`` are rendered (:mod:`diagnose.explain`) on each of the rule's match examples (a
message family's rule: on each sample of its messages, else on its message templates filled); a text
that shows no value of the evidence there (no placeholder rendered) is reported at the example's line.

A ``fix`` that names one framework's API (``tl.load``, ``torch.cuda``, ``jax.jit``, ``cupy.asarray``,
``@cuda.jit``, ``__syncthreads()``) reaches every input the rule matches unless the fix is keyed by
framework; it is reported when one of the rule's match examples comes from another framework (a
family's samples: from its tool's framework when the text names none), or when the rule's evidence
cannot come from the framework it names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from diagnose import explain as X
from diagnose.rule_model import Rule, RuleProblem

#: the severity of a rule whose what/why names no value of its own examples (every rule of the rule base
#: passes; NO_EVIDENCE_ALLOWED lists the exceptions with their reasons)
EVIDENCE_SEVERITY = "error"
#: the severity of a fix, not keyed by framework, that names another framework's API than its examples'
FIX_SEVERITY = "error"
#: rules whose examples carry no value to name, with the reason (checked: every id is a rule)
NO_EVIDENCE_ALLOWED: dict[str, str] = {
    "cuda-arch-requirement-unmet": "reads the log text only: the line its pattern matches (cited with the finding) is "
    "its evidence, and no parsed fact carries the required capability",
    "cuda-illegal-address-paraphrase": "reads the log text only, a paraphrase without the runtime's message: no parsed "
    "fact carries a value; the matched line is cited with the finding",
    "cuda-invalid-configuration-paraphrase": "reads the log text only, a shorthand without the runtime's message: no "
    "parsed fact carries a value; the matched line is cited with the finding",
    "env-opencl-tuner-no-kernel-passed": "reads the log text only, CLOGS' tuner lines and its error: no parsed fact "
    "carries a value; the matched lines are cited with the finding",
}

#: one framework's API in fix text: a call or decorator only that framework's code has
FRAMEWORK_API: dict[str, re.Pattern[str]] = {
    "triton": re.compile(r"\btl\.[a-z_]+|@?\btriton\.(?:jit|autotune|Config|language|cdiv)\b"),
    "torch": re.compile(r"\btorch\.[A-Za-z_]+|\.contiguous\(\)"),
    "jax": re.compile(r"\bjax\.[a-z_]+|\bjnp\.[a-z_]+|\bpl\.[A-Za-z_]+"),
    "cupy": re.compile(r"\bcupyx?\.[A-Za-z_]+"),
    "numba": re.compile(r"\bnumba\.[a-z_]+|@cuda\.jit\b|\bcuda\.(?:jit|grid|syncthreads)\b"),
    "cuda": re.compile(
        r"__syncthreads|__syncwarp|__launch_bounds__|\bcudaMalloc\w*|\bcudaMemcpy\w*|\bcudaFuncSetAttribute\b"
        r"|\bcudaDeviceSetLimit\b|\bcudaGetLastError\b|<<<"
    ),
}


#: the framework a message family's tool belongs to (its samples need not name it)
TOOL_FRAMEWORK = {"jax": "jax", "pallas": "jax", "triton": "triton", "torch": "torch", "cupy": "cupy", "numba": "numba"}


#: frameworks whose API a program of another framework uses too: a Triton kernel is launched on torch
#: tensors (by hand or by Inductor), so torch advice fits it
ALSO_FITS = {"triton": {"torch"}}


def frameworks_named(text: str) -> dict[str, str]:
    """framework → the first of its API names ``text`` mentions."""
    out = {}
    for fw, rx in FRAMEWORK_API.items():
        m = rx.search(text or "")
        if m:
            out[fw] = m.group(0)
    return out


def family_template_contexts(rule: Rule) -> list[tuple[int, Mapping[str, Any]]]:
    """A message family's rule: the contexts of its messages that have no sample, their templates filled
    (the filling its own patterns match), at the family's line."""
    if "family" not in rule.tags:
        return []
    from diagnose.catalogue import default_catalogue
    from diagnose.catalogue_text import STRING_FILLERS, fill_template
    from diagnose.collectors import collect

    fid = getattr(rule.compiled, "family", rule.id)  # a candidate's rule reads its family's messages
    fam = next((f for f in default_catalogue().families if f.id == fid), None)
    out: list[tuple[int, Mapping[str, Any]]] = []
    for m in fam.messages if fam is not None else ():
        if m.sample:
            continue
        filled = (fill_template(m.text, f) for f in STRING_FILLERS)
        text = next((t for t in filled if any(rx.search(t) for rx in fam.patterns)), None)  # type: ignore[union-attr]
        if text is not None:
            out.append((rule.line, collect(text).context()))
    return out


def own_values(context: Mapping[str, Any]) -> dict[str, Any]:
    """The facts this input has: ``context`` less every symbol at its empty default (a count of 0, a
    false flag of a source the input lacks say nothing about it)."""
    from diagnose.evidence import _empty_context

    blank = _empty_context()
    return {k: v for k, v in context.items() if k not in blank or v != blank[k]}


def _values_here(rule: Rule, context: Mapping[str, Any]) -> list[str]:
    """A few evidence symbols of the rule's sources that have a value in this input (a hint for the author)."""
    heads = tuple(f"{s}_" for s in rule.requires if s != "log") or ("log_",)
    names = [n for n in own_values(context) if n.startswith(heads) and not n.endswith(("_lines", "_text"))]
    shown = [name for name, _ in X.read_facts(sorted(names), context)]
    return shown[:8]


def check_evidence_text(rule: Rule, contexts: Sequence[tuple[int, Mapping[str, Any]]]) -> list[RuleProblem]:
    """``what`` + ``why`` show a value of the evidence on each of the rule's own match examples."""
    if rule.id in NO_EVIDENCE_ALLOWED or not contexts:
        return []
    e = rule.explain
    texts = (e.what, e.why)

    def problem(line: int, msg: str) -> RuleProblem:
        # a draft (`status: experimental`, e.g. from `kdiag rules suggest`) is told, not refused
        severity = "warning" if rule.status == "experimental" else EVIDENCE_SEVERITY
        return RuleProblem(rule.path, line, msg, severity=severity)

    if not any(X.placeholders(t) for t in texts):
        hint = ", ".join(_values_here(rule, contexts[0][1])) or "none of its sources' symbols"
        return [
            problem(
                rule.line,
                "explain.what/why names no value of the evidence (no placeholder): say what happened in this "
                f"input with the facts its examples have (the first has: {hint})",
            )
        ]
    bare = [X.render(t, {}) for t in texts]
    out = []
    for line, ctx in contexts:
        if [X.render(t, own_values(ctx)) for t in texts] == bare:
            hint = ", ".join(_values_here(rule, ctx)) or "none of its sources' symbols"
            out.append(
                problem(
                    line,
                    "explain.what/why shows no value on this match example (every placeholder's sentence is left "
                    f"out): use a fact it has ({hint})",
                )
            )
    return out


def check_fix_frameworks(rule: Rule, contexts: Sequence[tuple[int, Mapping[str, Any]]]) -> list[RuleProblem]:
    """A fix text that names a framework's API reaches only inputs from that framework."""
    e = rule.explain
    keyed = dict(e.fixes)
    out = []
    possible = X.frameworks_possible(rule.requires)
    named = frameworks_named(e.fix)
    for fw, api in named.items():
        if fw not in possible:
            out.append(
                RuleProblem(
                    rule.path,
                    rule.line,
                    f"explain.fix names {fw} API (`{api}`) but evidence with {', '.join(rule.requires)} cannot "
                    f"come from {fw}",
                    severity=FIX_SEVERITY,
                )
            )
    if not named:
        return out
    tool = next((TOOL_FRAMEWORK[t] for t in rule.tags if t in TOOL_FRAMEWORK), None) if "family" in rule.tags else None
    for line, ctx in contexts:
        here = X.framework(ctx) or tool
        if here is None or here in keyed or here in named or named.keys() <= ALSO_FITS.get(here, set()):
            continue  # no framework named, its own text, or the default written for its framework
        names = ", ".join(f"{fw} (`{api}`)" for fw, api in named.items())
        out.append(
            RuleProblem(
                rule.path,
                line,
                f"explain.fix names {names} API, but this match example comes from {here}: key the fix by "
                "framework (fix: {default: ..., " + next(iter(named)) + ": ...})",
                severity=FIX_SEVERITY,
            )
        )
    return out


def check_allow_list(ids: set[str]) -> list[RuleProblem]:
    """Every id of the allow-list is a rule of the rule base."""
    return [
        RuleProblem("diagnose/lint_evidence.py", 1, f"NO_EVIDENCE_ALLOWED names {rid!r}, which is no rule")
        for rid in sorted(set(NO_EVIDENCE_ALLOWED) - ids)
    ]
