"""AgreementModel: the project's one agreement engine, fed by the project's write path.

It keeps together, for the counted (not excluded) annotators:
- the flag index (flagged and second-look items, app/core/review/flags.py);
- the LiveAgreement over every item (alpha at all levels, Pearson, vs rest);
- the per-scope sums (dataset, genre; all items and unadjudicated ones, scopes.py).

`Project` calls `apply(event)` after each commit, before its subscribers hear of it, so
every view reads figures that already include the change. The whole-project alpha shown
in the dashboard's headline and in the table's "All items" row is one call, `alpha()`.
Each part is built on first use, so a command that never asks for agreement pays nothing.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from simrate.core.agreement.live import LiveAgreement
from simrate.core.agreement.scopes import (
    ALL,
    OVERALL,
    UNADJUDICATED,
    ScopedAgreement,
    ScopeRow,
)
from simrate.core.agreement.snapshot import read_snapshot
from simrate.core.base.events import AdjudicationChanged, AnnotatorAdded, Event, RatingChanged
from simrate.core.review.flags import FlagIndex


def _among(aids: np.ndarray, counted: set[int]) -> np.ndarray:
    """Mask of the annotator ids that are among the counted ones."""
    return np.isin(aids, np.fromiter(counted, dtype=np.int64, count=len(counted)))


class AgreementModel:
    """Flags, live alpha and per-scope alpha of one open project (see the module doc)."""

    def __init__(self, project: Any):
        # `project` is the owning Project (not imported here: the Project imports us)
        self.project = project
        self._flags: FlagIndex | None = None
        self._live: LiveAgreement | None = None
        self._scopes: ScopedAgreement | None = None
        # excluded people and machine raters: their ratings count nowhere here
        self.excluded: set[str] = set(project.roster.left_out())

    def reset(self) -> None:
        """Forget everything (after bulk changes); rebuilt on next use."""
        self._flags = self._live = self._scopes = None
        self.excluded = set(self.project.roster.left_out())

    # ------------------------------------------------------------------ parts
    @property
    def flags(self) -> FlagIndex:
        """The flag index, keyed by item ord and annotator id."""
        if self._flags is None:
            scores, adjudicated, late = self.project.flag_inputs()
            counted = self.project.roster.counted_ids()
            scores = scores.take(_among(scores.aids, counted))
            flags = FlagIndex(self.project.flag_rule.in_codes(self.project.scale.step))
            flags.load_columns(scores.ords, scores.aids, scores.codes, adjudicated,
                               [r for r in late if r[1] in counted])
            self._flags = flags
            self._release_columns()
        return self._flags

    @property
    def live(self) -> LiveAgreement:
        """The LiveAgreement over every item (units: item ids, raters: names)."""
        if self._live is None:
            scale, project = self.project.scale, self.project
            live = LiveAgreement(low=scale.low, step=scale.step)
            rows, aids, codes, _datasets, _genres = project.scope_columns()  # integer columns
            names = {aid: name for name, aid in project.roster.ids().items()}
            keep = _among(aids, project.roster.counted_ids())
            aids = aids[keep]
            present = np.flatnonzero(np.bincount(aids)) if aids.size else aids
            position = np.zeros(int(present.max()) + 1 if present.size else 0, np.int64)
            position[present] = np.arange(present.size)
            live.load_indexed(rows[keep], project.item_ids(), position[aids],
                              [names[aid] for aid in present.tolist()],
                              codes[keep].astype(np.int64))
            self._live = live
            self._release_columns()
        return self._live

    @property
    def scopes(self) -> ScopedAgreement:
        """Alpha per dataset and genre, over all and unadjudicated items."""
        if self._scopes is None:
            self._scopes = ScopedAgreement(*read_snapshot(self.project))
            self._release_columns()
        return self._scopes

    def _release_columns(self) -> None:
        """Once every part is built, the project need not keep the arrays they came from."""
        if not (self._flags is None or self._live is None or self._scopes is None):
            self.project.column_cache.clear()

    @property
    def built(self) -> bool:
        """True when any part is in memory (commands that never ask build none)."""
        return not (self._flags is None and self._live is None and self._scopes is None)

    @property
    def scopes_built(self) -> bool:
        """True when the per-scope sums are in memory."""
        return self._scopes is not None

    # ------------------------------------------------------------------ updates
    def apply(self, event: Event) -> None:
        """Bring every part that is built up to date with one committed change."""
        if event.is_bulk:
            self.reset()
        elif isinstance(event, AnnotatorAdded):
            self.excluded = set(self.project.roster.left_out())
        elif isinstance(event, RatingChanged):
            if event.counted:
                self._rating(event)
        elif isinstance(event, AdjudicationChanged):
            ord_ = self.project.item_ord(event.item)
            if self._flags is not None:
                self._flags.set_adjudicated(ord_, event.new.code)
            self._update_scope(event.item, ord_, {})

    def _rating(self, event: RatingChanged) -> None:
        ord_ = self.project.item_ord(event.item)
        if self._flags is not None:
            aid = self.project.roster.ids()[event.annotator]
            self._flags.set(ord_, aid, event.new_code)
        if self._live is not None:
            self._live.set_rating(event.item, event.annotator, event.new_code)
        self._update_scope(event.item, ord_, {event.annotator: event.new_code})

    def _update_scope(self, item_id: str, ord_: int, changes: dict[str, int | None]) -> None:
        if self._scopes is None:
            return
        row = self.project.position(item_id)
        if not 0 <= row < len(self._scopes.snapshot.item_ids):
            self._scopes = None  # an item the sums do not know: rebuild on next use
            return
        self._scopes.update_item(row, changes, self.unadjudicated(ord_))

    # ------------------------------------------------------------------ reading
    def unadjudicated(self, ord_: int) -> bool:
        """Neither flagged nor adjudicated: the items of 'alpha over unadjudicated items'."""
        flags = self.flags
        return ord_ not in flags.flagged and ord_ not in flags.adjudicated

    def alpha(self, level: str = "interval", grouping: str = OVERALL, group: str = OVERALL,
              subset: str = ALL) -> float | None:
        """Alpha of one scope; the whole project's from the live engine."""
        if (grouping, group, subset) == (OVERALL, OVERALL, ALL):
            return self.live.alpha(level)
        return self.scopes.alpha(level, grouping, group, subset)

    def alpha_unadjudicated(self, level: str = "interval") -> float | None:
        """Alpha over the items that are neither flagged nor adjudicated."""
        return self.alpha(level, subset=UNADJUDICATED)

    def table(self, grouping: str, level: str = "interval") -> list[ScopeRow]:
        """One row per group of `grouping`, then the whole project (its alpha: `alpha()`)."""
        rows = self.scopes.table(grouping, level)
        last = rows[-1]
        rows[-1] = ScopeRow(last.grouping, last.group, last.items, self.alpha(level),
                            last.unadjudicated_items, last.alpha_unadjudicated)
        return rows

    def flagged_frame(self) -> pd.DataFrame:
        """Flagged items, largest spread first: item_id, spread, ratings ({annotator: score})."""
        scale, project = self.project.scale, self.project
        names = {aid: name for name, aid in project.roster.ids().items()}
        rows = []
        for ord_, spread in self.flags.ordered():
            ratings = {names[a]: scale.from_code(c) for a, c in self.flags.unit(ord_).items()}
            rows.append((project.item_id_for_ord(ord_), scale.distance(spread), ratings))
        return pd.DataFrame(rows, columns=["item_id", "spread", "ratings"])
