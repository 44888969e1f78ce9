"""Reports: one per classified input, and the formats people and programs read them in."""

from __future__ import annotations

import functools
import itertools
import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, TextIO

from diagnose.evidence import Evidence
from diagnose.failure import failure_seen
from diagnose.matcher import Cited, Diagnosis
from diagnose.unmatched import Hint, hint_for

STATUSES = ("diagnosed", "unknown", "no-failure", "pass", "error")
#: statuses that say nothing failed; their category and failure mode are the status itself
QUIET = ("no-failure", "pass")
#: what a no-failure report says
NO_FAILURE_TITLE = (
    "no failure found: no error, exception, failed test or bad exit status in the log"
    " (a wrong value printed without an error, and a hang or crash that cut the log short without a message,"
    " leave nothing to read here: compare the result with a reference and let a time limit catch a hang,"
    " `kdiag run KERNEL --reference REF`)"
)


@dataclass(frozen=True)
class Report:
    id: str
    status: str  # diagnosed | unknown | no-failure (nothing failed) | pass (the harness said it passed) | error
    diagnosis: Diagnosis | None = None
    evidence: Evidence | None = None
    origin: str | None = None  # where the input came from: "logs/a.txt", "results.jsonl:17"
    errors: tuple[str, ...] = ()  # why the input could not be classified (status error)
    warnings: tuple[str, ...] = ()  # what was odd but did not stop it (truncated, collector failure)
    label: dict[str, Any] = field(default_factory=dict)  # an expected category/failure_mode, if the input had one

    @property
    def category(self) -> str:
        if self.status == "error":
            return "error"
        if self.status in QUIET:
            return self.status
        return self.diagnosis.category if self.diagnosis else "unknown"

    @property
    def failure_mode(self) -> str:
        if self.status in QUIET or self.diagnosis is None:
            return self.status if self.status in ("error", *QUIET) else "unmatched"
        return self.diagnosis.failure_mode

    @property
    def title(self) -> str | None:
        if self.status == "no-failure":
            return NO_FAILURE_TITLE
        if self.diagnosis is not None:
            return self.diagnosis.title
        return self.errors[0] if self.errors else None

    @property
    def failure_seen(self) -> tuple[str, ...]:
        """For an ``unknown`` report: what in the input failed (a failure line, an exit status), so an
        abstention still says what it saw; empty for every other status."""
        if self.status != "unknown" or self.evidence is None:
            return ()
        return failure_seen(self.evidence)

    @functools.cached_property
    def seen_lines(self) -> tuple[Cited, ...]:
        """For an ``unknown`` report no rule matched: the log's lines that show the failure, with their numbers (the
        exception a traceback ends in, then the first failure lines other than a traceback's head and frames), so an
        abstention still cites what it read; empty for every other report."""
        d = self.diagnosis
        if self.status != "unknown" or self.evidence is None or (d is not None and d.findings):
            return ()
        return seen_lines(self.evidence)

    @functools.cached_property
    def hint(self) -> Hint | None:
        """For an ``unknown`` report no rule matched: the kind of failure the log shows, its candidates
        and the check that decides (:mod:`diagnose.unmatched`); None for every other report."""
        d = self.diagnosis
        if self.status != "unknown" or self.evidence is None or (d is not None and d.findings):
            return None
        return hint_for(self.evidence)

    def to_dict(self, *, with_evidence: bool = False) -> dict[str, Any]:
        d = self.diagnosis
        best = d.best if d else None
        cited = best or (d.findings[0] if d and d.findings and self.status == "unknown" else None)
        out: dict[str, Any] = {
            "id": self.id,
            "status": self.status,
            "category": self.category,
            "failure_mode": self.failure_mode,
            "rule": d.rule if d else None,
            "confidence": d.confidence if d and self.status != "no-failure" else None,
            "title": self.title,
            # an answer cites its lines; an abstention cites its best candidate's (what it saw, undecided)
            "evidence": [c.to_dict() for c in (cited.evidence if cited else self.seen_lines)],
            "fix": best.fix if best else None,
            "what": best.what if best else None,
            "why": best.why if best else None,
            "facts": dict(best.facts) if best else {},
            "alternatives": [f.to_dict(full=False) for f in d.alternatives] if d else [],
            "unchecked": list(d.unchecked) if d else [],
            "next_check": next_check(self),
            "origin": self.origin,
        }
        seen = self.failure_seen
        if seen:
            out["failure_seen"] = list(seen)
        hint = self.hint
        if hint is not None:  # no rule matched: candidates from the kind of failure, below any answer
            out["failure_kind"] = hint.kind
            out["candidates"] = [c.to_dict() for c in hint.candidates]
        if d and d.rule_errors:
            out["rule_errors"] = list(d.rule_errors)
        if self.errors:
            out["errors"] = list(self.errors)
        if self.warnings:
            out["warnings"] = list(self.warnings)
        if self.label:
            out["label"] = self.label
        kb = self.evidence.kb if self.evidence is not None else None
        if kb is not None:  # what the knowledge base knew of this failure (kdiag kb)
            out["seen"] = {
                "fingerprint": kb.fingerprint,
                "count": kb.seen_count,
                "first_seen": kb.first_seen,
                "label": kb.label_state,
                "summary": kb.summary,
            }
        if with_evidence and self.evidence is not None:
            ev = self.evidence.to_dict()
            ev.get("log", {}).pop("text", None)  # the input itself is not repeated
            out["evidence_record"] = ev
        return out


