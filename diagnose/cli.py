"""The `kdiag` command line.

Exit codes: 0 done, 1 a diagnosed failure (run) or inputs that could not be read
(classify), 2 usage error, 3 kdiag's own error (a broken rule base, a bug), 4 no result (run:
the target could not run here).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from diagnose.cli_rules import _load_rules, add_rules_parser, cmd_rules

EPILOG_CLASSIFY = """\
inputs:
  FILE            a text log (one failure per file)
  DIR             every file under it, recursively (dot-files skipped)
  -               standard input: a text log, or JSON Lines
  FILE.jsonl      one failure per line: {"id": ..., "log": ...}, or split fields
                  stdout, stderr, exit_code, compile_log, sanitizer_log, env
  FILE.json       KernelBench eval_results.json, or a list of records
  FILE.yaml       a list of records (e.g. corpus/public/real-dev.yaml)

examples:
  kdiag classify failed/                     # a table, then a summary
  kdiag classify results.jsonl --format jsonl > diagnoses.jsonl
  kdiag classify crash.log -v                # the evidence lines and the fix
  cat crash.log | kdiag classify -
"""


#: commands the terminal UI (the ``tui`` package) implements; main() hands them over by module name,
#: so this module never imports the UI (import-linter: the headless core never imports the UI)
UI_COMMANDS = ("tui", "triage")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="kdiag",
        description="Diagnose GPU kernel failures: whose problem it is (kernel-logic, environment, "
        "runtime-assumption), which failure mode, the evidence lines that prove it, and what to do.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Run `kdiag COMMAND --help` for each command.",
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    c = sub.add_parser(
        "classify",
        help="diagnose failure logs other tools wrote",
        description="Diagnose failure logs offline: each input gets a category, failure mode, "
        "confidence, the evidence lines that decided it, and a fix.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=EPILOG_CLASSIFY,
    )
    c.add_argument("inputs", nargs="+", metavar="INPUT", help="log files, directories, .jsonl/.json/.yaml, or -")
    c.add_argument("--format", "-f", choices=("table", "jsonl", "json", "markdown"), default="table")
    c.add_argument("--rules", metavar="DIR", help="rule directory (default: the bundled rules)")
    c.add_argument(
        "--min-confidence",
        type=float,
        metavar="X",
        help="abstain (unknown) below this (default 0.5: calibrated, likelier right than wrong)",
    )
    c.add_argument(
        "--no-text-prior",
        dest="text_prior",
        action="store_false",
        help="answer from the rules alone: a failure no rule answered stays unknown, even where the text prior "
        "(a model of the words of the corpus' real reports, rule `text-prior`) points clearly to one owner",
    )
    c.add_argument("-v", "--verbose", action="store_true", help="table: show evidence lines, fix and alternatives")
    c.add_argument("--with-evidence", action="store_true", help="json/jsonl: include the full evidence record")
    c.add_argument("--progress", choices=("auto", "always", "never"), default="auto", help="progress bar on stderr")
    c.add_argument("--output", "-o", metavar="FILE", help="write the report here instead of stdout")
    c.add_argument(
        "--jobs",
        "-j",
        type=int,
        metavar="N",
        help="worker processes (default: all cores for batches of 2000+ records, else 1)",
    )
    c.add_argument("--record", action="store_true", help="record every diagnosis in the knowledge base (kdiag kb)")
    c.add_argument("--db", metavar="PATH", help="the knowledge base to consult and record in (default: $KDIAG_DB)")

    from diagnose.kb.cli import add_corpus_parser, add_kb_parser

    add_rules_parser(sub)

    v = sub.add_parser(
        "eval",
        help="measure the rule base against labelled cases (accuracy, precision, confusion matrix)",
        description="Classify labelled cases (records with `category` and `failure_mode`, e.g. corpus/*.yaml) "
        "and compare: category accuracy, how often kdiag answers, how often its answers are right, the "
        "confusion matrix, and every miss. Healthy cases (category: none) must get no finding.",
    )
    v.add_argument("inputs", nargs="+", metavar="CASES", help="labelled .yaml/.jsonl case files or directories")
    v.add_argument("--rules", metavar="DIR", help="rule directory (default: the bundled rules)")
    v.add_argument("--min-accuracy", type=float, metavar="X", help="exit 1 when category accuracy is below X")
    v.add_argument(
        "--no-text-prior",
        dest="text_prior",
        action="store_false",
        help="the rules alone, as `kdiag classify --no-text-prior` (the prior is trained on the corpus' development "
        "sets: on those, measure with this)",
    )
    v.add_argument(
        "--by",
        action="store_true",
        help="also give the figures per framework (the cases' field) and per message family",
    )

    _run_parser(sub)
    add_kb_parser(sub)
    add_corpus_parser(sub)

    e = sub.add_parser("env", help="the machine: NVML, GPUs, the software stack, and what is wrong with them")
    e.add_argument("--format", choices=("text", "json"), default="text")
    e.add_argument("--probe-torch", action="store_true", help="ask torch in a child for its CUDA build and arch list")
    e.add_argument("--replay", metavar="FILE", help="read NVML from a recording instead of the library")
    e.add_argument("--record-nvml", metavar="FILE", help="also write every NVML answer to FILE (a test fixture)")
    # listed for --help only: main() hands these to the terminal UI before parsing
    sub.add_parser("tui", help="the terminal UI: results, a run directory, logs or the knowledge base", add_help=False)
    sub.add_parser(
        "triage", help="run a target with live progress in the terminal UI, then open its diagnosis", add_help=False
    )
    return p


build_parser = _parser


def _ui(argv: list[str], out: TextIO, err: TextIO) -> int:
    import importlib

    try:
        ui = importlib.import_module("tui.cli")
    except ImportError as exc:
        err.write(f"kdiag {argv[0]}: the terminal UI is not available ({exc}); it needs textual\n")
        return 3
    return int(ui.main(argv, out=out, err=err))


# --- classify -----------------------------------------------------------------------


def cmd_classify(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from diagnose import report as R
    from diagnose.classify import PARALLEL_MIN_RECORDS, classify_parallel, classify_records
    from diagnose.inputs import count_hint, read_inputs

    rules = _load_rules(args.rules, err)
    if rules is None:
        return 3
    records = read_inputs(args.inputs)
    total = count_hint(args.inputs)
    jobs = args.jobs
    if jobs is None:
        jobs = (os.cpu_count() or 1) if (total or 0) >= PARALLEL_MIN_RECORDS else 1
    if jobs < 1:
        err.write("kdiag classify: --jobs must be at least 1\n")
        return 2
    from diagnose.kb.cli import open_recorder

    recorder = open_recorder(args, rules, err, default_record=False)
    if recorder is False:
        return 3
    if jobs > 1:
        reports_iter = classify_parallel(
            records, jobs=jobs, rules_root=args.rules, min_confidence=args.min_confidence, text_prior=args.text_prior
        )
    else:
        reports_iter = classify_records(
            records, rules=rules, min_confidence=args.min_confidence, text_prior=args.text_prior
        )
    if recorder is not None:
        recorder.roots = tuple(p for p in args.inputs if os.path.isdir(p))
        reports_iter = recorder.wrap(reports_iter)
    show = args.progress == "always" or (args.progress == "auto" and err.isatty())
    if show:
        from tqdm import tqdm

        # delay: only batches that take over a second show a bar
        reports_iter = tqdm(reports_iter, total=total, unit="log", delay=1.0, file=err, leave=False)
    sink = open(args.output, "w", encoding="utf-8") if args.output else out  # noqa: SIM115
    try:  # every format streams: no list of all reports is held
        if args.format == "table":
            tally = R.write_table(reports_iter, sink, detail=args.verbose)
        elif args.format == "markdown":
            tally = R.write_markdown(reports_iter, sink)
        elif args.format == "json":
            tally = R.write_json(reports_iter, sink, with_evidence=args.with_evidence)
        else:
            tally = R.write_jsonl(reports_iter, sink, with_evidence=args.with_evidence)
    finally:
        if sink is not out:
            sink.close()
        if recorder is not None:
            if recorder.record:
                err.write(recorder.summary())
            recorder.close()
    if tally.errors:
        err.write(
            f"kdiag: {tally.errors} of {tally.total} input(s) could not be classified (see their error entries)\n"
        )
        return 1
    return 0


# --- eval ---------------------------------------------------------------------------


def cmd_eval(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from diagnose.classify import classify_records
    from diagnose.evaluate import score, slices, write_score, write_slices
    from diagnose.inputs import read_inputs

    rules = _load_rules(args.rules, err)
    if rules is None:
        return 3
    reports = list(classify_records(read_inputs(args.inputs), rules=rules, text_prior=args.text_prior))
    s = score(reports)
    if not s.labelled and not s.healthy:
        err.write("kdiag eval: no labelled cases in the inputs (records need a `category` field)\n")
        return 2
    write_score(s, out)
    if args.by:
        write_slices(slices(reports), out)
    if args.min_accuracy is not None and s.accuracy < args.min_accuracy:
        return 1
    return 0


# --- run ----------------------------------------------------------------------------

EPILOG_RUN = """\
targets:
  kdiag run -- CMD ARGS...              any command
  kdiag run saxpy.cu [--arch sm_80]     nvcc -Xptxas -v -lineinfo, then the binary (needs a GPU)
  kdiag run kernel.py                   a kernel module: make_inputs(device, seed=0, **size),
                                        kernel(*inputs), reference(*inputs), optional SIZES, TOLERANCE
  kdiag run sub.py --reference ref.py   KernelBench (Model/get_inputs/get_init_inputs + ModelNew)
                                        or GPU MODE (ref_kernel/generate_input + custom_kernel)

