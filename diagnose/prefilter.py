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
- ``sym == "lit"``, ``sym != "lit"``, ``sym == null``, ``sym != null``, ``sym in ["a", "b"]``,
  ``"lit" in sym``, ``sym =~ / =~~ "re"``, a bare boolean symbol; ``(sym ?? "default")`` in place of
  ``sym`` in the comparisons and regex tests
- ``$any([x =~~ "re" for x in sym])`` (also ``=~``, ``== "lit"``, and those joined by ``and`` / ``or``;
  an ``if`` condition only narrows the elements, so it is left out) → some element of ``sym`` passes
- anything else (``not``, arithmetic, other functions) → no pre-check from that node
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Mapping
from typing import Any

from diagnose.regex_literals import regex_test

Check = Callable[[Mapping[str, Any]], bool]


def compile_precheck(rule_statement: Any) -> Check | None:
    """A necessary condition of the rule's expression, or None when none can be derived."""
    return precheck_from_plan(precheck_plan(rule_statement))


def precheck_plan(rule_statement: Any) -> Plan | None:
    """:func:`compile_precheck`'s pre-check as data (nested tuples of strings and literals: what the rule cache
    keeps, so that a rule read back needs no parse for it); None when none can be derived."""
    try:
        return _node(rule_statement.expression)
    except Exception:  # an AST shape we did not foresee: no pre-check, full evaluation
        return None


def precheck_from_plan(plan: Plan | None) -> Check | None:
    """The pre-check a :func:`precheck_plan` describes (None for None, or a plan it cannot build)."""
    if plan is None:
        return None
    try:
        return _check(plan)
    except Exception:  # as compile_precheck always did: no pre-check, full evaluation
        return None


#: a pre-check or an exact test as data: ``(op, ...)``, its operands plans, names and literals
Plan = tuple[Any, ...]

#: the plans of the expressions of the rule base read back from the rule cache, by expression text:
#: (pre-check plan, exact test plan), each None where there is none
_KEPT: dict[str, tuple[Plan | None, Plan | None]] = {}


def expression_plans(statements: Any) -> dict[str, tuple[Plan | None, Plan | None]]:
    """(pre-check plan, exact test plan) of each (expression text, rule-engine statement) of ``statements``."""
    return {text: (precheck_plan(st), exact_plan(st)) for text, st in statements}


def remember_expression_plans(plans: dict[str, tuple[Plan | None, Plan | None]]) -> None:
    """Keep the plans the rule cache read back (:func:`expression_plans` of the rule base it stored)."""
    _KEPT.update(plans)


def kept_plans(text: Any) -> tuple[Plan | None, Plan | None] | None:
    """The plans kept for an expression's text, or None when none were kept (derive them from its statement)."""
    return _KEPT.get(text) if isinstance(text, str) else None


def _node(e: Any) -> Plan | None:
    from rule_engine import ast as A
    from rule_engine.types import DataType

    if isinstance(e, A.LogicExpression):
        left, right = _node(e.left), _node(e.right)
        if e.type == "and":
            if left and right:
                return ("and", left, right)
            return left or right
        if e.type == "or" and left and right:
            return ("or", left, right)
        return None
    if isinstance(e, A.SymbolExpression) and e.scope is None and e.result_type == DataType.BOOLEAN:
        return ("truthy", e.name)
    if isinstance(e, A.ComparisonExpression) and e.type in ("eq", "ne"):
        value, lit = _value_lit(e.left, e.right)
        if value is None:
            return None
        if isinstance(lit, str):
            return ("eq" if e.type == "eq" else "ne", value, lit)
        if lit is _NULL:
            return ("null" if e.type == "eq" else "set", value)
        return None
    if isinstance(e, A.FuzzyComparisonExpression) and e.type in ("eq_fzs", "eq_fzm"):
        value, lit = _value_lit(e.left, e.right)
        if value is None or not isinstance(lit, str):
            return None
        return ("regex", value, lit, e.type == "eq_fzm")
    if isinstance(e, A.ContainsExpression):
        container, member = e.container, e.member
        if _is_context_symbol(container) and isinstance(member, A.StringExpression):
            return ("has", container.name, member.value)
        if _is_context_symbol(member) and isinstance(container, A.ArrayExpression):
            values = [m.value for m in container.value]
            if all(isinstance(m, A.StringExpression) for m in container.value):
                return ("one_of", member.name, frozenset(values))
        return None
    if isinstance(e, A.FunctionCallExpression):
        return _any_element(e)
    return None


