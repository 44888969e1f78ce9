"""A sound, cheap pre-check for each rule, derived from its rule-engine expression.

rule-engine re-coerces every symbol it reads (numbers to Decimal, tuples element by element),
so evaluating ~30 candidate rules per record costs most of `kdiag classify`'s time.  Most
rules, though, hinge on a plain test — ``cuda_error == "cudaErrorX"``, ``"tag" in env_issues``,
``log_text =~~ "regex"``, a boolean flag — joined by ``and``.  This module compiles such tests
into Python predicates that are *necessary* conditions: when a pre-check says False the rule
cannot match and is not evaluated; when it says True (or the rule has no pre-check) the rule
is evaluated by rule-engine as usual.  So the pre-check can only save time, never change an
answer (the tests compare both paths over the whole corpus).

- ``A and B``  → pre(A) and pre(B) (either side may lack one)
- ``A or B``   → pre(A) or pre(B), only when both sides have one
- ``sym == "lit"``, ``sym in ["a", "b"]``, ``"lit" in sym``, ``sym =~ / =~~ "re"``, a bare boolean symbol
- anything else (``not``, arithmetic, comprehensions, ``??``) → no pre-check from that node
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

Check = Callable[[Mapping[str, Any]], bool]


def compile_precheck(rule_statement: Any) -> Check | None:
    """A necessary condition of the rule's expression, or None when none can be derived."""
    try:
        return _node(rule_statement.expression)
    except Exception:  # an AST shape we did not foresee: no pre-check, full evaluation
        return None


def _node(e: Any) -> Check | None:
    from rule_engine import ast as A
    from rule_engine.types import DataType

    if isinstance(e, A.LogicExpression):
        left, right = _node(e.left), _node(e.right)
        if e.type == "and":
            if left and right:
                return _all_of(left, right)
            return left or right
        if e.type == "or" and left and right:
            return _any_of(left, right)
        return None
    if isinstance(e, A.SymbolExpression) and e.result_type == DataType.BOOLEAN:
        return _truthy(e.name)
    if isinstance(e, A.ComparisonExpression) and e.type == "eq":
        sym, lit = _sym_lit(e.left, e.right)
        if sym is not None and isinstance(lit, str):
            return _equals(sym, lit)
        return None
    if isinstance(e, A.FuzzyComparisonExpression) and e.type in ("eq_fzs", "eq_fzm"):
        sym, lit = _sym_lit(e.left, e.right)
        if sym is None or not isinstance(lit, str):
            return None
        rx = re.compile(lit)
        op = rx.search if e.type == "eq_fzs" else rx.match

        def fuzzy(c: Mapping[str, Any], n: str = sym, f: Any = op) -> bool:
            v = c.get(n)
            return isinstance(v, str) and f(v) is not None

        return fuzzy
    if isinstance(e, A.ContainsExpression):
        container, member = e.container, e.member
        if isinstance(container, A.SymbolExpression) and isinstance(member, A.StringExpression):
            return _has_member(container.name, member.value)
        if isinstance(member, A.SymbolExpression) and isinstance(container, A.ArrayExpression):
            values = [m.value for m in container.value]
            if all(isinstance(m, A.StringExpression) for m in container.value):
                allowed = frozenset(values)
                return _one_of(member.name, allowed)
        return None
    return None


def _all_of(a: Check, b: Check) -> Check:
    return lambda c: a(c) and b(c)


def _any_of(a: Check, b: Check) -> Check:
    return lambda c: a(c) or b(c)


def _truthy(name: str) -> Check:
    return lambda c: bool(c.get(name))


def _equals(name: str, value: str) -> Check:
    return lambda c: c.get(name) == value


def _has_member(name: str, value: str) -> Check:
    return lambda c: value in (c.get(name) or ())


def _one_of(name: str, allowed: frozenset[str]) -> Check:
    return lambda c: c.get(name) in allowed


def _sym_lit(a: Any, b: Any) -> tuple[str | None, Any]:
    from rule_engine import ast as A

    if isinstance(a, A.SymbolExpression) and isinstance(b, A.StringExpression):
        return a.name, b.value
    if isinstance(b, A.SymbolExpression) and isinstance(a, A.StringExpression):
        return b.name, a.value
    return None, None
