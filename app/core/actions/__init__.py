"""User actions as Qt-free objects with `do(project)` and `undo(project)`.

Each action writes through one `Project` method, which returns the state it replaced
(read inside the same transaction), so undo needs no query of its own. Undo and redo are
writes like any other: committed, logged in the change log, and sent to subscribers.
The GUI wraps actions in QUndoCommands (app/gui/base/undo.py); scripts call them directly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import pandas as pd

from simrate.core.base.events import RatingState, Verdict
from simrate.core.base.scale import Scale, fmt
from simrate.core.project import Project
from simrate.core.team.exclusion import RULE, exclude_careless
from simrate.core.team.quality import DEFAULT_CHECK_THRESHOLD


class Action(Protocol):
    """What the undo stack needs of an action."""

    def do(self, project: Project) -> bool: ...
    def undo(self, project: Project) -> None: ...
    def describe(self, scale: Scale) -> str: ...


def describe_rating(state: RatingState, scale: Scale) -> str:
    """`3.25`, `skipped`, `note` or `nothing`, for undo menu texts."""
    if state.skipped:
        return "skipped"
    if state.code is not None:
        return fmt(scale.from_code(state.code))
    return "note" if state.note else "nothing"


@dataclass
class SetRating:
    """Give one annotator's rating of one item a new state (score, note, skip or nothing)."""

    item_id: str
    annotator: str
    new: RatingState
    old: RatingState | None = field(default=None)
    #: What the last do (or undo) left stored: undo (redo) writes only over that.
    _left: RatingState | None = field(default=None, repr=False, compare=False)

    def do(self, project: Project) -> bool:
        """Write the new state; False (nothing written) when it equals the stored one. A redo
        writes only over what its undo left (SimrateError, nothing written, otherwise)."""
        old = project.set_rating_state(self.item_id, self.annotator, self.new, self._left)
        if self.old is None:
            self.old = old
        self._left = RatingState(self.new.code, old.note if self.new.note is None
                                 else self.new.note, self.new.skipped, self.new.seconds)
        return not old.same_as(self.new)

    def undo(self, project: Project) -> None:
        """Write back the state the first `do` replaced, only over the state `do` left: a
        newer one written meanwhile (by another window or program) stays, and the undo is
        refused with a SimrateError saying so."""
        if self.old is not None:
            project.set_rating_state(self.item_id, self.annotator, self.old, self._left)
            self._left = self.old

    def describe(self, scale: Scale) -> str:
        """`item: old -> new`."""
        old = describe_rating(self.old or RatingState(), scale)
        return f"{self.item_id}: {old} \u2192 {describe_rating(self.new, scale)}"


@dataclass
class Adjudicate:
    """Set an item's verdict (a code of None withdraws it)."""

    item_id: str
    new: Verdict
    by: str = ""
    old: Verdict | None = field(default=None)
    _left: Verdict | None = field(default=None, repr=False, compare=False)

    def do(self, project: Project) -> bool:
        """Write the verdict; False (nothing written) when it equals the stored one. A redo
        writes only over what its undo left."""
        old = project.set_verdict(self.item_id, self.new, self.by, self._left)
        if self.old is None:
            self.old = old
        self._left = self.new
        return old != self.new

    def undo(self, project: Project) -> None:
        """Write back the verdict the first `do` replaced, only over the one `do` left (a
        newer one stays: SimrateError)."""
        if self.old is not None:
            project.set_verdict(self.item_id, self.old, self.by, self._left)
            self._left = self.old

    def describe(self, scale: Scale) -> str:
        """`Adjudicate item: old -> new`."""
        def text(v: Verdict | None) -> str:
            return "none" if v is None or v.code is None else fmt(scale.from_code(v.code))
        return f"Adjudicate {self.item_id}: {text(self.old)} \u2192 {text(self.new)}"


