"""The knowledge base's SQLite schema: :data:`MIGRATIONS` brings an older file up to ``SCHEMA_VERSION``.

Migration *i* takes a file from ``user_version`` *i* to *i + 1*; append, never edit, a migration.
"""

from __future__ import annotations

MIGRATIONS: tuple[str, ...] = (
    # 1: entries, observations, labels
    """
    CREATE TABLE entries (
        id INTEGER PRIMARY KEY,
        fingerprint TEXT NOT NULL UNIQUE,
        signature TEXT NOT NULL,
        headline TEXT NOT NULL,
        count INTEGER NOT NULL DEFAULT 0,
        first_seen TEXT NOT NULL,
        last_seen TEXT NOT NULL,
        status TEXT NOT NULL,
        category TEXT NOT NULL,
        failure_mode TEXT NOT NULL,
        rule TEXT,
        confidence REAL,
        evidence TEXT,
        example TEXT NOT NULL,
        versions TEXT NOT NULL DEFAULT '[]',
        gpus TEXT NOT NULL DEFAULT '[]',
        label_state TEXT,
        label_category TEXT,
        label_mode TEXT,
        label_note TEXT,
        label_by TEXT,
        label_at TEXT,
        label_count INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX entries_verdict ON entries(category, failure_mode, rule, label_state, count);
    CREATE TABLE observations (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL UNIQUE,
        entry_id INTEGER NOT NULL REFERENCES entries(id),
        source TEXT,
        record_id TEXT,
        seen_at TEXT NOT NULL,
        category TEXT NOT NULL,
        failure_mode TEXT NOT NULL,
        rule TEXT,
        confidence REAL,
        versions TEXT,
        gpu TEXT
    );
    CREATE INDEX observations_entry ON observations(entry_id);
    CREATE TABLE labels (
        id INTEGER PRIMARY KEY,
        entry_id INTEGER NOT NULL REFERENCES entries(id),
        at TEXT NOT NULL,
        by TEXT,
        state TEXT NOT NULL,
        category TEXT NOT NULL,
        failure_mode TEXT NOT NULL,
        note TEXT,
        rule TEXT,
        verdict_category TEXT,
        verdict_mode TEXT
    );
    CREATE INDEX labels_entry ON labels(entry_id);
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)
