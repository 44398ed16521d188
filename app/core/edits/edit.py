"""`Project.edit()`: the one write transaction through which ratings, adjudications and
exclusions change, whatever the source (the window, the API, imports and their undo,
package merges, web studies on a file, hub pulls).

Inside it, `Edit.rate`, `Edit.verdict` and `Edit.exclude` write through
app/core/edits/writes.py (one stamp rule, one change-log entry per change, a no-op writes
nothing); after the commit, and only then, the project's memory is updated and one typed
event per change is published (many ratings at once: one bulk event). A write with
`expect` (an undo or a redo) is marked in the hub's outbox as an undo (see writes.py).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from simrate.core.base.events import (
    AdjudicationChanged,
    AnnotatorExcluded,
    Event,
    RatingsImported,
    RatingState,
    Verdict,
)
from simrate.core.base.names import nfc
from simrate.core.data import raters
from simrate.core.data.store import HUMAN, transaction
from simrate.core.edits import writes

#: The project (app/core/project.py, which imports this module: not imported back).
Project = Any

#: Above this many ratings in one edit, subscribers hear one bulk event instead.
BULK = 2000

_EMPTY = RatingState()


class Edit:
    """One open write transaction of a project (see the module's docstring)."""

    def __init__(self, project: Project, conn: sqlite3.Connection, bulk: int = BULK):
        self.project, self.conn, self.bulk = project, conn, bulk
        self.added: dict[str, int] = {}  # annotators added, for the roster after commit
        self._ratings: list[tuple] = []
        self._events: list[Event] = []

    def rater(self, name: str, kind: str = HUMAN, strict: bool = False) -> int:
        """The annotator's id, adding them (of `kind`) inside this transaction (see
        Roster.resolve: the rater of the name's key; `strict` refuses another kind's)."""
        return self.project.roster.id_for(self.conn, name, self.added, kind, strict)

    def rate(self, item_id: str, annotator: str, wanted: RatingState,
             expect: RatingState | None = None, at: float | None = None,
             ord_: int | None = None, aid: int | None = None,
             who: str = "", strict: bool = False) -> tuple[RatingState, RatingState]:
        """Write one rating (see writes.write_rating); (old, new), new is old when nothing
        changed. `ord_`/`aid` when the caller read them in this transaction already; the
        rating goes under the stored spelling of the name's rater (`ANA` is `ana`), and
        with `strict` only a person's (Project.rate: never a machine's or crowd worker's)."""
        if aid is None and wanted.empty:  # as stored now, whatever this object's cache says
            row = raters.find(self.conn, nfc(annotator.strip()))
            if row is None:
                return _EMPTY, _EMPTY  # clearing what an unknown annotator never rated
        ord_ = self.project.item_ord(item_id) if ord_ is None else ord_
        if aid is None:
            aid, annotator = self.project.roster.resolve(self.conn, annotator, self.added,
                                                         HUMAN, strict)
        mark = writes.undo_mark(self.conn) if expect is not None else -1
        old, new = writes.write_rating(self.conn, self.project.scale, ord_, aid, item_id,
                                       annotator, wanted, expect, at, who)
        writes.mark_undo(self.conn, mark)
        if new is not old:
            self._ratings.append((item_id, annotator.strip(), old, new))
        return old, new

    def verdict(self, item_id: str, verdict: Verdict, by: str = "",
                expect: Verdict | None = None, at: float | None = None) -> Verdict:
        """Write an item's verdict (see writes.write_verdict); the one it replaced."""
        mark = writes.undo_mark(self.conn) if expect is not None else -1
        old = writes.write_verdict(self.conn, self.project.scale,
                                   self.project.item_ord(item_id), item_id, verdict, by,
                                   expect, at)
        writes.mark_undo(self.conn, mark)
        if (old.code, old.note) != (verdict.code, verdict.note) and \
                not (old.code is None and verdict.code is None):
            self._events.append(AdjudicationChanged(item_id, by, old, verdict))
        return old

    def exclude(self, names: Sequence[str], excluded: bool, by: str = "",
                rule: dict | None = None, expect: bool | None = None) -> list[bool]:
        """Exclude (or count again) annotators (see writes.write_exclusions); their
        previous states."""
        mark = writes.undo_mark(self.conn) if expect is not None else -1
        old = writes.write_exclusions(self.conn, names, excluded, by, rule, expect)
        writes.mark_undo(self.conn, mark)
        if any(was != excluded for was in old):
            self._events.append(AnnotatorExcluded(", ".join(names), excluded))
        return old

    def tell(self, event: Event) -> None:
        """Publish this event too, after the commit."""
        self._events.append(event)

    def publish(self) -> None:
        """After the commit: the roster learns the new ids, subscribers the changes."""
        project = self.project
        project.roster.remember(self.added)
        if any(a not in project.roster for _i, a, _o, _n in self._ratings):
            project.roster.reload()  # an annotator another process added
        if len(self._ratings) > self.bulk:
            project._publish(RatingsImported({"added": 0, "changed": len(self._ratings),
                                              "unchanged": 0}))
        else:
            for item_id, annotator, old, new in self._ratings:
                # an item imported by another process since reaches this object with
                # the next `refresh`, as every change of another process does
                if project.has_item(item_id):
                    project._publish(project._rating_event(item_id, annotator, old, new))
        for event in self._events:
            project._publish(event)


@contextmanager
def edit(project: Project, conn: sqlite3.Connection, foreign_keys: bool = True,
         undo: bool = False, bulk: int = BULK) -> Iterator[Edit]:
    """The transaction of `Project.edit` (see there)."""
    with transaction(conn, project.path, foreign_keys=foreign_keys) as open_conn:
        change = Edit(project, open_conn, bulk)
        mark = writes.undo_mark(open_conn) if undo else -1
        yield change
        writes.mark_undo(open_conn, mark)
    change.publish()
