"""`kdiag kb ...`, `kdiag corpus check`, `kdiag rules suggest`, and the recording hooks of
`kdiag classify --record` and `kdiag run` (diagnose/cli.py calls these)."""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal, TextIO

from diagnose.kb.store import KbError, Store, explain, resolve_path

DB_HELP = "the knowledge base (default: $KDIAG_DB, else .kdiag/kb.sqlite)"


# --- parsers --------------------------------------------------------------------------------------


def add_kb_parser(sub: Any) -> None:
    k = sub.add_parser(
        "kb",
        help="the knowledge base of failures met: list, show, stats, label, export, unknowns",
        description="Every diagnosis `kdiag run` and `kdiag classify --record` made, one entry per failure "
        "fingerprint, with how often it was seen, kdiag's verdict and a person's label.",
    )
    ks = k.add_subparsers(dest="kb_command", metavar="ACTION")
    ls = ks.add_parser("list", help="one line per entry, most seen first")
    ls.add_argument("--format", choices=("table", "jsonl", "json"), default="table")
    ls.add_argument("--category", help="only this category (kdiag's verdict)")
    ls.add_argument("--unlabelled", action="store_true", help="only entries no person labelled")
    ls.add_argument("--limit", type=int, metavar="N", help="at most N entries")
    sh = ks.add_parser("show", help="one entry in full: signature, verdict, label history, evidence")
    sh.add_argument("id", metavar="ID", help="the entry's number or (a prefix of) its fingerprint")
    sh.add_argument("--format", choices=("text", "json"), default="text")
    st = ks.add_parser("stats", help="counts by category, mode, rule and label; corrections per rule")
    st.add_argument("--format", choices=("text", "json"), default="text")
    lb = ks.add_parser("label", help="confirm kdiag's verdict of an entry, or correct it")
    lb.add_argument("id", metavar="ID")
    lb.add_argument("--category", choices=("kernel-logic", "environment", "runtime-assumption"))
    lb.add_argument("--mode", metavar="FAILURE_MODE", help="kebab-case, see TAXONOMY.md")
    lb.add_argument("--note", help="what the person found")
    lb.add_argument("--by", help="who (default: $KDIAG_USER, else the login name)")
    ex = ks.add_parser("export", help="write an entry as a corpus case (YAML) with its provenance")
    ex.add_argument("id", metavar="ID")
    ex.add_argument("--output", "-o", metavar="FILE", help="append to FILE instead of printing")
    un = ks.add_parser("unknowns", help="failures no rule explains, grouped by log template, largest first")
    un.add_argument("--format", choices=("table", "json"), default="table")
    un.add_argument("--limit", type=int, default=20, metavar="N")
    for sp in (ls, sh, st, lb, ex, un):
        sp.add_argument("--db", metavar="PATH", help=DB_HELP)


def add_corpus_parser(sub: Any) -> None:
    c = sub.add_parser("corpus", help="the labelled corpus as a regression suite")
    cs = c.add_subparsers(dest="corpus_command", metavar="ACTION")
    ck = cs.add_parser(
        "check",
        help="replay every labelled case: confusion matrix, per-rule precision/recall, per-mode coverage",
        description="Replay every labelled case of the corpus (recorded logs and evidence) and the real "
        "(origin-bearing) examples of the rules, print the figures, and compare with the committed baseline.",
    )
    ck.add_argument("--corpus", metavar="DIR", help="the corpus folder (default: the bundled corpus/)")
    ck.add_argument("--rules", metavar="DIR", help="rule directory (default: the bundled rules)")
    ck.add_argument("--format", choices=("text", "json"), default="text")
    ck.add_argument("--baseline", metavar="FILE", help="baseline to compare with (default: CORPUS/baseline.json)")
    ck.add_argument("--update-baseline", action="store_true", help="write the current results as the baseline")
    ck.add_argument("--no-rule-examples", action="store_true", help="corpus cases only")
    ck.add_argument(
        "--calibrate",
        action="store_true",
        help="measure each rule's precision with its authored confidence and write the calibration file "
        "(diagnose/data/calibration.json) the rules' confidences come from",
    )


