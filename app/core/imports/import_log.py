"""The change-log entries of bulk imports: finding the one to undo."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from simrate.core.base.errors import SimrateError
from simrate.core.base.scale import Scale
from simrate.core.data.changelog import log_change
from simrate.core.edits import writes
from simrate.core.imports.items_import import undo_items_import
from simrate.core.imports.ratings_import import undo_ratings_import

IMPORT_KINDS = ("import_items", "import_ratings")


@dataclass(frozen=True)
class ImportEntry:
    """One bulk import as the change log records it (`batch` is the entry's id)."""

    batch: int
    kind: str
    source: str
    added: int
    first_ord: int
    items_added: int = 0  # a ratings import that brought its own items (crowd results)
    created: tuple[str, ...] = ()  # annotators a ratings import added to the project


def _undone(conn: sqlite3.Connection) -> set[int]:
    return {int(b) for (b,) in conn.execute(
        "SELECT json_extract(new, '$.batch') FROM changes WHERE kind = 'undo_import'")
        if b is not None}


def find_import(conn: sqlite3.Connection, batch: int | None = None) -> ImportEntry:
    """The import with change-log id `batch`, or (None) the last one not undone yet;
    SimrateError when there is no such import or it was undone already."""
    undone = _undone(conn)
    marks = ",".join("?" * len(IMPORT_KINDS))
    if batch is None:
        rows = conn.execute(f"SELECT id, kind, new FROM changes WHERE kind IN ({marks}) "
                            "ORDER BY id DESC", IMPORT_KINDS)
        row = next((r for r in rows if r[0] not in undone), None)
        if row is None:
            raise SimrateError("there is no import to undo")
    else:
        row = conn.execute(f"SELECT id, kind, new FROM changes WHERE id = ? AND kind IN "
                           f"({marks})", (batch, *IMPORT_KINDS)).fetchone()
        if row is None:
            raise SimrateError(f"change {batch} is not an import")
        if batch in undone:
            raise SimrateError(f"import {batch} was undone already")
    facts = json.loads(row[2]) if row[2] else {}
    if row[1] == "import_items" and "first_ord" not in facts:
        raise SimrateError(f"import {row[0]} was made by an older simrate, which did not "
                           "record its rows; it cannot be undone")
    return ImportEntry(int(row[0]), row[1], str(facts.get("source", "")),
                       int(facts.get("added", 0)), int(facts.get("first_ord", -1)),
                       int(facts.get("items_added", 0)), tuple(facts.get("created", ())))


def adjudicated_under(conn: sqlite3.Connection, entry: ImportEntry) -> list[str]:
    """Ids of the adjudicated items whose ratings (or, for items, the items themselves) the
    import wrote as they stand: undoing it takes away what those verdicts were made on."""
    args: tuple[int, ...]
    if entry.kind == "import_items":
        where, args = "a.item_ord BETWEEN ? AND ?", (entry.first_ord,
                                                     entry.first_ord + entry.added - 1)
    else:
        where, args = "a.item_ord IN (SELECT item_ord FROM ratings WHERE batch = ?)", (
            entry.batch,)
    return [item for (item,) in conn.execute(
        f"SELECT i.id FROM adjudications a JOIN items i ON i.ord = a.item_ord WHERE {where} "
        "ORDER BY a.item_ord", args)]


def refuse_over_adjudications(conn: sqlite3.Connection, entry: ImportEntry) -> None:
    """SimrateError, nothing changed, when adjudications rest on what the import wrote."""
    items = adjudicated_under(conn, entry)
    if not items:
        return
    shown = ", ".join(repr(i) for i in items[:3]) + (f" and {len(items) - 3} more"
                                                      if len(items) > 3 else "")
    what = "an adjudicated item" if len(items) == 1 else f"{len(items)} adjudicated items"
    raise SimrateError(f"import {entry.batch} ({entry.source or 'no source'}) wrote the ratings "
                       f"of {what} ({shown}): undoing it takes away what those verdicts were "
                       "made on; nothing was changed (--yes undoes it all the same)")


def undo_bulk_import(conn: sqlite3.Connection, batch: int | None, by: str,
                     keep_newer: bool = False, over_adjudications: bool = True
                     ) -> tuple[ImportEntry, dict[str, int]]:
    """Undo one bulk import (default: the last one not yet undone) inside the caller's
    transaction, and log it; returns the entry and the counts removed and restored.
    Refused when ratings it wrote were changed since, unless `keep_newer` (then they stay,
    counted as `kept_newer`), and, without `over_adjudications`, when adjudicated items rest
    on what it wrote."""
    entry = find_import(conn, batch)
    if not over_adjudications:
        refuse_over_adjudications(conn, entry)
    if entry.kind == "import_items":
        counts = {"removed": undo_items_import(conn, entry.first_ord, entry.added),
                  "restored": 0}
    else:
        newer = refuse_over_newer(conn, entry, keep_newer)
        counts = undo_ratings_import(conn, entry.batch)
        if newer:
            counts["kept_newer"] = newer
        if entry.items_added:
            counts["items_removed"] = undo_items_import(conn, entry.first_ord,
                                                        entry.items_added)
        if entry.created:
            counts["annotators_removed"] = writes.remove_unused_raters(conn, entry.created)
    log_change(conn, "undo_import", who=by,
               new={"batch": entry.batch, "source": entry.source, **counts})
    return entry, counts


def refuse_over_newer(conn: sqlite3.Connection, entry: ImportEntry, keep_newer: bool = False
                      ) -> int:
    """SimrateError, nothing changed, when a rating the import wrote was changed since by a
    single edit (another window, program or sync): undoing the import would leave that
    newer value and take the rest, or bring back an older value over a newer clear, so
    it is refused whole, naming the newer values (as undo of a single step is,
    writes.write_rating). With `keep_newer` the undo goes on around them: returns how many
    stay."""
    rows = writes.overwritten_rows(conn, entry.batch)
    if not rows or keep_newer:
        return len(rows)
    meta = conn.execute("SELECT value FROM meta WHERE key = 'scale'").fetchone()
    scale = Scale.from_dict(json.loads(meta[0]), "the project")

    def now(code: int | None, skipped: int) -> str:
        if skipped:
            return "skipped"
        return "cleared" if code is None else f"now {scale.from_code(code):g}"

    shown = ", ".join(f"{name}'s rating of {item!r} ({now(code, skipped)})"
                      for item, name, code, skipped in rows[:3])
    more = f" and {len(rows) - 3} more" if len(rows) > 3 else ""
    were = "was" if len(rows) == 1 else "were"
    raise SimrateError(f"import {entry.batch} cannot be undone: {len(rows)} of the ratings "
                       f"it wrote {were} changed since: {shown}{more}; the newer values stay "
                       "and nothing was changed (--keep-newer undoes the rest)")
