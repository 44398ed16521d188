"""The bulk imports of `Project`: items, ratings (planned, then written all or nothing),
and undoing one import. A part of the facade kept in a module of its own; `Project`
inherits these methods, so callers write `project.import_ratings(...)` as before.

Each is one transaction; memory (the item index, the roster, `last_import`) changes only
after it commits, and one event tells subscribers.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol

import pandas as pd

from simrate.core.base.errors import SimrateError
from simrate.core.base.events import Event, ImportUndone, ItemsImported, RatingsImported
from simrate.core.base.frames import ITEM_COLUMNS, line_at
from simrate.core.base.names import nfc_columns
from simrate.core.base.scale import Scale
from simrate.core.data.changelog import log_change
from simrate.core.data.item_index import ItemIndex
from simrate.core.data.store import HUMAN, transaction
from simrate.core.edits.edit import Edit
from simrate.core.edits.roster import Roster
from simrate.core.imports.import_log import find_import, undo_bulk_import
from simrate.core.imports.items_import import check_present, check_references, insert_items
from simrate.core.imports.ratings_import import (
    PlannedRating,
    check_kinds,
    plan_arrays,
    planned_list,
    write_arrays,
)


class ImportHost(Protocol):
    """What the import methods use of the object they are part of (`Project`): its file and
    connection, scale, item index and roster, its one write transaction and its one way out
    to subscribers. mypy checks at each call that `Project` provides all of it."""

    path: Path
    scale: Scale
    roster: Roster
    last_import: int
    _conn: sqlite3.Connection
    _index: ItemIndex

    def edit(self, foreign_keys: bool = True, undo: bool = False,
             bulk: int = ...) -> AbstractContextManager[Edit]: ...

    def _load_index(self) -> None: ...

    def _publish(self, event: Event) -> None: ...


class ImportMethods:
    """Bulk imports, for `Project`: each method takes its host as an `ImportHost`."""

    def import_items(self: ImportHost, frame: pd.DataFrame, source: str = "",
                     progress: Callable[[int, int], None] | None = None) -> tuple[int, int]:
        """Add items from a reader's frame, all or nothing; returns (added, already_present).
        `progress(written, to write)` follows the writing (a terminal's progress line)."""
        missing = [c for c in ITEM_COLUMNS if c not in frame.columns]
        if missing:
            raise SimrateError(f"item table lacks columns {missing}", source or None)
        scale = self.scale
        check_references(frame, scale.low, scale.high, scale.describe(), source)
        normal = nfc_columns(frame, ("item_id", "dataset"))  # see app/core/base/names.py
        if normal is not frame:
            twice = normal["item_id"].duplicated(keep="first").to_numpy()
            if twice.any():
                row = int(twice.argmax())
                item = normal["item_id"].iat[row]
                first = line_at(normal, int((normal["item_id"] == item).to_numpy().argmax()))
                raise SimrateError(f"item id {item!r} is given twice (first on line {first}), "
                                   "written once with composed and once with combining "
                                   "characters", source or None, line_at(normal, row))
        frame, batch = normal, 0
        with transaction(self._conn, self.path) as conn:
            present = check_present(conn, frame, source)
            first, added = insert_items(conn, frame[~present], source, progress)
            if added:
                batch = log_change(conn, "import_items", who=source, new={
                    "source": source, "added": added, "already": int(present.sum()),
                    "first_ord": first})
        if added:  # only now that it committed
            self.last_import = batch
            self._load_index()
            self._publish(ItemsImported(added))
        return added, int(present.sum())

    def undo_import(self: ImportHost, batch: int | None = None, by: str = "",
                    keep_newer: bool = False, over_adjudications: bool = True) -> dict:
        """Undo one bulk import (of items or ratings) by its change-log id, default the last
        one not yet undone (an import that changed nothing leaves no entry, so it is never
        the one); logged. Returns what was undone: kind, batch, source, counts. Refused,
        nothing changed, when ratings it wrote were changed since, unless `keep_newer`
        (those stay: `kept_newer`), and with `over_adjudications` False when adjudicated
        items rest on what it wrote (`simrate import --undo` without --yes)."""
        with self.edit(undo=True) as change:  # an undo is an edit made now (writes.py)
            entry, counts = undo_bulk_import(change.conn, batch, by, keep_newer,
                                             over_adjudications)
        self._load_index()  # the roster too: the annotators the import added may be gone
        self._publish(ImportUndone(entry.batch, entry.kind))
        return {"kind": entry.kind, "batch": entry.batch, "source": entry.source, **counts}

    def import_to_undo(self: ImportHost) -> dict | None:
        """The import `undo_import()` would take back: batch, kind, source (None: none)."""
        try:
            entry = find_import(self._conn)
        except SimrateError:
            return None
        return {"batch": entry.batch, "kind": entry.kind, "source": entry.source}

    def plan_ratings(self: ImportHost, frame: pd.DataFrame, source: str = "") -> list[PlannedRating]:
        """Classify each rating of a table, writing nothing; SimrateError at the first bad row."""
        frame = nfc_columns(frame, ("item_id", "annotator"))
        frame = self.roster.one_spelling(self._conn, frame, source)
        return planned_list(plan_arrays(self._conn, frame, self._index, self.scale, source,
                                        self.roster.ids()))

    def import_ratings(self: ImportHost, frame: pd.DataFrame, source: str = "", kind: str = HUMAN,
                       items: pd.DataFrame | None = None) -> dict[str, int]:
        """Add ratings from a reader's frame, all or nothing; counts added/changed/unchanged.
        `items` (an item frame of items the project lacks, e.g. a crowd results file's own
        texts) go in first, in the same transaction. One change-log entry, naming the items
        and annotators it added, so that one undo takes all of it back; `last_import` is
        its id (0 if nothing written). Every rater is of `kind` (people, a machine rater,
        crowd workers): a name held by an annotator of another kind is refused with its
        line, never written into."""
        added: dict[str, int] = {}
        frame = nfc_columns(frame, ("item_id", "annotator"))  # see app/core/base/names.py
        with self.edit(foreign_keys=False) as change:  # see write_arrays
            conn = change.conn
            first, new_items, index = _new_items(self, conn, items, source)
            frame = self.roster.one_spelling(conn, frame, source)  # `ANA` is `ana`
            known = dict(conn.execute("SELECT name, id FROM annotators"))
            plan = plan_arrays(conn, frame, index, self.scale, source, known)
            check_kinds(plan, self.roster.kinds(conn), kind, source)
            aids = [self.roster.id_for(conn, name, added, kind) for name in plan.names]
            extra: dict[str, object] = {"created": sorted(added)}
            if new_items:
                extra.update(items_added=new_items, first_ord=first)
            counts, batch = write_arrays(conn, plan, aids, source, extra)
            if new_items and not batch:  # nothing rated: the items are an import of their own
                batch = log_change(conn, "import_items", who=source, new={
                    "source": source, "added": new_items, "already": 0, "first_ord": first})
        self.last_import = batch  # only now that it committed
        self.roster.remember(added)
        if new_items:
            self._index = index
            self._publish(ItemsImported(new_items))
        if counts["added"] or counts["changed"]:
            self._publish(RatingsImported(counts))
        return counts



def _new_items(host: ImportHost, conn: sqlite3.Connection, items: pd.DataFrame | None,
               source: str) -> tuple[int, int, ItemIndex]:
    """Insert the items a ratings file brings (none may be in the project already):
    (first new ord, how many, the item index that includes them)."""
    if items is None or not len(items):
        return 0, 0, host._index
    items = nfc_columns(items, ("item_id", "dataset"))
    if check_present(conn, items, source).any():
        raise SimrateError("some of the new items are in the project already",
                           source or None)
    first, added = insert_items(conn, items, source)
    return first, added, ItemIndex.read(conn, host.path)