CUDA sources of a Python submission (load_inline, load, CuPy RawKernel/RawModule, NVRTC) are read from
its text, never by running it, and compiled with nvcc for the target arch (-Xptxas -v): a compile
error is the kernel's; a clean compile on a machine without a GPU is reported with its registers,
spills and shared memory, and the verdict is no-result.

verdicts: pass, fail, assumption (the declared sizes pass, a probe broke an assumption), no-result
(it could not run here: no GPU, a CPU build of torch, a missing library; the report says which, and
what was still checked; never a failure of the kernel)

exit codes: 0 pass, 1 a diagnosed failure (fail, assumption), 2 usage error, 3 kdiag's own error,
4 no result (could not run here)
"""


def _run_parser(sub: Any) -> None:
    r = sub.add_parser(
        "run",
        help="run a kernel (or any command) under controlled conditions and diagnose it",
        description="Run a target in fresh, supervised children, check its outputs against the reference "
        "outside the submission's process, escalate (launch-blocking, compute-sanitizer) while the failure "
        "is unexplained, and report the verdict, the failure mode and the evidence.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=EPILOG_RUN,
    )
    r.add_argument("target", nargs="*", metavar="TARGET", help="a .py or .cu file, or `-- COMMAND ARGS...`")
    r.add_argument("--reference", metavar="FILE", help="the reference of a KernelBench / GPU MODE submission")
    r.add_argument(
        "--arch",
        metavar="sm_XX",
        help=".cu files and CUDA sources: the arch to compile for (default: the GPU's, else the target GPU's)",
    )
    r.add_argument(
        "--ladder",
        choices=("none", "quick", "full"),
        default="quick",
        help="escalation while a failure is unexplained: none (the plain run only), quick (launch-blocking, then "
        "one compute-sanitizer tool), full (every tool that applies, and on a GPU every tool over a run that "
        "passed too); default quick",
    )
    r.add_argument("--timeout", type=float, default=300.0, metavar="S", help="wall clock per attempt (default 300)")
    r.add_argument("--target-gpu", metavar="GPU", help="GPU to compile launched kernels for: H100, A100, sm_89 ...")
    r.add_argument("--format", "-f", choices=("text", "json"), default="text")
    r.add_argument("--runs-dir", metavar="DIR", default=".kdiag/runs", help="where run directories go")
    r.add_argument("--seed", type=int, default=0, help="the seed make_inputs gets (default 0)")
    r.add_argument("--rules", metavar="DIR", help="rule directory (default: the bundled rules)")
    r.add_argument("--cpu", action="store_true", help="behave as if there were no GPU (device cpu, interpreter)")
    r.add_argument(
        "--probes",
        choices=("none", "quick", "full"),
        default="quick",
        help="inputs outside the declared contract: quick = sizes n±1/prime/1, non-contiguous and misaligned "
        "views; full = also empty, other dtypes, large values, repeats, other seeds (default quick)",
    )
    r.add_argument(
        "--shrink",
        action="store_true",
        help="find the smallest failing size and the rule it follows; repro.py in the run dir uses it",
    )
    r.add_argument(
        "--size",
        action="append",
        metavar="NAME=VALUE",
        help="run at another problem size (repeatable): a KernelBench module-level size constant (batch_size, "
        "dim, M, N ...) or a make_inputs / generate_input keyword; without a GPU a KernelBench problem whose "
        "inputs would not fit is made smaller by itself, and the report says so",
    )
    r.add_argument("--atol", type=float, metavar="X", help="absolute tolerance for every float output (over TOLERANCE)")
    r.add_argument("--rtol", type=float, metavar="X", help="relative tolerance for every float output (over TOLERANCE)")
    r.add_argument(
        "--db",
        metavar="PATH",
        help="the knowledge base the diagnosis is recorded in (default: $KDIAG_DB, else .kdiag/kb.sqlite)",
    )
    r.add_argument("--no-record", action="store_true", help="do not record the diagnosis in the knowledge base")


def cmd_run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from pathlib import Path

    from diagnose.run import output, targets
    from diagnose.run.session import KdiagError, Options, execute

    raw = list(getattr(args, "raw_argv", None) or [])
    as_command = "--" in raw and raw.index("--") < len(raw) - 1
    if as_command:  # everything after `--` is the command, verbatim (argparse may have eaten options of it)
        args.target = raw[raw.index("--") + 1 :]
    try:
        target = targets.detect(list(args.target), reference=args.reference, as_command=as_command)
    except targets.ProtocolError as e:
        err.write(f"kdiag run: {e}\n")
        return 2
    if args.target_gpu:
        from diagnose.envinfo import gpuspec

        if gpuspec.try_lookup(args.target_gpu) is None:
            err.write(f"kdiag run: unknown --target-gpu {args.target_gpu!r} (e.g. H100, A100, L4, sm_89)\n")
            return 2
    if args.timeout is not None and args.timeout <= 0:
        err.write("kdiag run: --timeout must be positive\n")
        return 2
    for name in ("atol", "rtol"):
        value = getattr(args, name, None)
        if value is not None and not value >= 0:  # also refuses nan
            err.write(f"kdiag run: --{name} must be a number >= 0\n")
            return 2
    from diagnose.run import sizes as run_sizes

    try:
        overrides = run_sizes.parse(getattr(args, "size", None))
    except ValueError as e:
        err.write(f"kdiag run: {e}\n")
        return 2
    why = run_sizes.check(target.kind, target.reference, overrides)
    if why:
        err.write(f"kdiag run: {why}\n")
        return 2
    from diagnose.rules import RuleLoadError, load_rules

    opts = Options(
        ladder=args.ladder,
        timeout=args.timeout,
        target_gpu=args.target_gpu,
        arch=args.arch,
        runs_dir=Path(args.runs_dir),
        seed=args.seed,
        rules=lambda: load_rules(args.rules),  # loaded while the first child runs
        gpu=False if args.cpu else None,
        probes=args.probes,
        shrink=args.shrink,
        atol=getattr(args, "atol", None),
        rtol=getattr(args, "rtol", None),
        sizes=overrides or None,
    )
    try:
        res = execute(target, opts)
    except KdiagError as e:
        err.write(f"kdiag run: internal error: {e}\n")
        return 3
    except RuleLoadError as exc:
        err.write(f"kdiag: the rule base is broken ({len(exc.problems)} problem(s)):\n")
        err.writelines(f"  {prob}\n" for prob in exc.problems)
        return 3
    from diagnose.kb.cli import record_run

    res = record_run(res, args, err)
    if args.format == "json":
        json.dump(output.to_dict(res), out, indent=2, default=str)
        out.write("\n")
    else:
        output.write_text(res, out)
    return res.exit_code


# --- env ----------------------------------------------------------------------------


def cmd_env(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from diagnose.envinfo import render

    argv = ["--format", args.format] + (["--probe-torch"] if args.probe_torch else [])
    if args.replay:
        argv += ["--replay", args.replay]
    if args.record_nvml:
        argv += ["--record-nvml", args.record_nvml]
    return render.main(argv, out=out)


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    raw = list(sys.argv[1:] if argv is None else argv)
    if argv is None:  # the program itself (not a call from Python code): its rule base lives as long as it does
        from diagnose import rule_cache

        rule_cache.FREEZE_LOADED = True
    if raw and raw[0] in UI_COMMANDS:
        try:
            return _ui(raw, out, err)
        except KeyboardInterrupt:
            return 130
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
        return int(exc.code or 0)
    if args.command is None:
        parser.print_help(out)
        return 2
    if args.command == "run":  # `kdiag run -- CMD`: the handler needs to see where `--` was
        args.raw_argv = list(sys.argv[1:] if argv is None else argv)
    from diagnose.kb.cli import cmd_corpus, cmd_kb
    from diagnose.kb.store import KbError

    handlers = {
        "classify": cmd_classify,
        "rules": cmd_rules,
        "eval": cmd_eval,
        "env": cmd_env,
        "run": cmd_run,
        "kb": cmd_kb,
        "corpus": cmd_corpus,
    }
    try:
        return handlers[args.command](args, out, err)
    except KeyboardInterrupt:
        err.write("kdiag: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    except KbError as exc:  # the knowledge base cannot be written (read-only, full disk): nothing partial was kept
        err.write(f"kdiag: {exc}\n")
        return 1
    except Exception as exc:  # kdiag's own error: say so, exit 3
        import traceback

        err.write(f"kdiag: internal error: {type(exc).__name__}: {exc}\n")
        if "KDIAG_DEBUG" in __import__("os").environ:
            traceback.print_exc(file=err)
        return 3


if __name__ == "__main__":
    sys.exit(main())