def _check(p: Plan) -> Check:
    """The pre-check of a plan of :func:`_node`."""
    op = p[0]
    if op == "and":
        return _all_of(_check(p[1]), _check(p[2]))
    if op == "or":
        return _any_of(_check(p[1]), _check(p[2]))
    if op == "truthy":
        return _truthy(p[1])
    if op == "eq":
        return _equals(_getter(p[1]), p[2])
    if op == "ne":
        return _differs(_getter(p[1]), p[2])
    if op == "null":
        return _is_null(_getter(p[1]))
    if op == "set":
        return _not_null(_getter(p[1]))
    if op == "regex":
        return _regex(_getter(p[1]), regex_test(p[2], anchored=p[3]))
    if op == "has":
        return _has_member(p[1], p[2])
    if op == "one_of":
        return _one_of(p[1], p[2])
    if op == "any":
        return _some(p[1], _element_test(p[2]))
    raise ValueError(f"not a pre-check plan: {op!r}")


# --- `$any([... for x in sym])`: a test on one element ------------------------------------------

Test = Callable[[Any], bool]


def _any_element(e: Any) -> Plan | None:
    """``$any([R for x in sym])`` → some element of ``sym`` passes the element test derived from R."""
    from rule_engine import ast as A

    fn = e.function
    if not (isinstance(fn, A.SymbolExpression) and fn.scope == "built-in" and fn.name == "any"):
        return None
    if len(e.arguments) != 1 or not isinstance(e.arguments[0], A.ComprehensionExpression):
        return None
    comp = e.arguments[0]
    if not _is_context_symbol(comp.iterable) or comp.iterable.name == comp.variable:
        return None
    test = _element(comp.result, comp.variable)
    if test is None:
        return None
    return ("any", comp.iterable.name, test)


def _some(name: str, test: Test) -> Check:
    def some(c: Mapping[str, Any], n: str = name, t: Test = test) -> bool:
        return any(t(x) for x in c.get(n) or ())

    return some


def _element(e: Any, var: str) -> Plan | None:
    """A necessary condition on the comprehension's element ``var`` for ``e`` to be true."""
    from rule_engine import ast as A

    def is_var(x: Any) -> bool:
        return isinstance(x, A.SymbolExpression) and x.scope is None and x.name == var

    if isinstance(e, A.LogicExpression):
        left, right = _element(e.left, var), _element(e.right, var)
        if e.type == "and":
            if left and right:
                return ("and", left, right)
            return left or right
        if e.type == "or" and left and right:
            return ("or", left, right)
        return None
    if isinstance(e, A.FuzzyComparisonExpression) and e.type in ("eq_fzs", "eq_fzm"):
        if is_var(e.left) and isinstance(e.right, A.StringExpression):
            return ("regex", e.right.value, e.type == "eq_fzm")
        return None
    if isinstance(e, A.ComparisonExpression) and e.type == "eq":
        for a, b in ((e.left, e.right), (e.right, e.left)):
            if is_var(a) and isinstance(b, A.StringExpression):
                return ("eq", b.value)
        return None
    return None