@dataclass
class SetExcluded:
    """Exclude an annotator from agreement and gold, or count them again."""

    annotator: str
    excluded: bool
    by: str = ""
    old: bool | None = field(default=None)
    #: What the last do (or undo) left stored: undo (redo) writes only over that.
    _left: bool | None = field(default=None, repr=False, compare=False)

    def do(self, project: Project) -> bool:
        """Write the exclusion; False when it was already so. A redo writes only over what
        its undo left (SimrateError, nothing written, otherwise)."""
        old = project.set_excluded(self.annotator, self.excluded, by=self.by,
                                   expect=self._left)
        if self.old is None:
            self.old = old
        self._left = self.excluded
        return old != self.excluded

    def undo(self, project: Project) -> None:
        """Restore the previous exclusion state, only over the one `do` left: a newer one
        set meanwhile (by another window, program or the hub) stays, and the undo is refused
        with a SimrateError saying so."""
        if self.old is not None:
            project.set_excluded(self.annotator, self.old, by=self.by, expect=self._left)
            self._left = self.old

    def describe(self, scale: Scale) -> str:
        """`Exclude NAME` or `Count NAME again`."""
        return f"Exclude {self.annotator}" if self.excluded else f"Count {self.annotator} again"


@dataclass
class ImportRatings:
    """Import a ratings table as one step; undo removes exactly the rows it wrote and puts
    back the ones it replaced (Project.undo_import)."""

    frame: pd.DataFrame
    source: str = ""
    by: str = ""
    batch: int = 0
    counts: dict = field(default_factory=dict)

    def do(self, project: Project) -> bool:
        """Import; False (nothing written) when every rating was already there."""
        self.counts = project.import_ratings(self.frame, self.source)
        self.batch = project.last_import if (self.counts["added"] or
                                             self.counts["changed"]) else 0
        return bool(self.batch)

    def undo(self, project: Project) -> None:
        """Remove what the import wrote."""
        if self.batch:
            project.undo_import(self.batch, by=self.by)

    def describe(self, scale: Scale) -> str:
        """`Import ratings from SOURCE`."""
        return f"Import ratings from {self.source or 'a table'}"


@dataclass
class ExcludeCareless:
    """The STS 2012 rule: exclude every worker whose Pearson with the check items is below
    the threshold (app/core/team/exclusion.py, as `annotators --exclude-careless`)."""

    threshold: float = DEFAULT_CHECK_THRESHOLD
    by: str = ""
    excluded: list[str] = field(default_factory=list)

    def do(self, project: Project) -> bool:
        """Exclude the careless workers (the first time: whoever the rule finds); False
        when the rule finds nobody."""
        if not self.excluded:
            self.excluded = exclude_careless(project, self.threshold, by=self.by).annotators
        else:  # redo: the same workers, whatever their figures are now, if still counted
            project.roster.set_excluded(self.excluded, True, by=self.by,
                                      rule={"rule": RULE, "threshold": self.threshold},
                                      expect=False)
        return bool(self.excluded)

    def undo(self, project: Project) -> None:
        """Count the workers this action excluded again, only if every one of them is still
        excluded (one counted again elsewhere meanwhile: SimrateError, nothing written)."""
        if self.excluded:
            project.roster.set_excluded(self.excluded, False, by=self.by,
                                      rule={"rule": RULE, "threshold": self.threshold},
                                      expect=True)

    def describe(self, scale: Scale) -> str:
        """`Exclude 3 careless workers (check r < 0.5)`."""
        count = len(self.excluded)
        return (f"Exclude {count} careless worker{'s' * (count != 1)} "
                f"(check r < {self.threshold:g})")


class History:
    """A Qt-free undo/redo stack of actions (the GUI uses QUndoStack instead)."""

    def __init__(self, project: Project):
        self.project = project
        self._done: list[Action] = []
        self._undone: list[Action] = []

    def run(self, action: Action) -> bool:
        """Do an action and remember it; False (not remembered) when it changed nothing."""
        if not action.do(self.project):
            return False
        self._done.append(action)
        self._undone.clear()
        return True

    def undo(self) -> bool:
        """Undo the last action; False when there is none. An undo that is refused (a newer
        change made elsewhere stands where the action wrote) raises SimrateError and
        leaves the action off both stacks: it can no longer be undone, and older steps
        can still be tried."""
        if not self._done:
            return False
        action = self._done.pop()
        action.undo(self.project)
        self._undone.append(action)
        return True

    def redo(self) -> bool:
        """Redo the last undone action; False when there is none (refused as undo is)."""
        if not self._undone:
            return False
        action = self._undone.pop()
        action.do(self.project)
        self._done.append(action)
        return True