#: a traceback's head and its frame lines: where a failure is, not what it is
_TRACEBACK_LINE = ("Traceback (most recent call last)", 'File "')


def seen_lines(ev: Evidence, limit: int = 3) -> tuple[Cited, ...]:
    r"""The lines of ``ev``'s log that show its failure, for an abstention no rule explains: the line of the
    exception a Python traceback ends in, then the first failure lines (:func:`diagnose.failure_lines.failure_lines`)
    that are not a traceback's head or frames.

    >>> from diagnose.collectors import collect
    >>> log = 'Traceback (most recent call last):\n  File "a.py", line 3, in <module>\n    f()\nKeyError: \'x\'\n'
    >>> [(c.line, c.text) for c in seen_lines(collect(log))]
    [(4, "KeyError: 'x'")]
    """
    from diagnose.failure_lines import failure_lines

    text = ev.log.text
    out: list[Cited] = []
    py = ev.py
    if py is not None and py.exc_qualname:
        lines = text.splitlines()
        for n in sorted(py.lines, reverse=True):
            if 0 < n <= len(lines) and py.exc_qualname in lines[n - 1]:
                out.append(Cited(n, lines[n - 1].strip(), "py"))
                break
    for n, line in failure_lines(text, limit + 3):
        if len(out) >= limit:
            break
        if any(n == c.line for c in out) or line.lstrip().startswith(_TRACEBACK_LINE):
            continue
        out.append(Cited(n, line, "log"))
    return tuple(out)


def next_check(r: Report) -> str | None:
    """For an abstention (``unknown``): the check that would decide between its candidates — what the
    best candidate's caveats say decides, and the checks this input could not have (no controlled run,
    no sanitizer)."""
    d = r.diagnosis
    if r.status != "unknown":
        return None
    if d is None or not d.findings:
        hint = r.hint
        return hint.check if hint is not None else None
    parts = []
    top = d.findings[0]
    if top.caveats:
        parts.append(top.caveats.strip())
    if d.unchecked:
        parts.append("Not checked here: " + "; ".join(d.unchecked) + ".")
    return " ".join(parts) or None


# --- formats ------------------------------------------------------------------------


class Tally:
    """Counts reports as they stream past: the summary of a batch without holding the batch.

    >>> t = Tally()
    >>> t.add(Report(id="a", status="error")).total
    1
    """

    def __init__(self) -> None:
        self.total = 0
        self.errors = 0
        self.by_cat: Counter[str] = Counter()
        self.by_mode: Counter[tuple[str, str]] = Counter()

    def add(self, r: Report) -> Tally:
        self.total += 1
        self.errors += r.status == "error"
        self.by_cat[r.category] += 1
        self.by_mode[(r.category, r.failure_mode)] += 1
        return self

    def counted(self, reports: Iterable[Report]) -> Iterator[Report]:
        for r in reports:
            self.add(r)
            yield r

    def summary(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "by_category": dict(self.by_cat.most_common()),
            "by_failure_mode": [
                {"category": c, "failure_mode": m, "count": n} for (c, m), n in self.by_mode.most_common()
            ],
        }


def summary(reports: Iterable[Report]) -> dict[str, Any]:
    t = Tally()
    for r in reports:
        t.add(r)
    return t.summary()


def write_jsonl(reports: Iterable[Report], out: TextIO, *, with_evidence: bool = False) -> Tally:
    t = Tally()
    encode = _JSONL.encode  # json.dumps(..., ensure_ascii=False), its encoder made once
    for r in t.counted(reports):
        out.write(encode(r.to_dict(with_evidence=with_evidence)) + "\n")
        out.flush()
    return t


_JSONL = json.JSONEncoder(ensure_ascii=False)


