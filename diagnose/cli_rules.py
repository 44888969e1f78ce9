"""`kdiag rules`: list, show, lint and coverage of the rule base (and the rule loading every command shares)."""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO


def add_rules_parser(sub: Any) -> None:
    r = sub.add_parser("rules", help="list, show and lint the rule base")
    rsub = r.add_subparsers(dest="rules_command", metavar="ACTION")
    rl = rsub.add_parser("list", help="one line per rule")
    rl.add_argument(
        "--format", choices=("table", "json", "markdown"), default="table", help="markdown: docs/RULE-CATALOGUE.md"
    )
    rl.add_argument("--category", help="only this category")
    rs = rsub.add_parser("show", help="one rule in full")
    rs.add_argument("id")
    rs.add_argument("--format", choices=("text", "json"), default="text")
    rn = rsub.add_parser("lint", help="check every rule file and its examples; list every offender")
    rn.add_argument("--strict", action="store_true", help="warnings fail the lint too")
    rc = rsub.add_parser(
        "coverage", help="the message catalogue: families per tool, and how many a rule decides on their own messages"
    )
    rc.add_argument("--format", choices=("table", "json"), default="table")
    rc.add_argument("-v", "--verbose", action="store_true", help="list the families no rule covers")
    from diagnose.kb.cli import add_suggest_parser

    add_suggest_parser(rsub)
    for sp in (rl, rs, rn, rc):
        sp.add_argument("--rules", metavar="DIR", help="rule directory (default: the bundled rules)")


def _load_rules(path: str | None, err: TextIO) -> Any:
    from diagnose.rules import RuleLoadError, load_rules

    try:
        return load_rules(path)
    except RuleLoadError as exc:
        err.write(f"kdiag: the rule base is broken ({len(exc.problems)} problem(s)):\n")
        for prob in exc.problems:
            err.write(f"  {prob}\n")
        return None


# --- rules --------------------------------------------------------------------------


