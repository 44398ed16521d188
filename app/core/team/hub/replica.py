"""What a replica (a `.simrate` file linked to a hub) remembers about the hub.

Meta keys: `hub_url` (no password), `hub_replica` (this file's id at the hub), `hub_kind`
(annotator or organizer), `hub_name` (the login's annotator name), `hub_pushed` (the last
local change-log id the hub has acknowledged), `hub_wm_<table>` (the highest hub sequence
number pulled from each table) and `hub_last_sync` (Unix time of the last good round).

Tables `hub_ratings`, `hub_adjudications` and `hub_annotators` hold each value as the hub
last had it. A local value that differs from its hub copy is pending: it goes out at the
next push, and a pulled value does not overwrite it (see sync.py for the rule).
Like the other team tables they are created on first write; no schema version bump.
"""

from __future__ import annotations

import sqlite3
import uuid
from dataclasses import dataclass

from app.core.errors import SimrateError
from app.core.project import Project

REPLICA_SCHEMA = """
CREATE TABLE IF NOT EXISTS hub_ratings (
    item_id TEXT NOT NULL, annotator TEXT NOT NULL, code INTEGER, note TEXT NOT NULL,
    skipped INTEGER NOT NULL, PRIMARY KEY (item_id, annotator)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS hub_adjudications (
    item_id TEXT PRIMARY KEY, code INTEGER, note TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS hub_annotators (
    name TEXT PRIMARY KEY, excluded INTEGER NOT NULL
);
"""


@dataclass(frozen=True)
class Link:
    """A replica's link to its hub, as recorded in the file."""

    url: str
    replica: str
    kind: str
    name: str | None

    @property
    def organizer(self) -> bool:
        """True for an organizer's replica (it holds everything)."""
        return self.kind == "organizer"


def ensure_tables(conn: sqlite3.Connection) -> None:
    """Create the replica's hub tables if missing (inside a write transaction)."""
    for statement in REPLICA_SCHEMA.split(";"):
        if statement.strip():
            conn.execute(statement)


def set_meta(conn: sqlite3.Connection, values: dict[str, object]) -> None:
    """Write meta keys (inside a write transaction)."""
    conn.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                     [(k, str(v)) for k, v in values.items()])


def link_replica(project: Project, url: str, kind: str, name: str | None,
                 project_uuid: str) -> Link:
    """Record in the file that it is a replica of the hub at `url`; returns the link."""
    replica = project.meta("hub_replica") or str(uuid.uuid4())
    with project.team_tables.transaction() as conn:
        ensure_tables(conn)
        set_meta(conn, {"hub_url": url, "hub_replica": replica, "hub_kind": kind,
                        "hub_name": name or "", "project_uuid": project_uuid})
        for key in ("hub_pushed",):
            conn.execute("INSERT OR IGNORE INTO meta VALUES (?, '0')", (key,))
    return Link(url, replica, kind, name)


def read_link(project: Project) -> Link:
    """The file's link to its hub; SimrateError if the project is not a replica."""
    url = project.meta("hub_url")
    if not url:
        raise SimrateError("not linked to a hub: publish it (simrate team publish) or join "
                           "one (simrate team join)", project.path)
    return Link(url, project.meta("hub_replica") or "", project.meta("hub_kind") or "annotator",
                project.meta("hub_name") or None)


def meta_int(project: Project, key: str) -> int:
    """An integer meta key, 0 when absent."""
    value = project.meta(key)
    return int(float(value)) if value else 0


def watermarks(project: Project, tables: tuple[str, ...]) -> dict[str, int]:
    """The highest hub sequence number pulled so far from each table."""
    return {table: meta_int(project, f"hub_wm_{table}") for table in tables}
