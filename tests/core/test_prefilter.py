"""The rule pre-checks only save time: with and without them every corpus record gets the same matches."""

from __future__ import annotations

from pathlib import Path

from corpus_logs import spread

from diagnose.classify import evidence_for
from diagnose.inputs import read_inputs
from diagnose.prefilter import compile_precheck, exact_test
from diagnose.rules import compile_expression, default_rules

CORPUS = Path(__file__).resolve().parent.parent.parent / "corpus"
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def test_precheck_and_exact_test_never_change_a_match() -> None:
    """On 1,000 records of the corpus spread evenly over it, and on the fixtures: the pre-check never changes a rule's
    match, and where a rule's exact test answers (the matcher's path that skips rule-engine), its answer is
    rule-engine's.  Every rule is asked of every record taken; a fixed number of records, in a fixed order, keeps the
    suite's time as the corpus grows."""
    rules = default_rules()
    records = spread([r for r in read_inputs([str(CORPUS)]) if r.error is None], 1000)
    records += [r for r in read_inputs([str(FIXTURES)]) if r.error is None and not r.origin.endswith(".yaml")]
    assert len(records) > 150
    exact = {rule.id: exact_test(rule.compiled.statement) for rule in rules if hasattr(rule.compiled, "statement")}
    exact = {rule_id: test for rule_id, test in exact.items() if test is not None}
    assert len(exact) > 100
    checked = pruned = decided = 0
    for rec in records:
        ctx = evidence_for(rec).context()
        for rule in rules:
            passed = rule.precheck is None or rule.precheck(ctx)
            test = exact.get(rule.id)
            got = test(ctx) if test is not None else None
            # the matcher's answer is the pre-check's False, or rule-engine's own answer once the pre-check passes:
            # rule-engine is asked wherever the pre-check or the exact test gives an answer of its own
            if not passed or got is not None:
                full = rule.matches(ctx, precheck=False)  # rule-engine's answer
                assert passed or not full, (rule.id, rec.id)
                if got is not None:
                    decided += 1
                    assert got == full, (rule.id, rec.id)
            if "family" in rule.tags:
                continue  # a message family's rule is a set lookup, never a rule-engine evaluation
            checked += 1
            pruned += not passed
    assert pruned > checked // 2  # the point: most evaluations are skipped
    assert decided > len(records) * len(exact) // 2  # and most of the rest are answered without rule-engine


def test_precheck_shapes() -> None:
    ctx = {"cuda_error": "cudaErrorIllegalAddress", "env_issues": ("xid",), "log_text": "boom", "exit_timed_out": False}

    def pre(expr: str):
        return compile_precheck(compile_expression(expr).statement)

    assert pre('cuda_error == "cudaErrorIllegalAddress" and exit_timed_out')(ctx) is False
    assert pre('cuda_error in ["cudaErrorIllegalAddress", "x"]')(ctx) is True
    assert pre('"xid" in env_issues or log_text =~~ "nothing"')(ctx) is True
    assert pre('log_text =~ "oom"')(ctx) is False
    # no necessary condition can be derived from a negation or an arithmetic test
    assert pre("not exit_timed_out") is None
    assert pre("(oom_total_bytes ?? 0) > 3") is None
    # one side of an `or` without a pre-check: the whole `or` has none
    assert pre('cuda_error == "x" or not exit_timed_out') is None