def _element_test(p: Plan) -> Test:
    """The element test of a plan of :func:`_element`."""
    op = p[0]
    if op == "and":
        left, right = _element_test(p[1]), _element_test(p[2])
        return lambda x: left(x) and right(x)
    if op == "or":
        left, right = _element_test(p[1]), _element_test(p[2])
        return lambda x: left(x) or right(x)
    if op == "regex":
        f = regex_test(p[1], anchored=p[2])
        return lambda x: isinstance(x, str) and f(x)
    if op == "eq":
        lit = p[1]
        return lambda x: x == lit
    raise ValueError(f"not an element test's plan: {op!r}")


# --- values and literals --------------------------------------------------------------------------

Value = Callable[[Mapping[str, Any]], Any]
_NULL = object()  # the `null` literal


def _is_context_symbol(e: Any) -> bool:
    from rule_engine import ast as A

    return isinstance(e, A.SymbolExpression) and e.scope is None


def _value(e: Any) -> Plan | None:
    """A getter's plan for ``sym`` or ``(sym ?? "default")``: the value rule-engine would compare."""
    from rule_engine import ast as A

    if _is_context_symbol(e):
        return ("sym", e.name)
    if isinstance(e, A.CoalesceExpression) and _is_context_symbol(e.left) and isinstance(e.right, A.StringExpression):
        return ("coalesced", e.left.name, e.right.value)
    return None


def _getter(p: Plan) -> Value:
    """The getter of a plan of :func:`_value`."""
    if p[0] == "sym":
        name = p[1]
        return lambda c: c.get(name)
    if p[0] == "coalesced":
        name, default = p[1], p[2]

        def coalesced(c: Mapping[str, Any]) -> Any:
            v = c.get(name)
            return default if v is None else v

        return coalesced
    raise ValueError(f"not a value's plan: {p[0]!r}")


def _literal(e: Any) -> Any:
    from rule_engine import ast as A

    if isinstance(e, A.StringExpression):
        return e.value
    if isinstance(e, A.NullExpression):
        return _NULL
    return None


def _value_lit(a: Any, b: Any) -> tuple[Plan | None, Any]:
    """(getter, literal) of a comparison between a symbol (or a coalesced one) and a literal."""
    for x, y in ((a, b), (b, a)):
        value, lit = _value(x), _literal(y)
        if value is not None and lit is not None:
            return value, lit
    return None, None


def _all_of(a: Check, b: Check) -> Check:
    return lambda c: a(c) and b(c)


def _any_of(a: Check, b: Check) -> Check:
    return lambda c: a(c) or b(c)


def _truthy(name: str) -> Check:
    return lambda c: bool(c.get(name))


def _equals(value: Value, lit: str) -> Check:
    return lambda c: value(c) == lit


def _differs(value: Value, lit: str) -> Check:
    return lambda c: value(c) != lit


def _is_null(value: Value) -> Check:
    return lambda c: value(c) is None


def _not_null(value: Value) -> Check:
    return lambda c: value(c) is not None


def _regex(value: Value, test: Callable[[str], bool]) -> Check:
    def fuzzy(c: Mapping[str, Any]) -> bool:
        v = value(c)
        return isinstance(v, str) and test(v)

    return fuzzy


def _has_member(name: str, value: str) -> Check:
    return lambda c: value in (c.get(name) or ())


def _one_of(name: str, allowed: frozenset[str]) -> Check:
    return lambda c: c.get(name) in allowed


# --- gates: the rule-base index's keys --------------------------------------------------------------

#: a rule's gate: keys of which a record must hold one for the rule's pre-check to pass.  A key is
#: ``("eq", sym, lit)`` (``sym`` is the string ``lit``), ``("has", sym, lit)`` (``lit`` is in ``sym``),
#: ``("true", sym, "")`` (``sym`` is truthy) or ``("set", sym, "")`` (``sym`` is not null).
Key = tuple[str, str, str]
Gate = tuple[Key, ...]


