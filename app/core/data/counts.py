"""What `simrate info` reports, from SQL aggregates: nothing is loaded to be counted.

This module imports neither pandas nor numpy, so a summary of a million-item project
costs SQLite's scans and an interpreter start, nothing more. On a large file `summary`
runs the scans on two threads, each on its own connection (SQLite works outside Python's
lock); the counts are kept only when no other connection committed in between.
"""

from __future__ import annotations

import json
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from simrate.core.base.errors import SimrateError
from simrate.core.base.flagrule import CodeRule, FlagRule
from simrate.core.base.scale import Scale
from simrate.core.data.store import open_store
from simrate.core.data.values import escaped

#: From this many items on, `summary` splits its scans over two threads.
PARALLEL_FROM = 100_000
_ALL_ORDS = (0, 2 ** 62)


def flagged_count(conn: sqlite3.Connection, k: int | CodeRule,
                  ords: tuple[int, int] = _ALL_ORDS) -> int:
    """Number of items flagged under a flag rule (a CodeRule, or k codes for the range rule
    alone), the rule of app/core/review/flags.py rendered as SQL
    (app/core/base/flagrule.py): counted annotators' scores meet it, no adjudication; only
    items whose ord is in [ords[0], ords[1]).
    One pass over the ratings in key order; the clauses for left-out annotators and
    adjudications are left out when there are none (a third less work on the common case).
    MAX and MIN skip the NULL codes of skips."""
    rule = k if isinstance(k, CodeRule) else CodeRule(k)
    left_out = _left_out_ids(conn)
    where = f"AND annotator_id NOT IN ({','.join(map(str, left_out))})" if left_out else ""
    sql = (f"SELECT item_ord FROM ratings WHERE item_ord >= ? AND item_ord < ? {where} "
           f"GROUP BY item_ord HAVING {rule.sql_having()}")
    if conn.execute("SELECT 1 FROM adjudications LIMIT 1").fetchone():
        sql = f"{sql} EXCEPT SELECT item_ord FROM adjudications"
    return int(conn.execute(f"SELECT COUNT(*) FROM ({sql})", ords).fetchone()[0])


def _left_out_ids(conn: sqlite3.Connection) -> list[int]:
    """Ids of the annotators whose scores raise no flag: the excluded and machine raters
    (app/core/edits/roster.py: Roster.left_out)."""
    kinds = {row[1] for row in conn.execute("PRAGMA table_info(annotators)")}
    machine = " OR kind = 'machine'" if "kind" in kinds else ""  # a read-only older file
    return [r[0] for r in conn.execute(f"SELECT id FROM annotators WHERE excluded = 1{machine}")]


def count_facts(conn: sqlite3.Connection, scale: Scale, rule: float | FlagRule) -> dict:
    """items, annotators, ratings, skipped, flagged, adjudicated, datasets of an open file
    (flagged under `rule`; a number is the range rule at that many points)."""
    rule = rule if isinstance(rule, FlagRule) else FlagRule("range", rule)
    facts = _other_facts(conn)
    facts["flagged"] = flagged_count(conn, rule.in_codes(scale.step))
    return facts


def _other_facts(conn: sqlite3.Connection) -> dict:
    """Every fact but the flagged count."""
    rows = conn.execute("SELECT COUNT(*) FROM ratings").fetchone()[0]
    skipped = conn.execute("SELECT COUNT(*) FROM ratings WHERE skipped != 0").fetchone()[0]
    return {
        "items": conn.execute("SELECT COUNT(*) FROM items").fetchone()[0],
        "annotators": [r[0] for r in conn.execute("SELECT name FROM annotators ORDER BY id")],
        "ratings": rows - skipped,
        "flagged": None,  # counted by the caller (the key keeps its place in the JSON)
        "adjudicated": conn.execute("SELECT COUNT(*) FROM adjudications").fetchone()[0],
        "skipped": skipped,
        # in order of first appearance, as pandas' value_counts(sort=False) gave them
        "datasets": {name: count for name, count, _first in conn.execute(
            "SELECT dataset, COUNT(*), MIN(ord) FROM items GROUP BY dataset ORDER BY 3")},
    }


def _facts_in_parallel(path: Path, conn: sqlite3.Connection, k: CodeRule) -> dict | None:
    """The facts, with the flagged count taken as two halves of the items, each on a
    connection of its own, while `conn` counts the rest. None when another connection
    committed meanwhile (PRAGMA data_version of `conn` moved), since the parts may then
    have seen different states."""
    top = conn.execute("SELECT MAX(item_ord) FROM ratings").fetchone()[0] or 0
    middle = (top + 1) // 2
    before = conn.execute("PRAGMA data_version").fetchone()[0]
    with ThreadPoolExecutor(2) as pool:
        halves = [pool.submit(_flagged_on_own_connection, path, k, ords)
                  for ords in ((0, middle), (middle, _ALL_ORDS[1]))]
        facts = _other_facts(conn)
        try:
            facts["flagged"] = sum(half.result() for half in halves)
        except (sqlite3.Error, OSError, SimrateError):
            return None  # a half could not open or read the file: count on `conn` alone
    if conn.execute("PRAGMA data_version").fetchone()[0] != before:
        return None
    return facts


def _flagged_on_own_connection(path: Path, k: CodeRule, ords: tuple[int, int]) -> int:
    conn, _meta = open_store(path)
    try:
        return flagged_count(conn, k, ords)
    finally:
        conn.close()


#: Change-log kind of a switch of the window's organizer mode (app/core/team/blind.py).
ORGANIZER_MODE = "organizer_mode"
#: Meta key: who switched organizer mode on, how often, when last ({name: [n, time]}), so
#: that `info` need not search the change log.
ORGANIZER_MODE_BY = "organizer_mode_by"


def describe_switches(text: str | None) -> str:
    """`ana 2x (last 2026-11-25 12:40 UTC), lead 1x (...)` from the meta value
    ORGANIZER_MODE_BY: who switched organizer mode on, how often and when last; empty
    when nobody did."""
    if not text:
        return ""
    return ", ".join(f"{who or '(no name)'} {count}x (last "
                     f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(at))})"
                     for who, (count, at) in json.loads(text).items())


def summary(path: str | Path) -> dict:
    """The facts `info` reports, with the keys of DESIGN.md, read with aggregates only."""
    path = Path(path)
    conn, meta = open_store(path)
    try:
        if "scale" not in meta:
            raise SimrateError("not a simrate project (no scale recorded)", path)
        scale = Scale.from_dict(json.loads(meta["scale"]), path)
        rule = FlagRule.from_meta(meta)
        threshold = rule.range_threshold
        facts = None
        if conn.execute("SELECT COUNT(*) FROM items").fetchone()[0] >= PARALLEL_FROM:
            facts = _facts_in_parallel(path, conn, rule.in_codes(scale.step))
        if facts is None:  # small, or written to meanwhile: one read transaction
            conn.execute("BEGIN")
            facts = count_facts(conn, scale, rule)
            conn.execute("COMMIT")
    finally:
        conn.close()
    return {**facts, "organizer_mode": meta.get(ORGANIZER_MODE_BY),
            "scale": {"low": scale.low, "high": scale.high, "step": scale.step},
            "title": escaped(meta.get("title", "")), "threshold": threshold,
            "flag_rule": rule.as_dict(),
            "describe": scale.describe()}
