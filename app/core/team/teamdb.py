"""Tables that team work adds to a project file: check items and the item assignment.

They are created with CREATE TABLE IF NOT EXISTS the first time they are written, so files
made before these features (or by a version without them) open unchanged and read as having
no checks and no assignment. No schema version bump: an older simrate simply ignores them.
"""

from __future__ import annotations

import sqlite3
import uuid

from simrate.core.project import Project

TEAM_SCHEMA = """
CREATE TABLE IF NOT EXISTS check_items (
    item_ord INTEGER PRIMARY KEY REFERENCES items(ord),
    score REAL NOT NULL,
    by TEXT NOT NULL DEFAULT '',
    at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS assignment (
    item_ord INTEGER NOT NULL REFERENCES items(ord),
    annotator TEXT NOT NULL,
    PRIMARY KEY (item_ord, annotator)
) WITHOUT ROWID;
"""


def ensure_team_tables(conn: sqlite3.Connection) -> None:
    """Create the team tables if missing (call inside a write transaction)."""
    for statement in TEAM_SCHEMA.split(";"):
        if statement.strip():
            conn.execute(statement)


def has_table(project: Project, name: str) -> bool:
    """True if the project file has a table of this name (reads never create tables)."""
    return bool(project.team_tables.read("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?",
                             (name,)))


def project_uuid(project: Project) -> str:
    """The project's stable identity, created (and saved) on first use for older files."""
    found = project.meta("project_uuid")
    if found:
        return found
    with project.team_tables.transaction() as conn:
        # INSERT OR IGNORE: another process may have created it a moment ago; theirs wins.
        conn.execute("INSERT OR IGNORE INTO meta VALUES ('project_uuid', ?)",
                     (str(uuid.uuid4()),))
    return project.meta("project_uuid") or ""