def gate_of(rule_statement: Any) -> Gate | None:
    """Keys of which a record must hold one for :func:`compile_precheck`'s pre-check of the same
    statement to pass; None when there are none.  Where a record holds none of them the pre-check
    is False, and is so without raising (the keys come from the first tests it evaluates, or from
    tests after ones that cannot raise), so a matcher may leave the rule out without calling it."""
    try:
        gate, _ = _gate(rule_statement.expression)
    except Exception:  # an AST shape we did not foresee: no gate, the pre-check decides
        return None
    return gate


#: a gate that ties a record to fewer rules is preferred: an equality before a membership before a flag
_RANK = {"eq": 0, "has": 1, "true": 2, "set": 3}


def _better(a: Gate | None, b: Gate | None) -> Gate | None:
    if a is None or b is None:
        return a or b
    return a if max(_RANK[k[0]] for k in a) <= max(_RANK[k[0]] for k in b) else b


def _gate(e: Any) -> tuple[Gate | None, bool]:
    """(the gate of ``_node(e)``'s pre-check, whether that pre-check may raise)."""
    from rule_engine import ast as A
    from rule_engine.types import DataType

    if isinstance(e, A.LogicExpression):
        if e.type not in ("and", "or"):
            return None, True
        left_check, right_check = _node(e.left), _node(e.right)
        (left, left_raises), (right, right_raises) = _gate(e.left), _gate(e.right)
        if e.type == "and":
            if left_check and right_check:
                # left(c) and right(c): left is evaluated first; right only after a left that cannot raise
                return (left if left_raises else _better(left, right)), left_raises or right_raises
            if left_check:
                return left, left_raises
            if right_check:
                return right, right_raises
            return None, False
        if left_check and right_check:  # left(c) or right(c): both False without raising, when neither key holds
            gate = (*left, *right) if left is not None and right is not None else None
            return gate, left_raises or right_raises
        return None, False
    if isinstance(e, A.SymbolExpression) and e.scope is None and e.result_type == DataType.BOOLEAN:
        return (("true", e.name, ""),), False
    if isinstance(e, A.ComparisonExpression) and e.type == "eq":
        for a, b in ((e.left, e.right), (e.right, e.left)):
            if _is_context_symbol(a) and isinstance(b, A.StringExpression) and _value(a) is not None:
                return (("eq", a.name, b.value),), False
        return None, False
    if isinstance(e, A.ComparisonExpression) and e.type == "ne":
        for a, b in ((e.left, e.right), (e.right, e.left)):
            if _is_context_symbol(a) and isinstance(b, A.NullExpression):
                return (("set", a.name, ""),), False
        return None, False
    if isinstance(e, A.ComparisonExpression | A.FuzzyComparisonExpression):
        return None, False
    if isinstance(e, A.ContainsExpression):
        container, member = e.container, e.member
        if _is_context_symbol(container) and isinstance(member, A.StringExpression):
            return (("has", container.name, member.value),), True
        strings = isinstance(container, A.ArrayExpression) and all(
            isinstance(m, A.StringExpression) for m in container.value
        )
        if _is_context_symbol(member) and strings:
            return tuple(("eq", member.name, m.value) for m in container.value), True
        return None, True
    return None, True


# --- decided without rule-engine: the expressions whose every test a pre-check's test answers exactly ----------

#: a rule's answer on a record: True or False, or None where the values are of a kind the tests do not decide
#: about (rule-engine then evaluates the rule, and raises what it raises there)
Decide = Callable[[Mapping[str, Any]], "bool | None"]


def exact_test(rule_statement: Any) -> Decide | None:
    """The rule's expression answered without rule-engine, where every node of it is one of: ``and``, ``or``,
    ``not``, a boolean symbol, ``sym == / != "lit"`` and ``sym == / != null`` (a string symbol, or ``(sym ??
    "default")``), ``sym =~ / =~~ "re"``, ``"lit" in sym`` (an array symbol), ``sym in ["a", "b"]`` and a number
    symbol compared with a number literal (or ``null``); an ``and`` / ``or`` whose right side is of another shape
    is answered where its left side decides alone.  None for any other expression.  The answer is rule-engine's (its comparisons are of values of the same type, a null
    regex operand does not match, ``and``/``or`` stop at the left side where it decides); on a value of a kind
    rule-engine would refuse or coerce (not the symbol's declared type), it answers None: the rule is evaluated."""
    return exact_from_plan(exact_plan(rule_statement))


