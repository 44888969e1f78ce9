"""The rule catalogue as Markdown (`kdiag rules list --format markdown`; docs/RULE-CATALOGUE.md is its output).

One section per rule folder, one line per rule, sorted; the rule files are the only source.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from pathlib import PurePath
from typing import Any

SHORT = {"kernel-logic": "KL", "environment": "ENV", "runtime-assumption": "RA"}

HEADER = """\
# Rule catalogue

Generated from the rule files by `kdiag rules list --format markdown`; do not edit by hand
(`tests/core/test_rule_catalogue.py` checks that this file is that command's output).
`kdiag rules show ID` prints one rule in full: what it detects, why, how to fix it, its references.

Each line: `id` — category / failure mode — priority, confidence — requires — title.
KL = kernel-logic, ENV = environment, RA = runtime-assumption.
"""


def _cell(text: str) -> str:
    return " ".join(text.split())


def render(rules: Iterable[Any]) -> str:
    by_folder: dict[str, list[Any]] = defaultdict(list)
    for r in rules:
        folder = PurePath(r.path).parent.as_posix()
        by_folder[folder].append(r)
    out = [HEADER]
    for folder in sorted(by_folder):
        chosen = sorted(by_folder[folder], key=lambda r: r.id)
        out.append(f"\n## rules/{folder}/ ({len(chosen)})\n\n")
        for r in chosen:
            cat = SHORT.get(r.category, r.category)
            out.append(
                f"- `{r.id}` — {cat} / {r.failure_mode} — {r.priority}, {r.confidence:.2f} — "
                f"{', '.join(r.requires)} — {_cell(r.title)}\n"
            )
    out.append(f"\n{sum(len(v) for v in by_folder.values())} rules.\n")
    return "".join(out)
