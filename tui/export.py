"""A case as Markdown (for an issue or a chat) and as a corpus case (YAML, with where it came from)."""

from __future__ import annotations

from typing import Any

import yaml

from tui.model import Case


def markdown(case: Case) -> str:
    best = case.best or {}
    out = [f"### kdiag: `{case.id}`", ""]
    conf = f" ({case.confidence:.2f})" if case.confidence is not None else ""
    out.append(f"**{case.category} / {case.failure_mode}**{conf}" + (f" — rule `{case.rule}`" if case.rule else ""))
    out.append("")
    out.append(case.title)
    for key, title in (("what", "What"), ("why", "Why"), ("fix", "Fix"), ("caveats", "Caveats")):
        if best.get(key):
            out += ["", f"**{title}:** {best[key]}"]
    if case.cited:
        out += ["", "**Evidence:**", "", "```"]
        out += [f"{c.line:>5} [{c.source}] {c.text}" for c in case.cited]
        out.append("```")
    if case.runners_up:
        out += ["", "**Runners-up:**"]
        out += [f"- {f.get('category')} / {f.get('failure_mode')} (`{f.get('rule')}`)" for f in case.runners_up]
    if case.unchecked:
        out += ["", "**Could not check:**"]
        out += [f"- {u}" for u in case.unchecked]
    if case.origin:
        out += ["", f"_from {case.origin}_"]
    return "\n".join(out) + "\n"


def corpus_case(case: Case, *, category: str | None = None, failure_mode: str | None = None) -> dict[str, Any]:
    """The case as a corpus record; ``ValueError`` when the source kept no log to replay."""
    if not case.log:
        raise ValueError("this source kept no log (a results file keeps the cited lines only): open the logs instead")
    labelled = category is not None
    out: dict[str, Any] = {
        "id": case.id,
        "source": case.origin or "unknown",
        "log": case.log,
        "category": category if labelled else case.category,
        "failure_mode": failure_mode if labelled else case.failure_mode,
        "label_source": "a person's label in kdiag tui" if labelled else "kdiag's own verdict (unlabelled)",
        "kdiag_verdict": {"category": case.category, "failure_mode": case.failure_mode, "rule": case.rule},
    }
    return out


def corpus_yaml(record: dict[str, Any]) -> str:
    return yaml.safe_dump([record], sort_keys=False, allow_unicode=True, width=120)
