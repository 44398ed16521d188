"""Later edit wins for adjudications and exclusions, on the replica's side, and the
conflicts every kind of change reports.

A pulled verdict or exclusion is applied unless the replica holds a pending local one
(its value differs from the copy of the hub's) made later; the hub's value also wins
where the hub refused the local one in this round's push (it holds a later edit). Either
way, when a pending local value meets another value from the hub, that is a conflict:
logged here (kind `conflict`, with both values and both edit times) and listed in the
round's report. The push side adds the values the hub kept and the ones this machine's
newer edit replaced without having seen them (push_others.py).
"""

from __future__ import annotations

import json
import sqlite3

from simrate.core.base.events import Verdict
from simrate.core.base.scale import Scale
from simrate.core.data.changelog import log_change
from simrate.core.project import Project
from simrate.hub.link import outbox as queue
from simrate.hub.link.replica import ensure_tables
from simrate.hub.link.replica_state import (
    adjudication_values,
    annotator_values,
    clock_offset,
    hub_copies,
    queued_times,
)

#: Who the local change log names for exclusions that came from the hub.
HUB_WHO = "hub"


def conflict(kind: str, key: str, here: object, here_at: float, hub: object, hub_at: float,
             won: str) -> dict:
    """One entry of the report's conflict list (`won`: "here" or "hub")."""
    return {"kind": kind, "key": key, "here": here, "here_at": here_at, "hub": hub,
            "hub_at": hub_at, "won": won}


def log_conflicts(conn: sqlite3.Connection, found: list[dict]) -> None:
    """One `conflict` entry of the change log per conflict, both values in it."""
    for c in found:
        item = c["key"] if c["kind"] != "exclusion" else None
        who = c["key"] if c["kind"] == "exclusion" else None
        log_change(conn, "conflict", who=HUB_WHO, item_id=item, annotator=who,
                   old={"kind": c["kind"], "value": c["here"], "at": c["here_at"]},
                   new={"kind": c["kind"], "value": c["hub"], "at": c["hub_at"],
                        "won": c["won"]})


def _score(project: Project, code: int | None) -> float | None:
    return None if code is None else project.scale.from_code(code)


def _file_scale(conn: sqlite3.Connection) -> Scale:
    """The project's scale, read in the caller's transaction."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'scale'").fetchone()
    return Scale.from_dict(json.loads(row[0]), "the project")


def record_others(conn: sqlite3.Connection, outbox, received) -> list[dict]:
    """After the push: the copies of the values the hub took; returns the conflicts the
    push met (values the hub kept, values it replaced this machine had not seen), with
    both values as scores, and logs them."""
    found = []
    scale = _file_scale(conn)

    def score(code: int | None) -> float | None:
        return None if code is None else scale.from_code(code)

    after = {r[0]: r for r in received.others.get("verdicts_after", [])}
    before = {r[0]: r for r in received.others.get("verdicts_before", [])}
    for item_id, code, note, _by, at, _last, _undo, copy_code, copy_note in outbox.adjudications:
        now = after.get(item_id)
        if now is not None and (now[1], now[2]) != (code, note):
            continue  # kept its own: the pull applies it and counts the conflict
        conn.execute("INSERT OR REPLACE INTO hub_adjudications VALUES (?,?,?)",
                     (item_id, code, note))
        old = before.get(item_id)
        if old is not None and (old[1], old[2]) not in ((copy_code, copy_note or ""),
                                                        (code, note)):
            found.append(conflict("adjudication", item_id, score(code), at, score(old[1]),
                                  float(old[4] or 0), "here"))
    after = {r[0]: r for r in received.others.get("exclusions_after", [])}
    before = {r[0]: r for r in received.others.get("exclusions_before", [])}
    for name, excluded, at, _last, _undo, copy in outbox.annotators:
        now = after.get(name)
        if now is not None and bool(now[1]) != excluded:
            continue
        conn.execute("INSERT OR REPLACE INTO hub_annotators VALUES (?,?)", (name, int(excluded)))
        old = before.get(name)
        if old is not None and copy is not None and bool(old[1]) not in (copy, excluded):
            found.append(conflict("exclusion", name, excluded, at, bool(old[1]),
                                  old[2] or 0.0, "here"))
    log_conflicts(conn, found)
    return found


def kept_rows(received, name: str, width: int) -> list[tuple]:
    """The hub's rows of pushed keys it kept another value for, shaped as pulled rows."""
    sent = {r[0] for r in received.others.get(name.replace("after", "before"), [])}
    return [(*r[:width], float("inf")) for r in received.others.get(name, []) if r[0] in sent]