def exact_plan(rule_statement: Any) -> Plan | None:
    """:func:`exact_test`'s test as data (what the rule cache keeps, as :func:`precheck_plan`); None for an
    expression it does not answer."""
    try:
        return _exact(rule_statement.expression)
    except Exception:  # an AST shape we did not foresee: evaluated in full
        return None


def exact_from_plan(plan: Plan | None) -> Decide | None:
    """The exact test an :func:`exact_plan` describes (None for None, or a plan it cannot build)."""
    if plan is None:
        return None
    try:
        return _decide(plan)
    except Exception:  # as exact_test always did: evaluated in full
        return None


def _exact(e: Any) -> Plan | None:
    from rule_engine import ast as A

    if isinstance(e, A.LogicExpression) and e.type in ("and", "or"):
        left, right = _exact(e.left), _exact(e.right)
        if left is None:
            return None
        # a right side of another shape: answered where the left side decides alone (False for `and`, True for
        # `or`: rule-engine does not evaluate the right side then), else by rule-engine
        return (e.type, left, right or ("undecided",))
    if isinstance(e, A.UnaryExpression) and e.type == "not":
        inner = _exact(e.right)
        return None if inner is None else ("not", inner)
    if isinstance(e, A.SymbolExpression):
        return ("truthy", e.name) if _is_context_symbol(e) and _declared(e, "BOOLEAN") else None
    if isinstance(e, A.FuzzyComparisonExpression) and e.type in ("eq_fzs", "eq_fzm"):
        if e.context.regex_flags != 0 or not isinstance(e.right, A.StringExpression):
            return None
        value = _string_value(e.left)
        if value is None:
            return None
        return ("regex", value, e.right.value, e.type == "eq_fzm")
    if isinstance(e, A.ComparisonExpression) and type(e) is A.ComparisonExpression and e.type in ("eq", "ne"):
        for a, b in ((e.left, e.right), (e.right, e.left)):
            value, lit = _string_value(a), _literal(b)
            if value is not None and (isinstance(lit, str) or lit is _NULL):
                return ("compare", value, lit if isinstance(lit, str) else None, e.type == "eq")
            number = _number_value(a)
            if number is not None and (isinstance(b, A.FloatExpression) or lit is _NULL):
                return (
                    "compare",
                    number,
                    _kept_number(b.value) if isinstance(b, A.FloatExpression) else None,
                    e.type == "eq",
                )
        return None
    if type(e) is A.ArithmeticComparisonExpression and e.type in _ORDER:
        # a number against a number literal, on either side (rule-engine compares the two as Decimals)
        if isinstance(e.right, A.FloatExpression) and (number := _number_value(e.left)) is not None:
            return ("order", number, _kept_number(e.right.value), e.type, True)
        if isinstance(e.left, A.FloatExpression) and (number := _number_value(e.right)) is not None:
            return ("order", number, _kept_number(e.left.value), e.type, False)
        return None
    if isinstance(e, A.ContainsExpression):
        container, member = e.container, e.member
        if _is_context_symbol(container) and _declared(container, "ARRAY") and isinstance(member, A.StringExpression):
            return ("member", container.name, member.value)
        if isinstance(container, A.ArrayExpression) and all(isinstance(m, A.StringExpression) for m in container.value):
            value = _string_value(member)
            if value is not None:
                return ("one_of", value, tuple(m.value for m in container.value))
        return None
    return None


