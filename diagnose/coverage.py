"""How much of the message catalogue the rule base decides: families per tool, and for each family
whether a rule gives a verdict on the tool's own messages.

A family is *covered* when classifying one of its messages (its sample, else its template with the
placeholders filled) gives a diagnosis — from the family's own rule, or from a concept rule or a
hand-written rule.  Warning families (facts about the input, fallbacks) never decide alone and are
counted apart.
"""

from __future__ import annotations

from dataclasses import dataclass

from diagnose.catalogue import STRING_FILLERS, Catalogue, Family, fill_template
from diagnose.collectors import collect
from diagnose.matcher import Matcher
from diagnose.rules import RuleSet


@dataclass(frozen=True)
class FamilyCoverage:
    family: str
    tool: str
    decision: str  # "category/mode" | "concepts" | "warning"
    covered: bool
    verdict: str  # kdiag's answer on the family's message: "environment/toolchain-too-old", "abstains (...)", "unknown"
    message: str  # the text classified

    def to_dict(self) -> dict:
        return {
            "family": self.family,
            "tool": self.tool,
            "decision": self.decision,
            "covered": self.covered,
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
        if fam.severity == "warning":
            decision = "warning"
        elif fam.decided:
            decision = f"{fam.category}/{fam.failure_mode}"
        else:
            decision = "concepts"
        verdict, shown = "unknown", ""
        for text in _messages(fam):
            d = matcher.diagnose(collect(text))
            shown = shown or text
            if d.category != "unknown":
                verdict, shown = f"{d.category}/{d.failure_mode}", text
                break
            if d.findings and verdict == "unknown":
                # abstained: the text fits several owners; the best candidate is still named
                verdict, shown = f"abstains ({d.findings[0].category}/{d.findings[0].failure_mode})", text
        out.append(
            FamilyCoverage(
                family=fam.id,
                tool=fam.tool,
                decision=decision,
                covered=verdict != "unknown" and not verdict.startswith("abstains"),
                verdict=verdict,
                message=shown[:200],
            )
        )
    return out


def per_tool(rows: list[FamilyCoverage]) -> dict[str, dict[str, int]]:
    table: dict[str, dict[str, int]] = {}
    for r in rows:
        t = table.setdefault(r.tool, {"families": 0, "decided": 0, "concepts": 0, "warning": 0, "covered": 0})
        t["families"] += 1
        key = r.decision if r.decision in ("concepts", "warning") else "decided"
        t[key] += 1
        t["covered"] += r.covered and r.decision != "warning"
    return table
