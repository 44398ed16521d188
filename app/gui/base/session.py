"""AnnotatorSession: one annotator's view of a project, as per-row arrays, and the current item.

Rows are the project's items in project order. The arrays are built once, this
annotator's ratings from `Project.annotator_columns()` and the texts and datasets from
`Project.items()`, then updated one row at a time from the bridge's change signals, so
nothing on a keystroke scans the project file.

Blind by construction: only this annotator's ratings are kept; nobody else's score is ever
read into the session.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from PySide6.QtCore import QObject, Signal

from simrate.core.base.events import (
    Event,
    ItemsImported,
    RatingChanged,
    RatingsImported,
    RatingState,
    Reloaded,
)
from simrate.core.project import Project
from simrate.gui.base.bridge import ProjectBridge

UNRATED, RATED, SKIPPED = 0, 1, 2


@dataclass(frozen=True)
class ItemDetails:
    """The item list's columns: each item's texts, and its dataset and genre as codes into
    plain lists of names (a list lookup is cheaper than an Index's for the list's cells)."""

    ids: list[str]
    left: list[str]
    right: list[str]
    dataset_names: list[str]
    dataset_code: np.ndarray
    genre_names: list[str]
    genre_code: np.ndarray


def read_item_details(project: Project) -> ItemDetails:
    """Read the item list's columns from an open project."""
    items = project.items(["left", "right", "dataset", "genre"])
    dataset_codes, dataset_names = pd.factorize(items["dataset"].fillna(""))
    genre_codes, genre_names = pd.factorize(items["genre"].fillna(""))
    return ItemDetails(items["item_id"].tolist(), items["left"].tolist(),
                       items["right"].tolist(), [str(name) for name in dataset_names],
                       np.asarray(dataset_codes, dtype=np.int32),
                       [str(name) for name in genre_names],
                       np.asarray(genre_codes, dtype=np.int32))


def read_item_details_from(path: str | Path) -> ItemDetails:
    """The same, through a connection of its own (for a background job)."""
    with Project.open(path) as project:
        return read_item_details(project)


