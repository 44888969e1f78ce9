"""`kdiag rules suggest GROUP`: a draft rule from a group of unexplained failures.

The rule's ``when`` searches the log for the constant parts of the group's template (the tokens
drain3 kept; masked and varying tokens become gaps), in order, on one line.  Its match examples are
the group's own logs (the lines around the failure), its no_match examples are other recorded
failures the expression does not match.  The draft is ``status: experimental`` and passes
``kdiag rules lint`` (checked before it is written); a person gives it a category and mode,
an explanation and a better title.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

import yaml

from diagnose.kb.store import Store
from diagnose.kb.unknowns import Group, group_unknowns

MAX_MATCH_EXAMPLES = 5
MAX_EXAMPLE_LINES = 12
_VARIABLE = re.compile(r"<\*>|<[A-Z]+>")


class SuggestError(Exception):
    pass


def constant_runs(template: str) -> list[list[str]]:
    """Runs of consecutive template tokens that are constant (no <*> or mask in them)."""
    runs: list[list[str]] = [[]]
    for tok in template.split():
        if _VARIABLE.search(tok):
            if runs[-1]:
                runs.append([])
        else:
            runs[-1].append(tok)
    return [r for r in runs if r and len(" ".join(r)) >= 3]


def template_regex(template: str) -> str | None:
    runs = constant_runs(template)
    if not runs:
        return None
    return r"[^\n]*?".join(r"\s+".join(re.escape(t) for t in run) for run in runs)


def _excerpt(log: str, rx: re.Pattern[str]) -> str:
    """The log, or the lines around the one the rule matches when the log is long."""
    lines = log.splitlines()
    if len(lines) <= MAX_EXAMPLE_LINES:
        return log if log.endswith("\n") else log + "\n"
    for i, ln in enumerate(lines):
        if rx.search(ln):
            lo = max(0, i - MAX_EXAMPLE_LINES // 2)
            return "\n".join(lines[lo : lo + MAX_EXAMPLE_LINES]) + "\n"
    return log


def _find_group(groups: list[Group], ref: str) -> Group:
    if ref.isdigit() and 1 <= int(ref) <= len(groups):
        return groups[int(ref) - 1]
    for g in groups:
        if g.id == ref or g.id == f"g-{ref}":
            return g
    raise SuggestError(f"no group {ref!r} among the {len(groups)} of `kdiag kb unknowns`")


def _rule_literal(regex: str) -> str:
    return '"' + regex.replace("\\", "\\\\").replace('"', '\\"') + '"'


def suggest(store: Store, ref: str, *, category: str | None = None, mode: str | None = None) -> tuple[str, str]:
    """(the rule's YAML, its id) for group ``ref`` (its id or its rank)."""
    group = _find_group(group_unknowns(store), ref)
    regex = template_regex(group.template)
    if regex is None:
        raise SuggestError(f"group {group.id}'s template has no constant part to match: {group.template!r}")
    rx = re.compile(regex)
    matching = [m for m in group.members if rx.search(m.example)]
    if not matching:
        raise SuggestError(f"the constant parts of {group.template!r} match none of the group's logs")
    members = {m.fingerprint for m in group.members}
    others = [
        (fp, ex)
        for (_id, fp, _n, _h, ex) in store.conn.execute(
            "SELECT id, fingerprint, count, headline, example FROM entries ORDER BY count DESC LIMIT 500"
        )
        if fp not in members and not rx.search(ex)
    ]
    if not others:
        raise SuggestError("no other recorded failure to use as a no_match example (record more failures)")
    rule_id = f"suggested-{group.id[2:]}"
    drafted = category is None or mode is None
    rule: dict[str, Any] = {
        "id": rule_id,
        "title": f"Draft: {group.template[:90]}",
        "category": category or "kernel-logic",
        "failure_mode": mode or "needs-review",
        "status": "experimental",
        "confidence": 0.5,
        "priority": 20,
        "requires": ["log"],
        "when": f"log_text =~~ {_rule_literal(regex)}",
        "explain": {
            "what": f"Failures whose log has a line of the template `{group.template}` "
            f"({group.count} observation(s) of {len(group.members)} failure(s) no rule explained).",
            "why": "Drafted by `kdiag rules suggest` from a group of `kdiag kb unknowns`: say why this failure happens.",
            "fix": "Say what the owner of the failure should do.",
            "caveats": "A draft: check the category and failure mode"
            + (" (none were given: --category and --mode)" if drafted else "")
            + ", and that the expression is not broader than the failure.",
        },
        "references": [f"kdiag kb group {group.id}: fingerprints {', '.join(sorted(members)[:8])}"],
        "examples": {
            "match": [
                {"log": _excerpt(m.example, rx), "origin": f"kdiag kb entry {m.fingerprint}"}
                for m in matching[:MAX_MATCH_EXAMPLES]
            ],
            "no_match": [
                {"log": _excerpt(ex, rx), "origin": f"kdiag kb entry {fp}", "note": "another recorded failure"}
                for fp, ex in others[:2]
            ],
        },
    }
    text = "# drafted by `kdiag rules suggest` — review before use\n" + yaml.safe_dump(
        rule, sort_keys=False, allow_unicode=True, width=10_000
    )
    problems = lint_text(text, rule_id)
    if problems:
        raise SuggestError("the draft does not pass lint: " + "; ".join(problems))
    return text, rule_id


def lint_text(text: str, rule_id: str) -> list[str]:
    from diagnose.lint import check_rule, errors
    from diagnose.rules import parse_rule_file

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / f"{rule_id}.yaml"
        path.write_text(text, encoding="utf-8")
        rule, problems = parse_rule_file(path, root=Path(d))
        if rule is None:
            return [str(p) for p in problems]
        return [str(p) for p in errors(check_rule(rule))]
