"""How much of the message catalogue the rule base decides: families per tool, and for each family
whether a rule gives a verdict on the tool's own messages.

A family is *covered* when classifying one of its messages (its sample, else its template with the
placeholders filled) gives a diagnosis — from the family's own rule, or from a concept rule or a
hand-written rule.  A family that is not covered *abstains well* when kdiag's answer on its message is
``unknown`` with candidates (ranked owners) and a check that decides between them (the report's
``next_check``); an ``unknown`` without both is neither.  Warning families (facts about the input,
fallbacks) never decide alone and are counted apart.
"""

from __future__ import annotations

from dataclasses import dataclass

from diagnose.catalogue import STRING_FILLERS, Catalogue, Family, fill_template
from diagnose.classify import status_of
from diagnose.collectors import collect
from diagnose.matcher import Matcher
from diagnose.report import Report, next_check
from diagnose.rules import RuleSet


@dataclass(frozen=True)
class FamilyCoverage:
    family: str
    tool: str
    decision: str  # "category/mode" | "concepts" | "warning"
    covered: bool
    verdict: str  # kdiag's answer on the family's message: "environment/toolchain-too-old", "abstains (...)", "unknown"
    message: str  # the text classified
    abstains: bool = False  # not covered, and the answer is unknown with candidates and a check that decides
    next_check: str | None = None  # that check, when it abstains

    def to_dict(self) -> dict:
        return {
            "family": self.family,
            "tool": self.tool,
            "decision": self.decision,
            "covered": self.covered,
            "abstains": self.abstains,
            "next_check": self.next_check,
            "verdict": self.verdict,
            "message": self.message,
        }


def _messages(fam: Family) -> list[str]:
    out = []
    for m in fam.messages:
        if m.sample:
            out.append(m.sample)
            continue
        texts = [fill_template(m.text, f) for f in STRING_FILLERS]
        out.append(next((t for t in texts if any(rx.search(t) for rx in fam.patterns)), texts[0]))
    return out


def family_coverage(catalogue: Catalogue, rules: RuleSet) -> list[FamilyCoverage]:
    matcher = Matcher(rules)
    out = []
    for fam in catalogue.families:
        if fam.severity != "error":
            decision = "warning"  # a warning or a note: facts only, no verdict alone
        elif fam.decided:
            decision = f"{fam.category}/{fam.failure_mode}"
        else:
            decision = "concepts"
        verdict, shown, check = "unknown", "", None
        for text in _messages(fam):
            ev = collect(text)
            d = matcher.diagnose(ev)
            shown = shown or text
            if d.category != "unknown":
                verdict, shown, check = f"{d.category}/{d.failure_mode}", text, None
                break
            if d.findings and verdict == "unknown":
                # abstained: the text fits several owners; the best candidate is still named
                names = ", ".join(f"{f.category}/{f.failure_mode}" for f in d.findings[:3])
                verdict, shown = f"abstains ({names})", text
                report = Report(id=fam.id, status=status_of(d, ev), diagnosis=d, evidence=ev)
                # a deciding check is what the best candidate's caveats say, not only "not checked here"
                check = next_check(report) if d.findings[0].caveats else None
        covered = verdict != "unknown" and not verdict.startswith("abstains")
        out.append(
            FamilyCoverage(
                family=fam.id,
                tool=fam.tool,
                decision=decision,
                covered=covered,
                verdict=verdict,
                message=shown[:200],
                abstains=not covered and check is not None,
                next_check=check,
            )
        )
    return out


def per_tool(rows: list[FamilyCoverage]) -> dict[str, dict[str, int]]:
    table: dict[str, dict[str, int]] = {}
    for r in rows:
        t = table.setdefault(
            r.tool, {"families": 0, "decided": 0, "concepts": 0, "warning": 0, "covered": 0, "abstains": 0}
        )
        t["families"] += 1
        key = r.decision if r.decision in ("concepts", "warning") else "decided"
        t[key] += 1
        t["covered"] += r.covered and r.decision != "warning"
        t["abstains"] += r.abstains and r.decision != "warning"
    return table