def test_precheck_null_coalesce_and_comprehension_shapes() -> None:
    ctx = {
        "cuda_error": "cudaErrorIllegalAddress",
        "triton_message": None,
        "compiler_errors": ("ptxas fatal: Unresolved extern", "error: identifier x is undefined"),
        "sanitizer_kinds": (),
    }

    def pre(expr: str):
        return compile_precheck(compile_expression(expr).statement)

    assert pre("triton_message != null")(ctx) is False
    assert pre("triton_message == null")(ctx) is True
    assert pre('cuda_error != "cudaErrorIllegalAddress"')(ctx) is False
    assert pre('triton_message != "x"')(ctx) is True  # null differs from any string
    # `(sym ?? "default")`: the default is what the regex sees when the symbol is null
    assert pre('(triton_message ?? "") =~~ "aligned"')(ctx) is False
    assert pre('(triton_message ?? "no message") =~~ "message"')(ctx) is True
    assert pre('(triton_message ?? "") =~~ "^$"')(ctx) is True  # the empty default matches
    # `$any([...])`: some element passes the element's test
    assert pre('$any([e =~~ "identifier [a-z]+ is undefined" for e in compiler_errors])')(ctx) is True
    assert pre('$any([e =~ "identifier" for e in compiler_errors])')(ctx) is False  # =~ anchors at the start
    assert pre('$any([e == "ptxas fatal: Unresolved extern" for e in compiler_errors])')(ctx) is True
    assert pre('$any([e =~~ "x" and e =~~ "nothing" for e in compiler_errors])')(ctx) is False
    assert pre('$any([e =~~ "leak" for e in sanitizer_kinds])')(ctx) is False  # no elements
    # an element test on another symbol, or a negated one, gives no pre-check
    assert pre('$any([e =~~ "x" or not exit_timed_out for e in compiler_errors])') is None
    assert pre('$any([e =~~ "x" for e in compiler_errors]) or not exit_timed_out') is None


def test_literal_options() -> None:
    import re

    from diagnose.regex_literals import literal_options, regex_test

    def lits(pattern: str):
        return literal_options(re.compile(pattern))

    assert lits(r"\bNameError: name '\w+'") == (("NameError: name '",), False)
    # an alternation needs one literal per branch; a longer literal holding a shorter one is dropped
    assert lits(r"(?i)must be (?:a )?Contiguous|is not contiguous") == (("contiguous",), True)
    assert lits(r"(foo)*bark|bazz") == (("bark", "bazz"), False)
    assert lits(r"(?:foo|ba)+quux?") == (("quu",), False)  # a repeat of at least one, a literal run
    # nothing required, too short, inline flags on a group, non-ASCII literals under IGNORECASE: none
    assert lits(r"(foo)?x.y") is None
    assert lits(r"abc|abd") is None  # the branches share "ab": shorter than 3
    assert lits(r"x(?i:foo)bar") is None
    assert lits(r"(?i)straße") is None
    # the test agrees with the regex, also where case folding goes beyond ASCII
    test = regex_test(r"(?i)illegal (?:memory )?address")
    for text in ("an ILLEGAL ADDRESS", "illegal memory address", "nothing", "İLLEGAL address", "illegal  address"):
        assert test(text) == (re.search(r"(?i)illegal (?:memory )?address", text) is not None), text
    anchored = regex_test(r"ptxas fatal", anchored=True)
    assert anchored("ptxas fatal: x") and not anchored("x ptxas fatal")


def test_gate_shapes() -> None:
    from diagnose.prefilter import gate_of

    def gate(expr: str):
        return gate_of(compile_expression(expr).statement)

    assert gate('cuda_error == "cudaErrorIllegalAddress" and log_text =~~ "x"') == (
        ("eq", "cuda_error", "cudaErrorIllegalAddress"),
    )
    # an equality ties a record to fewer rules than a flag: it is the gate, both sides being safe to skip
    assert gate('exit_timed_out and cuda_error == "x"') == (("eq", "cuda_error", "x"),)
    assert gate('cuda_error in ["a", "b"]') == (("eq", "cuda_error", "a"), ("eq", "cuda_error", "b"))
    assert gate('"xid" in env_issues or exit_timed_out') == (
        ("has", "env_issues", "xid"),
        ("true", "exit_timed_out", ""),
    )
    assert gate("oom_kind != null") == (("set", "oom_kind", ""),)
    # a membership test first may raise (a container of another kind): a later test cannot gate the rule
    assert gate('"xid" in env_issues and cuda_error == "x"') == (("has", "env_issues", "xid"),)
    # no key to look a record up by: a regex, a negation, a coalesced value, an `or` with one side ungated
    assert gate('log_text =~~ "oom"') is None
    assert gate("not exit_timed_out") is None
    assert gate('(triton_message ?? "") == "x"') is None
    assert gate('cuda_error == "x" or log_text =~~ "y"') is None


