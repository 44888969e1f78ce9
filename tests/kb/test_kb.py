"""The knowledge base: fingerprints, counting, labels as evidence, unknowns, rule drafts, errors.

The logs are the public bug reports of corpus/public/real-dev.yaml and corpus/holdout*/ (each
case names its issue); where a test needs "the same failure from another run", it rewrites a real
log's addresses, numbers and temp paths the way a second run would print them.
"""

from __future__ import annotations

import io
import json
import re
import sqlite3
from pathlib import Path

import pytest
import yaml

from diagnose.cli import main
from diagnose.evidence import Evidence
from diagnose.kb.fingerprint import fingerprint, normalise
from diagnose.kb.record import observation
from diagnose.kb.store import KbError, Store

ROOT = Path(__file__).resolve().parent.parent.parent
CORPUS = ROOT / "corpus"
PUBLIC = yaml.safe_load((CORPUS / "public" / "real-dev.yaml").read_text())


def kdiag(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def case(cid: str) -> dict:
    return next(c for c in PUBLIC if c["id"] == cid)


def other_run(log: str, n: int) -> str:
    """The log as another run prints it: other addresses, other numbers, another temp dir and pid."""
    log = re.sub(r"0x[0-9a-fA-F]+", lambda m: hex(int(m.group(0), 16) + 4096 * n), log)
    log = re.sub(r"(?<![\w.])\d+(?![\w.])", lambda m: str(int(m.group(0)) + n), log)
    return f"[pid {4000 + n}] /tmp/tmpq{n}x8z_run/kernel.py started\n{log}"


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def entries(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as c:
        return dict(c.execute("SELECT fingerprint, count FROM entries"))


BATCH = [
    c
    for c in PUBLIC
    if c.get("log") and c["id"] in {"lightllm-triton20-sm89", "numba-float-grid-dims"} | {p["id"] for p in PUBLIC[2:14]}
]


# --- fingerprints -------------------------------------------------------------------------------


def test_normalise_drops_what_differs_between_runs() -> None:
    a = "Error at 0x7f3a2c001000 in /tmp/tmpab12cd/kernel.py:41 (pid 1234) 2026-11-02T10:11:12Z"
    b = "Error at 0x7f99aa00f000 in /home/u/tmp_x9/kernel.py:57 (pid 88) 2026-12-03T01:02:03Z"
    assert normalise(a) == normalise(b)
    assert "kernel.py" in normalise(a)
    assert normalise("no kernel image is available") != normalise("an illegal memory access was encountered")


def test_two_runs_of_the_same_bug_share_a_fingerprint_and_other_bugs_do_not() -> None:
    from diagnose.collectors import collect

    fps = set()
    for c in BATCH:
        one = fingerprint(collect(c["log"]))
        two = fingerprint(collect(other_run(c["log"], 7)))
        assert one == two, c["id"]
        fps.add(one)
    assert len(fps) >= len(BATCH) - 1  # distinct reports are distinct failures (two may print one line)


# --- counting -----------------------------------------------------------------------------------


def test_classifying_a_batch_again_changes_no_count_other_ids_double_it(tmp_path: Path) -> None:
    db = tmp_path / "kb.sqlite"
    batch = write_jsonl(tmp_path / "a.jsonl", [{"id": c["id"], "log": c["log"]} for c in BATCH])
    code, _, err = kdiag("classify", str(batch), "--record", "--db", str(db), "-f", "jsonl")
    assert code == 0, err
    first = entries(db)
    assert sum(first.values()) == len(BATCH)

    kdiag("classify", str(batch), "--record", "--db", str(db), "-f", "jsonl")
    assert entries(db) == first  # the same records again: observed once

    again = write_jsonl(
        tmp_path / "b.jsonl", [{"id": f"{c['id']}-rerun", "log": other_run(c["log"], 3)} for c in BATCH]
    )
    kdiag("classify", str(again), "--record", "--db", str(db), "-f", "jsonl")
    second = entries(db)
    assert set(second) == set(first)  # no new fingerprint
    assert second == {fp: 2 * n for fp, n in first.items()}  # every count doubled


def test_kb_list_jsonl_and_stats(tmp_path: Path) -> None:
    db = tmp_path / "kb.sqlite"
    batch = write_jsonl(tmp_path / "a.jsonl", [{"id": c["id"], "log": c["log"]} for c in BATCH])
    kdiag("classify", str(batch), "--record", "--db", str(db), "-f", "jsonl")
    code, out, _ = kdiag("kb", "list", "--format", "jsonl", "--db", str(db))
    assert code == 0
    rows = [json.loads(ln) for ln in out.splitlines()]
    assert sum(r["count"] for r in rows) == len(BATCH)
    for r in rows:
        assert {"fingerprint", "count", "category", "failure_mode", "rule", "label", "first_seen", "last_seen"} <= set(
            r
        )
    code, out, _ = kdiag("kb", "stats", "--format", "json", "--db", str(db))
    s = json.loads(out)
    assert s["observations"] == len(BATCH)
    assert sum(x["observations"] for x in s["by_category"]) == len(BATCH)
    assert s["by_label"] == [{"label": "unlabelled", "entries": len(rows), "observations": len(BATCH)}]


# --- labels -------------------------------------------------------------------------------------


def test_a_label_decides_the_next_verdict_and_the_report_says_why(tmp_path: Path) -> None:
    db = tmp_path / "kb.sqlite"
    c = case("triton-scalar-induction-regression")  # a Triton regression no rule recognises
    first = write_jsonl(tmp_path / "a.jsonl", [{"id": "first", "log": c["log"]}])
    _, out, _ = kdiag("classify", str(first), "--record", "--db", str(db), "-f", "jsonl")
    before = json.loads(out)
    assert (before["category"], before["failure_mode"]) != (c["category"], c["failure_mode"])

    fp = next(iter(entries(db)))
    code, out, err = kdiag(
        "kb", "label", fp[:8], "--category", c["category"], "--mode", c["failure_mode"],
        "--note", "float grid dims", "--by", "ana", "--db", str(db),
    )  # fmt: skip
    assert code == 0, err
    assert "corrected" in out

    later = write_jsonl(tmp_path / "b.jsonl", [{"id": "later", "log": other_run(c["log"], 5)}])
    _, out, _ = kdiag("classify", str(later), "--db", str(db), "-f", "jsonl")
    after = json.loads(out)
    assert (after["category"], after["failure_mode"]) == (c["category"], c["failure_mode"])
    assert after["rule"] == f"kb-label-{c['category']}"
    assert "seen 1 time since" in after["title"] and "by ana" in after["title"]
    assert after["seen"]["label"] == "corrected"

    code, out, _ = kdiag("kb", "stats", "--format", "json", "--db", str(db))
    assert json.loads(out)["labels_by_rule"] == [{"rule": "(no rule)", "labelled": 1, "corrected": 1}]


def test_export_writes_a_corpus_case_with_provenance(tmp_path: Path) -> None:
    from diagnose.inputs import read_inputs

    db = tmp_path / "kb.sqlite"
    c = case("lightllm-triton20-sm89")
    kdiag(
        "classify", str(write_jsonl(tmp_path / "a.jsonl", [{"id": "x", "log": c["log"]}])), "--record", "--db", str(db)
    )
    fp = next(iter(entries(db)))
    kdiag("kb", "label", fp, "--db", str(db), "--by", "bo")  # confirm kdiag's verdict
    target = tmp_path / "cases.yaml"
    code, _, _ = kdiag("kb", "export", fp, "-o", str(target), "--db", str(db))
    assert code == 0
    (exported,) = yaml.safe_load(target.read_text())
    assert fp in exported["source"] and "confirmed by bo" in exported["label_source"]
    (rec,) = list(read_inputs([str(target)]))
    assert rec.text.strip() == c["log"].strip()
    assert rec.label["category"] == exported["category"]


# --- what no rule explains ----------------------------------------------------------------------


def test_unknowns_group_variants_and_a_suggested_rule_matches_its_group_only(tmp_path: Path) -> None:
    import shutil

    from diagnose.collectors import collect
    from diagnose.kb import corpus_check as CC
    from diagnose.kb.unknowns import group_unknowns
    from diagnose.rules import parse_rule_file

    db = tmp_path / "kb.sqlite"
    unmatched = ROOT / "tests" / "fixtures" / "kb" / "unmatched-cublas.yaml"  # real lines no rule explains
    code, _, err = kdiag(
        "classify", str(CORPUS / "public" / "real-dev.yaml"), str(CORPUS / "holdout" / "issues.yaml"),
        str(unmatched), "--record", "--db", str(db), "-f", "jsonl",
    )  # fmt: skip
    assert code == 0, err
    with Store(db) as store:
        groups = group_unknowns(store)
    # the cublasSgemm and cublasGemmEx variants (other calls, other argument lists) are one group
    (group,) = [g for g in groups if any("cublasGemmEx" in m.headline for m in g.members)]
    assert any("cublasSgemm" in m.headline for m in group.members)
    assert len(group.members) >= 3 and group.count == 5
    code, out, _ = kdiag("kb", "unknowns", "--db", str(db), "--format", "json")
    listed = json.loads(out)
    assert [g["count"] for g in listed] == sorted((g["count"] for g in listed), reverse=True)
    assert listed[0]["group"] == group.id  # the largest group comes first

    # the mode is this test's choice: the threads did not settle the cause
    rules = tmp_path / "rules"
    shutil.copytree(ROOT / "rules", rules)
    (rules / "local").mkdir()
    code, _, err = kdiag(
        "rules", "suggest", group.id, "--db", str(db), "--category", "environment", "--mode", "cublas-execution-failed",
        "-o", str(rules / "local"),
    )  # fmt: skip
    assert code == 0, err
    (path,) = list((rules / "local").glob("suggested-*.yaml"))
    rule, problems = parse_rule_file(path)
    assert rule is not None and not problems and rule.status == "experimental"
    code, out, err = kdiag("rules", "lint", "--rules", str(rules))
    assert code == 0, out + err
    for m in group.members:
        assert rule.matches(collect(m.example).context()), m.headline
    checked = CC.check(CC.DEFAULT_CORPUS, rules_root=str(rules))
    assert not [c.id for c in checked.cases if rule.id in c.fired]  # it fires on nothing of the corpus


# --- errors -------------------------------------------------------------------------------------


def _obs(tmp_path: Path, rid: str = "r1") -> object:
    from diagnose.classify import classify_records
    from diagnose.inputs import read_inputs

    f = write_jsonl(tmp_path / f"{rid}.jsonl", [{"id": rid, "log": case("lightllm-triton20-sm89")["log"]}])
    (rep,) = list(classify_records(read_inputs([str(f)])))
    return observation(rep)


def test_a_full_disk_keeps_no_partial_rows(tmp_path: Path) -> None:
    db = tmp_path / "kb.sqlite"
    with Store(db) as s:
        assert s.record(_obs(tmp_path, "a"))  # type: ignore[arg-type]
        pages = s.conn.execute("PRAGMA page_count").fetchone()[0]
        s.conn.execute(f"PRAGMA max_page_count = {pages}")  # SQLite's own "database or disk is full"
        big = _obs(tmp_path, "b")
        big = type(big)(**{**big.__dict__, "evidence": json.dumps({"pad": "x" * 200_000})})  # type: ignore[arg-type]
        with pytest.raises(KbError, match="full"):
            s.record(big)  # type: ignore[arg-type]
    assert entries(db) and sum(entries(db).values()) == 1
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT count(*) FROM observations").fetchone()[0] == 1


def test_a_read_only_store_is_a_clear_error(tmp_path: Path) -> None:
    db = tmp_path / "kb.sqlite"
    with Store(db) as s:
        s.conn.execute("PRAGMA query_only = 1")  # what a read-only file gives: SQLITE_READONLY
        with pytest.raises(KbError, match="read-only"):
            s.record(_obs(tmp_path))  # type: ignore[arg-type]
    assert entries(db) == {}


def test_a_corrupt_file_is_reported_and_left_alone(tmp_path: Path) -> None:
    db = tmp_path / "kb.sqlite"
    junk = b"this is not a database\n" * 200
    db.write_bytes(junk)
    code, out, err = kdiag("kb", "stats", "--db", str(db))
    assert code == 1 and "corrupt" in err
    batch = write_jsonl(tmp_path / "a.jsonl", [{"id": "a", "log": "RuntimeError: CUDA error: out of memory"}])
    code, out, err = kdiag("classify", str(batch), "--record", "--db", str(db))
    assert code == 3 and "corrupt" in err and out == ""
    assert db.read_bytes() == junk


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "kb.sqlite"
    Store(db).close()
    with sqlite3.connect(db) as c:
        c.execute("PRAGMA user_version = 99")
    with pytest.raises(KbError, match="schema 99"):
        Store(db)


def test_evidence_with_kb_facts_round_trips() -> None:
    from diagnose.facts import KbFacts

    ev = Evidence(kb=KbFacts(fingerprint="abc", seen_count=3, label_state="confirmed", label_category="environment"))
    assert Evidence.from_dict(json.loads(json.dumps(ev.to_dict()))) == ev


def test_quick_check_catches_a_damaged_page_before_recording(tmp_path: Path) -> None:
    db = tmp_path / "kb.sqlite"
    batch = write_jsonl(tmp_path / "a.jsonl", [{"id": c["id"], "log": c["log"]} for c in BATCH])
    kdiag("classify", str(batch), "--record", "--db", str(db), "-f", "jsonl")
    with sqlite3.connect(db) as c:
        page = c.execute("PRAGMA page_size").fetchone()[0]
        root = c.execute("SELECT rootpage FROM sqlite_master WHERE name = 'observations'").fetchone()[0]
    data = bytearray(db.read_bytes())
    data[(root - 1) * page : root * page] = b"\xa5" * page  # the observations table's root page, overwritten
    db.write_bytes(bytes(data))
    code, out, err = kdiag("classify", str(batch), "--record", "--db", str(db), "-f", "jsonl")
    assert code == 3 and "corrupt" in err and out == ""
    assert db.read_bytes() == bytes(data)  # reported, not recreated
