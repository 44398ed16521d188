"""The web studies' tables in a project file (see web_study.py for what each holds); apart
so that the hub's side (hub/web_hub.py) writes them without importing web_study."""

from __future__ import annotations

import sqlite3

WEB_SCHEMA = """
CREATE TABLE IF NOT EXISTS web_studies (
    name TEXT PRIMARY KEY,
    per_task INTEGER NOT NULL,
    checks INTEGER NOT NULL,
    per_item INTEGER NOT NULL,
    lease_minutes REAL NOT NULL,
    completion_url TEXT NOT NULL DEFAULT '',
    code TEXT NOT NULL,
    secret TEXT NOT NULL,
    open INTEGER NOT NULL DEFAULT 1,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS web_tasks (
    study TEXT NOT NULL,
    task TEXT NOT NULL,
    worker TEXT NOT NULL,
    session TEXT NOT NULL DEFAULT '',
    cookie TEXT NOT NULL UNIQUE,
    token TEXT NOT NULL,
    state TEXT NOT NULL,
    leased_at REAL NOT NULL,
    expires_at REAL NOT NULL,
    done_at REAL,
    PRIMARY KEY (study, task)
);
CREATE INDEX IF NOT EXISTS web_tasks_worker ON web_tasks(worker, state);
CREATE INDEX IF NOT EXISTS web_tasks_live ON web_tasks(study, state, expires_at);
CREATE TABLE IF NOT EXISTS web_slots (
    study TEXT NOT NULL,
    task TEXT NOT NULL,
    slot INTEGER NOT NULL,
    item_ord INTEGER NOT NULL REFERENCES items(ord),
    is_check INTEGER NOT NULL DEFAULT 0,
    rated_at REAL,
    seconds REAL,
    PRIMARY KEY (study, task, slot)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS web_slots_item ON web_slots(study, item_ord);
CREATE TABLE IF NOT EXISTS web_fill (
    study TEXT NOT NULL,
    item_ord INTEGER NOT NULL REFERENCES items(ord),
    used INTEGER NOT NULL DEFAULT 0,
    rank INTEGER NOT NULL,
    PRIMARY KEY (study, item_ord)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS web_fill_next ON web_fill(study, used, rank);
"""


def ensure_web_tables(conn: sqlite3.Connection) -> None:
    """Create the web study tables if missing (inside a write transaction)."""
    for statement in WEB_SCHEMA.split(";"):
        if statement.strip():
            conn.execute(statement)
