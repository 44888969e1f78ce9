"""Reading one rule file: parse, validate every field, compile ``when`` — every problem with its line."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from diagnose import rule_engine_tables
from diagnose.evidence import SOURCES, rule_types
from diagnose.prefilter import compile_precheck, gate_of
from diagnose.rule_model import (
    _SYMBOL,
    _TEXT_REGEX,
    CATEGORIES,
    EXAMPLE_KEYS,
    EXPLAIN_OPTIONAL,
    EXPLAIN_REQUIRED,
    FIX_FRAMEWORKS,
    KEBAB,
    OPTIONAL,
    REQUIRED,
    SPEAKS_ABOUT,
    STATUSES,
    Example,
    Explain,
    Rule,
    RuleProblem,
    _Loader,
)
from diagnose.ruleexpr import compile_expression, describe_engine_error

# --- loading ------------------------------------------------------------------------


def _lines_of(node: yaml.Node) -> dict[str, int]:
    """Top-level key → 1-based line of its value."""
    out: dict[str, int] = {}
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                out[str(key.value)] = value.start_mark.line + 1
    return out


def _example_nodes(node: yaml.Node, kind: str) -> list[int]:
    """1-based lines of each example under examples.<kind>."""
    if not isinstance(node, yaml.MappingNode):
        return []
    for key, value in node.value:
        if getattr(key, "value", None) == "examples" and isinstance(value, yaml.MappingNode):
            for k2, v2 in value.value:
                if getattr(k2, "value", None) == kind and isinstance(v2, yaml.SequenceNode):
                    return [item.start_mark.line + 1 for item in v2.value]
    return []


_Bad = Callable[[int, str], None]


def _read_yaml(path: Path, bad: _Bad) -> tuple[dict[str, Any], yaml.Node] | None:
    """The rule file's mapping and its node tree (for line numbers), or None (a problem is reported)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        bad(1, f"cannot read: {exc}")
        return None
    try:
        # one parse: compose the node tree (its marks give each field's line), then construct from it;
        # libyaml's loader when present (pure-Python YAML was most of the rule base's load time)
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        bad((mark.line + 1) if mark else 1, f"invalid YAML: {getattr(exc, 'problem', exc)}")
        return None
    if not isinstance(data, dict) or node is None:
        bad(1, "a rule file must be a YAML mapping")
        return None
    return data, node


def _check_fields(data: dict[str, Any], path: Path, line: Callable[[str], int], bad: _Bad) -> None:
    """Every top-level field but when, explain and examples."""
    for key in REQUIRED:
        if key not in data:
            bad(1, f"missing required field {key!r}")
    for key in data:
        if key not in REQUIRED and key not in OPTIONAL:
            near = difflib.get_close_matches(str(key), REQUIRED + OPTIONAL, n=1)
            bad(line(key), f"unknown field {key!r}" + (f" (did you mean {near[0]!r}?)" if near else ""))

    rid = data.get("id")
    if "id" in data:
        if not isinstance(rid, str) or not KEBAB.match(rid):
            bad(line("id"), f"id must be kebab-case, got {rid!r}")
        elif rid != path.stem:
            bad(line("id"), f"id {rid!r} must equal the file's stem {path.stem!r}")
    for key in ("title",):
        if key in data and (not isinstance(data[key], str) or not data[key].strip()):
            bad(line(key), f"{key} must be a non-empty string")
    if "category" in data and data["category"] not in CATEGORIES:
        bad(line("category"), f"category must be one of {', '.join(CATEGORIES)}; got {data['category']!r}")
    fm = data.get("failure_mode")
    if "failure_mode" in data and (not isinstance(fm, str) or not KEBAB.match(fm)):
        bad(line("failure_mode"), f"failure_mode must be kebab-case, got {fm!r}")
    if "status" in data and data["status"] not in STATUSES:
        bad(line("status"), f"status must be one of {', '.join(STATUSES)}; got {data['status']!r}")
    conf = data.get("confidence")
    if "confidence" in data and (
        not isinstance(conf, int | float) or isinstance(conf, bool) or not 0.0 <= float(conf) <= 1.0
    ):
        bad(line("confidence"), f"confidence must be a number between 0 and 1, got {conf!r}")
    fm_from = data.get("failure_mode_from")
    if "failure_mode_from" in data and (
        not isinstance(fm_from, str) or getattr(rule_types().get(fm_from), "name", None) != "STRING"
    ):
        bad(line("failure_mode_from"), f"failure_mode_from must name a string evidence symbol, got {fm_from!r}")
    about = data.get("speaks_about", "contract")
    if about not in SPEAKS_ABOUT:
        bad(line("speaks_about"), f"speaks_about must be one of {', '.join(SPEAKS_ABOUT)}; got {about!r}")
    elif about == "probe" and data.get("category") != "runtime-assumption":
        bad(line("speaks_about"), "speaks_about: probe goes with category runtime-assumption (outside the contract)")
    prio = data.get("priority")
    if "priority" in data and (not isinstance(prio, int) or isinstance(prio, bool)):
        bad(line("priority"), f"priority must be an integer, got {prio!r}")

    requires = data.get("requires")
    if "requires" in data:
        if not isinstance(requires, list) or not requires or not all(isinstance(s, str) for s in requires):
            bad(line("requires"), "requires must be a non-empty list of evidence sources")
        else:
            for s in requires:
                if s not in SOURCES:
                    bad(line("requires"), f"requires: unknown evidence source {s!r} (known: {', '.join(SOURCES)})")
    refs = data.get("references")
    if "references" in data and (
        not isinstance(refs, list) or not refs or not all(isinstance(r, str) and r.strip() for r in refs)
    ):
        bad(line("references"), "references must be a non-empty list of strings (URLs or owner/repo#N)")


