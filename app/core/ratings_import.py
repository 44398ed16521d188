"""Merging a reader's ratings table into a project: check, classify, write (all or nothing)."""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass

import pandas as pd

from app.core.errors import SimrateError
from app.core.frames import RATING_COLUMNS, name_problem
from app.core.item_index import ItemIndex
from app.core.scale import Scale
from app.core.store import dumps


@dataclass(frozen=True)
class PlannedRating:
    """One rating of an incoming ratings table, checked and compared with the project.

    status: `added` (no score yet), `unchanged`, `note` (same score, a note the project
    lacks or holds otherwise) or `score` (the project holds another score).
    """

    item_id: str
    annotator: str
    code: int
    note: str
    line: int
    old_code: int | None
    old_note: str
    status: str


def check_ratings(frame: pd.DataFrame, index: ItemIndex, scale: Scale,
                  source: str) -> list[tuple]:
    """(item_id, annotator, code, note, line) per row; SimrateError with the line for an
    unknown item, a score off the scale or a rating given twice."""
    missing = [c for c in RATING_COLUMNS if c not in frame.columns]
    if missing:
        raise SimrateError(f"ratings table lacks columns {missing}", source or None)
    where = source or None
    rows, seen = [], {}
    for rec in frame.itertuples(index=False):
        line = int(rec.line)
        if rec.item_id not in index:
            raise SimrateError(f"no item with id {rec.item_id!r} in the project", where, line)
        try:
            code = scale.to_code(rec.score)
        except SimrateError as exc:
            raise SimrateError(exc.message, where, line) from None
        problem = name_problem(str(rec.annotator).strip())
        if problem:
            raise SimrateError(problem, where, line)
        key = (rec.item_id, str(rec.annotator))
        if key in seen:
            raise SimrateError(f"{rec.annotator!r} rates item {rec.item_id!r} again (first on "
                               f"line {seen[key]})", where, line)
        seen[key] = line
        rows.append((rec.item_id, str(rec.annotator), code, rec.note or "", line))
    return rows


def held_ratings(conn: sqlite3.Connection, names: list[str]) -> dict:
    """{(item ord, annotator name): (code, note)} of these annotators' ratings."""
    if not names:
        return {}
    marks = ",".join("?" * len(names))
    return {(o, n): (c, note) for o, n, c, note in conn.execute(
        "SELECT r.item_ord, a.name, r.code, r.note FROM ratings r "
        f"JOIN annotators a ON a.id = r.annotator_id WHERE a.name IN ({marks})", names)}


def _status(old: tuple | None, code: int, note: str) -> str:
    old_code, old_note = old if old is not None else (None, "")
    if old is not None and old_code == code and (not note or old_note == note):
        return "unchanged"
    if old_code is None:
        return "added"
    return "note" if old_code == code else "score"


def plan_ratings(conn: sqlite3.Connection, frame: pd.DataFrame, index: ItemIndex, scale: Scale,
                 source: str = "") -> list[PlannedRating]:
    """Check a ratings table against the project and classify each rating; writes nothing."""
    rows = check_ratings(frame, index, scale, source)
    held = held_ratings(conn, list(dict.fromkeys(r[1] for r in rows)))
    plan = []
    for item_id, name, code, note, line in rows:
        old = held.get((index.ord[item_id], name))
        old_code, old_note = old if old is not None else (None, "")
        plan.append(PlannedRating(item_id, name, code, note, line, old_code, old_note or "",
                                  _status(old, code, note)))
    return plan


def write_plan(conn: sqlite3.Connection, plan: list[PlannedRating], index: ItemIndex,
               aids: dict[str, int], scale: Scale, source: str) -> dict[str, int]:
    """Write the added and changed ratings of a plan (inside the caller's transaction)."""
    counts = {"added": 0, "changed": 0, "unchanged": 0}
    now = time.time()
    writes, log = [], []

    def score(code: int | None) -> float | None:
        return None if code is None else scale.from_code(code)

    for p in plan:
        if p.status == "unchanged":
            counts["unchanged"] += 1
            continue
        counts["added" if p.status == "added" else "changed"] += 1
        writes.append((index.ord[p.item_id], aids[p.annotator], p.code, p.note or p.old_note,
                       0, None, now))
        log.append((now, source, "rating", p.item_id, p.annotator, dumps(score(p.old_code)),
                    dumps(score(p.code))))
    conn.executemany("INSERT OR REPLACE INTO ratings VALUES (?,?,?,?,?,?,?)", writes)
    conn.executemany("INSERT INTO changes (at, who, kind, item_id, annotator, old, new) "
                     "VALUES (?,?,?,?,?,?,?)", log)
    return counts
