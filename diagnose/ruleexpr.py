"""A rule's `when` as a rule-engine expression over the Evidence symbols: compile it, explain its errors."""

from __future__ import annotations

import difflib
import functools
from typing import Any

from diagnose import rule_engine_tables
from diagnose.evidence import rule_types


@functools.cache
def _context() -> Any:
    import rule_engine

    return rule_engine.Context(
        type_resolver=rule_engine.type_resolver_from_dict(rule_types()),
        default_value=None,
    )


@functools.cache
def _shared_regexes() -> None:
    """rule-engine compiles each regex literal of an expression (``log_text =~ "..."``) with ``re.compile``;
    the same text (flags 0) is the pattern the rule's pre-check and citation use, compiled once per run by
    :func:`diagnose.regex_literals.compiled` (from the code kept with the rule base): rule-engine is handed
    that one.  A pattern that does not compile goes to rule-engine's own, which reports the error."""
    import re

    from rule_engine.ast import FuzzyComparisonExpression

    from diagnose.regex_literals import compiled

    own = getattr(FuzzyComparisonExpression, "_compile_regex", None)
    if own is None:  # a rule-engine release without this hook compiles its own, as it always did
        return

    def _compile_regex(self: Any, regex: str) -> re.Pattern[str]:
        if isinstance(regex, str) and self.context.regex_flags == 0:
            try:
                return compiled(regex)
            except re.error:
                pass
        return own(self, regex)

    FuzzyComparisonExpression._compile_regex = _compile_regex


def compile_expression(expr: str) -> Any:
    """Build a rule-engine Rule over the Evidence types (raises rule_engine errors)."""
    rule_engine_tables.install()  # before rule-engine's first import: its parser tables read, not computed
    import rule_engine

    _shared_regexes()

    return rule_engine.Rule(expr, context=_context())


class LazyExpression:
    """A rule's compiled ``when`` that is parsed the first time it is used: the rule base read back from
    the rule cache (diagnose.rule_cache), whose expressions all parsed when it was stored, so that a
    run pays only for the rules it tries.  Answers like the rule-engine Rule it stands for."""

    __slots__ = ("_rule", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._rule: Any = None

    def rule(self) -> Any:
        """The rule-engine Rule (parsed on the first call)."""
        rule = self._rule
        if rule is None:
            rule = self._rule = compile_expression(self.text)
        return rule

    @property
    def statement(self) -> Any:
        return self.rule().statement

    def matches(self, thing: Any) -> bool:
        return bool(self.rule().matches(thing))

    def evaluate(self, thing: Any) -> Any:
        return self.rule().evaluate(thing)

    def __getattr__(self, name: str) -> Any:  # anything else a rule-engine Rule has
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.rule(), name)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"<LazyExpression text={self.text!r}>"


class LazyPrecheck:
    """A rule's pre-check (diagnose.prefilter) derived the first time it is called, from the rule's
    :class:`LazyExpression`; for a rule that had one when the rule base was stored.  Once derived, it
    is the rule's ``precheck`` itself (kept in the rule's ``__dict__``, as ``functools.cached_property``
    keeps a value on a frozen dataclass): a record's candidate rules are not called through this."""

    __slots__ = ("_check", "rule")

    def __init__(self, rule: Any) -> None:
        self.rule = rule
        self._check: Any = None

    def __call__(self, context: Any) -> bool:
        check = self._check
        if check is None:
            from diagnose.prefilter import compile_precheck, kept_plans, precheck_from_plan

            # the same derivation as at load, from the plan the rule cache kept where it has one (no parse); were
            # there none now, the rule is evaluated in full
            compiled = self.rule.compiled
            kept = kept_plans(compiled.text) if isinstance(compiled, LazyExpression) else None
            check = precheck_from_plan(kept[0]) if kept is not None else compile_precheck(compiled.statement)
            check = self._check = check or _always
            self.rule.__dict__["precheck"] = check
        return bool(check(context))


def _always(context: Any) -> bool:
    return True


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