def _check_when(
    data: dict[str, Any], line: Callable[[str], int], bad: _Bad
) -> tuple[Any, tuple[str, ...], tuple[str, ...]]:
    """The compiled expression, the symbols it reads and the regexes it runs over log_text."""
    when = data.get("when")
    compiled = None
    symbols: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    if "when" in data:
        if not isinstance(when, str) or not when.strip():
            bad(line("when"), "when must be a non-empty rule-engine expression")
        else:
            try:
                compiled = compile_expression(when)
            except Exception as exc:
                bad(line("when"), describe_engine_error(exc, when))
            known = rule_types()
            symbols = tuple(sorted({s for s in _SYMBOL.findall(when) if s in known}))
            patterns = tuple(_unescape(p) for p in _TEXT_REGEX.findall(when))
            for p in patterns:
                try:
                    re.compile(p)
                except re.error as exc:
                    bad(line("when"), f"when: bad regular expression {p!r}: {exc}")
    return compiled, symbols, patterns


def _check_explain(
    data: dict[str, Any], line: Callable[[str], int], bad: _Bad, problems: list[RuleProblem]
) -> Explain | None:
    explain = data.get("explain")
    explain_obj = None
    if "explain" in data:
        if not isinstance(explain, dict):
            bad(line("explain"), "explain must be a mapping with what, why and fix")
        else:
            fixes: list[tuple[str, str]] = []
            if isinstance(explain.get("fix"), dict):
                fixmap = explain["fix"]
                for fw, text in fixmap.items():
                    if fw != "default" and fw not in FIX_FRAMEWORKS:
                        bad(
                            line("explain"),
                            f"explain.fix: unknown framework {fw!r} (known: {', '.join(FIX_FRAMEWORKS)})",
                        )
                    elif not isinstance(text, str) or not text.strip():
                        bad(line("explain"), f"explain.fix.{fw} must be a non-empty string")
                    elif fw != "default":
                        fixes.append((str(fw), text.strip()))
                if "default" not in fixmap:
                    bad(line("explain"), "explain.fix: a mapping needs a `default` text")
                explain = {**explain, "fix": str(fixmap.get("default") or "")}
            for k in EXPLAIN_REQUIRED:
                if not isinstance(explain.get(k), str) or not explain[k].strip():
                    bad(line("explain"), f"explain.{k} must be a non-empty string")
            for k in explain:
                if k not in EXPLAIN_REQUIRED + EXPLAIN_OPTIONAL:
                    bad(line("explain"), f"explain: unknown field {k!r}")
            if not any(p.line == line("explain") and p.message.startswith("explain") for p in problems):
                explain_obj = Explain(**{k: str(v).strip() for k, v in explain.items()}, fixes=tuple(fixes))
    return explain_obj


