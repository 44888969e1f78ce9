"""`kdiag corpus check`: every labelled case replayed, with figures and a baseline.

The cases:

- **corpus** — every ``*.yaml`` list of records under the corpus folder whose records carry a
  ``category`` (public bug reports, the held-out sets, captured tool output, healthy runs): their
  recorded logs go through the classifier as ``kdiag classify`` would;
- **rule examples** — the ``match`` examples of the rules that name a real origin (a public issue
  ``owner/repo#N``, a URL, a file of the corpus), labelled with their rule's category and mode by
  the rule's author; examples whose log is also a corpus case, or that two rules label differently,
  are left out;
- **recorded evidence** — ``*.yaml`` lists whose records carry an ``evidence`` mapping (an Evidence
  record, e.g. ``corpus/kernels/recorded.yaml``: what `kdiag run` found on each runnable kernel,
  written by ``scripts/record-kernel-evidence``) go straight to the matcher;
- runnable kernels (``labels.yaml`` next to ``*.py``/``*.cu`` files) without recorded evidence are
  listed, not replayed: a replay is a `kdiag run` each (the ``.cu`` ones need a GPU).

A case is *right* when its category is the labelled one (a healthy case: when no rule fires).
The baseline (``corpus/baseline.json``) keeps each case's result; a case that was right in the
baseline and is not now is a regression, and ``kdiag corpus check`` exits 1.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

import yaml

from diagnose.kb.corpus_result import CATS, Case, Result

DEFAULT_CORPUS = Path(__file__).resolve().parent.parent.parent / "corpus"
TAXONOMY = Path(__file__).resolve().parent.parent / "data" / "taxonomy.yaml"
BASELINE_NAME = "baseline.json"


class CorpusError(Exception):
    pass


# --- collecting and replaying cases ---------------------------------------------------------------


def _top(d: Any) -> dict[str, Any]:
    """The Case fields a diagnosis gives beyond its verdict: confidence and the best finding."""
    if d is None or not d.findings:
        return {"confidence": 0.0, "top_rule": None, "top_category": ""}
    return {"confidence": float(d.confidence), "top_rule": d.findings[0].rule, "top_category": d.findings[0].category}


def _log_key(text: str) -> str:
    return hashlib.sha256(text.strip().encode("utf-8", "replace")).hexdigest()


def _read_yaml(path: Path) -> Any:
    """A corpus file's data, read with libyaml's loader where PyYAML has it (:func:`diagnose.inputs.load_yaml`:
    ten times faster than PyYAML's own, which still words what is wrong with a file it refuses)."""
    from diagnose.inputs import load_yaml

    return load_yaml(path.read_text(encoding="utf-8"))


def corpus_files(corpus: Path) -> list[tuple[Path, list[Any]]]:
    """The labelled case files of ``corpus`` (a list of cases, one with a category at least), each with its data."""
    out = []
    for p in sorted(corpus.rglob("*.yaml")):
        if p.name == "labels.yaml":
            continue
        try:
            data = _read_yaml(p)
        except (OSError, yaml.YAMLError) as exc:
            raise CorpusError(f"{p}: {exc}") from exc
        if isinstance(data, list) and any(isinstance(d, dict) and d.get("category") for d in data):
            out.append((p, data))
    return out


def _kernels(corpus: Path) -> list[dict[str, str]]:
    out = []
    for labels in sorted(corpus.rglob("labels.yaml")):
        if not any(labels.parent.glob("*.py")) and not any(labels.parent.glob("*.cu")):
            continue
        data = _read_yaml(labels) or {}
        recorded = labels.parent / "recorded.yaml"
        done = {c.get("id") for c in _read_yaml(recorded) or []} if recorded.exists() else set()
        for name, lab in sorted(data.items()):
            if f"kernel-{Path(name).stem}" in done:
                continue  # replayed from its recorded evidence
            if (labels.parent / name).exists():
                out.append(
                    {
                        "id": f"{labels.parent.name}/{name}",
                        "label": f"{lab.get('category')}/{lab.get('failure_mode', 'none')}",
                        "why": "a runnable kernel with no recorded evidence: `kdiag run` it (on a GPU for .cu)",
                    }
                )
    return out


def _real_origin(origin: str | None) -> bool:
    if not origin:
        return False
    return origin.startswith(("http://", "https://", "corpus/", "../shared/")) or "#" in origin


def check(
    corpus: Path,
    *,
    rules_root: str | None = None,
    rule_examples: bool = True,
    baseline: Path | None = None,
    calibrate: bool | None = None,
) -> Result:
    from diagnose.classify import classify_records, resolve_modes
    from diagnose.inputs import read_inputs
    from diagnose.lint import example_evidence
    from diagnose.matcher import Matcher
    from diagnose.rules import RuleLoadError, load_rules

    if not corpus.is_dir():
        raise CorpusError(f"no corpus folder {corpus}")
    try:
        rules = load_rules(rules_root, calibrate=calibrate)
    except RuleLoadError as exc:
        raise CorpusError(f"the rule base is broken: {exc}") from exc
    cases: list[Case] = []
    corpus_logs: set[str] = set()
    matcher = Matcher(rules)
    for path, items in corpus_files(corpus):
        suite = str(path.relative_to(corpus))
        if any(isinstance(it, dict) and "evidence" in it for it in items):
            cases += _evidence_cases(items, suite, matcher, resolve_modes)
            continue
        for rep in classify_records(read_inputs([str(path)]), rules=rules):
            want = rep.label.get("category")
            if not want:
                continue
            if rep.evidence is not None:
                corpus_logs.add(_log_key(rep.evidence.log.text))
            d = rep.diagnosis
            cases.append(
                Case(
                    id=f"{suite}:{rep.id}",
                    suite=suite,
                    category=want,
                    failure_mode=rep.label.get("failure_mode") or "",
                    got_category=rep.category,
                    got_mode=rep.failure_mode,
                    got_rule=d.rule if d is not None and d.best is not None else None,
                    fired=tuple(f.rule for f in d.findings) if d is not None else (),
                    **_top(d),
                )
            )
    excluded: Counter[str] = Counter()
    if rule_examples:
        cases += _rule_example_cases(rules, corpus_logs, excluded, matcher, example_evidence, resolve_modes)
    tax = _read_yaml(TAXONOMY)
    base = None
    if baseline is not None and baseline.exists():
        try:
            base = json.loads(baseline.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise CorpusError(f"cannot read the baseline {baseline}: {exc}") from exc
    return Result(
        cases=cases,
        not_replayed=_kernels(corpus),
        taxonomy=tax,
        baseline=base,
        baseline_path=str(baseline) if baseline is not None else None,
        excluded=dict(excluded),
        rule_examples=rule_examples,
    )


def _evidence_cases(items: list[Any], suite: str, matcher: Any, resolve: Any) -> list[Case]:
    """Recorded Evidence records (e.g. of `kdiag run`) replayed through the rule base."""
    from diagnose.evidence import Evidence

    out = []
    for i, it in enumerate(items):
        if not isinstance(it, dict) or not it.get("category"):
            continue
        cid = f"{suite}:{it.get('id', i)}"
        try:
            ev = Evidence.from_dict(it["evidence"])
        except (ValueError, TypeError, KeyError) as exc:
            raise CorpusError(f"{cid}: unreadable evidence record: {exc}") from exc
        d = resolve(matcher.diagnose(ev), ev, matcher.rules)
        out.append(
            Case(
                id=cid,
                suite=suite,
                category=it["category"],
                failure_mode=it.get("failure_mode") or "",
                got_category=d.category,
                got_mode=d.failure_mode,
                got_rule=d.rule if d.best is not None else None,
                fired=tuple(f.rule for f in d.findings),
                **_top(d),
            )
        )
    return out


def _rule_example_cases(
    rules: Iterable[Any], corpus_logs: set[str], excluded: Counter[str], matcher: Any, evidence_of: Any, resolve: Any
) -> list[Case]:
    picked: dict[str, tuple[Any, Any, int]] = {}  # log key → (rule, example, index)
    labels: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for rule in rules:
        for i, ex in enumerate(rule.match_examples):
            if not _real_origin(ex.origin):
                excluded["no real origin"] += 1
                continue
            key = _log_key(ex.log + json.dumps(ex.evidence, sort_keys=True, default=str) + str(ex.exit_code))
            if ex.evidence is None and _log_key(ex.log) in corpus_logs:
                excluded["also a corpus case"] += 1
                continue
            labels[key].add((rule.category, rule.failure_mode))
            picked.setdefault(key, (rule, ex, i))
    out = []
    for key, (rule, ex, i) in picked.items():
        if len(labels[key]) > 1:
            excluded["labelled differently by two rules"] += 1
            continue
        ev = evidence_of(ex)
        d = resolve(matcher.diagnose(ev), ev, matcher.rules)
        out.append(
            Case(
                id=f"rule-examples:{rule.id}#{i + 1}",
                suite="rule-examples",
                category=rule.category,
                failure_mode=rule.failure_mode,
                got_category=d.category,
                got_mode=d.failure_mode,
                got_rule=d.rule if d.best is not None else None,
                fired=tuple(f.rule for f in d.findings),
                **_top(d),
            )
        )
    return out


# --- baseline and text ----------------------------------------------------------------------------


def write_baseline(result: Result, path: Path) -> None:
    data = {
        "about": "kdiag corpus check --update-baseline: each case's result when the baseline was taken; "
        "a case right here and wrong now is a regression",
        "cases": {
            c.id: {"label": [c.category, c.failure_mode], "result": c.result(), "right": c.right}
            for c in sorted(result.cases, key=lambda c: c.id)
        },
    }
    path.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n", encoding="utf-8")


def write_text(result: Result, out: TextIO) -> None:
    d = result.to_dict()
    out.write(
        f"{d['cases']} labelled cases: {d['right']} right ({d['accuracy']:.1%}), failure mode right too: "
        f"{d['mode_accuracy']:.1%}\n"
    )
    for suite, s in d["suites"].items():
        out.write(f"  {suite:<32} {s['cases']:>4} cases  {s['accuracy']:>7.1%}  (mode right {s['mode_right']})\n")
    out.write("\nconfusion (rows: label; columns: kdiag; quiet = no rule fired on a healthy run)\n")
    cols = [*CATS, "unknown", "quiet"]
    out.write(f"{'':<20}" + "".join(f"{c[:10]:>12}" for c in cols) + "\n")
    for label, row in d["confusion"].items():
        out.write(f"{label:<20}" + "".join(f"{row.get(c, 0):>12}" for c in cols) + "\n")
    out.write("\nper rule (fired, right, precision, recall of its mode)\n")
    for rule, r in sorted(d["per_rule"].items(), key=lambda kv: (-kv[1]["fired"], kv[0])):
        rec = f"{r['recall']:.0%}" if r["recall"] is not None else "-"
        out.write(f"  {rule:<48} {r['fired']:>4} {r['right']:>4} {r['precision']:>7.0%} {rec:>6}\n")
    low = {k: v for k, v in d["per_mode"].items() if v["coverage"] < 1}
    out.write(f"\nper mode: {len(d['per_mode'])} modes with cases; {len(low)} not fully covered\n")
    for mode, m in low.items():
        out.write(f"  {mode:<52} {m['mode_right']}/{m['cases']}\n")
    _write_calibration(d["calibration"], out)
    out.write(f"\nTAXONOMY failure modes without a case: {', '.join(d['modes_without_case']) or 'none'}\n")
    if d["not_replayed"]:
        names = ", ".join(k["id"] for k in d["not_replayed"])
        out.write(f"not replayed (runnable, no recorded evidence): {len(d['not_replayed'])}: {names}\n")
    if d["misses"]:
        from diagnose.calibration import HELD_OUT

        # a held-out set's misses are counted, not listed: reading them is learning from the set
        held = [m for m in d["misses"] if str(m["id"]).startswith(HELD_OUT)]
        out.write(f"\nmisses ({len(d['misses'])}):\n")
        for m in d["misses"]:
            if m not in held:
                out.write(f"  {m['id']:<64} label {m['label']:<44} kdiag {m['got']}\n")
        if held:
            sets = ", ".join(sorted({str(m["id"]).split("/")[0] + "/" for m in held}))
            out.write(f"  and {len(held)} in held-out sets ({sets}), not listed (--format json lists them)\n")
    if d["baseline"] is None or result.baseline is None:
        out.write("\nno baseline to compare with (kdiag corpus check --update-baseline writes one)\n")
        return
    out.write(
        f"\nagainst the baseline: {len(d['changed'])} changed, {len(d['regressions'])} regression(s), "
        f"{len(d['new_cases'])} new case(s)\n"
    )
    for c in d["changed"]:
        mark = "REGRESSION" if c in d["regressions"] else "changed"
        out.write(f"  {mark:<10} {c['id']}: {c['was']} -> {c['now']}\n")
    for c in d["regressions"]:
        if c["now"] is None:
            out.write(f"  REGRESSION {c['id']}: no longer in the corpus\n")


def _write_calibration(cal: dict[str, Any], out: TextIO) -> None:
    out.write(
        "\ncalibration (answers binned by confidence: how many, mean confidence, share right; real reports ="
        " learned from + held out, made here = captured output, recorded runs, rule examples)\n"
    )
    names = {
        "calibration_set": "learned from",
        "held_out": "held out",
        "real_reports": "real reports",
        "made_here": "made here",
        "all": "all cases",
    }
    out.write(f"  {'confidence':<12}" + "".join(f"{names[k]:>24}" for k in names) + "\n")
    for i, b in enumerate(cal["calibration_set"]["bins"]):
        cells = []
        for k in names:
            r = cal[k]["bins"][i]
            cells.append(f"{r['answers']:>4}  {r['confidence']:.2f} -> {r['right']:>5.0%}" if r["answers"] else "-")
        out.write(f"  {b['bin']:<12}" + "".join(f"{c:>24}" for c in cells) + "\n")
    eces = "".join(f"{cal[k]['ece']:>24.3f}" if cal[k]["ece"] is not None else f"{'-':>24}" for k in names)
    out.write(f"  {'ECE':<12}{eces}\n")


def write_calibration(result: Result, path: Path, rules_root: str | None = None) -> None:
    """The calibration file: per rule, the cases it decided and how many it got right (see
    diagnose.calibration); ``result`` must come from the authored confidences (``calibrate=False``)."""
    from diagnose.calibration import tallies, to_json
    from diagnose.rules import load_rules

    rules = load_rules(rules_root, calibrate=False)
    authored = {r.id: r.confidence for r in rules}
    categories = {r.id: r.category for r in rules}
    path.write_text(to_json(tallies(result.decisions()), authored, categories), encoding="utf-8")
