"""`kdiag run` records its diagnosis; two runs of one bug share a fingerprint; a label decides the next run.

The target is a real command that fails the same way each time with run-specific details in its
output: a fresh temp directory in the error message and its own pid.
"""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path

from diagnose.cli import main

FAILING = (
    "import os, tempfile; d = tempfile.mkdtemp(); print('worker pid', os.getpid()); "
    "open(os.path.join(d, 'missing', 'weights.bin'))"
)


def run(tmp_path: Path, db: Path) -> dict:
    out, err = io.StringIO(), io.StringIO()
    argv = ["run", "--db", str(db), "--runs-dir", str(tmp_path / "runs"), "--format", "json", "--ladder", "none"]
    code = main([*argv, "--", "python3", "-c", FAILING], out=out, err=err)
    assert code == 1, err.getvalue()
    return json.loads(out.getvalue())


def test_two_runs_share_a_fingerprint_and_a_label_decides_the_third(tmp_path: Path) -> None:
    db = tmp_path / "kb.sqlite"
    first = run(tmp_path, db)
    run(tmp_path, db)
    with sqlite3.connect(db) as c:
        rows = c.execute("SELECT fingerprint, count, category FROM entries").fetchall()
    assert len(rows) == 1 and rows[0][1] == 2, rows  # one failure, seen twice
    fp = rows[0][0]

    out, err = io.StringIO(), io.StringIO()
    argv = ["kb", "label", fp, "--category", "environment", "--mode", "library-missing", "--by", "ops", "--db", str(db)]
    assert main(argv, out=out, err=err) == 0, err.getvalue()
    third = run(tmp_path, db)
    assert (first["category"], third["category"]) == ("unknown", "environment")
    assert third["failure_mode"] == "library-missing" and third["rule"] == "kb-label-environment"
    assert "seen 2 times since" in third["title"] and "by ops" in third["title"]


def test_no_record_leaves_the_store_alone(tmp_path: Path) -> None:
    db = tmp_path / "kb.sqlite"
    out, err = io.StringIO(), io.StringIO()
    argv = ["run", "--db", str(db), "--no-record", "--runs-dir", str(tmp_path / "runs"), "--format", "json"]
    main([*argv, "--ladder", "none", "--", "python3", "-c", FAILING], out=out, err=err)
    assert not db.exists()
