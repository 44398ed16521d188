"""Publishing puts the rules of stored scores into the hub (hub/schema/scale_sql.py), with
the highest code of the scale the hub holds (its `settings` row `scale`, fixed at the first
publish; the project's own on a new hub).

A hub published by an older simrate may hold scores it should have refused (a code off the
scale, a rating both skipped and scored). Publishing again reports them, in the report's
`off_scale` lines (a count, then the first few, one line each), and leaves them where they
are: the constraint is added NOT VALID, so every new write is checked while those rows stay
readable; replicas keep them out of agreement and gold (hub/team/kept_out.py); an organizer
clears one by rating or adjudicating the item again. Once none is left, publishing
validates the constraint.
"""

from __future__ import annotations

import json
from typing import Any

from simrate.core.base.scale import Scale
from simrate.hub.schema.scale_sql import broken_rows_sql, scale_statements, validate_sql

#: How many of an older hub's off-scale rows the report names one by one.
LISTED = 5


def hub_scale(conn: Any, fallback: Scale) -> Scale:
    """The scale the hub was published with (`fallback` when it holds none yet)."""
    row = conn.execute("SELECT value FROM simrate.settings WHERE key = 'scale'").fetchone()
    return fallback if row is None else Scale.from_dict(json.loads(row[0]))


def enforce_scale(conn: Any, fallback: Scale) -> tuple[str, ...]:
    """Install the triggers and constraints of stored scores (run as the owner role);
    returns the lines that report rows written before (empty: none, and the constraints
    are validated)."""
    scale = hub_scale(conn, fallback)
    for statement in scale_statements(scale.max_code, scale.describe()):
        conn.execute(statement)
    rows = conn.execute(broken_rows_sql(scale.max_code, LISTED)).fetchall()
    if not rows:
        conn.execute(validate_sql())
        return ()
    return report_lines(rows, scale)


def report_lines(rows: list[tuple], scale: Scale) -> tuple[str, ...]:
    """A count with the first rows, one line each: (table, item, annotator, code, skipped,
    count) rows of broken_rows_sql."""
    total = rows[0][-1]
    head = (f"the hub holds {total} score(s) written before it refused them (off the scale "
            f"{scale.describe()}, or skipped and scored): they stay on the hub, every "
            "replica keeps them out of agreement and gold, and an organizer clears one by "
            "rating or adjudicating the item again; new ones are refused")
    lines = [head + (f"; the first {len(rows)}:" if total > len(rows) else ":")]
    for table, item, who, code, skipped, _count in rows:
        what = f"{item} rated by {who}" if table == "ratings" else f"the verdict on {item}"
        lines.append(f"  {what}: code {code}" + (", marked skipped" if skipped else ""))
    return tuple(lines)