def write_json(reports: Iterable[Report], out: TextIO, *, with_evidence: bool = False) -> Tally:
    """``{"reports": [...], "summary": {...}}``, written report by report."""
    t = Tally()
    out.write('{\n  "reports": [')
    for i, r in enumerate(t.counted(reports)):
        item = json.dumps(r.to_dict(with_evidence=with_evidence), indent=2, ensure_ascii=False)
        out.write(("," if i else "") + "\n    " + item.replace("\n", "\n    "))
    out.write("\n  ]," if t.total else "],")
    summ = json.dumps(t.summary(), indent=2, ensure_ascii=False).replace("\n", "\n  ")
    out.write(f'\n  "summary": {summ}\n}}\n')
    return t


def _clip(s: str | None, n: int) -> str:
    s = (s or "").replace("\n", " ").replace("\t", " ")
    return s if len(s) <= n else s[: n - 1] + "…"


#: the table's id column is as wide as the longest id among the first this many reports
_TABLE_LOOKAHEAD = 256


def write_table(reports: Iterable[Report], out: TextIO, *, width: int | None = None, detail: bool = False) -> Tally:
    """A fixed-width table for people, then a summary by category and failure mode (streamed: only
    the first few reports are held, to size the id column)."""
    if width is None:
        import shutil

        width = max(shutil.get_terminal_size((120, 24)).columns, 100)
    t = Tally()
    stream = t.counted(reports)
    first = list(itertools.islice(stream, _TABLE_LOOKAHEAD))
    id_w = min(max([len(r.id) for r in first] + [2]), 36)
    head = f"{'ID':<{id_w}}  {'CATEGORY':<18}  {'FAILURE MODE':<28}  {'CONF':>4}  WHY"
    out.write(head + "\n" + "-" * min(width, max(len(head), 80)) + "\n")
    rest = max(width - id_w - 18 - 28 - 4 - 8, 20)
    for r in itertools.chain(first, stream):
        d = r.diagnosis
        conf = f"{d.confidence:.2f}" if d and r.status in ("diagnosed", "unknown") and d.findings else "  - "
        why = r.errors[0] if r.errors else (r.title or "")
        out.write(
            f"{_clip(r.id, id_w):<{id_w}}  {r.category:<18}  {_clip(r.failure_mode, 28):<28}  {conf:>4}  {_clip(why, rest)}\n"
        )
        if detail:
            write_detail(r, out, indent="    ")
    s = t.summary()
    out.write("\n")
    cats = ", ".join(f"{c} {n}" for c, n in s["by_category"].items())
    out.write(f"{s['total']} input{'s' if s['total'] != 1 else ''}: {cats}\n")
    modes = [m for m in s["by_failure_mode"] if m["category"] not in ("error", *QUIET)]
    if modes:
        out.write("by failure mode:\n")
        for m in modes[:20]:
            out.write(f"  {m['count']:>5}  {m['category']:<18}  {m['failure_mode']}\n")
        if len(modes) > 20:
            out.write(f"  ... and {len(modes) - 20} more\n")
    return t


def write_detail(r: Report, out: TextIO, *, indent: str = "") -> None:
    d = r.diagnosis
    if r.errors:
        for e in r.errors:
            out.write(f"{indent}error: {e}\n")
    for w in r.warnings:
        out.write(f"{indent}warning: {w}\n")
    kb = r.evidence.kb if r.evidence is not None else None
    if kb is not None and kb.summary:
        out.write(f"{indent}knowledge base: {kb.summary}\n")
    if r.status == "no-failure":
        out.write(f"{indent}{NO_FAILURE_TITLE}\n")
    for sign in r.failure_seen if d is None or not d.findings else ():  # a candidate cites its own lines
        out.write(f"{indent}failure seen: {_clip(sign, 120)}\n")
    for c in r.seen_lines:
        out.write(f"{indent}  line {c.line:>4} [{c.source}]: {_clip(c.text, 100)}\n")
    hint = r.hint
    if hint is not None:
        out.write(f"{indent}no rule matched; the log shows {hint.seen}\n")
        out.write(f"{indent}candidates, none decided: {', '.join(str(c) for c in hint.candidates)}\n")
        out.write(f"{indent}to decide: {_clip(hint.check, 600)}\n")
    if d is None:
        return
    best = d.best
    if best is not None:
        out.write(f"{indent}rule: {best.rule}\n")
        for c in best.evidence:
            out.write(f"{indent}  line {c.line:>4} [{c.source}]: {_clip(c.text, 100)}\n")
        if best.facts:
            facts = "; ".join(f"{k} = {v}" for k, v in best.facts)
            out.write(f"{indent}In this log: {_clip(facts, 300)}\n")
        out.write(f"{indent}what: {_clip(best.what, 200)}\n")
        out.write(f"{indent}fix:  {_clip(best.fix, 200)}\n")
    elif r.status == "unknown" and d.findings:
        top = d.findings[0]
        out.write(f"{indent}best guess, below the answer threshold: {top.rule}\n")
        for c in top.evidence:
            out.write(f"{indent}  line {c.line:>4} [{c.source}]: {_clip(c.text, 100)}\n")
        if top.caveats:
            out.write(f"{indent}to decide: {_clip(top.caveats, 300)}\n")
    for alt in d.alternatives[:3]:
        out.write(f"{indent}or:   {alt.category} / {alt.failure_mode} ({alt.confidence:.2f}, {alt.rule})\n")
    if d.unchecked:
        for u in d.unchecked:
            out.write(f"{indent}could not check: {u}\n")
    for e in d.rule_errors:
        out.write(f"{indent}rule error: {e}\n")


