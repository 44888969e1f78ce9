"""What no rule explains: unexplained entries grouped by log template with drain3.

Every entry whose verdict is ``unknown`` (no rule matched, or none was sure enough) and that no
person labelled gives its headline — the line that names the failure — to a drain3 template
miner (the Drain algorithm: a fixed-depth parse tree over tokens, similarity threshold 0.4).
Entries whose headlines (their first ten tokens) share a template form a group; groups rank by how often their failures
were seen.  A group's id is a hash of its template, so it stays put while the store grows as long
as the template does.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from diagnose.kb.store import Store

#: what drain3 masks before it compares tokens (the same things a fingerprint normalises)
MASKS = (
    (r"\b0[xX][0-9a-fA-F]+\b", "HEX"),
    (r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b", "UUID"),
    (r"(?:[A-Za-z]:)?(?:~|\.{1,2})?(?:/[^\s'\"()\[\]:,;/]+){2,}", "PATH"),
    (r"(?<![\w])[-+]?\d+(?:[.,]\d+)*(?:[eE][-+]?\d+)?", "NUM"),
)
SIMILARITY = 0.4
#: Drain compares lines of equal length only; a failure's identity is at the head of its line (the
#: exception and error name), its tail is arguments of varying length: the head is what is grouped
MAX_TOKENS = 10


@dataclass(frozen=True)
class Member:
    entry_id: int
    fingerprint: str
    count: int
    headline: str
    example: str


@dataclass(frozen=True)
class Group:
    id: str
    template: str
    members: tuple[Member, ...]

    @property
    def count(self) -> int:
        return sum(m.count for m in self.members)

    @property
    def example_headline(self) -> str:
        return max(self.members, key=lambda m: m.count).headline

    def to_dict(self) -> dict[str, Any]:
        top = max(self.members, key=lambda m: m.count)
        return {
            "group": self.id,
            "template": self.template,
            "count": self.count,
            "failures": len(self.members),
            "fingerprints": [m.fingerprint for m in self.members],
            "example": {"fingerprint": top.fingerprint, "headline": top.headline, "log": top.example},
        }


def _miner() -> Any:
    from drain3 import TemplateMiner
    from drain3.masking import MaskingInstruction
    from drain3.template_miner_config import TemplateMinerConfig

    config = TemplateMinerConfig()
    config.drain_sim_th = SIMILARITY
    config.masking_instructions = [MaskingInstruction(p, name) for p, name in MASKS]
    config.profiling_enabled = False
    return TemplateMiner(config=config)


def group_id(template: str) -> str:
    return "g-" + hashlib.sha256(template.encode("utf-8")).hexdigest()[:6]


def group_lines(items: list[tuple[Any, str]]) -> list[tuple[str, list[Any]]]:
    """Group (key, line) pairs by drain3 template: [(template, [keys...])], in cluster order."""
    miner = _miner()
    cluster_of: dict[Any, int] = {}
    for key, line in items:
        head = " ".join(line.split()[:MAX_TOKENS])
        res = miner.add_log_message(head or "(empty)")
        cluster_of[key] = res["cluster_id"]
    templates = {c.cluster_id: c.get_template() for c in miner.drain.clusters}
    by_cluster: dict[int, list[Any]] = {}
    for key, cid in cluster_of.items():
        by_cluster.setdefault(cid, []).append(key)
    return [(templates[cid], keys) for cid, keys in sorted(by_cluster.items())]


def group_unknowns(store: Store) -> list[Group]:
    rows = store.unexplained()
    members = {r[0]: Member(entry_id=r[0], fingerprint=r[1], count=r[2], headline=r[3], example=r[4]) for r in rows}
    groups = [
        Group(id=group_id(template), template=template, members=tuple(members[k] for k in keys))
        for template, keys in group_lines([(r[0], r[3]) for r in rows])
    ]
    groups.sort(key=lambda g: (-g.count, -len(g.members), g.id))
    return groups
