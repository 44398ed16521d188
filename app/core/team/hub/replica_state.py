"""Reading a replica's values and its copies of the hub's values, by key, in bulk."""

from __future__ import annotations

from simrate.core.project import Project

#: Above this many keys a whole table is read once instead of one query per key.
BULK_KEYS = 400

ABSENT_RATING = (None, "", 0)


def local_ratings(project: Project, keys: list[tuple[str, str]]
                  ) -> dict[tuple[str, str], tuple]:
    """{(item_id, annotator): (code, note, skipped, seconds, updated_at)} for these keys."""
    if not keys:
        return {}
    sql = ("SELECT i.id, a.name, r.code, r.note, r.skipped, r.seconds, r.updated_at "
           "FROM ratings r JOIN items i ON i.ord = r.item_ord "
           "JOIN annotators a ON a.id = r.annotator_id")
    if len(keys) > BULK_KEYS:
        wanted = set(keys)
        return {(r[0], r[1]): tuple(r[2:]) for r in project.team_tables.read(sql)
                if (r[0], r[1]) in wanted}
    found = {}
    for item_id, annotator in keys:
        rows = project.team_tables.read(sql + " WHERE i.id = ? AND a.name = ?", (item_id, annotator))
        if rows:
            found[(item_id, annotator)] = tuple(rows[0][2:])
    return found


def hub_copies(project: Project, table: str, keys: list) -> dict:
    """The replica's copies of hub values for these keys: {key: values tuple}."""
    if not keys:
        return {}
    columns = {"hub_ratings": ("item_id, annotator", "code, note, skipped", 2),
               "hub_adjudications": ("item_id", "code, note", 1),
               "hub_annotators": ("name", "excluded", 1)}[table]
    key_cols, value_cols, width = columns
    if not project.team_tables.read("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (table,)):
        return {}
    sql = f"SELECT {key_cols}, {value_cols} FROM {table}"
    if len(keys) > BULK_KEYS:
        wanted = set(keys)
        rows = project.team_tables.read(sql)
    else:
        wanted = None
        where = " AND ".join(f"{c.strip()} = ?" for c in key_cols.split(","))
        rows = []
        for key in keys:
            rows.extend(project.team_tables.read(f"{sql} WHERE {where}", key if width > 1 else (key,)))
    found = {}
    for row in rows:
        key = tuple(row[:width]) if width > 1 else row[0]
        if wanted is None or key in wanted:
            found[key] = tuple(row[width:])
    return found


def adjudication_values(project: Project) -> dict[str, tuple]:
    """{item_id: (code, note, by, at)} of the replica's adjudications."""
    return {r[0]: tuple(r[1:]) for r in project.team_tables.read(
        "SELECT i.id, d.code, d.note, d.by, d.at FROM adjudications d "
        "JOIN items i ON i.ord = d.item_ord")}


def annotator_values(project: Project) -> dict[str, int]:
    """{name: excluded} of the replica's annotators."""
    return dict(project.team_tables.read("SELECT name, excluded FROM annotators"))
