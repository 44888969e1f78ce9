"""The evidence of one attempt: the collectors over what it printed, with the run's own facts and the
Triton launch hooks' findings merged in (built once per rung; the run's last changes are fact
replacements, the collectors do not run again)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from diagnose import facts as F
from diagnose.collectors import collect
from diagnose.evidence import SOURCES, Evidence
from diagnose.run.context import RunContext, RunLog
from diagnose.runner import Outcome


def _merge_facts(existing: F.Facts | None, new: Any, key: str) -> F.Facts | None:
    """Fill what ``existing`` left at its defaults from ``new`` (a Facts or its dict form)."""
    if new is None:
        return existing
    if not isinstance(new, F.Facts):
        new = getattr(Evidence.from_dict({key: new}), key)
    if existing is None:
        return new
    blank = type(existing)()
    changes = {
        f.name: getattr(new, f.name)
        for f in dataclasses.fields(existing)
        if f.name != "lines" and getattr(existing, f.name) == getattr(blank, f.name)
    }
    return dataclasses.replace(existing, **changes)


def triton_checks(folder: Path, log: RunLog) -> tuple[dict[str, Any], str]:
    """RunFacts fields and collector texts from the Triton launch hooks' ``triton_checks.json``.

    The texts (compile errors as Triton printed them, ptxas ``-v`` logs of the target compiles)
    go through the collectors with the rest of the attempt's output.
    """
    path = folder / "triton_checks.json"
    if not path.is_file():
        return {}, ""
    from diagnose.run import triton_evidence

    try:
        got = triton_evidence.read(path)
    except Exception as e:
        log.note(f"triton checks could not be read: {type(e).__name__}: {e}")
        return {}, ""

    def strings(key: str) -> list[str]:
        value = got.get(key)
        return [t for t in value if isinstance(t, str)] if isinstance(value, tuple | list) else []

    texts = strings("compile_errors") + strings("ptxas_logs")
    for n in strings("notes"):
        log.note(f"triton checks: {n}")
    return {"run": triton_evidence.run_fields(got)}, "\n".join(texts)


def _apply_extra(ev: Evidence, run_facts: F.RunFacts, extra: Mapping[str, Any]) -> tuple[Evidence, F.RunFacts]:
    for key, value in extra.items():
        if key == "run":
            data = dataclasses.asdict(value) if isinstance(value, F.RunFacts) else dict(value or {})
            known = {f.name for f in dataclasses.fields(F.RunFacts)} - {"lines"}
            chosen = {k: (tuple(v) if isinstance(v, list) else v) for k, v in data.items() if k in known}
            blank = F.RunFacts()
            changes: dict[str, Any] = {k: v for k, v in chosen.items() if v != getattr(blank, k)}
            run_facts = dataclasses.replace(run_facts, **changes)
        elif key in SOURCES and key != "log":
            ev = ev.replace(**{key: _merge_facts(getattr(ev, key), value, key)})
    return ev, run_facts


def evidence(
    ctx: RunContext,
    text: str,
    outcome: Outcome | None,
    run_facts: F.RunFacts,
    numerics: F.NumericsFacts | None = None,
    extra: Mapping[str, Any] | None = None,
) -> Evidence:
    errors: list[str] = []
    ev = collect(
        text,
        id=ctx.run_id,
        exit_code=outcome.exit_code if outcome else None,
        signal=outcome.signal if outcome else None,
        timed_out=outcome.timed_out if outcome else False,
        origin="run",
        errors=errors,
    )
    for e in errors:
        ctx.log.note(e)
    ev, run_facts = _apply_extra(ev, run_facts, extra or {})
    changes: dict[str, Any] = {"run": run_facts}
    if numerics is not None:
        changes["numerics"] = numerics
    if ctx.gpu_facts is not None:
        changes["gpu"] = ctx.gpu_facts
    return ev.replace(**changes)


def with_run(ev: Evidence, **changes: Any) -> Evidence:
    """The same evidence with some run facts changed (the rungs that could not run, the probes' facts)."""
    run = ev.run or F.RunFacts()
    return ev.replace(run=dataclasses.replace(run, **changes))
