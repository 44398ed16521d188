"""PyramidChoiceBox: what to make of pyramid files in a new project, with a preview of counts.

The organizer chooses the test (binary pairs, or ranking questions rated as question-candidate
pairs), how many non-paraphrases to draw per paraphrase, and the seed. The files are read and
paired once, in a background job, whenever the list of files changes; changing the test or
the numbers then only redoes the arithmetic, so the preview follows every click at once.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QSpinBox,
    QWidget,
)

from simrate.core.base.errors import SimrateError
from simrate.formats.pyramids.pyramid_project import (
    DEFAULT_NEGATIVES,
    PyramidCounts,
    clashing_topics,
    count_pyramids,
    describe,
)
from simrate.gui.base.jobs import Job, JobRunner
from simrate.gui.kit.fitting import WrappedLabel, fit_choices

PYRAMID_SUFFIXES = (".pyr", ".pan")
TEST_NAMES = {
    "binary": "Binary pairs: paraphrases and non-paraphrases",
    "ranking": "Ranking questions, each rated as 4 question-candidate pairs",
}


def is_pyramid_file(path: Path) -> bool:
    """True for a DUCView pyramid or peer annotation, judged by its name."""
    return path.suffix.lower() in PYRAMID_SUFFIXES


class PyramidChoiceBox(QGroupBox):
    """Test, non-paraphrases per paraphrase, seed, and the counts they would give."""

    #: The preview or a choice changed (the dialog re-checks whether it can be accepted).
    changed = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__("Pyramid files: what the team will rate", parent)
        self.runner = JobRunner(parent=self)
        self.job: Job | None = None
        self.files: tuple[Path, ...] = ()
        self.counts: list[PyramidCounts] | None = None
        self.error = ""
        self.test_box = QComboBox()
        for test, name in TEST_NAMES.items():
            self.test_box.addItem(name, test)
        fit_choices(self.test_box)
        self.negatives_spin = QSpinBox()
        self.negatives_spin.setRange(0, 1000)
        self.negatives_spin.setValue(DEFAULT_NEGATIVES)
        self.negatives_spin.setToolTip("Non-paraphrase pairs drawn per paraphrase pair; "
                                       "1 gives a balanced set")
        self.all_check = QCheckBox("all (the whole benchmark)")
        self.seed_spin = QSpinBox()
        self.seed_spin.setRange(0, 2_147_483_647)
        self.seed_spin.setToolTip("The same seed draws the same pairs in the same order")
        self.preview_label = WrappedLabel()  # three lines at 1366x768: all of them shown
        negatives_row = QHBoxLayout()
        negatives_row.addWidget(self.negatives_spin)
        negatives_row.addWidget(self.all_check)
        negatives_row.addStretch(1)
        form = QFormLayout(self)
        form.addRow("Test:", self.test_box)
        form.addRow("Non-paraphrases per paraphrase:", negatives_row)
        form.addRow("Seed:", self.seed_spin)
        form.addRow(self.preview_label)
        for signal in (self.test_box.currentIndexChanged, self.negatives_spin.valueChanged,
                       self.all_check.toggled, self.seed_spin.valueChanged):
            signal.connect(self._on_choice)
        self._on_choice()

    # ------------------------------------------------------------------ choices
    def test(self) -> str:
        """"binary" or "ranking"."""
        return self.test_box.currentData()

    def negatives(self) -> str | int:
        """Non-paraphrases per paraphrase, or "all"."""
        return "all" if self.all_check.isChecked() else self.negatives_spin.value()

    def options(self) -> tuple[tuple[str, object], ...]:
        """The reader options of the import (read_pyramid_items' keywords)."""
        return (("test", self.test()), ("negatives", self.negatives()),
                ("seed", self.seed_spin.value()))

    def items(self) -> int | None:
        """How many items the import would add, once counted."""
        if self.counts is None:
            return None
        return sum(c.items(self.test(), self.negatives()) for c in self.counts)

    def _on_choice(self, *_args) -> None:
        binary = self.test() == "binary"
        self.negatives_spin.setEnabled(binary and not self.all_check.isChecked())
        self.all_check.setEnabled(binary)
        self._show_preview()

    # ------------------------------------------------------------------ counting
    def set_files(self, files: tuple[Path, ...]) -> None:
        """Count what `files` offer, in the background (a running count is abandoned)."""
        if files == self.files:
            return
        self.files = files
        self.counts, self.error = None, ""
        if self.job is not None:
            self.job.cancel()
            self.job = None
        if files:
            paths = [str(f) for f in files]
            self.job = self.runner.start(
                lambda job: count_pyramids(paths, check=job.check),
                finished=lambda counts: self._on_counted(files, counts),
                failed=lambda exc: self._on_failed(files, exc))
        self._show_preview()

    @property
    def counting(self) -> bool:
        """True while the files are being read."""
        return self.job is not None

    def _on_counted(self, files: tuple[Path, ...], counts: list[PyramidCounts]) -> None:
        if files != self.files:
            return  # the list changed meanwhile
        self.job = None
        self.counts = counts
        clash = clashing_topics(counts)
        if clash:
            self.error = (f"Two files hold the same pyramid ({', '.join(clash)}); "
                          "keep one of each.")
        self._show_preview()

    def _on_failed(self, files: tuple[Path, ...], error: SimrateError) -> None:
        if files != self.files:
            return
        self.job = None
        self.error = str(error)
        self._show_preview()

    def _show_preview(self) -> None:
        if self.error:
            text = self.error
        elif self.counting:
            text = f"Reading {len(self.files)} pyramid file(s) and counting pairs\u2026"
        elif self.counts is None:
            text = ""
        else:
            text = describe(self.counts, self.test(), self.negatives())
            lost = sum(c.warnings for c in self.counts)
            if lost:
                text += (f" Reading gave {lost} warning(s): parts or SCUs of the files that "
                         "could not be used.")
        self.preview_label.setText(text)
        self.changed.emit()

    def problem(self) -> str:
        """What stops the import, or ''."""
        if self.error:
            return self.error
        if self.counting:
            return "Still counting the pairs of the pyramid files\u2026"
        if self.counts is not None and not self.items():
            return "These choices give no items to rate."
        return ""