def _decide(p: Plan) -> Decide:
    """The exact test of a plan of :func:`_exact`."""
    op = p[0]
    if op == "and":
        return _exact_and(_decide(p[1]), _decide(p[2]))
    if op == "or":
        return _exact_or(_decide(p[1]), _decide(p[2]))
    if op == "undecided":
        return _undecided
    if op == "not":
        return _exact_not(_decide(p[1]))
    if op == "truthy":
        return _exact_truthy(p[1])
    if op == "regex":
        return _exact_regex(_string_getter(p[1]), regex_test(p[2], anchored=p[3]))
    if op == "compare":
        value = p[1]
        getter = _number_getter(value) if value[0] in ("number", "number_coalesced") else _string_getter(value)
        return _exact_compare(getter, _number_of(p[2]), p[3])
    if op == "order":
        return _exact_order(_number_getter(p[1]), _number_of(p[2]), _ORDER[p[3]], left=p[4])
    if op == "member":
        return _exact_member(p[1], p[2])
    if op == "one_of":
        return _exact_one_of(_string_getter(p[1]), p[2])
    raise ValueError(f"not an exact test's plan: {op!r}")


def _kept_number(value: Any) -> Any:
    """A number literal (rule-engine's Decimal) as a plan keeps it: its text (a Decimal is not among what the rule
    cache reads back), read again by :func:`_number_of`."""
    from decimal import Decimal

    return ("decimal", str(value)) if isinstance(value, Decimal) else value


def _number_of(lit: Any) -> Any:
    if type(lit) is tuple and lit[0] == "decimal":
        from decimal import Decimal

        return Decimal(lit[1])
    return lit


def _declared(e: Any, kind: str) -> bool:
    """Whether the symbol is declared of the data type ``kind`` (or nullable of it; ARRAY: an array of strings)."""
    from rule_engine.types import DataType

    declared = DataType.NULLABLE.unwrap(e.result_type) if hasattr(DataType, "NULLABLE") else e.result_type
    if kind == "ARRAY":  # an array of strings
        return bool(DataType.is_type(declared, DataType.ARRAY) and declared.value_type == DataType.STRING)
    return bool(declared == getattr(DataType, kind))


#: a string value's getter: the value rule-engine compares, _UNDECIDED where it is not a string or null
_UNDECIDED = object()


def _string_value(e: Any) -> Plan | None:
    """A string value's getter, as a plan (:func:`_string_getter`)."""
    from rule_engine import ast as A

    if _is_context_symbol(e) and _declared(e, "STRING"):
        return ("string", e.name)
    if (
        isinstance(e, A.CoalesceExpression)
        and _is_context_symbol(e.left)
        and _declared(e.left, "STRING")
        and isinstance(e.right, A.StringExpression)
    ):
        return ("string_coalesced", e.left.name, e.right.value)
    return None


def _string_getter(p: Plan) -> Callable[[Mapping[str, Any]], Any]:
    if p[0] == "string":
        name = p[1]

        def plain(c: Mapping[str, Any]) -> Any:
            v = c.get(name)
            return v if v is None or type(v) is str else _UNDECIDED

        return plain
    if p[0] == "string_coalesced":
        name, default = p[1], p[2]

        def coalesced(c: Mapping[str, Any]) -> Any:
            v = c.get(name)
            return default if v is None else v if type(v) is str else _UNDECIDED

        return coalesced
    raise ValueError(f"not a string value's plan: {p[0]!r}")


_ORDER = {"gt": operator.gt, "ge": operator.ge, "lt": operator.lt, "le": operator.le}


def _number_value(e: Any) -> Plan | None:
    """A number's getter, as a plan (:func:`_number_getter`)."""
    from rule_engine import ast as A

    if _is_context_symbol(e) and _declared(e, "FLOAT"):
        return ("number", e.name)
    if (
        isinstance(e, A.CoalesceExpression)
        and _is_context_symbol(e.left)
        and _declared(e.left, "FLOAT")
        and isinstance(e.right, A.FloatExpression)
    ):
        return ("number_coalesced", e.left.name, _kept_number(e.right.value))
    return None


