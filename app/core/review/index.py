"""ReviewIndex: which items need an organizer (flagged, second look) and which are settled.

It reads the project's flag index (`Project.flags`, keyed by `Project.item_ord` and kept up
to date by the core on every rating and adjudication) instead of scanning ratings, so
asking about one item costs O(raters) and listing the queue costs O(flagged log flagged).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import pandas as pd

from simrate.core.base.events import AdjudicationChanged, Event, Reloaded
from simrate.core.base.scale import Scale
from simrate.core.review.flags import FlagIndex


class Reviewed(Protocol):
    """What the review index reads of a project (the `Project` facade provides it)."""

    scale: Scale

    @property
    def flags(self) -> FlagIndex: ...
    def has_item(self, item_id: str) -> bool: ...
    def item_ord(self, item_id: str) -> int: ...
    def item_id_for_ord(self, ord_: int) -> str: ...
    def position(self, item_id: str) -> int: ...
    def adjudications(self) -> pd.DataFrame: ...

FLAGGED = "flagged"
SECOND_LOOK = "second look"


@dataclass(frozen=True)
class ItemStatus:
    """Review state of one item; `disagreement` is in step codes."""

    flagged: bool
    second_look: bool
    adjudicated: bool
    disagreement: int

    @property
    def in_queue(self) -> bool:
        """True when the item waits for an organizer."""
        return self.flagged or self.second_look

    @property
    def kind(self) -> str:
        """`flagged`, `second look` or '' (not in the queue)."""
        return FLAGGED if self.flagged else SECOND_LOOK if self.second_look else ""

    @property
    def unadjudicated(self) -> bool:
        """Neither flagged nor adjudicated: the items of 'alpha over unadjudicated items'."""
        return not (self.flagged or self.adjudicated)


@dataclass(frozen=True)
class QueueEntry:
    """One item of the adjudication queue."""

    item_id: str
    disagreement: int  # step codes
    kind: str  # FLAGGED or SECOND_LOOK

    def sort_key(self, position: int) -> tuple[int, int]:
        """Largest disagreement first, then project order."""
        return (-self.disagreement, position)


class ReviewIndex:
    """Answers review questions about items of one open project."""

    def __init__(self, project: Reviewed):
        self.project = project

    @property
    def _flags(self):  # -> FlagIndex; read afresh: the core rebuilds it after bulk changes
        return self.project.flags

    def disagreement(self, ord_: int) -> int:
        """Spread of an item's ratings in codes; for an adjudicated item, also the largest
        distance of a rating from the adjudicated score (what a second look is about)."""
        flags = self._flags
        spread = flags.spread(ord_)
        adjudicated = flags.adjudicated.get(ord_)
        if adjudicated is None:
            return spread
        codes = flags.unit(ord_).values()
        return max([spread, *(abs(c - adjudicated) for c in codes)])

    def status(self, item_id: str) -> ItemStatus:
        """The review state of one item (unknown ids are never flagged)."""
        if not self.project.has_item(item_id):
            return ItemStatus(False, False, False, 0)
        ord_ = self.project.item_ord(item_id)
        flags = self._flags
        return ItemStatus(ord_ in flags.flagged, ord_ in flags.second_look,
                          ord_ in flags.adjudicated, self.disagreement(ord_))

    def queue(self) -> list[QueueEntry]:
        """Flagged and second-look items, largest disagreement first, then project order."""
        flags, id_of = self._flags, self.project.item_id_for_ord
        entries = [QueueEntry(id_of(ord_), spread, FLAGGED) for ord_, spread in flags.flagged.items()]
        entries += [QueueEntry(id_of(ord_), self.disagreement(ord_), SECOND_LOOK)
                    for ord_ in flags.second_look]
        position = self.project.position
        entries.sort(key=lambda entry: entry.sort_key(position(entry.item_id)))
        return entries

    def counts(self) -> dict[str, int]:
        """How many items are flagged, need a second look, are adjudicated."""
        flags = self._flags
        return {"flagged": len(flags.flagged), "second_look": len(flags.second_look),
                "adjudicated": len(flags.adjudicated)}


class AdjudicationRecords:
    """Each adjudicated item's score, note and author, read once and then kept current.

    The Project offers adjudications only as a whole table, which is too slow to reread on
    every keystroke of a 200,000-item project. Views pass every event to `on_event` before
    they refresh, so the cache follows each verdict from the event itself.
    """

    def __init__(self, project: Reviewed):
        self.project = project
        self._records: dict[str, dict] | None = None

    def _load(self) -> dict[str, dict]:
        if self._records is None:
            frame = self.project.adjudications()
            columns = (frame[name].tolist() for name in ("item_id", "score", "note", "by"))
            self._records = {
                item_id: {"score": float(score), "note": note or "", "by": by}
                for item_id, score, note, by in zip(*columns, strict=True)}
        return self._records

    def get(self, item_id: str) -> dict | None:
        """{score, note, by} of an item's adjudication, or None."""
        return self._load().get(item_id)

    def on_event(self, event: Event) -> None:
        """Follow a committed change: a verdict from its event, a reload by reading again."""
        if isinstance(event, AdjudicationChanged):
            if self._records is not None:
                if event.new.code is None:
                    self._records.pop(event.item, None)
                else:
                    score = self.project.scale.from_code(event.new.code)
                    self._records[event.item] = {"score": score, "note": event.new.note,
                                                 "by": event.by}
        elif isinstance(event, Reloaded):
            self._records = None