#: the markdown report details this many inputs after its table (the table lists every one)
MARKDOWN_DETAILS = 100


def write_markdown(reports: Iterable[Report], out: TextIO) -> Tally:
    """A table (one row per input), then each input's diagnosis in full: the lines it cites, what, why,
    fix and caveats, the facts it read, and for an abstention its candidates and the check that decides
    (the first MARKDOWN_DETAILS inputs; the table and the summary count them all)."""
    out.write("| id | category | failure mode | confidence | rule | fix |\n|---|---|---|---|---|---|\n")

    def cell(s: Any) -> str:
        return _clip(str(s if s is not None else ""), 160).replace("|", "\\|")

    t = Tally()
    detailed: list[str] = []
    for r in t.counted(reports):
        d = r.diagnosis
        best = d.best if d else None
        check = next_check(r)
        action = best.fix if best else (f"to decide: {check}" if check else (r.errors[0] if r.errors else ""))
        out.write(
            f"| {cell(r.id)} | {cell(r.category)} | {cell(r.failure_mode)} | "
            f"{cell(f'{d.confidence:.2f}' if d and d.findings else '')} | {cell(d.rule if d else '')} | "
            f"{cell(action)} |\n"
        )
        if len(detailed) < MARKDOWN_DETAILS and ((d is not None and d.findings) or r.errors or r.failure_seen):
            detailed.append(_markdown_detail(r))
    s = t.summary()
    out.write("\n**Summary:** " + ", ".join(f"{c}: {n}" for c, n in s["by_category"].items()) + "\n")
    if detailed:
        more = t.total - len(detailed)
        out.write("\n## Details\n")
        for block in detailed:
            out.write("\n" + block)
        if more > 0:
            out.write(f"\n_{more} more input(s) in the table only; `--format jsonl` gives every one in full._\n")
    return t


def _markdown_detail(r: Report) -> str:
    d = r.diagnosis
    lines = []
    conf = f" ({d.confidence:.2f})" if d is not None and d.findings else ""
    lines.append(f"### `{r.id}`: {r.category} / {r.failure_mode}{conf}\n")
    for e in r.errors:
        lines.append(f"- **error:** {e}")
    seen = r.failure_seen if d is None or not d.findings else ()
    if seen:
        lines.append("Failure seen: " + "; ".join(f"`{s}`" for s in seen) + "\n")
    hint = r.hint
    if hint is not None:
        lines.append(f"No rule matched; the log shows {hint.seen}. Candidates, none decided:")
        lines += [f"- {c}" for c in hint.candidates]
        lines.append(f"\n**To decide:** {hint.check}\n")
    if d is None or not d.findings:
        return "\n".join(lines) + "\n"
    top = d.best or d.findings[0]
    if d.best is None:
        lines.append(
            f"Not enough evidence to decide. Best guess, below the answer threshold: **{top.title}** (`{top.rule}`).\n"
        )
    else:
        lines.append(f"**{top.title}** (`{top.rule}`)\n")
    if top.evidence:
        lines.append("Lines:\n\n```")
        lines += [f"{c.line:>5} | {c.text}" for c in top.evidence]
        lines.append("```\n")
    if top.facts:
        lines.append("In this log: " + "; ".join(f"`{k}` = {v}" for k, v in top.facts) + "\n")
    for label, text in (("What", top.what), ("Why", top.why)):
        if text:
            lines.append(f"**{label}:** {text}\n")
    if d.best is not None and top.fix:
        lines.append(f"**Fix:** {top.fix}\n")
    if top.caveats:
        lines.append(f"**{'To decide' if d.best is None else 'Caveats'}:** {top.caveats}\n")
    alts = list(d.alternatives) if d.best is None else [a for a in d.alternatives if a is not top]
    if alts:  # abstained: every candidate, the best guess first, as the table and JSON list them
        lines.append("Candidates:" if d.best is None else "Alternatives:")
        lines += [f"- {a.category} / {a.failure_mode} ({a.confidence:.2f}, `{a.rule}`)" for a in alts[:5]]
        lines.append("")
    if d.unchecked:
        lines.append("Not checked here: " + "; ".join(d.unchecked) + "\n")
    return "\n".join(lines) + "\n"