def test_the_matcher_index_leaves_out_only_rules_whose_precheck_fails() -> None:
    """Over the corpus and the fixtures: every rule the matcher's index leaves out of a record's candidates
    has a pre-check that says False there, and the diagnoses are those of a matcher without the index."""
    import dataclasses

    from diagnose.matcher import Matcher
    from diagnose.rule_model import RuleSet

    rules = default_rules()
    matcher = Matcher(rules)
    plain = Matcher(RuleSet(rules=tuple(dataclasses.replace(r, gate=None) for r in rules), root=rules.root))
    records = [r for r in read_inputs([str(CORPUS)]) if r.error is None]
    records += [r for r in read_inputs([str(FIXTURES)]) if r.error is None and not r.origin.endswith(".yaml")]
    gated = [(i, r) for i, r in enumerate(rules) if r.gate and r.precheck is not None and "family" not in r.tags]
    assert len(gated) > 100
    left_out = 0
    for rec in records:
        ev = evidence_for(rec)
        ctx = ev.context()
        hits = matcher._looked_up(ctx, ev.present())
        for i, rule in gated:
            if i not in hits:
                left_out += 1
                assert not rule.precheck(ctx), (rule.id, rec.id)
        assert matcher.diagnose(ev) == plain.diagnose(ev), rec.id
    assert left_out > len(records) * 100  # the point: most gated rules are never called


def test_exact_test_shapes() -> None:
    ctx = {
        "cuda_error": "cudaErrorIllegalAddress",
        "triton_message": None,
        "env_issues": ("xid",),
        "exit_timed_out": False,
        "log_text": "boom",
    }

    def exact(expr: str):
        return exact_test(compile_expression(expr).statement)

    assert exact('cuda_error == "cudaErrorIllegalAddress" and not exit_timed_out')(ctx) is True
    assert exact('cuda_error in ["x", "y"] or "xid" in env_issues')(ctx) is True
    assert exact("triton_message == null")(ctx) is True
    assert exact('triton_message != "x"')(ctx) is True  # null differs from any string
    assert exact('(triton_message ?? "none") =~ "no"')(ctx) is True
    assert exact('triton_message =~~ "x"')(ctx) is False  # a null operand does not match
    assert exact('log_text =~ "oom"')(ctx) is False
    # a value of a kind rule-engine would refuse: not answered (rule-engine evaluates the rule, and says so)
    assert exact('cuda_error == "x"')({"cuda_error": 700}) is None
    assert exact('"xid" in env_issues')({"env_issues": None}) is None
    assert exact("exit_timed_out")({"exit_timed_out": 1}) is None
    # `and` stops at a left side that decides False, as rule-engine's does
    assert exact('exit_timed_out and cuda_error == "x"')({"exit_timed_out": False, "cuda_error": 700}) is False
    # a number against a number literal: compared as rule-engine's Decimals (0.1 <= 0.1, not the float's binary value)
    assert exact("(oom_total_bytes ?? 0) > 3")({"oom_total_bytes": None}) is False
    assert exact("(oom_total_bytes ?? 0) > 3")({"oom_total_bytes": 4}) is True
    assert exact("3 < oom_total_bytes")({"oom_total_bytes": 3.5}) is True
    assert exact("oom_total_bytes <= 0.1")({"oom_total_bytes": 0.1}) is True
    assert exact("oom_total_bytes == 0")({"oom_total_bytes": None}) is False
    # a null, a NaN or a bool in an ordered comparison: rule-engine raises, so it evaluates the rule
    assert exact("oom_total_bytes > 3")({"oom_total_bytes": None}) is None
    assert exact("oom_total_bytes > 3")({"oom_total_bytes": float("nan")}) is None
    # arithmetic and functions: no exact test; beside one, the left side of an `and` / `or` that decides alone
    assert exact("(oom_total_bytes ?? 0) >= 0.8 * (oom_requested_bytes ?? 0)") is None
    assert exact('$abs(oom_total_bytes ?? 0) > 3 and cuda_error == "x"') is None
    partial = exact('cuda_error == "x" and $abs(oom_total_bytes ?? 0) > 3')
    assert partial({"cuda_error": "y"}) is False and partial({"cuda_error": "x", "oom_total_bytes": 4}) is None
    partial = exact('cuda_error == "x" or $abs(oom_total_bytes ?? 0) > 3')
    assert partial({"cuda_error": "x"}) is True and partial({"cuda_error": "y", "oom_total_bytes": 4}) is None