def _check_examples(
    data: dict[str, Any], node: yaml.Node, line: Callable[[str], int], bad: _Bad
) -> tuple[list[Example], list[Example]]:
    match_ex: list[Example] = []
    no_match_ex: list[Example] = []
    examples = data.get("examples")
    if "examples" in data:
        if not isinstance(examples, dict):
            bad(line("examples"), "examples must be a mapping with match and no_match lists")
        else:
            for kind, sink in (("match", match_ex), ("no_match", no_match_ex)):
                items = examples.get(kind)
                lines = _example_nodes(node, kind)
                if not isinstance(items, list) or not items:
                    bad(line("examples"), f"examples.{kind} must be a non-empty list")
                    continue
                for i, item in enumerate(items):
                    ln = lines[i] if i < len(lines) else line("examples")
                    ex = _example(item, ln, bad)
                    if ex is not None:
                        sink.append(ex)
            for k in examples:
                if k not in ("match", "no_match"):
                    bad(line("examples"), f"examples: unknown field {k!r}")
    return match_ex, no_match_ex


def parse_rule_file(path: Path, *, root: Path | None = None) -> tuple[Rule | None, list[RuleProblem]]:
    """Parse and validate one rule file; returns the rule (None if unusable) and every problem found."""
    shown = str(path.relative_to(root)) if root and path.is_relative_to(root) else str(path)
    problems: list[RuleProblem] = []

    def bad(line: int, message: str) -> None:
        problems.append(RuleProblem(shown, line, message))

    read = _read_yaml(path, bad)
    if read is None:
        return None, problems
    data, node = read
    at = _lines_of(node)
    rule_engine_tables.install()  # before rule-engine's first import: its parser tables read, not computed

    def line(key: str) -> int:
        return at.get(key, 1)

    _check_fields(data, path, line, bad)
    compiled, symbols, patterns = _check_when(data, line, bad)
    explain_obj = _check_explain(data, line, bad, problems)
    match_ex, no_match_ex = _check_examples(data, node, line, bad)

    if problems:
        return None, problems
    tags = data.get("tags") or []
    if not isinstance(tags, list):
        return None, [RuleProblem(shown, line("tags"), "tags must be a list of strings")]
    d: dict[str, Any] = data
    rule = Rule(
        id=str(d["id"]),
        title=str(d["title"]).strip(),
        category=str(d["category"]),
        failure_mode=str(d["failure_mode"]),
        status=str(d["status"]),
        confidence=float(d["confidence"]),
        priority=int(d["priority"]),
        requires=tuple(d["requires"]),
        when=str(d["when"]).strip(),
        explain=explain_obj,  # type: ignore[arg-type]
        references=tuple(d["references"]),
        match_examples=tuple(match_ex),
        no_match_examples=tuple(no_match_ex),
        path=shown,
        line=1,
        symbols=symbols,
        text_patterns=patterns,
        tags=tuple(str(t) for t in tags),
        speaks_about=str(d.get("speaks_about", "contract")),
        compiled=compiled,
        precheck=compile_precheck(compiled.statement) if compiled is not None else None,
        gate=gate_of(compiled.statement) if compiled is not None else None,
        failure_mode_from=str(d["failure_mode_from"]) if d.get("failure_mode_from") else None,
    )
    return rule, problems


def _unescape(s: str) -> str:
    # rule-engine string literals process backslash escapes; mirror that for the citation regexes
    return s.encode("latin-1", "backslashreplace").decode("unicode_escape")


def _example(item: Any, line: int, bad: Any) -> Example | None:
    if isinstance(item, str):
        return Example(log=item, line=line)
    if not isinstance(item, dict):
        bad(line, "an example must be a log string or a mapping with log/evidence")
        return None
    unknown = [k for k in item if k not in EXAMPLE_KEYS]
    if unknown:
        bad(line, f"example: unknown field(s) {', '.join(map(str, unknown))} (allowed: {', '.join(EXAMPLE_KEYS)})")
        return None
    if "log" not in item and "evidence" not in item and "exit_code" not in item and "signal" not in item:
        bad(line, "example: needs a log, an exit status or an evidence mapping")
        return None
    if "log" in item and not isinstance(item["log"], str):
        bad(line, "example: log must be a string")
        return None
    if "evidence" in item and not isinstance(item["evidence"], dict):
        bad(line, "example: evidence must be a mapping (Evidence.to_dict form)")
        return None
    return Example(
        log=item.get("log", ""),
        exit_code=item.get("exit_code"),
        signal=item.get("signal"),
        timed_out=bool(item.get("timed_out", False)),
        evidence=item.get("evidence"),
        note=item.get("note"),
        origin=item.get("origin"),
        line=line,
    )
