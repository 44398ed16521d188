"""The machine raters' verdict on the dashboard: the alt-test beside the human agreement.

MachineWatch recomputes `machine_report` (app/core/machine/report.py, the report
of `simrate machine`) in the background on a connection of its own, a quiet moment after
the ratings change (coalesced like the confidence intervals: one job at a time, rerun when
changes arrived meanwhile). MachinePanel shows one row per machine rater: winning rate,
rho, passed or not, Pearson against the humans' mean, and alpha with and without it.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QHeaderView, QLabel, QTableView, QVBoxLayout, QWidget

from simrate.core.base.errors import SimrateError
from simrate.core.base.events import AdjudicationChanged, Event
from simrate.core.machine.alt_test import DEFAULT_EPSILON
from simrate.core.project import Project
from simrate.gui.base.jobs import Job, JobRunner
from simrate.gui.base.row_model import RowTableModel
from simrate.gui.kit.palette import SAVED_COLOUR, WARNING_COLOUR

#: Quiet time after the last change before the report is recomputed, in milliseconds.
MACHINE_DELAY_MS = 1200


def compute_machine_report(path, epsilon: float = DEFAULT_EPSILON) -> tuple[dict, dict]:
    """(machine report, {machine: (ratings, ratings on items a human rated)}), on a
    connection of our own (a worker-thread function)."""
    from simrate.core.machine.report import machine_counts, machine_report

    with Project.open(path) as project:
        return machine_report(project, epsilon), machine_counts(project)


class MachineWatch(QObject):
    """Keeps the machine report current in the background; emits `updated` with it."""

    #: (report, counts) of a finished computation.
    updated = Signal(object, object)
    #: The computation failed: the message.
    failed = Signal(str)

    def __init__(self, project: Project, bridge, runner: JobRunner | None = None,
                 parent: QObject | None = None):
        super().__init__(parent)
        self.project = project
        self.runner = runner or JobRunner(parent=self)
        self.epsilon = DEFAULT_EPSILON
        self.computed_at = 0.0
        self._job: Job | None = None
        self._changes = 0
        self._timer = QTimer(self, singleShot=True, interval=MACHINE_DELAY_MS)
        self._timer.timeout.connect(self.compute)
        bridge.changed.connect(self._on_change)
        self._timer.start(0)

    def _on_change(self, event: Event) -> None:
        if not isinstance(event, AdjudicationChanged):  # verdicts do not enter the report
            self._changes += 1
            self._timer.start(MACHINE_DELAY_MS)

    def compute(self) -> None:
        """Start the report job now (or once the running one has finished)."""
        if self._job is not None:
            return  # _on_done sees the changes counter moved and runs again
        path, epsilon, seen = self.project.path, self.epsilon, self._changes
        self._job = self.runner.start(
            lambda job: compute_machine_report(path, epsilon),
            finished=lambda result: self._on_done(result, seen),
            failed=self._on_failed, cancelled=self._on_cancelled)

    def _on_done(self, result: tuple[dict, dict], seen: int) -> None:
        self._job = None
        self.computed_at = time.time()
        self.updated.emit(*result)
        if seen != self._changes:
            self._timer.start(0)

    def _on_failed(self, exc: SimrateError) -> None:
        self._job = None
        self.failed.emit(f"The machine raters' report could not be computed: {exc}")

    def _on_cancelled(self) -> None:
        self._job = None

    def shutdown(self) -> None:
        """Stop the timer and any job (before the project closes); a result still on its
        way is dropped."""
        self._timer.stop()
        if self._job is not None:
            self.runner.discard(self._job)
            self._job = None


def _figure(value: float | None, pattern: str = "{:.3f}") -> str:
    return "\u2013" if value is None else pattern.format(value)


class MachineVerdictModel(RowTableModel):
    """One row per machine rater: the alt-test verdict and how it agrees with the humans."""

    HEADERS = ("Machine", "Winning rate", "\u03c1", "Alt-test", "r vs humans",
               "\u03b1 humans", "\u03b1 with it")
    TOOLTIPS = ("", "Share of left-out humans the machine beats (the test passes at 0.5 or more)",
                "Average advantage probability: how often the machine is at least as close to "
                "the other humans as the left-out human is",
                "Passed: the machine can stand in for a human annotator (cost-benefit margin "
                "\u03b5 in the tooltip of each row)",
                "Pearson r against the mean of the humans on the same items",
                "Interval alpha of the humans alone", "Interval alpha with this machine added")

    def set_report(self, report: dict) -> None:
        """Show the machines of a machine report."""
        self.set_rows(list(report.get("machines", {}).items()))

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        """Figures as text; the verdict coloured."""
        if not index.isValid() or index.row() >= len(self.rows):
            return None
        name, entry = self.rows[index.row()]
        test, column = entry["alt_test"], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return (name, _figure(test["winning_rate"], "{:.0%}"),
                    _figure(test["advantage_probability"]), self._verdict(test),
                    _figure(entry["pearson_vs_humans"]), _figure(entry["alpha_without"]),
                    _figure(entry["alpha_with"]))[column]
        if role == Qt.ItemDataRole.ForegroundRole and column == 3:
            return SAVED_COLOUR if test["passed"] else WARNING_COLOUR
        if role == Qt.ItemDataRole.TextAlignmentRole and column > 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            humans = len(test["humans"])
            return (f"{name}: alt-test with \u03b5 = {test['epsilon']:g} over {humans} "
                    f"left-out human{'s' * (humans != 1)}")
        return None

    @staticmethod
    def _verdict(test: dict) -> str:
        if test["winning_rate"] is None:
            return "not testable"
        return "passed" if test["passed"] else "failed"


class MachinePanel(QWidget):
    """The dashboard's section for machine raters (hidden while there are none)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.model = MachineVerdictModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.verticalHeader().hide()
        self.table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.setSizeAdjustPolicy(QTableView.SizeAdjustPolicy.AdjustToContents)
        self.table.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.note = QLabel()
        self.note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table)
        layout.addWidget(self.note)
        self.hide()  # until a report names a machine rater

    def show_report(self, report: dict) -> None:
        """Show a finished machine report."""
        self.model.set_report(report)
        machines = report.get("machines", {})
        if machines:
            epsilon = next(iter(machines.values()))["alt_test"]["epsilon"]
            stamp = time.strftime("%H:%M:%S", time.localtime())
            self.note.setText(f"Alternative annotator test (Calderon et al., 2025), "
                              f"\u03b5 = {epsilon:g}; as of {stamp}, refreshed a moment after "
                              "the ratings change. Machine raters never enter gold or the "
                              "humans' \u03b1.")
        self.setVisible(bool(machines))
