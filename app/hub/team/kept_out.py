"""Scores a hub let in before it refused them (a code off the published scale, a rating
both skipped and scored: simrate.core.base.rules.CODE_RULES), met in a pull.

They are not stored: a pulled rating or verdict that breaks a rule is left out of what the
round applies, so it never reaches agreement, flags or gold, and it is listed in the
replica's table `hub_kept_out` instead (kind, item, annotator, code, skipped, the hub's
sequence number, when it was met). The copy of the hub's value is left as it was, so the
replica sends nothing back for it; the watermark passes it, so it is not pulled again
unless the hub's row changes. A valid value pulled later for the same key takes it off the
list. `team sync` warns of the ones a round met; `simrate check` names them as "off-scale
values from the hub, kept out", not as damage.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from simrate.core.base.rules import code_problem
from simrate.core.project import Project
from simrate.hub.link.exchange import Received

KEPT_OUT_TABLE = "hub_kept_out"


def keep_out(project: Project, received: Received) -> Received:
    """`received` without the rows that break a rule of stored scores (those are listed in
    `hub_kept_out`)."""
    scale = project.scale
    def bad(code: Any, skipped: Any, table: str) -> bool:
        return code_problem(code, skipped, scale.max_code, scale.describe(), table) is not None

    rows = dict(received.rows)
    others = dict(received.others)
    kept: list[tuple] = []
    for table, kind in (("ratings", "rating"), ("adjudications", "verdict")):
        if table not in rows:
            continue
        pulled = rows[table]
        if kind == "rating":
            kept += [(kind, r[0], r[1], r[2], int(bool(r[4])), r[-1]) for r in pulled
                     if bad(r[2], r[4], table)]
            rows[table] = [r for r in pulled if not bad(r[2], r[4], table)]
        else:
            kept += [(kind, r[0], "", r[1], 0, r[-1]) for r in pulled
                     if bad(r[1], False, table)]
            rows[table] = [r for r in pulled if not bad(r[1], False, table)]
    kept += [("rating", r[0], r[1], r[2], int(bool(r[4])), r[-1]) for r in received.refused
             if bad(r[2], r[4], "ratings")]
    refused = [r for r in received.refused if not bad(r[2], r[4], "ratings")]
    if "verdicts_after" in others:
        others["verdicts_after"] = [r for r in others["verdicts_after"]
                                    if not bad(r[1], False, "adjudications")]
    _record(project, kept, [("rating", r[0], r[1]) for r in rows.get("ratings", [])]
            + [("verdict", r[0], "") for r in rows.get("adjudications", [])])
    return dataclasses.replace(received, rows=rows, refused=refused, others=others)


def _record(project: Project, kept: list[tuple], good: list[tuple]) -> None:
    """List `kept` (kind, item, annotator, code, skipped, seq); take the keys of `good`
    (kind, item, annotator) off the list."""
    listed = kept_out_count(project) > 0
    if not kept and not listed:
        return
    from simrate.hub.link.replica import ensure_tables

    with project.team_tables.transaction() as conn:
        ensure_tables(conn)
        if listed and good:
            conn.executemany(f"DELETE FROM {KEPT_OUT_TABLE} WHERE kind = ? AND item_id = ? "
                             "AND annotator = ?", good)
        now = time.time()
        conn.executemany(f"INSERT OR REPLACE INTO {KEPT_OUT_TABLE} VALUES (?,?,?,?,?,?,?)",
                         [(*row, now) for row in kept])


def _has_table(project: Project) -> bool:
    return bool(project.team_tables.read(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?",
        (KEPT_OUT_TABLE,))[0][0])


def kept_out_count(project: Project, since: float = 0.0) -> int:
    """How many values pulled from the hub are kept out (met at `since` or later)."""
    if not _has_table(project):
        return 0
    return int(project.team_tables.read(
        f"SELECT count(*) FROM {KEPT_OUT_TABLE} WHERE at >= ?", (since,))[0][0])


def kept_out_line(count: int) -> str:
    """The warning of `team sync` for `count` values kept out this round."""
    return (f"{count} score(s) pulled from the hub are off the scale or both skipped and "
            "scored (written before the hub refused such values): kept out of agreement "
            "and gold, not stored here; an organizer clears them on the hub by rating or "
            "adjudicating those items again (simrate check lists them as off-scale values "
            "from the hub, kept out)")
