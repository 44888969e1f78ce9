"""Several processes recording at once, killed at random moments: the store stays whole.

8 writer processes record observations (a few shared fingerprints, so they contend for the same
entries); 40 of them are killed with SIGKILL at random moments and replaced.  A writer acknowledges
an observation (a line in its ack file) only after ``Store.record`` returned, i.e. after COMMIT.
Afterwards: ``PRAGMA integrity_check`` is ok, every acknowledged observation is in the store
exactly once, and every entry's count equals its number of observations.

The writers load diagnose/kb/store.py by path (it imports nothing else of kdiag), so a respawn
costs a Python start, not the rule base.
"""

from __future__ import annotations

import io
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from diagnose.cli import main
from diagnose.kb.store import Store

ROOT = Path(__file__).resolve().parent.parent.parent
STORE_PY = ROOT / "diagnose" / "kb" / "store.py"

WRITER = r"""
import importlib.util, os, sys
spec = importlib.util.spec_from_file_location("kbstore", sys.argv[1])
m = importlib.util.module_from_spec(spec); sys.modules["kbstore"] = m; spec.loader.exec_module(m)
db, wid, stop, ack = sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
store = m.Store(db, check=False)
with open(ack, "a", buffering=1) as out:
    i = -1
    while not os.path.exists(stop):  # write until the test says stop: alive whenever it picks one to kill
        i += 1
        key = f"{wid}-{i}"
        fp = f"fp{i % 5}"
        obs = m.Observation(key=key, fingerprint=fp, signature=fp, headline=fp, seen_at=f"2026-12-03T00:00:{i % 60:02d}Z",
            status="diagnosed", category="kernel-logic", failure_mode="oob-global-read", rule="r", confidence=0.9,
            evidence='{"pad": "' + "x" * 2000 + '"}', example="log " * 50, source="test", record_id=key,
            versions=(f"torch 2.{i % 3}",), gpu="H100 (sm_90)")
        if store.record(obs):
            out.write(key + "\n")
"""

WRITERS = 8
KILLS = 40
PER_WRITER = 400


def _spawn(db: Path, wid: str, acks: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(STORE_PY), str(db), wid, str(acks / "stop"), str(acks / f"{wid}.ack")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def test_eight_writers_forty_sigkills_no_lost_or_doubled_record(tmp_path: Path) -> None:
    db = tmp_path / "kb.sqlite"
    acks = tmp_path / "acks"
    acks.mkdir()
    Store(db).close()  # schema in place before the writers race
    rng = random.Random(20261203)
    procs: dict[str, subprocess.Popen[bytes]] = {}
    serial = 0
    for _ in range(WRITERS):
        procs[f"w{serial}"] = _spawn(db, f"w{serial}", acks)
        serial += 1
    kills = 0
    deadline = time.monotonic() + 120
    while kills < KILLS and time.monotonic() < deadline:
        time.sleep(rng.uniform(0.05, 0.4))
        wid = rng.choice(sorted(procs))
        p = procs.pop(wid)
        if p.poll() is None:
            os.kill(p.pid, signal.SIGKILL)
            kills += 1
        p.wait()
        procs[f"w{serial}"] = _spawn(db, f"w{serial}", acks)
        serial += 1
    (acks / "stop").touch()
    for p in procs.values():
        _, stderr = p.communicate(timeout=120)
        assert p.returncode == 0, stderr.decode()[-2000:]
    assert kills == KILLS

    acked = [ln for f in sorted(acks.glob("*.ack")) for ln in f.read_text().splitlines() if ln]
    with sqlite3.connect(db) as c:
        assert c.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        keys = [k for (k,) in c.execute("SELECT key FROM observations")]
        per_entry = dict(c.execute("SELECT entry_id, count(*) FROM observations GROUP BY entry_id"))
        counts = dict(c.execute("SELECT id, count FROM entries"))
    assert len(set(acked)) == len(acked)
    present = set(keys)
    assert len(keys) == len(present)  # nothing twice
    assert not set(acked) - present  # every acknowledged record is there
    assert counts == per_entry  # every count is its number of observations
    assert len(acked) >= PER_WRITER  # the writers did get work done between the kills


def test_a_batch_killed_midway_and_classified_again_observes_each_record_once(tmp_path: Path) -> None:
    import yaml

    cases = yaml.safe_load((ROOT / "corpus" / "holdout" / "issues.yaml").read_text())
    batch = tmp_path / "batch.jsonl"
    records = [{"id": f"{c['id']}-{k}", "log": c["log"]} for k in range(8) for c in cases if c.get("log")]
    batch.write_text("".join(json.dumps(r) + "\n" for r in records))
    db = tmp_path / "kb.sqlite"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "diagnose.cli", "classify", str(batch), "--record", "--db", str(db), "-f", "jsonl"]
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    seen = 0
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.05)
        if db.exists():
            try:
                with sqlite3.connect(db, timeout=5) as c:
                    seen = c.execute("SELECT count(*) FROM observations").fetchone()[0]
            except sqlite3.Error:
                continue
            if seen >= 20:
                os.kill(p.pid, signal.SIGKILL)
                break
    p.wait()
    assert 20 <= seen < len(records), "the batch was not killed mid-way"

    out, err = io.StringIO(), io.StringIO()
    assert main(["classify", str(batch), "--record", "--db", str(db), "-f", "jsonl"], out=out, err=err) == 0
    with sqlite3.connect(db) as c:
        assert c.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        ids = [r for (r,) in c.execute("SELECT record_id FROM observations")]
        total = c.execute("SELECT sum(count) FROM entries").fetchone()[0]
    assert sorted(ids) == sorted(r["id"] for r in records)  # each record exactly once
    assert total == len(records)
