"""Reading a returned annotator package: the checks a file must pass before it is merged."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from simrate.core.base.errors import SimrateError
from simrate.core.data.store import connect, open_store

#: Bumped when a package needs something this version cannot read.
PACKAGE_FORMAT = 1


@dataclass
class PackageContents:
    """What a returned package holds, read into memory."""

    path: Path
    meta: dict[str, str]
    texts: dict[str, tuple[str, str]]
    ratings: list[tuple]  # (item_id, annotator, code, note, skipped, seconds)


def _check_length(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse a file cut short: SQLite reads a partial last page as zeros without a word.

    The sizes come from SQLite (the page count it believes in and the page size) and from
    the file's status, never from opening the file ourselves: closing a descriptor of a
    database file would drop the locks of any connection this process has on it.
    """
    if Path(f"{path}-wal").exists() and Path(f"{path}-wal").stat().st_size:
        return  # pages may live in the WAL; the integrity check below still runs
    size = path.stat().st_size
    cut_short = SimrateError(f"the file is damaged (cut short at {size} bytes)", path)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    if page_size < 512 or size % page_size:
        raise cut_short
    try:
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
    except sqlite3.DatabaseError as exc:  # SQLite finds fewer pages than the header counts
        if "malformed" in str(exc).lower():
            raise SimrateError("the file is damaged (truncated or altered)", path) from None
        raise
    if pages * page_size > size:
        raise cut_short


#: What to do about a damaged package: the annotator's own copy is intact.
RESEND = "ask the annotator to send the package again (their copy keeps their ratings)"


def read_package(path: Path) -> PackageContents:
    """Read and check a returned package; SimrateError for anything wrong with the file."""
    try:
        probe = connect(path)  # SQLite's own view of the header, before anything else
    except (sqlite3.DatabaseError, SimrateError):
        probe = None  # not SQLite, or unreadable: open_store says which
    if probe is not None:
        try:
            _check_length(probe, path)
        except sqlite3.DatabaseError:
            pass  # not SQLite after all: open_store says so
        finally:
            probe.close()
    conn, meta = open_store(path)  # not SQLite / not ours / newer schema: said there
    try:
        problems = [r[0] for r in conn.execute("PRAGMA quick_check")]
        if problems != ["ok"]:
            raise SimrateError(f"the file is damaged (truncated or altered: the integrity "
                               f"check found {len(problems)} problem"
                               f"{'s' * (len(problems) != 1)}); {RESEND}", path)
        texts = {i: (left, right) for i, left, right in
                 conn.execute("SELECT id, left, right FROM items")}
        ratings = conn.execute(
            "SELECT i.id, a.name, r.code, r.note, r.skipped, r.seconds FROM ratings r "
            "JOIN items i ON i.ord = r.item_ord JOIN annotators a ON a.id = r.annotator_id "
            "ORDER BY i.ord").fetchall()
    except sqlite3.DatabaseError:
        raise SimrateError(f"the file is damaged (truncated or altered); {RESEND}",
                           path) from None
    finally:
        conn.close()
    _check_package_meta(meta, path)
    return PackageContents(path, meta, texts, ratings)


def _check_package_meta(meta: dict[str, str], path: Path) -> None:
    """SimrateError unless the meta keys are a package's, of a format this version reads."""
    if "package_of" not in meta or "package_annotator" not in meta:
        raise SimrateError("not an annotator package (a plain project; packages are made "
                           "with `simrate package`)", path)
    try:
        written = str(meta.get("package_format", "1"))
        if not (written.isascii() and written.isdigit()):  # int() reads ３ and 1_0 too
            raise ValueError(written)
        made_with = int(written)
    except ValueError:
        raise SimrateError(f"unreadable package format {meta['package_format']!r}",
                           path) from None
    if made_with > PACKAGE_FORMAT:
        raise SimrateError(f"package made by a newer simrate (package format {made_with}, "
                           f"this version reads up to {PACKAGE_FORMAT}); please upgrade", path)
