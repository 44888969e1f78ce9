"""The TUI's one door to the knowledge base: label a case, list entries for ``kdiag tui --kb``.

Everything goes through the knowledge base's Python API (:data:`EXPECTS`); when this kdiag has
no knowledge base, :meth:`KbAdapter.unavailable` says so and which functions it looks for, and
the label action shows that sentence instead of failing.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from tui.model import Case

EXPECTS = (
    "diagnose.kb.store.resolve_path(db) -> Path, diagnose.kb.store.Store(path) (a context manager) with "
    ".record(observation) and .label(ref, *, category, failure_mode, note, by) -> entry dict, "
    "and diagnose.kb.record.observation(report, *, source) -> Observation (with .fingerprint)"
)
CATEGORIES = ("kernel-logic", "environment", "runtime-assumption")


@dataclass(frozen=True)
class LabelResult:
    ok: bool
    message: str  # for the person: what was stored, or why nothing was
    state: str | None = None  # confirmed | corrected


class Labeller(Protocol):
    def unavailable(self) -> str | None: ...

    def label(self, case: Case, *, category: str | None, failure_mode: str | None, note: str | None) -> LabelResult: ...


def _login() -> str | None:
    import getpass

    try:
        return os.environ.get("KDIAG_USER") or getpass.getuser()
    except Exception:
        return None


class KbAdapter:
    """Labels into the knowledge base at ``db`` (default: the knowledge base's own default)."""

    def __init__(
        self,
        db: str | None = None,
        *,
        store_module: str = "diagnose.kb.store",
        record_module: str = "diagnose.kb.record",
    ) -> None:
        self.db = db
        self.store_module = store_module
        self.record_module = record_module

    def _modules(self) -> tuple[Any, Any] | str:
        try:
            store = importlib.import_module(self.store_module)
            record = importlib.import_module(self.record_module)
        except ImportError as exc:
            return f"the knowledge base is not available in this kdiag ({exc}); labelling needs {EXPECTS}"
        missing = [
            name
            for mod, name in ((store, "Store"), (store, "resolve_path"), (record, "observation"))
            if not hasattr(mod, name)
        ]
        if not missing and not all(hasattr(store.Store, m) for m in ("record", "label", "entries", "entry")):
            missing = ["Store.record/label/entries/entry"]
        if missing:
            return f"the knowledge base's API lacks {', '.join(missing)}; labelling needs {EXPECTS}"
        return store, record

    def unavailable(self) -> str | None:
        mods = self._modules()
        return mods if isinstance(mods, str) else None

    def _report(self, case: Case) -> Any:
        if case.report is not None:
            return case.report
        if case.evidence is None:
            return None
        import diagnose
        from diagnose.evidence import Evidence

        rep = diagnose.classify_evidence(Evidence.from_dict(case.evidence))
        import dataclasses

        return dataclasses.replace(rep, id=case.id, origin=case.origin)

    def label(self, case: Case, *, category: str | None, failure_mode: str | None, note: str | None) -> LabelResult:
        mods = self._modules()
        if isinstance(mods, str):
            return LabelResult(False, mods)
        store_mod, record_mod = mods
        try:
            with store_mod.Store(store_mod.resolve_path(self.db)) as store:
                ref = case.kb_ref
                if ref is None:
                    report = self._report(case)
                    obs = record_mod.observation(report, source=case.origin) if report is not None else None
                    if obs is None:
                        return LabelResult(False, "nothing to label: this case has no evidence (a pass or bad input)")
                    store.record(obs)
                    ref = obs.fingerprint
                entry = store.label(ref, category=category, failure_mode=failure_mode, note=note, by=_login())
        except Exception as exc:  # KbError and sqlite errors carry a sentence for the person
            return LabelResult(False, f"not labelled: {exc}")
        lab = entry.get("label") or {}
        state = lab.get("state")
        return LabelResult(
            True,
            f"{state} as {lab.get('category')} / {lab.get('failure_mode')} (entry {str(entry.get('fingerprint'))[:12]})",
            state,
        )

    def cases(self) -> list[Case]:
        """Every entry of the knowledge base as a case (``kdiag tui --kb``)."""
        mods = self._modules()
        if isinstance(mods, str):
            raise KbUnavailable(mods)
        store_mod, _ = mods
        out = []
        with store_mod.Store(store_mod.resolve_path(self.db), create=False) as store:
            for e in store.entries():
                full = store.entry(str(e["fingerprint"]))
                out.append(case_from_entry(full))
        return out


class KbUnavailable(RuntimeError):
    pass


def case_from_entry(e: Mapping[str, Any]) -> Case:
    lab = e.get("label") or {}
    conf = e.get("confidence")
    ev = e.get("evidence")
    return Case(
        id=f"{e.get('id')}:{str(e.get('fingerprint'))[:12]}",
        status=str(e.get("status") or ""),
        category=str(e.get("category")),
        failure_mode=str(e.get("failure_mode")),
        confidence=float(conf) if isinstance(conf, int | float) else None,
        rule=e.get("rule"),
        title=str(e.get("headline") or ""),
        origin=f"{e.get('count')} observation(s), {e.get('first_seen')} … {e.get('last_seen')}",
        log=e.get("example"),
        evidence=ev if isinstance(ev, Mapping) else None,
        label_state=str(lab.get("state") or ""),
        kb_ref=str(e.get("fingerprint")),
    )