def add_suggest_parser(rsub: Any) -> Any:
    sg = rsub.add_parser("suggest", help="draft a rule from a group of `kdiag kb unknowns`")
    sg.add_argument("group", metavar="GROUP", help="the group's id (g-...) or its rank in `kdiag kb unknowns`")
    sg.add_argument("--category", choices=("kernel-logic", "environment", "runtime-assumption"))
    sg.add_argument("--mode", metavar="FAILURE_MODE")
    sg.add_argument("--output", "-o", metavar="FILE", help="write the rule here (default: stdout)")
    sg.add_argument("--db", metavar="PATH", help=DB_HELP)
    return sg


# --- recording hooks ------------------------------------------------------------------------------


def _source(origin: str | None, roots: Iterable[str] = ()) -> str | None:
    """Where a record came from, with its file made absolute (so another cwd is the same place);
    a file found under a directory input is named relative to it, so ``roots`` are tried too."""
    if not origin or origin in ("-", "<stdin>"):
        return origin
    m = re.match(r"^(.*?)((?::\d+)|(?:\[.*))?$", origin)
    path, rest = (m.group(1), m.group(2) or "") if m else (origin, "")
    for base in ("", *roots):
        p = Path(base) / path
        if p.is_file():
            return str(p.resolve()) + rest
    return origin


class Recorder:
    """Consults the store for each report (labels become evidence) and records it when asked."""

    def __init__(self, db: str | None, *, record: bool, rules: Any, min_confidence: float | None = None):
        self.store = Store(resolve_path(db), check=record)
        self.record = record
        self._rules = rules  # a RuleSet, or a callable that loads one (only needed when a label applies)
        self._matcher: Any = None
        self.min_confidence = min_confidence
        self.recorded = 0
        self.repeated = 0
        self.roots: tuple[str, ...] = ()  # directory inputs (their files' origins are relative to them)

    @property
    def matcher(self) -> Any:
        if self._matcher is None:
            from diagnose.matcher import Matcher

            self._matcher = Matcher(self._rules() if callable(self._rules) else self._rules)
            if self.min_confidence is not None:
                self._matcher.min_confidence = self.min_confidence
        return self._matcher

    def close(self) -> None:
        self.store.close()

    def process(self, report: Any, *, source: str | None = None) -> Any:
        from diagnose.kb.record import consult, observation

        report = consult(report, self.store, lambda: self.matcher)
        if self.record:
            obs = observation(report, source=source if source is not None else _source(report.origin, self.roots))
            if obs is not None:
                if self.store.record(obs):
                    self.recorded += 1
                else:
                    self.repeated += 1
        return report

    def wrap(self, reports: Iterable[Any]) -> Iterator[Any]:
        for rep in reports:
            yield self.process(rep)

    def summary(self) -> str:
        return (
            f"kdiag: recorded {self.recorded} new observation(s) in {self.store.path}"
            + (f" ({self.repeated} already there)" if self.repeated else "")
            + "\n"
        )


def open_recorder(
    args: argparse.Namespace, rules: Any, err: TextIO, *, default_record: bool
) -> Recorder | Literal[False] | None:
    """A Recorder when the knowledge base is in use, None when not, False when it cannot be opened."""
    record = default_record and not getattr(args, "no_record", False)
    record = record or bool(getattr(args, "record", False))
    in_use = record or bool(getattr(args, "db", None)) or bool(os.environ.get("KDIAG_DB"))
    if not in_use:
        return None
    if not record and not resolve_path(getattr(args, "db", None)).exists():
        return None  # only consulting, and there is nothing to consult
    try:
        return Recorder(
            getattr(args, "db", None), record=record, rules=rules, min_confidence=getattr(args, "min_confidence", None)
        )
    except KbError as exc:
        err.write(f"kdiag: {exc}\n")
        return False


