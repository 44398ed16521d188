"""AgreementWatcher: the dashboard's figures, following every change the project reports.

Whole-project figures come from the core's incremental engine (`Project.live`: alpha at any
level, Pearson, each rater against the rest). Subsets (unadjudicated items, datasets,
genres) come from a ScopedAgreement, built once in the background from a connection of its
own and then updated on the GUI thread from each change notification, in microseconds.
Changes that arrive while it is being built are remembered and replayed on top of it.

Confidence intervals are bootstraps over a copy of the engine's arrays, run on the thread
pool after the ratings have been quiet for a moment (a single-shot timer restarted by each
change). One interval job runs at a time; a result for another level or an older build is
dropped, and changes that arrived during a job schedule another one.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from PySide6.QtCore import QObject, QTimer, Signal

from app.core.agreement.scopes import (
    ALL,
    OVERALL,
    UNADJUDICATED,
    ScopedAgreement,
    ScopeKey,
    Snapshot,
    read_snapshot,
    scope_intervals,
)
from app.core.errors import SimrateError
from app.core.project import Change, Project
from app.core.review.index import ReviewIndex
from app.gui.shell.bridge import BULK_KINDS
from app.gui.shell.jobs import JobRunner

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
    #: The per-scope engine is being (re)built: True when building starts, False when ready.
    building = Signal(bool)
    #: Building or an interval job failed: the message.
    failed = Signal(str)

    def __init__(self, project: Project, bridge, runner: JobRunner | None = None,
                 parent: QObject | None = None):
        super().__init__(parent)
        self.project = project
        self.review = ReviewIndex(project)
        self.runner = runner or JobRunner(parent=self)
        self.level = "interval"
        self.engine: ScopedAgreement | None = None
        self.intervals: dict[ScopeKey, tuple[float, float] | None] = {}
        self.intervals_level = ""
        self.intervals_at = 0.0
        self._excluded = set(project.left_out_annotators())
        self._build_generation = 0
        self._pending: list[tuple[str, str | None]] = []  # changes seen while building
        self._changes = 0  # counts changes, to tell whether an interval job saw them all
        self._interval_job = None
        self._interval_rerun = False
        self._emit_timer = QTimer(self, singleShot=True, interval=0)
        self._emit_timer.timeout.connect(self.updated.emit)
        self._interval_timer = QTimer(self, singleShot=True, interval=INTERVAL_DELAY_MS)
        self._interval_timer.timeout.connect(self.compute_intervals)
        bridge.changed.connect(self._on_change)
        self.rebuild()

    # ------------------------------------------------------------------ building
    def rebuild(self) -> None:
        """Rebuild the per-scope engine in the background from the file."""
        self._build_generation += 1
        generation = self._build_generation
        self._pending.clear()
        self._excluded = set(self.project.left_out_annotators())
        self.building.emit(True)
        path = self.project.path
        self.runner.start(lambda job: read_snapshot(path),
                          finished=lambda snap: self._on_built(generation, snap),
                          failed=lambda exc: self._on_build_failed(generation, exc))

    def _on_built(self, generation: int, snapshot: Snapshot) -> None:
        if generation != self._build_generation:
            return  # a newer rebuild is under way
        engine = ScopedAgreement(snapshot)
        pending, self._pending = self._pending, []
        self.engine = engine
        for item_id, annotator in pending:
            self._apply(item_id, annotator, None, replay=True)
        self.building.emit(False)
        self._emit_timer.start()
        self.schedule_intervals()

    def _on_build_failed(self, generation: int, exc: SimrateError) -> None:
        if generation == self._build_generation:
            self.building.emit(False)
            self.failed.emit(f"Agreement by dataset and genre is unavailable: {exc}")

    # ------------------------------------------------------------------ changes
    def _on_change(self, change: Change) -> None:
        self._changes += 1
        if change.kind in BULK_KINDS:
            self.engine = None
            self.rebuild()
        elif change.kind in ("rating", "skip") and change.item_id:
            if change.annotator in self._excluded:
                return  # excluded raters count nowhere
            new = change.new if change.kind == "rating" else None
            self._apply(change.item_id, change.annotator, new)
        elif change.kind == "adjudication" and change.item_id:
            self._apply(change.item_id, None, None)
        else:
            return
        self._emit_timer.start()
        self.schedule_intervals()

    def _apply(self, item_id: str, annotator: str | None, score: float | None,
               replay: bool = False) -> None:
        """Bring one item up to date in the engine (or remember it while building)."""
        if self.engine is None:
            self._pending.append((item_id, annotator))
            return
        row = self.project.position(item_id)
        if row < 0 or row >= len(self.engine.snapshot.item_ids):
            self.rebuild()  # an item the engine does not know: start afresh
            return
        changes: dict[str, int | None] = {}
        if annotator is not None:
            if replay:  # replayed changes read the current value: they may be out of order
                score = self.project.rating(item_id, annotator)
            changes[annotator] = None if score is None else self.project.scale.to_code(score)
        self.engine.update_item(row, changes, self.review.status(item_id).unadjudicated)

    # ------------------------------------------------------------------ figures
    def set_level(self, level: str) -> None:
        """Choose the level of measurement of every alpha shown."""
        if level != self.level:
            self.level = level
            self._emit_timer.start()
            self.schedule_intervals(at_once=True)

    def headline(self) -> Headline:
        """The top figures: alpha (all, unadjudicated) and the counts."""
        live = self.project.live
        counts = self.review.counts()
        unadjudicated = self.engine.scopes[OVERALL_UNADJUDICATED] if self.engine else None
        return Headline(
            level=self.level, alpha=live.alpha(self.level),
            alpha_unadjudicated=unadjudicated.alpha(self.level) if unadjudicated else None,
            items=self.project.n_items, rated_items=live.n_units,
            pairable_items=live.n_pairable_units, ratings=live.n_ratings,
            flagged=counts["flagged"], second_look=counts["second_look"],
            adjudicated=counts["adjudicated"],
            unadjudicated_items=unadjudicated.units if unadjudicated else 0,
        )

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
        if self.engine is None:
            return
        if self._interval_job is not None:
            self._interval_rerun = True
            return
        snapshot = self.engine.snapshot.copy()
        keys = list(self.engine.scopes)
        level, generation, seen = self.level, self._build_generation, self._changes
        self._interval_rerun = False

        def intervals(job):
            result = scope_intervals(snapshot, level, keys, cancelled=lambda: job.cancelled)
            job.check()  # intervals cut short by a cancel are not a result
            return result

        self._interval_job = self.runner.start(
            intervals, finished=lambda result: self._on_intervals(result, level, generation, seen),
            failed=lambda exc: self._on_intervals_failed(exc),
            cancelled=self._on_intervals_cancelled)

    def _on_intervals(self, result: dict, level: str, generation: int, seen: int) -> None:
        self._interval_job = None
        if level == self.level and generation == self._build_generation:
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
        """Stop timers and background work (before the project closes)."""
        self._interval_timer.stop()
        self._emit_timer.stop()
        self._build_generation += 1  # results still on their way are dropped
        if self._interval_job is not None:
            self._interval_job.cancel()
