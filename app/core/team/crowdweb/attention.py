"""Attention checks on the page (`crowd study --failed-checks C`): a check item of the task
scored further from its known score than the tolerance is a failed check. After C failed
checks the page warns the worker; at C + 1 the task ends (its state `ended`, its unrated
slots back to the pool) and the page shows the partial code. Prolific lets a requester
reject for failed attention checks from the second one, so C = 1 ends a task exactly when
a rejection becomes allowed, and `crowd review` proposes it.

The tolerance is the one `crowd review` uses by default: TOLERANCE_SHARE of the scale's
width (1.5 points on 0-4). A worker whose task ended gets that task back when opening the
link again (the partial code), never a new one. Served from a plain project file; the hub
keeps no known scores of check items, so `crowd study` refuses the setting there.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from simrate.core.base.scale import Scale

#: A check fails beyond this share of the scale's width (0-4: 1.5 points) unless told.
TOLERANCE_SHARE = 0.375
#: The task's state once the page ended it for failed checks.
ENDED = "ended"
#: The most failed checks before a warning a study may ask for.
MOST_WARNINGS = 20


def default_tolerance(scale: Scale) -> float:
    """How far from its known score a check may be scored before it counts as failed."""
    return round(TOLERANCE_SHARE * (scale.high - scale.low), 6)


def failed_in_task(conn: sqlite3.Connection | Any, study: str, task: str, scale: Scale) -> int:
    """The task's rated check slots scored beyond the tolerance from their known score."""
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'check_items'").fetchone() \
            is None:
        return 0
    return int(conn.execute(
        "SELECT COUNT(*) FROM web_slots s JOIN web_tasks t ON t.study = s.study AND "
        "t.task = s.task JOIN annotators a ON a.name = t.worker JOIN ratings r ON "
        "r.item_ord = s.item_ord AND r.annotator_id = a.id JOIN check_items c ON "
        "c.item_ord = s.item_ord WHERE s.study = ? AND s.task = ? AND s.is_check = 1 AND "
        "s.rated_at IS NOT NULL AND abs(? + r.code * ? - c.score) > ?",
        (study, task, scale.low, scale.step, default_tolerance(scale) + 1e-9)).fetchone()[0])


def end_if_failed(conn: sqlite3.Connection, study, task: str, scale: Scale,
                  unuse) -> bool:
    """End the task when its failed checks reached the study's C + 1 (inside the rating's
    write transaction); `unuse(conn, study, task)` frees its unrated slots. Whether it
    ended."""
    warn_after = int(study.option("failed_checks", 0) or 0)
    if not warn_after or failed_in_task(conn, study.name, task, scale) <= warn_after:
        return False
    unuse(conn, study.name, task)
    conn.execute("UPDATE web_tasks SET state = ? WHERE study = ? AND task = ? AND "
                 "state = 'leased'", (ENDED, study.name, task))
    return True


def warning(failed: int, warn_after: int) -> str:
    """The line the page shows once the worker failed `warn_after` checks ('' before)."""
    if not warn_after or failed < warn_after:
        return ""
    pairs = "pair" if failed == 1 else "pairs"
    return (f"Please slow down and read each pair with care: on {failed} check {pairs} (pairs "
            f"whose score we know) your score was far from the known one. At {warn_after + 1}, "
            "the task ends early with a code for the work done so far.")