def record_run(res: Any, args: argparse.Namespace, err: TextIO) -> Any:
    """`kdiag run`: consult the store (a label may decide the verdict) and record the run's diagnosis."""
    import dataclasses

    from diagnose.report import Report
    from diagnose.rules import load_rules

    if res.verdict == "pass" or res.diagnosis is None:
        return res
    try:
        rec = open_recorder(args, lambda: load_rules(args.rules), err, default_record=True)
        if not rec:
            return res
        try:
            status = "unknown" if res.diagnosis.category == "unknown" else "diagnosed"
            rep = Report(
                id=res.run_id, status=status, diagnosis=res.diagnosis, evidence=res.evidence, origin=str(res.run_dir)
            )
            rep = rec.process(rep, source="kdiag run")
        finally:
            rec.close()
    except KbError as exc:
        err.write(f"kdiag: {exc}\n")
        return res
    if rep.diagnosis is not res.diagnosis:
        return dataclasses.replace(res, diagnosis=rep.diagnosis, evidence=rep.evidence)
    return res


# --- kdiag kb -------------------------------------------------------------------------------------


def cmd_kb(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.kb_command is None:
        err.write("kdiag kb: choose an action: list, show ID, stats, label ID, export ID, unknowns\n")
        return 2
    try:
        writes = args.kb_command == "label"
        with Store(resolve_path(args.db), create=writes, check=writes) as store:
            return _KB[args.kb_command](store, args, out, err)
    except KbError as exc:
        err.write(f"kdiag kb: {exc}\n")
        return 1
    except sqlite3.DatabaseError as exc:  # a corrupt page met while reading
        err.write(f"kdiag kb: {explain(exc, resolve_path(args.db))}\n")
        return 1


def _kb_list(store: Store, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    where, params = [], []
    if args.category:
        where.append("category = ?")
        params.append(args.category)
    if args.unlabelled:
        where.append("label_state IS NULL")
    rows = list(store.entries(where=" AND ".join(where), params=params))
    if args.limit is not None:
        rows = rows[: args.limit]
    if args.format == "jsonl":
        for r in rows:
            out.write(json.dumps(r, ensure_ascii=False) + "\n")
        return 0
    if args.format == "json":
        json.dump(rows, out, indent=2, ensure_ascii=False)
        out.write("\n")
        return 0
    out.write(
        f"{'#':>5}  {'FINGERPRINT':<16}  {'COUNT':>6}  {'CATEGORY':<18}  {'FAILURE MODE':<28}  {'LABEL':<10}  LAST SEEN\n"
    )
    for r in rows:
        lab = r["label"]["state"] if r["label"] else "-"
        out.write(
            f"{r['id']:>5}  {r['fingerprint']:<16}  {r['count']:>6}  {r['category']:<18}  "
            f"{r['failure_mode'][:28]:<28}  {lab:<10}  {r['last_seen']}\n"
        )
    out.write(f"\n{len(rows)} entr{'y' if len(rows) == 1 else 'ies'}\n")
    return 0


def _kb_show(store: Store, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    e = store.entry(args.id)
    if args.format == "json":
        json.dump(e, out, indent=2, ensure_ascii=False)
        out.write("\n")
        return 0
    out.write(f"entry {e['id']}  fingerprint {e['fingerprint']}\n")
    out.write(f"  seen {e['count']} time(s), first {e['first_seen']}, last {e['last_seen']}\n")
    out.write(
        f"  kdiag: {e['category']} / {e['failure_mode']}  rule {e['rule'] or '-'}  confidence {e['confidence']}\n"
    )
    lab = e["label"]
    if lab:
        out.write(
            f"  label: {lab['state']} {lab['category']} / {lab['failure_mode']} by {lab['by'] or '?'} ({lab['at']})\n"
        )
        if lab["note"]:
            out.write(f"         {lab['note']}\n")
    else:
        out.write("  label: none (kdiag kb label ID --category ... --mode ...)\n")
    if e["versions"]:
        out.write(f"  versions: {', '.join(e['versions'])}\n")
    if e["gpus"]:
        out.write(f"  gpus: {', '.join(e['gpus'])}\n")
    out.write("signature:\n" + "".join(f"  {ln}\n" for ln in e["signature"].splitlines()))
    out.write("example:\n" + "".join(f"  {ln}\n" for ln in e["example"].splitlines()[:40]))
    if e["recent_observations"]:
        out.write("recent observations:\n")
        for o in e["recent_observations"][:10]:
            out.write(f"  {o['seen_at']}  {o['record_id']}  {o['source']}\n")
    return 0


def _kb_stats(store: Store, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    s = store.stats()
    if args.format == "json":
        json.dump(s, out, indent=2)
        out.write("\n")
        return 0
    out.write(f"{s['db']}: {s['entries']} failure(s), {s['observations']} observation(s)\n\n")
    for title, key, col in (
        ("by category", "by_category", "category"),
        ("by rule", "by_rule", "rule"),
    ):
        out.write(f"{title}:\n")
        for row in s[key][:25]:
            out.write(f"  {row['observations']:>8}  {row['entries']:>6} entries  {row[col] or '(none)'}\n")
        out.write("\n")
    out.write("by failure mode:\n")
    for row in s["by_failure_mode"][:25]:
        out.write(
            f"  {row['observations']:>8}  {row['entries']:>6} entries  {row['category']} / {row['failure_mode']}\n"
        )
    out.write("\nby label:\n")
    for row in s["by_label"]:
        out.write(f"  {row['entries']:>8} entries  {row['label']}\n")
    if s["labels_by_rule"]:
        out.write("\ncorrections per rule (labels given, of them corrections):\n")
        for row in s["labels_by_rule"]:
            out.write(f"  {row['labelled']:>5}  {row['corrected']:>5}  {row['rule']}\n")
    return 0


def _kb_label(store: Store, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from diagnose.rules import KEBAB

    if args.mode and not KEBAB.match(args.mode):
        err.write(f"kdiag kb label: --mode must be kebab-case, got {args.mode!r}\n")
        return 2
    if bool(args.mode) != bool(args.category):
        err.write("kdiag kb label: give --category and --mode together (neither: confirm kdiag's verdict)\n")
        return 2
    by = args.by or os.environ.get("KDIAG_USER") or _login()
    e = store.label(args.id, category=args.category, failure_mode=args.mode, note=args.note, by=by)
    lab = e["label"]
    out.write(f"{e['fingerprint']}: {lab['state']} as {lab['category']} / {lab['failure_mode']} by {by}\n")
    return 0


def _login() -> str | None:
    import getpass

    try:
        return getpass.getuser()
    except Exception:
        return None


def _kb_export(store: Store, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import yaml

    e = store.entry(args.id)
    lab = e["label"]
    sources = sorted({o["source"] for o in e["recent_observations"] if o["source"]})
    case: dict[str, Any] = {
        "id": f"kb-{e['fingerprint']}",
        "source": f"kdiag kb entry {e['fingerprint']}: {e['count']} observation(s) from {e['first_seen']} to "
        f"{e['last_seen']}" + (f"; recorded from {', '.join(sources[:5])}" if sources else ""),
        "log": e["example"],
        "category": lab["category"] if lab else e["category"],
        "failure_mode": lab["failure_mode"] if lab else e["failure_mode"],
        "label_source": f"{lab['state']} by {lab['by'] or 'a person'} on {lab['at']}"
        if lab
        else "kdiag's own verdict (unlabelled)",
        "kdiag_verdict": {"category": e["category"], "failure_mode": e["failure_mode"], "rule": e["rule"]},
    }
    if lab and lab["note"]:
        case["resolution"] = lab["note"]
    if e["versions"] or e["gpus"]:
        case["context"] = "; ".join(x for x in (", ".join(e["versions"]), ", ".join(e["gpus"])) if x)
    text = yaml.safe_dump([case], sort_keys=False, allow_unicode=True, width=120)
    if args.output:
        with open(args.output, "a", encoding="utf-8") as f:
            f.write(text)
        out.write(f"appended {case['id']} to {args.output}\n")
    else:
        out.write(text)
    return 0


def _kb_unknowns(store: Store, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from diagnose.kb.unknowns import group_unknowns

    groups = group_unknowns(store)
    shown = groups[: args.limit] if args.limit else groups
    if args.format == "json":
        json.dump([g.to_dict() for g in shown], out, indent=2, ensure_ascii=False)
        out.write("\n")
        return 0
    if not groups:
        out.write("no unexplained failures: every recorded failure has a rule's verdict or a label\n")
        return 0
    out.write(f"{'RANK':>4}  {'GROUP':<10}  {'COUNT':>6}  {'FAILURES':>8}  TEMPLATE\n")
    for i, g in enumerate(shown, 1):
        out.write(f"{i:>4}  {g.id:<10}  {g.count:>6}  {len(g.members):>8}  {g.template[:110]}\n")
        out.write(f"{'':>4}  {'':<10}  example: {g.example_headline[:110]}\n")
    out.write(
        f"\n{len(groups)} group(s) of {sum(len(g.members) for g in groups)} unexplained failure(s); "
        "draft a rule: kdiag rules suggest GROUP\n"
    )
    return 0


_KB = {
    "list": _kb_list,
    "show": _kb_show,
    "stats": _kb_stats,
    "label": _kb_label,
    "export": _kb_export,
    "unknowns": _kb_unknowns,
}


# --- kdiag rules suggest --------------------------------------------------------------------------


def cmd_suggest(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from diagnose.kb.suggest import SuggestError, suggest

    try:
        with Store(resolve_path(args.db), create=False, check=False) as store:
            text, rule_id = suggest(store, args.group, category=args.category, mode=args.mode)
    except (KbError, SuggestError) as exc:
        err.write(f"kdiag rules suggest: {exc}\n")
        return 1
    if args.output:
        path = Path(args.output)
        if path.is_dir():
            path = path / f"{rule_id}.yaml"
        path.write_text(text, encoding="utf-8")
        err.write(f"wrote {path} (status experimental: review it, then `kdiag rules lint`)\n")
    else:
        out.write(text)
    return 0


# --- kdiag corpus check ---------------------------------------------------------------------------


def cmd_corpus(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from diagnose.kb import corpus_check as CC
    from diagnose.rules import default_rules

    if args.corpus_command != "check":
        err.write("kdiag corpus: choose an action: check\n")
        return 2
    corpus = Path(args.corpus) if args.corpus else CC.DEFAULT_CORPUS
    baseline = Path(args.baseline) if args.baseline else corpus / CC.BASELINE_NAME
    try:
        result = CC.check(corpus, rules_root=args.rules, rule_examples=not args.no_rule_examples, baseline=baseline)
    except CC.CorpusError as exc:
        err.write(f"kdiag corpus check: {exc}\n")
        return 3
    if args.calibrate:
        from diagnose.calibration import CALIBRATION_FILE

        try:
            authored = CC.check(corpus, rules_root=args.rules, rule_examples=False, baseline=None, calibrate=False)
        except CC.CorpusError as exc:
            err.write(f"kdiag corpus check: {exc}\n")
            return 3
        CC.write_calibration(authored, CALIBRATION_FILE, args.rules)
        err.write(f"wrote {CALIBRATION_FILE} ({len(authored.decisions())} decided cases)\n")
        default_rules.cache_clear()
        result = CC.check(corpus, rules_root=args.rules, rule_examples=not args.no_rule_examples, baseline=baseline)
    if args.update_baseline:
        CC.write_baseline(result, baseline)
        err.write(f"wrote {baseline} ({len(result.cases)} cases)\n")
        result = CC.check(corpus, rules_root=args.rules, rule_examples=not args.no_rule_examples, baseline=baseline)
    if args.format == "json":
        json.dump(result.to_dict(), out, indent=2)
        out.write("\n")
    else:
        CC.write_text(result, out)
    return 1 if result.regressions else 0
