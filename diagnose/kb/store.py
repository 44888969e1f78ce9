"""The knowledge base's store: one embedded SQLite file (default ``.kdiag/kb.sqlite``).

- WAL mode, a busy timeout, ``BEGIN IMMEDIATE`` and one transaction per recorded observation, so
  several processes can record at once and a killed one leaves no partial rows;
- the schema version is SQLite's ``user_version``; :data:`diagnose.kb.schema.MIGRATIONS` brings an
  older file up to date;
- ``PRAGMA quick_check`` when a file is opened to be written (it reads every page: ~0.4 s for 100,000
  observations, so the read-only commands skip it; SQLite still reports any corrupt page they
  meet): a corrupt file is reported, never silently recreated;
- a read-only file or a full disk is a :class:`KbError` with a plain message, and the transaction
  is rolled back.

An *entry* is one fingerprint; an *observation* is one input record (where it came from, its id and
its content hash) that showed it.  ``entries.count`` is the number of its observations: classifying
the same record again adds nothing.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from diagnose.kb.schema import MIGRATIONS, SCHEMA_VERSION
from diagnose.text_prior import RULE as TEXT_PRIOR_RULE

DEFAULT_DB = Path(".kdiag") / "kb.sqlite"
BUSY_TIMEOUT_MS = 60_000


class KbError(Exception):
    """The knowledge base cannot be used: the message says why, for a person."""


@dataclass(frozen=True)
class Observation:
    """One diagnosis to record (see :mod:`diagnose.kb.record`)."""

    key: str  # hash of (source, record id, content hash): the same input record is one observation
    fingerprint: str
    signature: str
    headline: str
    seen_at: str
    status: str
    category: str
    failure_mode: str
    rule: str | None
    confidence: float | None
    evidence: str | None  # Evidence.to_dict as JSON
    example: str  # the log (bounded)
    source: str | None
    record_id: str | None
    versions: tuple[str, ...] = ()
    gpu: str | None = None


@dataclass(frozen=True)
class Seen:
    """What the store knows about a fingerprint before this observation."""

    entry_id: int
    count: int
    first_seen: str
    last_seen: str
    label_state: str | None
    label_category: str | None
    label_mode: str | None
    label_by: str | None
    label_note: str | None
    label_count: int


def explain(exc: sqlite3.Error, path: Path) -> str:
    """What a SQLite error means for a person, naming the file."""
    msg = str(exc)
    if "readonly" in msg or "read-only" in msg:
        return f"the knowledge base {path} is read-only ({msg}); nothing was recorded"
    if "disk is full" in msg or "disk I/O" in msg:
        return f"cannot write the knowledge base {path}: {msg}; nothing was recorded"
    if "not a database" in msg or "malformed" in msg or "corrupt" in msg:
        return f"the knowledge base {path} is corrupt ({msg}); it was left as it is — move it away to start a new one"
    if "unable to open" in msg:
        return f"cannot open the knowledge base {path}: {msg}"
    if "locked" in msg or "busy" in msg:
        return f"the knowledge base {path} stayed locked by another process: {msg}"
    return f"knowledge base {path}: {type(exc).__name__}: {msg}"


def resolve_path(db: str | os.PathLike[str] | None) -> Path:
    """--db, else $KDIAG_DB, else .kdiag/kb.sqlite."""
    if db:
        return Path(db)
    env = os.environ.get("KDIAG_DB")
    return Path(env) if env else DEFAULT_DB


class Store:
    """One connection to the knowledge base; use as a context manager."""

    def __init__(self, path: str | os.PathLike[str], *, create: bool = True, check: bool = True):
        self.path = Path(path)
        if not self.path.exists():
            if not create:
                raise KbError(f"no knowledge base at {self.path} (record some diagnoses first, or pass --db)")
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise KbError(f"cannot create the knowledge base's folder {self.path.parent}: {exc}") from exc
        try:
            self.conn = sqlite3.connect(str(self.path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        except sqlite3.Error as exc:
            raise KbError(explain(exc, self.path)) from exc
        try:
            self.conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            if check:
                rows = self.conn.execute("PRAGMA quick_check").fetchall()
                if rows != [("ok",)]:
                    detail = "; ".join(str(r[0]) for r in rows[:3])
                    raise KbError(f"the knowledge base {self.path} is corrupt (quick_check: {detail}); left as it is")
            self._migrate()
            self.conn.execute("PRAGMA synchronous = NORMAL")
        except sqlite3.Error as exc:
            self.conn.close()
            raise KbError(explain(exc, self.path)) from exc
        except KbError:
            self.conn.close()
            raise

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.conn.close()

    # -- schema ---------------------------------------------------------------------

    def _migrate(self) -> None:
        version = self.conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise KbError(
                f"the knowledge base {self.path} has schema {version}; this kdiag reads up to {SCHEMA_VERSION}"
            )
        if version == SCHEMA_VERSION:
            return
        mode = self.conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise KbError(f"the knowledge base {self.path} cannot use WAL mode (journal_mode is {mode})")
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            # another process may have migrated while this one waited for the lock
            version = self.conn.execute("PRAGMA user_version").fetchone()[0]
            for i in range(version, SCHEMA_VERSION):
                for stmt in MIGRATIONS[i].split(";"):
                    if stmt.strip():
                        self.conn.execute(stmt)
            self.conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise

    def _write(self) -> _Tx:
        return _Tx(self)

    # -- recording ------------------------------------------------------------------

    def seen(self, fingerprint: str) -> Seen | None:
        row = self.conn.execute(
            "SELECT id, count, first_seen, last_seen, label_state, label_category, label_mode, label_by,"
            " label_note, label_count FROM entries WHERE fingerprint = ?",
            (fingerprint,),
        ).fetchone()
        return Seen(*row) if row else None

    def record(self, obs: Observation) -> bool:
        """Record one observation in its own transaction; False when the store already had it."""
        with self._write() as c:
            if c.execute("SELECT 1 FROM observations WHERE key = ?", (obs.key,)).fetchone():
                return False
            row = c.execute(
                "SELECT id, versions, gpus FROM entries WHERE fingerprint = ?", (obs.fingerprint,)
            ).fetchone()
            if row is None:
                cur = c.execute(
                    "INSERT INTO entries (fingerprint, signature, headline, count, first_seen, last_seen, status,"
                    " category, failure_mode, rule, confidence, evidence, example, versions, gpus)"
                    " VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        obs.fingerprint,
                        obs.signature,
                        obs.headline,
                        obs.seen_at,
                        obs.seen_at,
                        obs.status,
                        obs.category,
                        obs.failure_mode,
                        obs.rule,
                        obs.confidence,
                        obs.evidence,
                        obs.example,
                        json.dumps(sorted(obs.versions)),
                        json.dumps([obs.gpu] if obs.gpu else []),
                    ),
                )
                entry_id = cur.lastrowid
            else:
                entry_id, versions, gpus = row
                vs = sorted(set(json.loads(versions)) | set(obs.versions))
                gs = sorted(set(json.loads(gpus)) | ({obs.gpu} if obs.gpu else set()))
                c.execute(
                    "UPDATE entries SET count = count + 1, last_seen = max(last_seen, ?),"
                    " first_seen = min(first_seen, ?), status = ?, category = ?, failure_mode = ?, rule = ?,"
                    " confidence = ?, evidence = ?, versions = ?, gpus = ? WHERE id = ?",
                    (
                        obs.seen_at,
                        obs.seen_at,
                        obs.status,
                        obs.category,
                        obs.failure_mode,
                        obs.rule,
                        obs.confidence,
                        obs.evidence,
                        json.dumps(vs),
                        json.dumps(gs),
                        entry_id,
                    ),
                )
            c.execute(
                "INSERT INTO observations (key, entry_id, source, record_id, seen_at, category, failure_mode,"
                " rule, confidence, versions, gpu) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    obs.key,
                    entry_id,
                    obs.source,
                    obs.record_id,
                    obs.seen_at,
                    obs.category,
                    obs.failure_mode,
                    obs.rule,
                    obs.confidence,
                    json.dumps(list(obs.versions)),
                    obs.gpu,
                ),
            )
        return True

    # -- labels ---------------------------------------------------------------------

    def label(
        self,
        ref: str,
        *,
        category: str | None,
        failure_mode: str | None,
        note: str | None,
        by: str | None,
    ) -> dict[str, Any]:
        """Confirm (no category/mode given, or the same as kdiag's) or correct an entry."""
        with self._write() as c:
            row = self._find(ref, c)
            entry_id, v_cat, v_mode, rule = row["id"], row["category"], row["failure_mode"], row["rule"]
            cat = category or (row["label_category"] if row["label_state"] else None) or v_cat
            mode = failure_mode or (row["label_mode"] if row["label_state"] and not category else None) or v_mode
            if cat == "unknown" or mode in ("unmatched", "ambiguous"):
                raise KbError(
                    f"entry {row['fingerprint']} has no verdict to confirm: give --category and --mode to label it"
                )
            state = "confirmed" if (cat, mode) == (v_cat, v_mode) else "corrected"
            at = now()
            c.execute(
                "UPDATE entries SET label_state = ?, label_category = ?, label_mode = ?, label_note = ?,"
                " label_by = ?, label_at = ?, label_count = label_count + 1 WHERE id = ?",
                (state, cat, mode, note, by, at, entry_id),
            )
            c.execute(
                "INSERT INTO labels (entry_id, at, by, state, category, failure_mode, note, rule, verdict_category,"
                " verdict_mode) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (entry_id, at, by, state, cat, mode, note, rule, v_cat, v_mode),
            )
        return self.entry(row["fingerprint"])

    # -- reading --------------------------------------------------------------------

    def _find(self, ref: str, conn: sqlite3.Connection | None = None) -> sqlite3.Row:
        """An entry by its number or (a unique prefix of) its fingerprint."""
        c = conn or self.conn
        c.row_factory = sqlite3.Row
        try:
            if ref.isdigit():
                row = c.execute("SELECT * FROM entries WHERE id = ?", (int(ref),)).fetchone()
                if row is not None:
                    return row
            rows = c.execute(
                "SELECT * FROM entries WHERE fingerprint >= ? AND fingerprint < ? LIMIT 2", (ref, ref + "\uffff")
            ).fetchall()
        finally:
            c.row_factory = None
        if not rows:
            raise KbError(f"no entry {ref!r} in {self.path} (see kdiag kb list)")
        if len(rows) > 1:
            raise KbError(f"{ref!r} names several entries; give more of the fingerprint")
        return rows[0]

    def entry(self, ref: str) -> dict[str, Any]:
        row = dict(self._find(ref))
        self.conn.row_factory = sqlite3.Row
        try:
            labels = [
                dict(r) for r in self.conn.execute("SELECT * FROM labels WHERE entry_id = ? ORDER BY id", (row["id"],))
            ]
            obs = [
                dict(r)
                for r in self.conn.execute(
                    "SELECT source, record_id, seen_at, category, failure_mode, rule, confidence, gpu FROM observations"
                    " WHERE entry_id = ? ORDER BY id DESC LIMIT 20",
                    (row["id"],),
                )
            ]
        finally:
            self.conn.row_factory = None
        return entry_dict(row) | {
            "signature": row["signature"],
            "evidence": json.loads(row["evidence"]) if row["evidence"] else None,
            "example": row["example"],
            "label_history": labels,
            "recent_observations": obs,
        }

    def entries(
        self, *, where: str = "", params: Sequence[Any] = (), order: str = "count DESC, id"
    ) -> Iterator[dict[str, Any]]:
        self.conn.row_factory = sqlite3.Row
        try:
            sql = (
                "SELECT id, fingerprint, headline, count, first_seen, last_seen, status, category, failure_mode, rule,"
            )
            sql += (
                " confidence, versions, gpus, label_state, label_category, label_mode, label_note, label_by, label_at"
            )
            sql += f" FROM entries {'WHERE ' + where if where else ''} ORDER BY {order}"
            rows = self.conn.execute(sql, tuple(params)).fetchall()
        finally:
            self.conn.row_factory = None
        for r in rows:
            yield entry_dict(r)

    def unexplained(self) -> list[tuple[int, str, int, str, str]]:
        """(id, fingerprint, count, headline, example) of entries no rule explains and no person labelled (an answer
        from the text prior is the words' resemblance, not a rule's explanation: those are here too)."""
        return self.conn.execute(
            "SELECT id, fingerprint, count, headline, example FROM entries"
            " WHERE (category = 'unknown' OR rule = ?) AND label_state IS NULL ORDER BY first_seen, id",
            (TEXT_PRIOR_RULE,),
        ).fetchall()

    def stats(self) -> dict[str, Any]:
        c = self.conn

        def grouped(col: str) -> list[dict[str, Any]]:
            return [
                {col: k, "entries": n, "observations": s or 0}
                for k, n, s in c.execute(
                    f"SELECT {col}, count(*), sum(count) FROM entries GROUP BY {col} ORDER BY sum(count) DESC"
                )
            ]

        entries, observations = c.execute("SELECT count(*), coalesce(sum(count), 0) FROM entries").fetchone()
        modes = [
            {"category": cat, "failure_mode": m, "entries": n, "observations": s}
            for cat, m, n, s in c.execute(
                "SELECT category, failure_mode, count(*), sum(count) FROM entries GROUP BY category, failure_mode"
                " ORDER BY sum(count) DESC"
            )
        ]
        labels = [
            {"label": k or "unlabelled", "entries": n, "observations": s}
            for k, n, s in c.execute(
                "SELECT label_state, count(*), sum(count) FROM entries GROUP BY label_state ORDER BY count(*) DESC"
            )
        ]
        corrected = [
            {"rule": r or "(no rule)", "labelled": n, "corrected": k}
            for r, n, k in c.execute(
                "SELECT rule, count(*), sum(state = 'corrected') FROM labels GROUP BY rule"
                " ORDER BY sum(state = 'corrected') DESC, count(*) DESC"
            )
        ]
        return {
            "db": str(self.path),
            "entries": entries,
            "observations": observations,
            "by_category": grouped("category"),
            "by_failure_mode": modes,
            "by_rule": grouped("rule"),
            "by_label": labels,
            "labels_by_rule": corrected,
        }

    def integrity(self) -> str:
        rows = self.conn.execute("PRAGMA integrity_check").fetchall()
        return "; ".join(str(r[0]) for r in rows)


class _Tx:
    """BEGIN IMMEDIATE … COMMIT, rolled back on any error; sqlite errors become KbError."""

    def __init__(self, store: Store):
        self.store = store

    def __enter__(self) -> sqlite3.Connection:
        try:
            self.store.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise KbError(explain(exc, self.store.path)) from exc
        return self.store.conn

    def __exit__(self, typ: object, exc: BaseException | None, tb: object) -> None:
        conn = self.store.conn
        if exc is None:
            try:
                conn.execute("COMMIT")
                return
            except sqlite3.Error as err:
                _rollback(conn)
                raise KbError(explain(err, self.store.path)) from err
        _rollback(conn)
        if isinstance(exc, sqlite3.Error):
            raise KbError(explain(exc, self.store.path)) from exc


def _rollback(conn: sqlite3.Connection) -> None:
    try:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
    except sqlite3.Error:
        pass


def entry_dict(r: Any) -> dict[str, Any]:
    label = None
    if r["label_state"]:
        label = {
            "state": r["label_state"],
            "category": r["label_category"],
            "failure_mode": r["label_mode"],
            "note": r["label_note"],
            "by": r["label_by"],
            "at": r["label_at"],
        }
    return {
        "id": r["id"],
        "fingerprint": r["fingerprint"],
        "count": r["count"],
        "category": r["category"],
        "failure_mode": r["failure_mode"],
        "rule": r["rule"],
        "confidence": r["confidence"],
        "status": r["status"],
        "label": label,
        "first_seen": r["first_seen"],
        "last_seen": r["last_seen"],
        "versions": json.loads(r["versions"]),
        "gpus": json.loads(r["gpus"]),
        "headline": r["headline"],
    }


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
