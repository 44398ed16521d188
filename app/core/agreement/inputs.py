"""What `simrate agreement` needs of a project, read as columns (no Project, no DataFrame).

The result is long-form (app/core/agreement/sparse.py), so a crowd of 500 raters costs no
more than three.

The ratings come as integer arrays (app/core/data/columns.py); the flagged items follow from one
segmented max/min over them (review/flags.run_sums, which FlagIndex loads with). Only the item
ids are read as Python strings: the report names items by them.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import numpy as np

from simrate.core.agreement.sparse import LongRatings
from simrate.core.base.errors import SimrateError
from simrate.core.base.flagrule import CodeRule, FlagRule
from simrate.core.base.scale import Scale
from simrate.core.data.columns import CodeColumns, read_codes
from simrate.core.data.item_index import read_item_ids
from simrate.core.data.store import open_store
from simrate.core.review.flags import run_sums


def item_columns(ords: np.ndarray, item_ords: np.ndarray) -> np.ndarray:
    """Column (position in project order) of each ord; ords are positions unless the file
    was edited by hand."""
    if item_ords.size and item_ords[0] == 0 and item_ords[-1] == item_ords.size - 1:
        return ords
    return np.searchsorted(item_ords, ords)


def spread_flags(columns: CodeColumns, k: int | CodeRule, n_items: int,
                 column_of: np.ndarray) -> np.ndarray:
    """Per item (by column): True when its scores meet the flag rule (a CodeRule, or k codes
    of spread for the range rule alone) before adjudication. `columns` is in item order,
    scores only."""
    rule = k if isinstance(k, CodeRule) else CodeRule(k)
    flagged = np.zeros(n_items, dtype=bool)
    starts, count, spread, total, squares = run_sums(columns.ords, columns.codes)
    flagged[column_of[starts]] = rule.mask(count, spread, total, squares)
    return flagged


def _open(path: str | Path) -> tuple[sqlite3.Connection, dict, Scale]:
    path = Path(path)
    conn, meta = open_store(path)
    if "scale" not in meta:
        conn.close()
        raise SimrateError("not a simrate project (no scale recorded)", path)
    return conn, meta, Scale.from_dict(json.loads(meta["scale"]), path)


def _counted(conn: sqlite3.Connection, with_machines: bool) -> list[tuple[int, str]]:
    """(id, name) of the annotators whose ratings count: not excluded, people unless asked."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(annotators)")}
    kind = "kind" if "kind" in columns else "'human'"  # a read-only file of an older schema
    rows = conn.execute(f"SELECT id, name, excluded, {kind} FROM annotators ORDER BY id")
    return [(aid, name) for aid, name, excluded, who in rows
            if not excluded and (with_machines or who != "machine")]


def project_inputs(path: str | Path, by: str | None, with_machines: bool = False
                   ) -> tuple[LongRatings, set[str], dict[str, str] | None]:
    """(long-form ratings over every item and counted annotator, unadjudicated item ids,
    {item: group} or None) of a project file."""
    long, unadjudicated, group_of = project_columns(path, by, with_machines)
    return long, {long.units[i] for i in np.flatnonzero(unadjudicated).tolist()}, group_of


def project_columns(path: str | Path, by: str | None, with_machines: bool = False
                    ) -> tuple[LongRatings, np.ndarray, dict[str, str] | None]:
    """project_inputs with the unadjudicated items as a mask over long.units (no set of
    200,000 ids to build and test again)."""
    conn, meta, scale = _open(path)
    try:
        return connection_columns(conn, scale, FlagRule.from_meta(meta), by,
                                  with_machines)
    finally:
        conn.close()


def connection_columns(conn: sqlite3.Connection, scale: Scale, threshold: float | FlagRule,
                       by: str | None, with_machines: bool = False
                       ) -> tuple[LongRatings, np.ndarray, dict[str, str] | None]:
    """project_columns read on a connection that is open already (Project.agreement_columns:
    a process that has the file open reads it through its one connection)."""
    ids, ords = read_item_ids(conn)
    item_ords = np.arange(len(ids), dtype=np.int64) if ords is None else ords
    counted = _counted(conn, with_machines)
    top = conn.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM annotators").fetchone()[0]
    scores = read_codes(conn, scale.n_codes, "code IS NOT NULL AND skipped = 0")
    adjudicated = np.fromiter((r[0] for r in conn.execute(
        "SELECT item_ord FROM adjudications")), dtype=np.int64)
    group_of = None
    if by is not None:
        column = {"dataset": "dataset", "genre": "genre"}[by]
        group_of = dict(conn.execute(f"SELECT id, {column} FROM items"))
    row_of = np.full(top, -1, dtype=np.int64)
    row_of[[a for a, _ in counted]] = np.arange(len(counted))
    scores = scores.take(row_of[scores.aids] >= 0)
    column_of = item_columns(scores.ords, item_ords)
    long = LongRatings(column_of, row_of[scores.aids], scale.grid_values()[scores.codes],
                       ids, [name for _, name in counted])
    rule = threshold if isinstance(threshold, FlagRule) else FlagRule("range", threshold)
    settled = spread_flags(scores, rule.in_codes(scale.step), len(ids), column_of)
    settled[item_columns(adjudicated, item_ords)] = True
    return long, ~settled, group_of