def cmd_rules(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.rules_command is None:
        err.write("kdiag rules: choose an action: list, show ID, lint, coverage, suggest GROUP\n")
        return 2
    if args.rules_command == "lint":
        return _lint(args.rules, out, err, strict=args.strict)
    if args.rules_command == "coverage":
        return _coverage(args, out, err)
    if args.rules_command == "suggest":
        from diagnose.kb.cli import cmd_suggest

        return cmd_suggest(args, out, err)
    rules = _load_rules(args.rules, err)
    if rules is None:
        return 3
    if args.rules_command == "list":
        chosen = [r for r in rules if not args.category or r.category == args.category]
        if args.format == "json":
            json.dump([_rule_dict(r, brief=True) for r in chosen], out, indent=2)
            out.write("\n")
        elif args.format == "markdown":
            from diagnose.catalogue_md import render

            out.write(render(chosen))
        else:
            out.write(f"{'ID':<44} {'CATEGORY':<18} {'FAILURE MODE':<32} {'CONF':>4} {'PRIO':>4}\n")
            for r in sorted(chosen, key=lambda r: (r.category, r.failure_mode, r.id)):
                out.write(f"{r.id:<44} {r.category:<18} {r.failure_mode:<32} {r.confidence:>4.2f} {r.priority:>4}\n")
            out.write(f"\n{len(chosen)} rules\n")
        return 0
    rule = rules.get(args.id)
    from diagnose import text_prior as TP

    if rule is None and args.id == TP.RULE:
        model = TP.load()
        if args.format == "json":
            about = model.about if model else {}
            json.dump({"id": TP.RULE, "text_prior": True, "model": str(TP.MODEL_FILE), "loaded": model is not None,
                       "answer_from": TP.ANSWER_FROM, "contest_from": TP.CONTEST_FROM,
                       "contest_below": TP.CONTEST_BELOW, "cases": about.get("cases"),
                       "measured": about.get("measured")}, out, indent=2)  # fmt: skip
            out.write("\n")
        else:
            out.write(TP.describe(model))
        return 0
    if rule is None:
        import difflib

        near = difflib.get_close_matches(args.id, [r.id for r in rules], n=3, cutoff=0.4)
        err.write(f"kdiag: no rule {args.id!r}" + (f"; did you mean: {', '.join(near)}?" if near else "") + "\n")
        return 2
    if args.format == "json":
        json.dump(_rule_dict(rule), out, indent=2)
        out.write("\n")
        return 0
    e = rule.explain
    out.write(f"{rule.id} — {rule.title}\n")
    out.write(f"  category: {rule.category}   failure mode: {rule.failure_mode}\n")
    authored = rule.authored_confidence
    cal = f" (calibrated; authored {authored:.2f})" if authored is not None and authored != rule.confidence else ""
    out.write(f"  confidence: {rule.confidence:.2f}{cal}   priority: {rule.priority}   status: {rule.status}\n")
    out.write(f"  requires: {', '.join(rule.requires)}\n  when: {rule.when}\n  file: {rule.path}\n\n")
    fixes = tuple((f"How to fix it ({fw} code)", text) for fw, text in e.fixes)
    for head, body in (("What it detects", e.what), ("Why it happens", e.why), ("How to fix it", e.fix), *fixes):
        out.write(f"{head}\n{_indent(body)}\n\n")
    if e.caveats:
        out.write(f"Caveats\n{_indent(e.caveats)}\n\n")
    out.write("References\n" + "".join(f"  - {ref}\n" for ref in rule.references))
    return 0


def _coverage(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from diagnose.catalogue import CatalogueError, default_catalogue
    from diagnose.coverage import family_coverage, per_tool

    rules = _load_rules(args.rules, err)
    if rules is None:
        return 3
    try:
        cat = default_catalogue()
    except CatalogueError as exc:
        err.write(f"kdiag: the message catalogue is broken:\n{exc}\n")
        return 3
    rows = family_coverage(cat, rules)
    if args.format == "json":
        json.dump({"tools": per_tool(rows), "families": [r.to_dict() for r in rows]}, out, indent=2)
        out.write("\n")
        return 0
    cols = ("families", "decided", "concepts", "warning", "covered", "abstains")
    out.write(f"{'TOOL':<16} " + " ".join(f"{c.upper():>8}" for c in cols) + "\n")
    totals = dict.fromkeys(cols, 0)
    for tool, t in sorted(per_tool(rows).items()):
        out.write(f"{tool:<16} " + " ".join(f"{t[c]:>8}" for c in cols) + "\n")
        for k in totals:
            totals[k] += t[k]
    out.write(f"{'all':<16} " + " ".join(f"{totals[c]:>8}" for c in cols) + "\n")
    missing = [r for r in rows if not r.covered and r.decision != "warning"]
    out.write("\ncovered: a rule gives a verdict on the family's own message (its sample, or its template filled)\n")
    out.write(
        "abstains: not covered, and kdiag's answer on the message is unknown with ranked candidates and the check\n"
        "that decides between them\n"
    )
    if missing and args.verbose:
        out.write("\nnot covered (+: abstains with candidates and a deciding check):\n")
        for r in missing:
            mark = "+" if r.abstains else " "
            out.write(f"{mark} {r.family:<44} {r.tool:<12} {r.message[:70]}\n")
    elif missing:
        out.write(f"{len(missing)} not covered (-v lists them)\n")
    return 0


def _indent(text: str) -> str:
    import textwrap

    return "\n".join(textwrap.fill(p, 96, initial_indent="  ", subsequent_indent="  ") for p in text.split("\n\n"))


def _rule_dict(rule: Any, *, brief: bool = False) -> dict[str, Any]:
    out = {
        "id": rule.id,
        "title": rule.title,
        "category": rule.category,
        "failure_mode": rule.failure_mode,
        "confidence": rule.confidence,
        "authored_confidence": rule.authored_confidence if rule.authored_confidence is not None else rule.confidence,
        "priority": rule.priority,
        "status": rule.status,
        "requires": list(rule.requires),
        "path": rule.path,
    }
    if not brief:
        out.update(
            when=rule.when,
            explain={
                k: (dict(v) if k == "fixes" else v) for k, v in vars(rule.explain).items() if v is not None and v != ()
            },
            references=list(rule.references),
        )
    return out


def _lint(path: str | None, out: TextIO, err: TextIO, *, strict: bool = False) -> int:
    from diagnose.lint import check_rules
    from diagnose.rules import RuleLoadError, load_rules

    try:
        rules = load_rules(path, include_deprecated=True)
    except RuleLoadError as exc:
        for prob in exc.problems:
            out.write(f"{prob}\n")
        err.write(f"kdiag rules lint: {len(exc.problems)} problem(s)\n")
        return 1
    found = check_rules(rules)
    for prob in found:
        out.write(f"{prob}\n")
    failing = found if strict else [p for p in found if p.severity == "error"]
    warnings = [p for p in found if p.severity == "warning"]
    counts = (
        f"{len(found) - len(warnings)} error(s), {len(warnings)} warning(s) in {len({p.path for p in found})} file(s)"
    )
    if failing:
        err.write(f"kdiag rules lint: {counts}\n")
        return 1
    examples = sum(len(r.match_examples) + len(r.no_match_examples) for r in rules)
    tail = f" ({len(warnings)} warning(s) in {len({p.path for p in warnings})} file(s); --strict fails on them)"
    out.write(f"{len(rules)} rules, {examples} examples: all good{tail if warnings else ''}\n")
    return 0
