"""The state of the Triton hooks in one child, and the checks file it writes (``triton_checks.json``)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from harness.triton_target import MAX_TEXT, Target

SCHEMA = 1
FILE_NAME = "triton_checks.json"
#: per-launch limits on what is kept (a kernel launched in a loop must not grow the file)
MAX_GRIDS = 4


class Launch:
    """One call being run: its record and the allocations of its arguments."""

    def __init__(self, rec: dict[str, Any]) -> None:
        self.rec = rec
        self.allocs: list[Any] = []  # harness.triton_bounds.Alloc
        # per argument a plain store reached: the program that last stored each element (harness.triton_bounds)
        self.writers: dict[str, Any] = {}
        # and the value each element last got from a plain store (float64; NaN where none was seen)
        self.stored: dict[str, Any] = {}


class State:
    def __init__(self, out_dir: Path, target: Target, interpreter: bool) -> None:
        self.out_dir = out_dir
        self.target = target
        self.interpreter = interpreter
        self.launches: list[dict[str, Any]] = []
        self.by_key: dict[str, dict[str, Any]] = {}
        self.calls = 0
        self.oob: dict[tuple[int, str, str], dict[str, Any]] = {}
        # two programs of one launch storing (not atomically) to one element: (launch id, argument) -> record
        self.overlap: dict[tuple[int, str], dict[str, Any]] = {}
        self.hook_errors: list[str] = []
        self.current: Launch | None = None
        self.finished = False
        self.flushed_oob = False
        self.check_seconds = 0.0
        self.compile_seconds = 0.0
        self.binders: dict[int, Any] = {}  # id(JITFunction) → Triton's argument binder for it

    # -- output ----------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        canaries = None
        canary = sys.modules.get("harness.canary")
        if canary is not None:
            try:
                canaries = canary.check() if canary.guards() else None
            except Exception as exc:
                self.error(f"canary check: {exc!r}")
        return {
            "schema": SCHEMA,
            "finished": self.finished,
            "interpreter": self.interpreter,
            "target_gpu": self.target.name,
            "target_display": self.target.display,
            "target_arch": self.target.arch,
            "target_cc": self.target.cc,
            "smem_limit_bytes": self.target.smem_limit,
            "calls": self.calls,
            "launches": self.launches,
            "oob": list(self.oob.values()),
            "overlap": list(self.overlap.values()),
            "canaries": canaries,
            "check_seconds": round(self.check_seconds, 4),
            "compile_seconds": round(self.compile_seconds, 4),
            "hook_errors": self.hook_errors[:50],
        }

    def flush(self) -> None:
        try:
            self.out_dir.mkdir(parents=True, exist_ok=True)
            path = self.out_dir / FILE_NAME
            tmp = path.with_suffix(".json.tmp")
            tmp.write_text(json.dumps(self.to_json(), indent=1, default=str))
            os.replace(tmp, path)
        except Exception as exc:  # never take the child down over the checks file
            print(f"kdiag triton_hooks: cannot write {FILE_NAME}: {exc!r}", file=sys.stderr)

    def error(self, what: str) -> None:
        if len(self.hook_errors) < 200:
            self.hook_errors.append(what[:MAX_TEXT])


#: the hooks' state in this process (None until harness.triton_hooks.install)
current: State | None = None