class AnnotatorSession(QObject):
    """The current annotator's ratings as arrays over all items, plus navigation."""

    #: The item shown changed: its row.
    current_changed = Signal(int)
    #: This annotator's rating of one row changed (saved, cleared, skipped, note).
    row_changed = Signal(int)
    #: Everything was rebuilt (items added, ratings imported, file changed elsewhere).
    reset = Signal()
    #: Datasets, genres and texts of every row are now known (after a deferred start).
    details_loaded = Signal()

    def __init__(self, project: Project, annotator: str, bridge: ProjectBridge | None = None,
                 parent: QObject | None = None, defer_details: bool = False):
        """With `defer_details`, only ids and this annotator's ratings are read now: enough to
        show the first item; call `load_details()` soon after for the item list's columns."""
        super().__init__(parent)
        self.project = project
        self.annotator = annotator
        self.current_row = -1
        self.shown_at = time.monotonic()
        #: Items this annotator rated (saved with a score) since the window opened.
        self.session_count = 0
        self.session_seconds = 0.0
        self._haystack: list[str] | None = None
        #: (row, state) of the last rating event of this annotator, for the rating panel
        self._latest: tuple[int, RatingState] | None = None
        self._build_index(self.project.item_ids())
        self._build_ratings()
        if defer_details:
            self._empty_details()
        else:
            self._build_details()
        if bridge is not None:
            bridge.changed.connect(self._on_change)

    # ----------------------------------------------------------- building
    def _build_index(self, ids: list[str]) -> None:
        self.ids: list[str] = ids

    def row_of(self, item_id: str | None) -> int | None:
        """The row of an item id, None when unknown (the project's own index answers)."""
        row = -1 if item_id is None else self.project.position(item_id)
        return row if 0 <= row < len(self.ids) and self.ids[row] == item_id else None

    def _empty_details(self) -> None:
        n = len(self.ids)
        self.details_ready = False
        self.left: list[str] = [""] * n
        self.right: list[str] = [""] * n
        self.dataset_names: list[str] = [""]
        self.genre_names: list[str] = [""]
        self.dataset_code = np.zeros(n, dtype=np.int32)
        self.genre_code = np.zeros(n, dtype=np.int32)
        self._haystack = None

    def _build_details(self) -> None:
        self._set_details(read_item_details(self.project))

    def _set_details(self, details: ItemDetails) -> None:
        if details.ids != self.ids:  # items arrived since the index was read: start again
            self._build_index(details.ids)
            self._build_ratings()
        self.left, self.right = details.left, details.right
        self.dataset_names, self.dataset_code = details.dataset_names, details.dataset_code
        self.genre_names, self.genre_code = details.genre_names, details.genre_code
        self._haystack = None
        self.details_ready = True

    def load_details(self) -> None:
        """Read datasets, genres and texts if a deferred start has not yet done so."""
        if not self.details_ready:
            self._build_details()
            self.details_loaded.emit()

    def apply_details(self, details: ItemDetails) -> None:
        """Take details read elsewhere (by a background job), unless read meanwhile."""
        if not self.details_ready:
            self._set_details(details)
            self.details_loaded.emit()

    def _build_ratings(self) -> None:
        self._latest = None  # rows and states are read afresh
        n = len(self.ids)
        self.codes = np.full(n, -1, dtype=np.int32)
        self.state = np.zeros(n, dtype=np.int8)
        self.seconds = np.full(n, np.nan, dtype=np.float64)
        rows, codes, skipped, seconds = self.project.annotator_columns(self.annotator)
        self.codes[rows] = codes
        self.seconds[rows] = seconds
        self.state[rows] = np.where(skipped, SKIPPED, np.where(codes >= 0, RATED, UNRATED))

    def rebuild(self) -> None:
        """Reread items and ratings, keeping the current item when it still exists."""
        current = self.current_id()
        self._build_index(self.project.item_ids())
        self._build_ratings()
        self._build_details()
        row = self.row_of(current)
        self.current_row = -1 if row is None else row
        self.reset.emit()
        if self.current_row < 0 and self.n:
            self.go_to(0)

    def rebuild_ratings(self) -> None:
        """Reread this annotator's ratings only (after a ratings import)."""
        self._build_ratings()
        self.reset.emit()

    def _on_change(self, event: Event) -> None:
        if isinstance(event, RatingChanged):
            self._on_rating_changed(event)
        elif isinstance(event, RatingsImported):
            self.rebuild_ratings()
        elif isinstance(event, (ItemsImported, Reloaded)):
            self.rebuild()

    def _on_rating_changed(self, event: RatingChanged) -> None:
        if event.annotator != self.annotator:
            return  # blind: other annotators' ratings are none of this view's business
        row = self.row_of(event.item)
        if row is None:
            return
        new = event.new  # the event carries the new state: nothing is read back
        self._latest = (row, new)
        self.codes[row] = -1 if new.code is None else new.code
        self.state[row] = SKIPPED if new.skipped else RATED if new.code is not None else UNRATED
        self.seconds[row] = np.nan if new.seconds is None else new.seconds
        self.row_changed.emit(row)

    def latest_state(self, row: int) -> RatingState | None:
        """The state the last rating event brought for `row`, if it was that row's."""
        latest = self._latest
        return latest[1] if latest is not None and latest[0] == row else None

    # ----------------------------------------------------------- reading
    @property
    def n(self) -> int:
        """Number of items."""
        return len(self.ids)

    def current_id(self) -> str | None:
        """Id of the item shown, or None."""
        return self.ids[self.current_row] if 0 <= self.current_row < self.n else None

    def score(self, row: int) -> float | None:
        """This annotator's saved score of a row, or None."""
        code = int(self.codes[row])
        return None if code < 0 else self.project.scale.from_code(code)

    def dataset(self, row: int) -> str:
        """The dataset name of a row."""
        return self.dataset_names[self.dataset_code[row]]

    def short_id(self, row: int) -> str:
        """The id without its `<dataset>:` prefix, which the dataset column already shows."""
        item_id = self.ids[row]
        prefix = self.dataset(row)
        if prefix and item_id.startswith(prefix + ":"):
            return item_id[len(prefix) + 1:]
        return item_id

    def genre(self, row: int) -> str:
        """The genre of a row."""
        return self.genre_names[self.genre_code[row]]

    def counts(self) -> dict[str, int]:
        """Rated, skipped, unrated and total item counts for this annotator."""
        tally = np.bincount(self.state, minlength=3)
        return {"rated": int(tally[RATED]), "skipped": int(tally[SKIPPED]),
                "unrated": int(tally[UNRATED]), "total": self.n}

    def dataset_counts(self) -> list[tuple[str, int, int, int]]:
        """Per dataset: (name, rated, skipped, total), in order of first appearance; empty
        until the details are loaded."""
        if not self.details_ready:
            return []
        k = len(self.dataset_names)
        total = np.bincount(self.dataset_code, minlength=k)
        rated = np.bincount(self.dataset_code[self.state == RATED], minlength=k)
        skipped = np.bincount(self.dataset_code[self.state == SKIPPED], minlength=k)
        return [(self.dataset_names[i], int(rated[i]), int(skipped[i]), int(total[i]))
                for i in range(k)]

    def median_seconds(self) -> float | None:
        """Median seconds spent per rated item (over ratings that recorded a time)."""
        timed = self.seconds[(self.state == RATED) & ~np.isnan(self.seconds)]
        return float(np.median(timed)) if len(timed) else None

    def search_mask(self, needle: str) -> np.ndarray:
        """Rows whose id or either text contains `needle`, ignoring case."""
        needle = needle.casefold()
        self.load_details()
        if self._haystack is None:
            # Built on the first search only: opening stays fast and most sessions never search.
            self._haystack = [f"{i}\x00{a}\x00{b}".casefold()
                              for i, a, b in zip(self.ids, self.left, self.right, strict=True)]
        return np.fromiter((needle in text for text in self._haystack), dtype=bool,
                           count=len(self._haystack))

    def next_unrated(self, after: int) -> int | None:
        """The first row after `after` this annotator has neither rated nor skipped (wrapping)."""
        if not self.n:
            return None
        order = (self.state[after + 1:], self.state[:after + 1])
        offsets = (after + 1, 0)
        for part, offset in zip(order, offsets, strict=True):
            hits = np.flatnonzero(part == UNRATED)
            if len(hits):
                return int(hits[0]) + offset
        return None

    # ----------------------------------------------------------- navigation
    def go_to(self, row: int) -> None:
        """Show the item at `row` and start timing it."""
        if not 0 <= row < self.n:
            return
        self.current_row = row
        self.shown_at = time.monotonic()
        self.current_changed.emit(row)

    def go_to_id(self, item_id: str) -> None:
        """Show the item with this id (ignored when unknown)."""
        row = self.row_of(item_id)
        if row is not None:
            self.go_to(row)

    def go_next(self) -> None:
        """Show the next item in project order."""
        if self.current_row + 1 < self.n:
            self.go_to(self.current_row + 1)

    def go_previous(self) -> None:
        """Show the previous item in project order."""
        if self.current_row > 0:
            self.go_to(self.current_row - 1)

    def go_first_unrated(self) -> None:
        """Show the first item not yet rated, or the first item when all are done."""
        row = self.next_unrated(-1)
        self.go_to(0 if row is None else row)

    def elapsed(self) -> float:
        """Seconds since the current item was shown."""
        return time.monotonic() - self.shown_at

    def note_rated(self, seconds: float) -> None:
        """Count one rating saved in this session, for the time-per-item figures."""
        self.session_count += 1
        self.session_seconds += seconds
