"""Typed change events: what the Project sends its subscribers after each commit.

Events carry step codes (never floats) and everything a view needs to update itself
without reading the database again: after one Enter, the rating panel, the session's
arrays, the agreement model and the dashboard all update from the one `RatingChanged`.
Bulk events (`is_bulk`) may touch any number of items: views rebuild instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar


@dataclass(frozen=True)
class RatingState:
    """What one annotator holds for one item: a step code, a note, or a skip."""

    code: int | None = None
    note: str | None = ""  # None only in a state to write: keep the stored note
    skipped: bool = False
    seconds: float | None = None

    @property
    def empty(self) -> bool:
        """True when there is nothing to keep: no score, no note, no skip."""
        return self.code is None and not self.note and not self.skipped

    def same_as(self, other: RatingState) -> bool:
        """Equal in what the annotator decided (the time taken does not count)."""
        return (self.code, self.note, self.skipped) == (other.code, other.note, other.skipped)


@dataclass(frozen=True)
class Verdict:
    """An item's adjudication: a step code (None: no verdict) and a note."""

    code: int | None = None
    note: str = ""


@dataclass(frozen=True)
class Event:
    """Base of every change event."""

    is_bulk: ClassVar[bool] = False

    @property
    def item_id(self) -> str | None:
        """The one item this event is about, or None for bulk events."""
        return None


@dataclass(frozen=True)
class RatingChanged(Event):
    """One annotator's rating of one item changed (scored, cleared, noted or skipped)."""

    item: str
    annotator: str
    old: RatingState
    new: RatingState
    counted: bool = True  # False for an excluded annotator: agreement ignores it

    @property
    def item_id(self) -> str:
        return self.item

    @property
    def old_code(self) -> int | None:
        """The code before the change."""
        return self.old.code

    @property
    def new_code(self) -> int | None:
        """The code after the change."""
        return self.new.code


@dataclass(frozen=True)
class AdjudicationChanged(Event):
    """An item's adjudicated score was set, changed or withdrawn."""

    item: str
    by: str
    old: Verdict
    new: Verdict

    @property
    def item_id(self) -> str:
        return self.item


@dataclass(frozen=True)
class RatingsImported(Event):
    """A ratings table was merged: counts of added, changed and unchanged ratings."""

    is_bulk: ClassVar[bool] = True
    counts: dict


@dataclass(frozen=True)
class ItemsImported(Event):
    """Items were added."""

    is_bulk: ClassVar[bool] = True
    added: int


@dataclass(frozen=True)
class AnnotatorAdded(Event):
    """An annotator with no ratings yet joined the project (a hub's person, a machine)."""

    annotator: str
    machine: bool = False


@dataclass(frozen=True)
class ImportUndone(Event):
    """A bulk import was undone: the rows it wrote are gone, those it replaced are back."""

    is_bulk: ClassVar[bool] = True
    batch: int
    kind: str


@dataclass(frozen=True)
class AnnotatorExcluded(Event):
    """Annotators were excluded from agreement and gold, or counted again (several names
    are joined by ", ")."""

    is_bulk: ClassVar[bool] = True
    annotator: str
    excluded: bool


@dataclass(frozen=True)
class SettingsChanged(Event):
    """A project setting changed (the flag rule or its threshold)."""

    is_bulk: ClassVar[bool] = True
    threshold: float
    rule: str = ""


@dataclass(frozen=True)
class Reloaded(Event):
    """Another process changed the file; everything was read again."""

    is_bulk: ClassVar[bool] = True