def _number_getter(p: Plan) -> Callable[[Mapping[str, Any]], Any]:
    """A number's getter (a FLOAT symbol, or one coalesced with a number literal): the value as rule-engine
    holds it (a Decimal), None for null, _UNDECIDED for any other kind of value (a bool, a NaN, a string)."""

    def number(v: Any) -> Any:
        if (type(v) is int or type(v) is float) and v == v:  # (not a NaN, which rule-engine's Decimal refuses)
            return _coerce_value()(v, verify_type=False)
        return _UNDECIDED

    if p[0] == "number":
        name = p[1]

        def plain(c: Mapping[str, Any]) -> Any:
            v = c.get(name)
            return None if v is None else number(v)

        return plain
    if p[0] == "number_coalesced":
        name, default = p[1], _number_of(p[2])

        def coalesced(c: Mapping[str, Any]) -> Any:
            v = c.get(name)
            return default if v is None else number(v)

        return coalesced
    raise ValueError(f"not a number's plan: {p[0]!r}")


@functools.cache
def _coerce_value() -> Callable[..., Any]:
    """rule-engine's ``coerce_value``, imported when a number is first compared (a plan read back from the rule
    cache is built without rule-engine), its parser tables read, not computed, as :mod:`diagnose.ruleexpr` has it."""
    from diagnose import rule_engine_tables

    rule_engine_tables.install()
    from rule_engine.types import coerce_value

    return coerce_value


def _exact_order(value: Callable[[Mapping[str, Any]], Any], lit: Any, op: Any, *, left: bool) -> Decide:
    def order(c: Mapping[str, Any]) -> bool | None:
        v = value(c)
        if v is _UNDECIDED or v is None:  # a null against a number: rule-engine raises (the rule says so)
            return None
        return bool(op(v, lit) if left else op(lit, v))

    return order


def _undecided(c: Mapping[str, Any]) -> bool | None:
    return None


def _exact_and(a: Decide, b: Decide) -> Decide:
    def both(c: Mapping[str, Any]) -> bool | None:
        left = a(c)
        return left if left is not True else b(c)

    return both


def _exact_or(a: Decide, b: Decide) -> Decide:
    def either(c: Mapping[str, Any]) -> bool | None:
        left = a(c)
        return left if left is not False else b(c)

    return either


def _exact_not(a: Decide) -> Decide:
    def negated(c: Mapping[str, Any]) -> bool | None:
        v = a(c)
        return None if v is None else not v

    return negated


def _exact_truthy(name: str) -> Decide:
    def truthy(c: Mapping[str, Any]) -> bool | None:
        v = c.get(name)
        return v if type(v) is bool else False if v is None else None

    return truthy


def _exact_regex(value: Callable[[Mapping[str, Any]], Any], test: Callable[[str], bool]) -> Decide:
    def fuzzy(c: Mapping[str, Any]) -> bool | None:
        v = value(c)
        return None if v is _UNDECIDED else False if v is None else bool(test(v))

    return fuzzy


def _exact_compare(value: Callable[[Mapping[str, Any]], Any], lit: Any, eq: bool) -> Decide:
    def compare(c: Mapping[str, Any]) -> bool | None:
        v = value(c)
        if v is _UNDECIDED:
            return None
        # a string (or a Decimal) or None against a literal of that kind or null: rule-engine's values of two
        # types are never equal
        return (type(v) is type(lit) and v == lit) is eq

    return compare


def _exact_member(name: str, lit: str) -> Decide:
    def member(c: Mapping[str, Any]) -> bool | None:
        v = c.get(name)
        if (type(v) is tuple or type(v) is list) and all(type(x) is str for x in v):
            return lit in v
        return None

    return member


def _exact_one_of(value: Callable[[Mapping[str, Any]], Any], allowed: tuple[str, ...]) -> Decide:
    def one_of(c: Mapping[str, Any]) -> bool | None:
        v = value(c)
        return None if v is _UNDECIDED else v in allowed

    return one_of
