"""Applying pulled hub rows to a replica through the Project's own write methods.

A pulled value is applied unless the replica holds a local value that differs from its
copy of the hub's (a pending change, which the next push sends and which then wins). The
copies are updated either way, after the values, so a crash in between only means the
same rows are pulled and found equal next time.
"""

from __future__ import annotations

import math

import pandas as pd

from app.core.project import Project
from app.core.team.hub.exchange import Received
from app.core.team.hub.replica import Link, ensure_tables, set_meta
from app.core.team.hub.replica_state import (
    ABSENT_RATING,
    adjudication_values,
    annotator_values,
    hub_copies,
    local_ratings,
)

#: Who the local change log names for exclusions that came from the hub.
HUB_WHO = "hub"


def apply_received(project: Project, link: Link, received: Received) -> int:
    """Apply every pulled table, in an order where each row finds what it refers to;
    returns how many rows changed the replica (echoes of our own pushes do not)."""
    rows = received.rows
    return (_apply_settings(project, rows.get("settings", []))
            + _apply_items(project, rows.get("items", []))
            + _apply_annotators(project, rows.get("annotators", []))
            + _apply_ratings(project, rows.get("ratings", []))
            + _apply_adjudications(project, rows.get("adjudications", [])))


def _apply_settings(project: Project, rows: list[tuple]) -> int:
    applied = 0
    for key, value, _seq in rows:
        if key != "threshold":
            continue  # scale and title are fixed when the project is published
        remote = float(value)
        copy = project.meta("hub_threshold")
        pending = copy is not None and copy != str(project.threshold)
        if not pending and project.threshold != remote:
            project.set_threshold(remote)
            applied += 1
        with project.team_tables.transaction() as conn:
            set_meta(conn, {"hub_threshold": str(remote)})
    return applied


def _apply_items(project: Project, rows: list[tuple]) -> int:
    new = [r for r in rows if not project.has_item(r[0])]
    if new:
        frame = pd.DataFrame({
            "item_id": [r[0] for r in new], "left": [r[1] for r in new],
            "right": [r[2] for r in new], "dataset": [r[3] for r in new],
            "genre": [r[4] for r in new],
            "reference": pd.Series([math.nan if r[5] is None else r[5] for r in new],
                                   dtype="float64"),
            "meta": [_meta(r[6]) for r in new], "line": list(range(1, len(new) + 1)),
        })
        project.import_items(frame, source="hub")
    if rows:
        last = project.team_tables.read("SELECT COALESCE(max(ord), -1) FROM items")[0][0]
        with project.team_tables.transaction() as conn:
            set_meta(conn, {"hub_item_ord": last})
    return len(new)


def _meta(text: str | None) -> dict:
    import json

    return json.loads(text) if text else {}


def _apply_annotators(project: Project, rows: list[tuple]) -> int:
    if not rows:
        return 0
    applied = 0
    names = [r[0] for r in rows]
    copies = hub_copies(project, "hub_annotators", names)
    for name, excluded, _seq in rows:
        project.roster.add(name)
        local = annotator_values(project).get(name, 0)
        pending = name in copies and copies[name] != (int(local),)
        if not pending and bool(local) != bool(excluded):
            project.set_excluded(name, bool(excluded), by=HUB_WHO)
            applied += 1
    with project.team_tables.transaction() as conn:
        ensure_tables(conn)
        conn.executemany("INSERT OR REPLACE INTO hub_annotators VALUES (?,?)",
                         [(r[0], int(r[1])) for r in rows])
    return applied


def _apply_ratings(project: Project, rows: list[tuple]) -> int:
    rows = [r for r in rows if project.has_item(r[0])]
    if not rows:
        return 0
    keys = [(r[0], r[1]) for r in rows]
    local = local_ratings(project, keys)
    copies = hub_copies(project, "hub_ratings", keys)
    writes = []
    for item_id, annotator, code, note, skipped, seconds, _at, _seq in rows:
        key = (item_id, annotator)
        mine = local.get(key)
        mine = ABSENT_RATING if mine is None else (mine[0], mine[1], int(mine[2]))
        copy = copies.get(key, ABSENT_RATING)
        if mine != (copy[0], copy[1], int(copy[2])):
            continue  # changed here and not pushed yet: ours goes out next and wins
        if mine != (code, note, int(skipped)):
            writes.append((item_id, annotator, code, note, bool(skipped), seconds))
    project.apply_ratings(writes)
    with project.team_tables.transaction() as conn:
        ensure_tables(conn)
        conn.executemany("INSERT OR REPLACE INTO hub_ratings VALUES (?,?,?,?,?)",
                         [(r[0], r[1], r[2], r[3], int(r[4])) for r in rows])
    return len(writes)


def _apply_adjudications(project: Project, rows: list[tuple]) -> int:
    rows = [r for r in rows if project.has_item(r[0])]
    if not rows:
        return 0
    applied = 0
    local = adjudication_values(project)
    copies = hub_copies(project, "hub_adjudications", [r[0] for r in rows])
    for item_id, code, note, by, _at, _seq in rows:
        mine = local.get(item_id)
        mine_pair = (None, "") if mine is None else (mine[0], mine[1])
        if mine_pair != copies.get(item_id, (None, "")):
            continue  # a local adjudication not pushed yet
        if mine_pair == (code, note):
            continue
        if code is None:
            project.adjudicate(item_id, None, by=by)
        else:
            project.adjudicate(item_id, project.scale.from_code(code), note=note, by=by)
        applied += 1
    with project.team_tables.transaction() as conn:
        ensure_tables(conn)
        conn.executemany("INSERT OR REPLACE INTO hub_adjudications VALUES (?,?,?)",
                         [(r[0], r[1], r[2]) for r in rows])
    return applied
