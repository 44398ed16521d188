"""What a replica (a `.simrate` file linked to a hub) remembers about the hub.

The link itself (hub URL, role, name, replica id, sync token) is the file's mode
(core/data/replica_mode.py, `Project.mode`); `link_replica` and `unlink_replica` change it
through `Project.relink`. The sync's own meta keys, named in app/hub only (and written
through the meta table's owner, core/data/meta.py):
`hub_pushed` (the last local change-log id the hub has acknowledged), `hub_wm_<table>`
(the highest hub sequence number pulled from each table) and `hub_last_sync` (Unix time
of the last good round).

Tables `hub_ratings`, `hub_adjudications` and `hub_annotators` hold each value as the hub
last had it. A local value that differs from its hub copy is pending: it goes out at the
next push, unless the hub holds a later edit (see sync.py for the rule).
Like the other team tables they are created on first write; no schema version bump.

`hub_outbox`, where every change waits to be sent, and the writes of `hub_ratings` are
outbox.py's.
"""

from __future__ import annotations

import sqlite3
import uuid

from simrate.core.data import meta as meta_table
from simrate.core.data.replica_mode import ReplicaMode, Role
from simrate.core.data.replica_tables import REPLICA_SCHEMA
from simrate.core.project import Project
from simrate.core.team.teamdb import has_trigger
from simrate.hub.link.outbox import ensure_outbox


def ensure_tables(conn: sqlite3.Connection) -> None:
    """Create the replica's hub tables if missing (inside a write transaction)."""
    for statement in REPLICA_SCHEMA.split(";"):
        if statement.strip():
            conn.execute(statement)
    ensure_outbox(conn)


def has_outbox(project: Project) -> bool:
    """True once the file's ratings leave their keys in the outbox."""
    return has_trigger(project, "hub_outbox_exclude")


def set_meta(conn: sqlite3.Connection, values: dict[str, object]) -> None:
    """Write the link's and the sync's own meta keys, all `hub_...` (inside a write
    transaction), through the one owner of the meta table (core/data/meta.py)."""
    meta_table.set_hub_keys(conn, values)


def link_replica(project: Project, url: str, role: Role, name: str | None,
                 project_uuid: str, replica: str = "", token: str = "") -> ReplicaMode:
    """Make the file a replica of the hub at `url` (its id at the hub: `replica`, else the
    one it had, else a new one; `token`: the person's at a sync service), in one
    transaction with the replica's tables; returns the mode it now has."""
    replica = replica or project.mode.replica or str(uuid.uuid4())
    with project.relink(ReplicaMode(role, url, replica, name, token)) as conn:
        ensure_tables(conn)
        meta_table.set_project_uuid(conn, project_uuid)
        meta_table.set_hub_key_once(conn, "hub_pushed", "0")
    return project.mode


def unlink_replica(project: Project) -> ReplicaMode:
    """Make the file a plain project again. Its replica tables and outbox stay, and go on
    collecting its changes: linked again to the same hub, it sends what differs from the
    hub's copy; published to another, the copies are made anew (publish.py)."""
    with project.relink(project.mode.unlinked()):
        pass
    return project.mode


def read_link(project: Project) -> ReplicaMode:
    """The file's link to its hub (its mode); SimrateError if the project is not a replica."""
    return project.mode.require_link(project.path)


def meta_int(project: Project, key: str) -> int:
    """An integer meta key, 0 when absent."""
    value = project.meta(key)
    return int(float(value)) if value else 0


def watermarks(project: Project, tables: tuple[str, ...]) -> dict[str, int]:
    """The highest hub sequence number pulled so far from each table."""
    return {table: meta_int(project, f"hub_wm_{table}") for table in tables}


def acknowledged(project: Project) -> int:
    """The last local change-log id the hub has taken."""
    return meta_int(project, "hub_pushed")


def last_sync(project: Project) -> float | None:
    """Unix time of the replica's last good round, None before the first."""
    return float(project.meta("hub_last_sync") or 0) or None