def apply_verdicts(project: Project, rows: list[tuple], refused: set[str]) -> tuple[int, list]:
    """Apply pulled (item_id, code, note, by, at, seq) rows by the later-edit rule; returns
    (verdicts written, conflicts)."""
    rows = [r for r in rows if project.has_item(r[0])]
    if not rows:
        return 0, []
    local = adjudication_values(project)
    copies = hub_copies(project, "hub_adjudications", [r[0] for r in rows])
    made = queued_times(project, "adjudication", [r[0] for r in rows])
    offset = clock_offset(project)  # this machine's times, in the hub's (sync.in_hub_time)
    found, applied = [], 0
    with project.edit() as change:
        start = _outbox_end(change.conn)
        for item_id, code, note, by, at, _seq in _newest(rows):
            mine = local.get(item_id)
            pair = (None, "") if mine is None else (mine[0], mine[1])
            if pair == (code, note) or (pair[0] is None and code is None):
                continue
            copy = tuple(copies.get(item_id, (None, "")))
            if pair != copy and item_id not in refused and (code, note) == copy:
                continue  # pending here, and nothing new there (an echo of our own)
            if pair != copy:  # pending here
                mine_at = max(0.0 if mine is None else float(mine[3]),
                              made.get(item_id, 0.0)) - offset
                later = item_id not in refused and mine_at > float(at or 0)
                found.append(conflict("adjudication", item_id, _score(project, pair[0]),
                                      mine_at, _score(project, code), float(at or 0),
                                      "here" if later else "hub"))
                if later:
                    continue  # ours was made later: it goes out next and wins
            change.verdict(item_id, Verdict(code, note or ""), by, at=float(at or 0) or None)
            applied += 1
        _prune(change.conn, start)  # what the pull wrote holds the hub's value already
        change.conn.executemany("INSERT OR REPLACE INTO hub_adjudications VALUES (?,?,?)",
                                [(r[0], r[1], r[2]) for r in rows])
        log_conflicts(change.conn, found)
    return applied, found


def apply_exclusions(project: Project, rows: list[tuple], refused: dict[str, float]
                     ) -> tuple[int, list]:
    """Apply pulled (name, excluded, at) values by the later-edit rule; `refused`: {name:
    when this machine made the exclusion the hub refused in this push}. Returns
    (exclusions written, conflicts)."""
    names = [r[0] for r in rows]
    local = annotator_values(project)
    copies = hub_copies(project, "hub_annotators", names)
    offset = clock_offset(project)  # this machine's times, in the hub's; `refused`'s are
    made = {**{k: v - offset for k, v in queued_times(project, "exclude", names).items()},
            **refused}
    found, applied = [], 0
    with project.edit() as change:
        start = _outbox_end(change.conn)
        for name, (excluded, at) in {r[0]: (r[1], r[2]) for r in rows}.items():
            mine = bool(local.get(name, 0))
            if name not in local or mine == bool(excluded):
                continue
            copy = tuple(copies.get(name, (0,)))  # no copy: never excluded there
            if copy != (int(mine),) and name not in refused and copy == (int(excluded),):
                continue  # pending here, and nothing new there
            if copy != (int(mine),):  # pending here
                later = name not in refused and made.get(name, 0.0) > float(at or 0)
                found.append(conflict("exclusion", name, mine, made.get(name, 0.0),
                                      bool(excluded), float(at or 0), "here" if later else "hub"))
                if later:
                    continue
            change.exclude([name], bool(excluded), by=HUB_WHO)
            applied += 1
        _prune(change.conn, start)
        change.conn.executemany("INSERT OR REPLACE INTO hub_annotators VALUES (?,?)",
                                [(r[0], int(r[1])) for r in rows])
        log_conflicts(change.conn, found)
    return applied, found


def _outbox_end(conn: sqlite3.Connection) -> int:
    ensure_tables(conn)
    return conn.execute("SELECT COALESCE(max(id), 0) FROM hub_outbox").fetchone()[0]


def _prune(conn: sqlite3.Connection, start: int) -> None:
    """Drop the outbox rows this pull's own writes left (of adjudications, exclusions and
    machine raters: never ratings, see outbox.PRUNE_QUEUED), in its transaction."""
    queue.drop_pulled_others(conn, start)


def _newest(rows: list[tuple]) -> list[tuple]:
    """One row per key, the one with the highest sequence number."""
    best: dict[str, tuple] = {}
    for row in rows:
        if row[0] not in best or row[-1] >= best[row[0]][-1]:
            best[row[0]] = row
    return list(best.values())
