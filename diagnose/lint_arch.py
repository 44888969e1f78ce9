"""Lint: a fix that guards code with ``__CUDA_ARCH__`` says where that guard does not fit.

``#if __CUDA_ARCH__ >= 900`` lets every later architecture in; it fits a feature every later GPU keeps
(double ``atomicAdd`` from sm_60, bf16 from sm_80, clusters and TMA from sm_90).  The arch-specific
instructions (``wgmma`` and ``setmaxnreg`` of sm_90a, ``tcgen05`` of sm_100a) exist only on the ``a``
target they were compiled for: sm_100 and sm_120 pass the ``>=`` guard and lack them, and the kernel
needs the ``a`` target and a feature macro (``__CUDA_ARCH_FEAT_SM90_ALL``; CUDA C++ Programming Guide,
"Feature Availability").  A fix text that recommends a ``__CUDA_ARCH__`` guard names that exception,
unless its rule is about features every later architecture keeps (``GUARD_ALLOWED``, with the reason).

>>> arch_guard("guard the call with `#if __CUDA_ARCH__ >= 600` plus a fallback")
True
>>> names_arch_specific("wgmma needs an `a` target (`sm_90a`)")
True
"""

from __future__ import annotations

import re

from diagnose.rules import Rule, RuleProblem

_GUARD = re.compile(r"__CUDA_ARCH__\s*>=|\bguard\b[^.;]{0,40}`[^`]*__CUDA_ARCH__(?!_FEAT)")
_ARCH_SPECIFIC = re.compile(r"\bsm_\d{2,3}a\b|__CUDA_ARCH_FEAT_|__CUDA_ARCH_SPECIFIC|\barch-specific\b", re.IGNORECASE)

#: rules whose guard advice is about features every later architecture keeps, with the reason
GUARD_ALLOWED: dict[str, str] = {
    "nvcc-intrinsic-needs-newer-arch": "the intrinsics and atomic overloads it names are declared under `#if "
    "__CUDA_ARCH__ >= ...` in the toolkit's own headers: every later architecture keeps them",
    "nvcc-arch-gated-intrinsic-as-runtime-assumption": "the same intrinsics and overloads as "
    "nvcc-intrinsic-needs-newer-arch (the headers' own `__CUDA_ARCH__ >= ...` guards)",
    "nvcc-arch-gated-intrinsic-as-environment": "the same intrinsics and overloads as nvcc-intrinsic-needs-newer-arch",
    "nvcc-redefines-arch-gated-overload": "the overloads it names (atomicAdd(double *) from sm_60) are declared under "
    "`#if __CUDA_ARCH__ >= ...` in the toolkit's own headers: every later architecture keeps them",
}


def arch_guard(text: str) -> bool:
    """``text`` recommends guarding code with ``__CUDA_ARCH__``."""
    return _GUARD.search(text or "") is not None


def names_arch_specific(text: str) -> bool:
    """``text`` names the arch-specific (``a`` target) features a ``>=`` guard does not fit."""
    return _ARCH_SPECIFIC.search(text or "") is not None


def check_arch_guard(rule: Rule) -> list[RuleProblem]:
    """Each fix text (default and per framework) that recommends a ``__CUDA_ARCH__`` guard names the
    arch-specific features it does not fit."""
    if rule.id in GUARD_ALLOWED:
        return []
    e = rule.explain
    out = []
    for key, text in (("default", e.fix), *e.fixes):
        if arch_guard(text) and not names_arch_specific(text):
            out.append(
                RuleProblem(
                    rule.path,
                    rule.line,
                    f"explain.fix ({key}) recommends a `__CUDA_ARCH__` guard without the arch-specific features it "
                    "does not fit: wgmma, setmaxnreg and tcgen05 need an `a` target (sm_90a, sm_100a) and a "
                    "`__CUDA_ARCH_FEAT_*` guard, since later GPUs pass `__CUDA_ARCH__ >= 900` without them",
                )
            )
    return out


def check_guard_allow_list(ids: set[str]) -> list[RuleProblem]:
    """Every id of the allow-list is a rule of the rule base."""
    return [
        RuleProblem("diagnose/lint_arch.py", 1, f"GUARD_ALLOWED names {rid!r}, which is no rule")
        for rid in sorted(set(GUARD_ALLOWED) - ids)
    ]
