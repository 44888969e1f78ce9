"""`kdiag tui` and `kdiag triage`: parse the arguments, read the cases, start the app.

``diagnose.cli`` hands these two commands here (by module name, at call time), so the headless
core never imports the UI.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

EPILOG_TUI = """\
examples:
  kdiag tui results.jsonl                 results of kdiag classify --format jsonl
  kdiag tui .kdiag/runs/20261203-080712-1c1e01    one run directory (or a folder of them)
  kdiag tui failed/*.log                  logs, classified as they open
  kdiag tui cases.yaml                    a list of records (corpus/*.yaml)
  kdiag tui --kb                          the knowledge base's entries
"""


def _tui_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="kdiag tui",
        description="Read diagnoses in the terminal: a batch table, each case's verdict, evidence and log; "
        "re-run, label, export.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=EPILOG_TUI,
    )
    p.add_argument("inputs", nargs="*", metavar="INPUT", help="results .jsonl, a run directory, logs or record files")
    p.add_argument("--kb", action="store_true", help="open the knowledge base's entries")
    p.add_argument("--db", metavar="PATH", help="the knowledge base (default: its own default, .kdiag/kb.sqlite)")
    p.add_argument("--rules", metavar="DIR", help="rule directory (default: the bundled rules)")
    p.add_argument("--export", metavar="FILE", default="kdiag-cases.yaml", help="where `e` appends corpus cases")
    return p


def main(argv: Sequence[str], *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """``argv`` starts with the command: ``["tui", ...]`` or ``["triage", ...]``."""
    out = out or sys.stdout
    err = err or sys.stderr
    command, rest = argv[0], list(argv[1:])
    if command == "triage":
        return triage(rest, out, err)
    return tui(rest, out, err)


def tui(argv: list[str], out: TextIO, err: TextIO) -> int:
    parser = _tui_parser()
    if "-h" in argv or "--help" in argv:
        parser.print_help(out)
        return 0
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    from tui.app import make_app
    from tui.kb import KbAdapter, KbUnavailable
    from tui.model import Batch, load

    rules = None
    if args.rules:
        from diagnose.rules import RuleLoadError, load_rules

        try:
            rules = load_rules(args.rules)
        except RuleLoadError as exc:
            err.write(f"kdiag tui: the rule base is broken ({len(exc.problems)} problem(s))\n")
            return 3
    adapter = KbAdapter(args.db)
    if args.kb:
        try:
            batch = Batch(tuple(adapter.cases()), "the knowledge base")
        except KbUnavailable as exc:
            err.write(f"kdiag tui --kb: {exc}\n")
            return 3
        except Exception as exc:  # a missing or unreadable store says why
            err.write(f"kdiag tui --kb: {exc}\n")
            return 1
    else:
        inputs = args.inputs
        if not inputs:
            default = Path(".kdiag/runs")
            if not default.is_dir():
                err.write("kdiag tui: give results, a run directory or logs (see kdiag tui --help)\n")
                return 2
            inputs = [str(default)]
        missing = [p for p in inputs if p != "-" and not Path(p).exists()]
        if missing:
            err.write(f"kdiag tui: no such file or directory: {', '.join(missing)}\n")
            return 2
        if err.isatty():
            err.write("kdiag tui: reading and classifying…\n")
        batch = load(inputs, rules=rules)
        for prob in batch.problems[:5]:
            err.write(f"kdiag tui: {prob}\n")
    if not batch.cases:
        err.write("kdiag tui: nothing to show (no records in the inputs)\n")
        return 1
    app = make_app(batch.cases, source=batch.source, labeller=adapter, rules=rules, export_path=Path(args.export))
    app.run()
    return 0


def triage(argv: list[str], out: TextIO, err: TextIO) -> int:
    """`kdiag triage TARGET [run options]`: `kdiag run` in a child, its progress live, then the result."""
    from diagnose.cli import build_parser

    if not argv or argv[0] in ("-h", "--help"):
        out.write(
            "usage: kdiag triage TARGET [run options]\n\n"
            "Run TARGET with kdiag run (same target forms and options: see kdiag run --help), show the rung\n"
            "running, the tail of its output and the time while it works, then open the diagnosis.\n"
        )
        return 0 if argv else 2
    try:
        args = build_parser().parse_args(["run", *argv])
    except SystemExit as exc:
        return int(exc.code or 2)
    if not args.target:
        err.write("kdiag triage: give a target (a .py or .cu file, or -- COMMAND ARGS...)\n")
        return 2
    from tui.app import make_app
    from tui.kb import KbAdapter
    from tui.runner import RunRequest

    request = RunRequest(tuple(argv), (), Path(args.runs_dir))
    app = make_app([], source="kdiag triage", labeller=KbAdapter(), triage=request)
    app.run()
    return 0
