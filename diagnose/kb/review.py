"""The explanation review set (``corpus/review/fixes.yaml``): does the diagnosis' fix name the fix
the case's thread found?

Each review case points at a labelled corpus case and names the class of fix its resolution
applied ("64-bit indexing", "upgrade the driver", ...); a class has keywords (a regular
expression).  A case kdiag answers *passes* when its best finding's fix text matches the keywords
of the expected class.  ``python -m diagnose.kb.review`` prints each case and the figures.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

REVIEW_FILE = Path(__file__).resolve().parent.parent.parent / "corpus" / "review" / "fixes.yaml"


class ReviewError(Exception):
    pass


@dataclass(frozen=True)
class Reviewed:
    case: str  # FILE:ID in the corpus
    expected: str  # the fix class
    answered: bool  # kdiag gave a category
    named: bool  # the fix text names the expected class
    rule: str | None
    fix: str

    @property
    def passed(self) -> bool:
        return self.answered and self.named


def load(path: Path = REVIEW_FILE) -> tuple[dict[str, re.Pattern[str]], list[dict[str, Any]]]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ReviewError(f"{path}: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("fix_classes"), dict):
        raise ReviewError(f"{path}: expected a mapping with fix_classes and cases")
    classes = {}
    for name, spec in data["fix_classes"].items():
        try:
            classes[str(name)] = re.compile(str(spec["keywords"]), re.IGNORECASE)
        except (KeyError, TypeError, re.error) as exc:
            raise ReviewError(f"{path}: fix class {name!r}: {exc}") from exc
    cases = data.get("cases") or []
    for c in cases:
        if c.get("expected_fix_class") not in classes:
            raise ReviewError(f"{path}: {c.get('case')}: unknown fix class {c.get('expected_fix_class')!r}")
    return classes, cases


def review(path: Path = REVIEW_FILE, corpus: Path | None = None) -> list[Reviewed]:
    from diagnose.classify import classify_records
    from diagnose.inputs import read_inputs

    corpus = corpus or path.parent.parent
    classes, cases = load(path)
    by_file: dict[str, list[dict[str, Any]]] = {}
    for c in cases:
        file, _, cid = str(c["case"]).partition(":")
        by_file.setdefault(file, []).append({**c, "_id": cid})
    out = []
    for file, items in by_file.items():
        wanted = {it["_id"]: it for it in items}
        reports = {r.id: r for r in classify_records(read_inputs([str(corpus / file)])) if r.id in wanted}
        for cid, it in wanted.items():
            rep = reports.get(cid)
            if rep is None:
                raise ReviewError(f"{file}:{cid}: no such case in the corpus")
            d = rep.diagnosis
            best = d.best if d is not None else None
            fix = best.fix if best is not None else ""
            out.append(
                Reviewed(
                    case=f"{file}:{cid}",
                    expected=it["expected_fix_class"],
                    answered=best is not None,
                    named=bool(classes[it["expected_fix_class"]].search(fix)),
                    rule=best.rule if best is not None else None,
                    fix=fix,
                )
            )
    return out


def main(argv: list[str] | None = None) -> int:
    results = review()
    answered = [r for r in results if r.answered]
    for r in results:
        mark = "pass" if r.passed else ("MISS" if r.answered else "  - ")
        print(f"{mark:<5} {r.case:<70} {r.expected:<36} {r.rule or 'unanswered'}")
    print(
        f"\n{len(results)} review cases, {len(answered)} answered: the fix names the thread's fix class in "
        f"{sum(r.passed for r in answered)} of them"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
