"""Damaged project files: what is damaged, and the way out.

A project file can be damaged underneath us: a page overwritten, a text that is no longer
UTF-8, a column renamed by another tool, a few random bytes changed. SQLite and Python then
raise their own errors (malformed database, "Could not decode to UTF-8", "no such column",
UnicodeDecodeError) from wherever the damaged part is first read. `damage_error` turns such a
failure into one "damaged project" SimrateError naming the file and the way out, and
`find_problems` is the check behind `simrate check PROJECT`: SQLite's integrity check, the
tables and columns we expect, the texts' encoding, and the values we rely on.

The command line and the window call `damage_error` at the one place where they turn
unexpected exceptions into messages, so every command and view is covered.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from simrate.core.base.errors import SimrateError, cut
from simrate.core.check.check_open import (  # noqa: F401 (CannotCheck, open_read_only: the API)
    CannotCheck,
    foreign_wal_problem,
    open_read_only,
    refuse_newer,
    stray_wal_problem,
    wal_beside,
    wal_stranger,
)
from simrate.core.check.schema_check import schema_check, text_check, unique_check

#: Words of SQLite and Python errors that mean the file itself is damaged.
_DAMAGE_WORDS = ("malformed", "not a database", "could not decode", "no such column",
                 "no such table", "foreign key mismatch", "corrupt", "unsupported file format",
                 "file is encrypted", "datatype mismatch")
#: Words that mean a passing condition of the machine, not a damaged file.
_PASSING_WORDS = ("locked", "busy", "full", "readonly", "read-only", "unable to open",
                  "disk i/o", "interrupted", "out of memory")
#: How many problems `simrate check` lists, at most, per kind.
LIMIT = 20


def way_out(path: str | Path) -> str:
    """The sentence that tells what to do with a damaged file."""
    return (f"'simrate check {path}' says what is damaged; "
            f"'simrate check {path} --salvage NEW.simrate' saves what can still be read")


def looks_like_damage(exc: BaseException) -> bool:
    """True for errors that only a damaged (or foreign-edited) project file raises."""
    if isinstance(exc, UnicodeDecodeError):
        return True
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    text = str(exc).lower()
    if any(word in text for word in _DAMAGE_WORDS):
        return True
    if any(word in text for word in _PASSING_WORDS):
        return False
    # The base class itself (not OperationalError, IntegrityError, ...) is SQLite's
    # SQLITE_CORRUPT / SQLITE_NOTADB family.
    return type(exc) is sqlite3.DatabaseError


def damaged(path: str | Path, what: str) -> SimrateError:
    """The one-line "damaged project" error for `path`."""
    return SimrateError(f"damaged project: {cut(_one_line(what), 100)}; {way_out(path)}", path)


def _one_line(text: str) -> str:
    """`text` with its line breaks and runs of spaces made single spaces (SQLite quotes
    schema statements, line breaks and all, in its errors)."""
    return " ".join(text.split())


def with_way_out(exc: SimrateError, project: str | Path | None = None) -> SimrateError:
    """`exc`, with the way out added when it says a project file cannot be read (a damaged
    row read without knowing its file is named as in `project`)."""
    if exc.path is None and project is not None and exc.message.startswith("damaged project"):
        exc = SimrateError(exc.message, project, exc.line)
    if exc.path is None or "simrate check" in exc.message or not exc.message.startswith(
            ("not a readable simrate project", "damaged project")):
        return exc
    head, _, detail = exc.message.partition(": ")
    return type(exc)(f"{head}: {cut(_one_line(detail), 100)}; {way_out(exc.path)}",
                     exc.path, exc.line)


def damage_error(exc: BaseException, paths: list[str | Path]) -> SimrateError | None:
    """A "damaged project" SimrateError for an unexpected failure, or None if it is not one.

    `paths` are the project files the failed action had open, the main project first. The
    first one found damaged is named, with its first problem; an error that only damage
    raises names the first file even when the quick check finds nothing more.
    """
    candidates = [Path(p) for p in paths if p is not None and Path(p).is_file()]
    for path in candidates:
        try:
            problems = find_problems(path, quick=True)
        except Exception:  # noqa: BLE001 - CannotCheck, or anything: never hide the first error
            problems = []
        if problems:
            return damaged(path, problems[0])
    if not looks_like_damage(exc):
        return None
    if candidates:
        return damaged(candidates[0], _plain(exc))
    return SimrateError(f"damaged project: {cut(_one_line(_plain(exc)), 100)}; "
                        f"{way_out('PROJECT')}")


def _plain(exc: BaseException) -> str:
    """The message of an SQLite or decode error, without its class name."""
    if isinstance(exc, UnicodeDecodeError):
        return f"a text is not valid UTF-8 ({exc.reason})"
    text = str(exc)
    if "could not decode to utf-8" in text.lower():
        return "a text is not valid UTF-8"
    return text


def find_problems(path: str | Path, quick: bool = False) -> list[str]:
    """What is damaged in the project file at `path`, one sentence per problem ([] if none).

    `quick` uses SQLite's quick_check (no index cross-check) and stops at the first kind of
    problem found; `simrate check` runs everything. CannotCheck when the file cannot be
    opened at all (that says nothing about damage); SimrateError when a newer simrate made
    it. When the file is sound without its -wal file, that is the one problem told.
    """
    path = Path(path)
    wal, why = wal_beside(path), wal_stranger(path)
    if wal is not None and why is not None:  # never applied, not even to check the file
        problems = _problems(path, quick, without_wal=True)
        return [foreign_wal_problem(path, wal, why, not problems)] + problems
    problems = _problems(path, quick, without_wal=False)
    # only SQLite's own complaints can come from a -wal of another file: a renamed column
    # or a bad value in a sound -wal is the project's own change, damaged
    if problems and wal is not None and problems[0].startswith("SQLite"):
        try:
            if not _problems(path, quick, without_wal=True):
                return [stray_wal_problem(path, wal)]
        except (CannotCheck, SimrateError):
            pass
    return problems


def _problems(path: Path, quick: bool, without_wal: bool) -> list[str]:
    try:
        conn = open_read_only(path, without_wal)
    except sqlite3.DatabaseError as exc:
        return [f"SQLite cannot read the file: {_one_line(_plain(exc))}"]
    try:
        refuse_newer(conn, path)
        problems: list[str] = []
        for label, step in _STEPS:
            try:
                problems += step(conn, quick)
            except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
                problems.append(f"{label}: {_one_line(_plain(exc))}")
                if step is _sqlite_check:
                    break  # SQLite cannot even check the file: nothing more can be read
            if problems and quick:
                break
        return problems
    finally:
        conn.close()


def _decode(value: object) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _sqlite_check(conn: sqlite3.Connection, quick: bool) -> list[str]:
    pragma = "quick_check" if quick else "integrity_check"
    rows = conn.execute(f"PRAGMA {pragma}({LIMIT})").fetchall()
    found = [_decode(row[0]).replace("\n", " ").replace("*** in database main *** ", "")
             for row in rows]
    return [] if found == ["ok"] else [f"SQLite integrity check: {cut(text, 200)}"
                                       for text in found]


def _meta(conn: sqlite3.Connection) -> dict[str, str]:
    try:
        rows = conn.execute("SELECT key, value FROM meta").fetchall()
    except sqlite3.DatabaseError:
        return {}
    return {_decode(k): _decode(v) for k, v in rows}


def _reference_check(conn: sqlite3.Connection, quick: bool) -> list[str]:
    problems = []
    try:
        rows = conn.execute("PRAGMA foreign_key_check").fetchall()
    except sqlite3.OperationalError as exc:  # "foreign key mismatch": a damaged table
        return [_plain(exc)]
    counts: dict[tuple[str, str], int] = {}
    for table, _rowid, parent, _fk in rows:
        key = (_decode(table), _decode(parent))
        counts[key] = counts.get(key, 0) + 1
    for (table, parent), n in sorted(counts.items()):
        problems.append(f"table {table}: {n} row(s) name a row of {parent} that does not exist")
    return problems


def _value_check(conn: sqlite3.Connection, quick: bool) -> list[str]:
    """Meta values and scores as the rest of simrate relies on them."""
    from simrate.core.base.scale import Scale
    from simrate.core.data.meta import check_meta

    meta = _meta(conn)
    try:
        check_meta(meta)
        scale = Scale.from_dict(json.loads(meta["scale"]))
    except KeyError:
        return ["the meta table records no scale"]
    except SimrateError as exc:
        return [exc.message.removeprefix("damaged project: ")]
    except ValueError:
        return ["the stored scale is not a JSON object"]
    problems = []
    for table in ("ratings", "adjudications"):
        row = conn.execute(
            f"SELECT count(*) FROM {table} WHERE code IS NOT NULL AND "
            f"(typeof(code) != 'integer' OR code < 0 OR code > ?)", (scale.max_code,)).fetchone()
        if row[0]:
            problems.append(f"table {table}: {row[0]} score(s) off the scale "
                            f"{scale.describe()}")
    return problems


def _web_check(conn: sqlite3.Connection, quick: bool) -> list[str]:
    """The web studies' settings and the times of their tasks, as the web page relies on."""
    from simrate.core.team.web_tables import STUDY_COLUMNS, study_row_problem

    present = {_decode(r[0]) for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'web_%'")}
    problems = []
    if "web_studies" in present:
        for row in conn.execute(f"SELECT {STUDY_COLUMNS} FROM web_studies").fetchmany(LIMIT):
            problem = study_row_problem(tuple(_decode(v) if isinstance(v, bytes) else v
                                              for v in row))
            problems += [problem] if problem else []
    if "web_tasks" in present:
        (bad,) = conn.execute(
            "SELECT count(*) FROM web_tasks WHERE typeof(leased_at) NOT IN ('real', 'integer')"
            " OR typeof(expires_at) NOT IN ('real', 'integer')").fetchone()
        problems += [f"table web_tasks: {bad} task(s) whose lease times are not numbers"
                     ] if bad else []
    return problems


def hub_notes(path: str | Path) -> list[str]:
    """What `simrate check` says besides damage: scores a hub let in before it refused
    them, which a replica met in a pull and kept out (its table `hub_kept_out`, filled by
    hub/team/kept_out.py); they are not stored as ratings, so they are no damage."""
    try:
        conn = open_read_only(Path(path), wal_stranger(Path(path)) is not None)
    except (sqlite3.DatabaseError, CannotCheck):
        return []
    try:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' "
                        "AND name = 'hub_kept_out'").fetchone() is None:
            return []
        (count,) = conn.execute("SELECT count(*) FROM hub_kept_out").fetchone()
    except sqlite3.DatabaseError:
        return []
    finally:
        conn.close()
    return [f"{count} off-scale values from the hub, kept out of agreement and gold "
            "(written on the hub before it refused them; not stored here)"] if count else []


#: The checks of `find_problems`, in order, with what each reads (for its messages).
_STEPS = (
    ("SQLite cannot check the file", _sqlite_check),
    ("reading the list of tables", schema_check),
    ("checking references between tables", _reference_check),
    ("checking what must be unique", unique_check),
    ("reading the texts", text_check),
    ("reading the scores", _value_check),
    ("reading the web studies", _web_check),
)
