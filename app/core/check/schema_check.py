"""What the schema declares, checked in a project file: every table, column, index (unique
ones by content too) and trigger this version of simrate creates, and the texts of every
TEXT column.

The reference is not a list kept by hand: it is read from sqlite_master and the table
pragmas of a file built in memory by the statements the app itself runs (store.SCHEMA and
the raters' namespace, as `create_store` does; the tables team work, crowd batches, web
studies, invitations, imports and a hub replica add on first use). Those added on first
use are expected by group: a file with one web table must have them all.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from functools import lru_cache

from simrate.core.base.errors import cut

#: How many problems are listed, at most, per kind (as integrity.LIMIT).
LIMIT = 20
#: Objects added by an upgrade: a file of an older schema (read where it cannot be
#: upgraded) lacks them without damage. Name (or table.column) -> the version adding it.
SINCE = {"annotators.kind": 3, "import_replaced.was_batch": 4, "annotators.key": 5,
         "annotators_key": 5, "annotators_top": 5, "items_dataset": 2}


@dataclass
class Table:
    """One table as the reference declares it."""

    columns: list[str]
    texts: list[str]
    key: str
    #: (unique, columns) of each index, by index name (constraints: "UNIQUE (cols)").
    indexes: dict[str, tuple[bool, tuple[str, ...]]] = field(default_factory=dict)


@dataclass
class Reference:
    """The tables, their groups (optional ones) and the triggers of this version."""

    tables: dict[str, Table]
    groups: list[frozenset[str]]
    triggers: dict[str, tuple[str, str]]  # name -> (table, sql with spaces made single)


def _decode(value: object) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _indexes(conn: sqlite3.Connection, table: str) -> dict[str, tuple[bool, tuple[str, ...]]]:
    found = {}
    for row in conn.execute(f'PRAGMA index_list("{table}")').fetchall():
        name, unique, origin = _decode(row[1]), row[2], _decode(row[3])
        columns = tuple(_decode(r[2]) for r in conn.execute(f'PRAGMA index_info("{name}")'))
        kind = "PRIMARY KEY" if origin == "pk" else "UNIQUE"
        found[name if origin == "c" else f"{kind} ({', '.join(columns)})"] = (bool(unique),
                                                                             columns)
    return found


def _table(conn: sqlite3.Connection, name: str) -> Table:
    info = conn.execute(f'PRAGMA table_info("{name}")').fetchall()
    keys = [r[1] for r in sorted(info, key=lambda r: r[5]) if r[5]]
    return Table([r[1] for r in info], [r[1] for r in info if str(r[2]).upper() == "TEXT"],
                 keys[0] if keys else "rowid", _indexes(conn, name))


def _optional_schemas() -> list[str]:
    from simrate.core.data.replica_tables import OUTBOX_TABLE, REPLICA_SCHEMA, UNDO_MARKS_TABLE
    from simrate.core.edits.writes import OVERWRITTEN_TABLE
    from simrate.core.team.crowd import CROWD_SCHEMA
    from simrate.core.team.crowdweb.training import TRAINING_SCHEMA
    from simrate.core.team.invites import INVITE_SCHEMA
    from simrate.core.team.teamdb import TEAM_SCHEMA
    from simrate.core.team.web_tables import WEB_SCHEMA

    return [TEAM_SCHEMA, CROWD_SCHEMA, WEB_SCHEMA, TRAINING_SCHEMA, INVITE_SCHEMA,
            REPLICA_SCHEMA, OUTBOX_TABLE, UNDO_MARKS_TABLE, OVERWRITTEN_TABLE]


@lru_cache(maxsize=1)
def reference() -> Reference:
    """What this version creates, read back from a file it built in memory."""
    from simrate.core.data import raters
    from simrate.core.data.store import SCHEMA

    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(SCHEMA)
        for statement in raters.STATEMENTS:
            conn.execute(statement)
        groups = []
        for schema in _optional_schemas():
            before = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
            conn.executescript(schema)
            groups.append(frozenset(r[0] for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'") if r[0] not in before))
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = "
                                            "'table' AND name NOT LIKE 'sqlite_%'")]
        triggers = {name: (table, " ".join(sql.split())) for name, table, sql in conn.execute(
            "SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger'")}
        return Reference({name: _table(conn, name) for name in names}, groups, triggers)
    finally:
        conn.close()


def _version(conn: sqlite3.Connection) -> int:
    from simrate.core.data.store import SCHEMA_VERSION

    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.DatabaseError:
        return SCHEMA_VERSION
    text = _decode(row[0]) if row else ""
    return int(text) if text.isascii() and text.isdigit() and len(text) < 10 \
        else SCHEMA_VERSION


def _missing_ok(name: str, version: int) -> bool:
    return version < SINCE.get(name, 0)


def expected(conn: sqlite3.Connection) -> tuple[dict[str, Table], set[str]]:
    """The tables this file must have (the core ones, and every table of an optional
    group it has one of), and the tables it has."""
    ref = reference()
    present = {_decode(r[0]) for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")}
    wanted = set(ref.tables) - {name for group in ref.groups for name in group}
    for group in ref.groups:
        if group & present:
            wanted |= group
    return {name: ref.tables[name] for name in ref.tables if name in wanted}, present


def schema_check(conn: sqlite3.Connection, quick: bool) -> list[str]:
    """Tables, columns, indexes and triggers against the reference; the schema version."""
    problems = _version_problem(conn)
    tables, present = expected(conn)
    version = _version(conn)
    for name, table in tables.items():
        if name not in present:
            problems.append(f"table {name} is missing")
            continue
        problems += _column_problems(conn, name, table, version)
        problems += _index_problems(conn, name, table, version)
    return problems + _trigger_problems(conn, present, version)


def _version_problem(conn: sqlite3.Connection) -> list[str]:
    from simrate.core.data.store import SCHEMA_VERSION

    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.DatabaseError:
        return []
    text = _decode(row[0]) if row else "1"
    if text.isascii() and text.isdigit() and 1 <= int(text) <= SCHEMA_VERSION:
        return []
    return [f"the schema version is {cut(repr(text), 40)}, which no simrate writes (this one "
            f"writes 1 to {SCHEMA_VERSION})"]


def _column_problems(conn: sqlite3.Connection, name: str, table: Table,
                     version: int) -> list[str]:
    have = [_decode(r[1]) for r in conn.execute(f'PRAGMA table_info("{name}")')]
    problems = []
    for column in table.columns:
        if column in have or _missing_ok(f"{name}.{column}", version):
            continue
        extra = sorted(set(have) - set(table.columns))
        hint = f" (renamed to {', '.join(extra)}?)" if extra else ""
        problems.append(f"table {name} has no column {column}{hint}")
    return problems


def _index_problems(conn: sqlite3.Connection, name: str, table: Table,
                    version: int) -> list[str]:
    have = _indexes(conn, name)
    shapes = set(have.values())
    problems = []
    for label, (unique, columns) in table.indexes.items():
        if (unique, columns) in shapes or _missing_ok(label, version):
            continue
        if label in have and have[label][1] == columns and not have[label][0]:
            problems.append(f"index {label} of table {name} is not UNIQUE")
        elif label.startswith(("UNIQUE", "PRIMARY")):
            problems.append(f"table {name}: its {label} constraint is missing")
        else:
            problems.append(f"index {label} of table {name} is missing or changed")
    return problems


def _trigger_problems(conn: sqlite3.Connection, present: set[str],
                      version: int) -> list[str]:
    ref = reference()
    have = {_decode(n): " ".join(_decode(s).split()) for n, s in conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'trigger'")}
    problems = []
    for name, (table, sql) in ref.triggers.items():
        if table in present and have.get(name) != sql and not _missing_ok(name, version):
            problems.append(f"trigger {name} is {'changed' if name in have else 'missing'}")
    for name in sorted(set(have) - set(ref.triggers)):
        if not name.startswith("hub_"):  # a replica's outbox (made by the hub adapter)
            problems.append(f"trigger {cut(name, 40)} is not simrate's: it may change what "
                            "is stored")
    return problems


def unique_check(conn: sqlite3.Connection, quick: bool) -> list[str]:
    """Every UNIQUE index and constraint of the reference, by content: an index that lost
    its UNIQUE, or damage SQLite's own check misses, lets two rows share a key."""
    if quick:
        return []
    tables, present = expected(conn)
    problems = []
    for name, table in tables.items():
        have = set(_columns(conn, name)) if name in present else set()
        for unique, columns in table.indexes.values():
            if not unique or not set(columns) <= have:
                continue
            cols = ", ".join(f'"{c}"' for c in columns)
            (n,) = conn.execute(
                f'SELECT count(*) FROM (SELECT 1 FROM "{name}" NOT INDEXED WHERE '
                + " AND ".join(f'"{c}" IS NOT NULL' for c in columns)
                + f" GROUP BY {cols} HAVING count(*) > 1)").fetchone()
            if n:
                problems.append(f"table {name}: {n} value(s) of ({', '.join(columns)}) are "
                                "held by more than one row, where each must be unique")
    return problems


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [_decode(row[1]) for row in conn.execute(f'PRAGMA table_info("{table}")')]


def text_check(conn: sqlite3.Connection, quick: bool) -> list[str]:
    """Every TEXT column of every table the file must have holds valid UTF-8."""
    tables, present = expected(conn)
    problems = []
    for name, table in tables.items():
        have = set(_columns(conn, name)) if name in present else set()
        key = table.key if table.key in have or table.key == "rowid" else "rowid"
        for column in (c for c in table.texts if c in have):
            bad, first = 0, ""
            for row_key, value in conn.execute(
                    f'SELECT "{key}", "{column}" FROM "{name}" '
                    f"WHERE typeof(\"{column}\") = 'text'"):
                try:
                    value.decode("utf-8")
                except UnicodeDecodeError:
                    bad += 1
                    first = first if bad > 1 else _decode(row_key)
            if bad:
                problems.append(f"{name}.{column}: {bad} text(s) not valid UTF-8 "
                                f"(first at {key} {cut(first, 40)})")
    return problems[:LIMIT]
