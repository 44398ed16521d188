"""What `simrate info` reports, from SQL aggregates: nothing is loaded to be counted.

This module imports neither pandas nor numpy, so a summary of a million-item project
costs SQLite's scans and an interpreter start, nothing more.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from app.core.errors import SimrateError
from app.core.scale import Scale, threshold_codes
from app.core.store import open_store


def flagged_count(conn: sqlite3.Connection, k: int) -> int:
    """Number of items flagged at a threshold of k codes, by the rule of
    app/core/review/flags.py: counted annotators' scores spread by k codes or more (which
    takes two of them), no adjudication. One pass over the ratings in key order; the
    clauses for left-out annotators and adjudications are left out when there are none (a
    third less work on the common case). MAX and MIN skip the NULL codes of skips."""
    left_out = _left_out_ids(conn)
    where = f"WHERE annotator_id NOT IN ({','.join(map(str, left_out))})" if left_out else ""
    sql = (f"SELECT item_ord FROM ratings {where} GROUP BY item_ord "
           "HAVING MAX(code) - MIN(code) >= ?")
    if conn.execute("SELECT 1 FROM adjudications LIMIT 1").fetchone():
        sql = f"{sql} EXCEPT SELECT item_ord FROM adjudications"
    return int(conn.execute(f"SELECT COUNT(*) FROM ({sql})", (k,)).fetchone()[0])


def _left_out_ids(conn: sqlite3.Connection) -> list[int]:
    """Ids of the annotators whose scores raise no flag: the excluded and machine raters
    (app/core/roster.py: Roster.left_out)."""
    kinds = {row[1] for row in conn.execute("PRAGMA table_info(annotators)")}
    machine = " OR kind = 'machine'" if "kind" in kinds else ""  # a read-only older file
    return [r[0] for r in conn.execute(f"SELECT id FROM annotators WHERE excluded = 1{machine}")]


def count_facts(conn: sqlite3.Connection, scale: Scale, threshold: float) -> dict:
    """items, annotators, ratings, skipped, flagged, adjudicated, datasets of an open file."""
    rows = conn.execute("SELECT COUNT(*) FROM ratings").fetchone()[0]
    skipped = conn.execute("SELECT COUNT(*) FROM ratings WHERE skipped != 0").fetchone()[0]
    return {
        "items": conn.execute("SELECT COUNT(*) FROM items").fetchone()[0],
        "annotators": [r[0] for r in conn.execute("SELECT name FROM annotators ORDER BY id")],
        "ratings": rows - skipped,
        "flagged": flagged_count(conn, threshold_codes(threshold, scale.step)),
        "adjudicated": conn.execute("SELECT COUNT(*) FROM adjudications").fetchone()[0],
        "skipped": skipped,
        # in order of first appearance, as pandas' value_counts(sort=False) gave them
        "datasets": {name: count for name, count, _first in conn.execute(
            "SELECT dataset, COUNT(*), MIN(ord) FROM items GROUP BY dataset ORDER BY 3")},
    }


def summary(path: str | Path) -> dict:
    """The facts `info` reports, with the keys of DESIGN.md, read with aggregates only."""
    path = Path(path)
    conn, meta = open_store(path)
    try:
        if "scale" not in meta:
            raise SimrateError("not a simrate project (no scale recorded)", path)
        scale = Scale.from_dict(json.loads(meta["scale"]), path)
        threshold = float(meta.get("threshold", "1.0"))
        facts = count_facts(conn, scale, threshold)
    finally:
        conn.close()
    return {**facts, "scale": {"low": scale.low, "high": scale.high, "step": scale.step},
            "title": meta.get("title", ""), "threshold": threshold,
            "describe": scale.describe()}
