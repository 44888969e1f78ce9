"""A rule's `when` as a rule-engine expression over the Evidence symbols: compile it, explain its errors."""

from __future__ import annotations

import difflib
import functools
from typing import Any

from diagnose.evidence import rule_types


@functools.cache
def _context() -> Any:
    import rule_engine

    return rule_engine.Context(
        type_resolver=rule_engine.type_resolver_from_dict(rule_types()),
        default_value=None,
    )


def compile_expression(expr: str) -> Any:
    """Build a rule-engine Rule over the Evidence types (raises rule_engine errors)."""
    import rule_engine

    return rule_engine.Rule(expr, context=_context())


def describe_engine_error(exc: Exception, expr: str) -> str:
    import rule_engine
    from rule_engine import errors

    if isinstance(exc, rule_engine.SymbolResolutionError):
        name = exc.symbol_name
        near = difflib.get_close_matches(name, list(rule_types()), n=3)
        hint = f" (did you mean {', '.join(near)}?)" if near else ""
        return f"when: unknown evidence symbol {name!r}{hint}"
    if isinstance(exc, errors.RegexSyntaxError):
        return f"when: bad regular expression {exc.value!r}: {exc.error}"
    if isinstance(exc, errors.SyntaxError | rule_engine.RuleSyntaxError):
        tok = getattr(exc, "token", None)
        where = f" near {tok.value!r}" if tok is not None and getattr(tok, "value", None) else ""
        return f"when: syntax error{where}: {exc.message}"
    if isinstance(exc, rule_engine.EvaluationError):
        return f"when: type error: {exc.message}"
    return f"when: {type(exc).__name__}: {exc}"
