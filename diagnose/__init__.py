"""kdiag's headless core: evidence from logs, a YAML rule base, and diagnoses.

The small in-process API for harnesses::

    import diagnose

    report = diagnose.classify_log("RuntimeError: CUDA error: no kernel image is available ...")
    report.category        # "environment"
    report.failure_mode    # "no-kernel-image-for-arch"
    report.to_dict()       # the same object `kdiag classify --format jsonl` prints

    rules = diagnose.load_rules()                       # the bundled rules (or a directory of yours)
    ev = diagnose.collect(log_text, exit_code=-11)      # an Evidence record
    report = diagnose.classify_evidence(ev, rules=rules)

Nothing here imports torch, triton, cupy or textual.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from diagnose.collectors import collect
    from diagnose.evidence import Evidence
    from diagnose.report import Report
    from diagnose.rules import RuleLoadError, RuleSet, load_rules

#: the API's names, imported on first use: a child that needs one table from a submodule (the harness's
#: ``diagnose.run.arrays``) does not pay for the collectors and the rules
_LAZY = {
    "collect": "diagnose.collectors",
    "Evidence": "diagnose.evidence",
    "Report": "diagnose.report",
    "RuleLoadError": "diagnose.rules",
    "RuleSet": "diagnose.rules",
    "load_rules": "diagnose.rules",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'diagnose' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "Evidence",
    "Report",
    "RuleLoadError",
    "RuleSet",
    "classify_evidence",
    "classify_log",
    "classify_record",
    "collect",
    "load_rules",
]
__version__ = "0.1.0"


def classify_log(
    log: str,
    *,
    id: str = "log",
    exit_code: int | None = None,
    signal: str | None = None,
    timed_out: bool = False,
    env: dict[str, Any] | None = None,
    rules: RuleSet | None = None,
    min_confidence: float | None = None,
) -> Report:
    """Diagnose one failure log (stdout and stderr together, or any text a harness kept)."""
    from diagnose.classify import classify_record as _classify
    from diagnose.inputs import InputRecord
    from diagnose.matcher import Matcher
    from diagnose.rules import default_rules

    matcher = Matcher(rules or default_rules())
    if min_confidence is not None:
        matcher.min_confidence = min_confidence
    rec = InputRecord(id=id, text=log, exit_code=exit_code, signal=signal, timed_out=timed_out, env=env)
    return _classify(rec, matcher)


def classify_record(record: dict[str, Any], *, rules: RuleSet | None = None) -> Report:
    """Diagnose one JSON-Lines-style record ({"id", "log"} or split stdout/stderr/exit_code/... fields)."""
    from diagnose.classify import classify_record as _classify
    from diagnose.inputs import record_from_mapping
    from diagnose.matcher import Matcher
    from diagnose.rules import default_rules

    rec = record_from_mapping(record, default_id=str(record.get("id", "record")), origin="api")
    return _classify(rec, Matcher(rules or default_rules()))


def classify_evidence(evidence: Evidence, *, rules: RuleSet | None = None) -> Report:
    """Diagnose an Evidence record you built or loaded (``Evidence.from_dict``)."""
    from diagnose.classify import status_of
    from diagnose.matcher import Matcher
    from diagnose.report import Report
    from diagnose.rules import default_rules

    diagnosis = Matcher(rules or default_rules()).diagnose(evidence)
    return Report(
        id=evidence.id or "evidence",
        status=status_of(diagnosis, evidence),
        diagnosis=diagnosis,
        evidence=evidence,
    )
