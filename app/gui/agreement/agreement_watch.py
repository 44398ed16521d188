"""AgreementWatcher: the dashboard's timers and background jobs around the core's one
agreement model (`Project.agreement`, app/core/agreement/model.py).

The model is updated by the project's own write path before any view hears of a change,
so this object computes nothing itself: it coalesces change events into one `updated`
signal per event-loop turn, and runs the bootstrap intervals on the thread pool after the
ratings have been quiet for a moment (a single-shot timer restarted by each change). One
interval job runs at a time; a result for another level or an older state is dropped.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from PySide6.QtCore import QObject, QTimer, Signal

from simrate.core.agreement.scopes import (
    ALL,
    OVERALL,
    UNADJUDICATED,
    ScopedAgreement,
    ScopeKey,
    ScopeRow,
    scope_intervals,
    scope_ratings,
)
from simrate.core.base.errors import SimrateError
from simrate.core.base.events import Event
from simrate.core.project import Project
from simrate.core.review.index import ReviewIndex
from simrate.gui.base.jobs import Job, JobRunner

#: Quiet time after the last change before intervals are recomputed, in milliseconds.
INTERVAL_DELAY_MS = 1200
OVERALL_ALL: ScopeKey = (OVERALL, OVERALL, ALL)
OVERALL_UNADJUDICATED: ScopeKey = (OVERALL, OVERALL, UNADJUDICATED)


@dataclass(frozen=True)
class Headline:
    """The figures at the top of the dashboard."""

    level: str
    alpha: float | None
    alpha_unadjudicated: float | None
    items: int
    rated_items: int
    pairable_items: int
    ratings: int
    flagged: int
    second_look: int
    adjudicated: int
    unadjudicated_items: int


class AgreementWatcher(QObject):
    """Keeps the dashboard's figures current; emits `updated` after changes (coalesced)."""

    #: The figures changed (emitted once per burst of changes, on the next event loop turn).
    updated = Signal()
    #: New confidence intervals are available.
    intervals_updated = Signal()
    #: An interval job failed: the message.
    failed = Signal(str)

    def __init__(self, project: Project, bridge, runner: JobRunner | None = None,
                 parent: QObject | None = None):
        super().__init__(parent)
        self.project = project
        self.bridge = bridge  # the dashboard's other views subscribe to it too
        self.review = ReviewIndex(project)
        self.runner = runner or JobRunner(parent=self)
        self.level = "interval"
        self.intervals: dict[ScopeKey, tuple[float, float] | None] = {}
        self.intervals_level = ""
        self.intervals_at = 0.0
        self._generation = 0  # counts bulk changes: intervals of an older state are dropped
        self._changes = 0  # counts changes, to tell whether an interval job saw them all
        self._interval_job: Job | None = None
        self._interval_rerun = False
        self._emit_timer = QTimer(self, singleShot=True, interval=0)
        self._emit_timer.timeout.connect(self.updated.emit)
        self._interval_timer = QTimer(self, singleShot=True, interval=INTERVAL_DELAY_MS)
        self._interval_timer.timeout.connect(self.compute_intervals)
        bridge.changed.connect(self._on_change)
        self._emit_timer.start()
        self.schedule_intervals()

    @property
    def engine(self) -> ScopedAgreement:
        """The model's per-scope sums (built on first use, again after a bulk change)."""
        return self.project.agreement.scopes

    def _on_change(self, event: Event) -> None:
        self._changes += 1
        if event.is_bulk:
            self._generation += 1  # the model starts afresh: older intervals are dropped
        self._emit_timer.start()
        self.schedule_intervals()

    # ------------------------------------------------------------------ figures
    def set_level(self, level: str) -> None:
        """Choose the level of measurement of every alpha shown."""
        if level != self.level:
            self.level = level
            self._emit_timer.start()
            self.schedule_intervals(at_once=True)

    def headline(self) -> Headline:
        """The top figures: alpha (all, unadjudicated) and the counts."""
        model = self.project.agreement
        live, counts = model.live, self.review.counts()
        unadjudicated = model.scopes.scopes[OVERALL_UNADJUDICATED]
        return Headline(
            level=self.level, alpha=model.alpha(self.level),
            alpha_unadjudicated=model.alpha_unadjudicated(self.level),
            items=self.project.n_items, rated_items=live.n_units,
            pairable_items=live.n_pairable_units, ratings=live.n_ratings,
            flagged=counts["flagged"], second_look=counts["second_look"],
            adjudicated=counts["adjudicated"], unadjudicated_items=unadjudicated.units,
        )

    def table(self, grouping: str) -> list[ScopeRow]:
        """The agreement table of a grouping at the current level (last row: all items)."""
        return self.project.agreement.table(grouping, self.level)

    @property
    def has_intervals(self) -> bool:
        """True when intervals at the current level have been computed."""
        return self.intervals_level == self.level

    def interval(self, key: ScopeKey) -> tuple[float, float] | None:
        """The latest 95% interval of a scope at the current level; None when not computed
        yet (see has_intervals) or undefined."""
        return self.intervals.get(key) if self.has_intervals else None

    # ------------------------------------------------------------------ intervals
    def schedule_intervals(self, at_once: bool = False) -> None:
        """(Re)start the quiet-time timer; the intervals follow when it fires."""
        if at_once:
            self._interval_timer.start(0)
        else:
            self._interval_timer.start(INTERVAL_DELAY_MS)

    def compute_intervals(self) -> None:
        """Bootstrap every scope's interval in the background (one job at a time)."""
        if self._interval_job is not None:
            self._interval_rerun = True
            return
        # the ratings in long form (a few MB at crowd scale), not a copy of items x raters
        ratings = scope_ratings(self.engine.snapshot)
        keys = list(self.engine.scopes)
        level, generation, seen = self.level, self._generation, self._changes
        self._interval_rerun = False

        def intervals(job):
            result = scope_intervals(ratings, level, keys, cancelled=lambda: job.cancelled)
            job.check()  # intervals cut short by a cancel are not a result
            return result

        self._interval_job = self.runner.start(
            intervals, finished=lambda result: self._on_intervals(result, level, generation, seen),
            failed=lambda exc: self._on_intervals_failed(exc),
            cancelled=self._on_intervals_cancelled)

    def _on_intervals(self, result: dict, level: str, generation: int, seen: int) -> None:
        self._interval_job = None
        if level == self.level and generation == self._generation:
            self.intervals, self.intervals_level = result, level
            self.intervals_at = time.time()
            self.intervals_updated.emit()
        if self._interval_rerun or seen != self._changes or level != self.level:
            self.schedule_intervals()

    def _on_intervals_failed(self, exc: SimrateError) -> None:
        self._interval_job = None
        self.failed.emit(f"Confidence intervals could not be computed: {exc}")

    def _on_intervals_cancelled(self) -> None:
        self._interval_job = None

    def shutdown(self) -> None:
        """Stop timers and background work (before the project closes); a result still on
        its way is dropped."""
        self._interval_timer.stop()
        self._emit_timer.stop()
        if self._interval_job is not None:
            self.runner.discard(self._interval_job)
            self._interval_job = None
