"""ExportDialog: write the gold standard in one of DESIGN.md's formats, off the GUI thread.

Before exporting it says what is unresolved (flagged items not adjudicated, items with no
rating, adjudicated items a later rating disagrees with), counted in the background on a
connection of its own from the same gold table the export writes. While items are
unresolved, exporting needs an explicit tick, like the command line's --allow-unresolved.
The export runs as a job with a progress bar and Cancel; the file is written atomically,
so a cancelled or failed export leaves any earlier file untouched. At the end the dialog
says where the file went.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import cast

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QStandardItemModel
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from simrate.core.base.errors import SimrateError
from simrate.core.review.gold import unresolved_counts
from simrate.formats.catalog.registry import WRITE, find, names
from simrate.gui.base.jobs import Job, JobRunner
from simrate.gui.dialogs.dataset_options import DatasetOptionsBox
from simrate.gui.dialogs.path_field import path_row
from simrate.gui.kit.accessible import name_form_fields
from simrate.gui.kit.closing import close_keys
from simrate.gui.kit.file_dialogs import get_existing_directory, get_save_file_name
from simrate.gui.kit.palette import ERROR_COLOUR, SAVED_COLOUR, WARNING_COLOUR, colour_style
from simrate.gui.kit.progress import CountedProgress
from simrate.services.dataset.dataset_export import DatasetOptions
from simrate.services.exports.export import ExportReport, export_project

#: The endings of the export formats' files (the registry's: formats/catalog/registry.py).
ENDINGS = {fmt.ending for fmt in WRITE if fmt.ending}
#: The end of a dataset folder's suggested name.
FOLDER_TAIL = "-dataset"


@dataclass(frozen=True)
class Unresolved:
    """What stops an export without --allow-unresolved, and what deserves a look."""

    flagged: int
    unrated: int
    second_look: int
    items: int

    @property
    def blocking(self) -> bool:
        """True when the export needs the 'export anyway' tick."""
        return bool(self.flagged or self.unrated)

    def describe(self) -> list[str]:
        """One sentence per problem."""
        lines = []
        if self.flagged:
            lines.append(f"{self.flagged:,} flagged item{'s' * (self.flagged != 1)} not "
                         "adjudicated: their gold would be the mean of disagreeing ratings")
        if self.unrated:
            lines.append(f"{self.unrated:,} item{'s' * (self.unrated != 1)} with no rating: "
                         "no gold score (an empty field)")
        if self.second_look:
            lines.append(f"{self.second_look:,} adjudicated item"
                         f"{'s' * (self.second_look != 1)} with a later rating that disagrees "
                         "with the verdict (second look)")
        return lines


def count_unresolved(project_path: str | Path) -> Unresolved:
    """Count unresolved items on a connection of our own (safe in a worker thread)."""
    from simrate.core.project import Project

    with Project.open(project_path) as project:
        gold = project.gold()
        counts = unresolved_counts(gold)
        return Unresolved(counts["flagged"], counts["unrated"], len(project.second_look_ids()),
                          len(gold))


def run_export(project_path: str | Path, out: str, fmt: str, allow_unresolved: bool,
               job: Job, dataset: DatasetOptions | None = None) -> ExportReport:
    """Export on a connection of our own; progress reports (and cancels) through `job`."""
    from simrate.core.project import Project

    with Project.open(project_path) as project:
        if dataset is None:  # the call names `dataset` only for the dataset folder
            return export_project(project, out, fmt, allow_unresolved, progress=job.progress)
        return export_project(project, out, fmt, allow_unresolved, progress=job.progress,
                              dataset=dataset)


class ExportDialog(QDialog):
    """Choose a format and a file; see what is unresolved; export with progress and Cancel."""

    def __init__(self, project_path: str | Path, scale, start_folder: str = "",
                 runner: JobRunner | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        close_keys(self)  # Ctrl+W as well as Esc
        self.setWindowTitle("Export gold standard")
        self.project_path = Path(project_path)
        self.scale = scale
        self.runner = runner or JobRunner(parent=self)
        self.unresolved: Unresolved | None = None
        self.report: ExportReport | None = None
        self.job: Job | None = None
        self._build(start_folder)
        self._check_job = self.runner.start(
            lambda job: count_unresolved(self.project_path), finished=self._on_counted,
            failed=lambda exc: self._show_error(str(exc)))
        self._update_buttons()

    # ------------------------------------------------------------------ widgets
    def _build(self, start_folder: str) -> None:
        self.format_combo = QComboBox()
        for fmt in WRITE:
            self.format_combo.addItem(fmt.listing, fmt.name)
        pit = names("write").index("pit")
        if (self.scale.low, self.scale.high) != (0, 5):
            # a combo box's own model is a QStandardItemModel (Qt's documented default)
            item = cast(QStandardItemModel, self.format_combo.model()).item(pit)
            item.setEnabled(False)
            item.setToolTip("PIT labels need a 0\u20135 scale")
        self.format_combo.currentIndexChanged.connect(self._on_format)
        form = self._target_form(start_folder)
        self.warning_label = QLabel("Checking for unresolved items\u2026")
        self.warning_label.setWordWrap(True)
        self.warning_label.setTextFormat(Qt.TextFormat.RichText)
        self.warning_label.setAccessibleName("Unresolved before export")
        self.allow_check = QCheckBox("Export anyway (gold of flagged items is their mean)")
        self.allow_check.setVisible(False)
        self.allow_check.toggled.connect(self._update_buttons)
        self.progress = CountedProgress("rows")
        self.progress.setVisible(False)
        self.dataset_box = DatasetOptionsBox()
        self.dataset_box.setVisible(False)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.dataset_box)
        layout.addWidget(self.warning_label)
        layout.addWidget(self.allow_check)
        layout.addWidget(self.progress)
        layout.addLayout(self._result_row())
        layout.addStretch(1)
        layout.addWidget(self._buttons())
        self.setMinimumWidth(620)

    def _target_form(self, start_folder: str) -> QFormLayout:
        folder = Path(start_folder) if start_folder else self.project_path.parent
        self.path_edit = QLineEdit(str(folder / f"{self.project_path.stem}.gold.tsv"))
        self.path_edit.textChanged.connect(self._update_buttons)
        form = QFormLayout()
        form.addRow("Format:", self.format_combo)
        form.addRow("Save as:", path_row(self.path_edit, self.browse))
        name_form_fields(form)
        return form

    def _result_row(self) -> QHBoxLayout:
        self.result_label = QLabel()
        self.result_label.setAccessibleName("Export result")
        self.result_label.setWordWrap(True)
        self.result_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.open_folder_button = QPushButton("Show folder")
        self.open_folder_button.setVisible(False)
        self.open_folder_button.clicked.connect(self.open_folder)
        row = QHBoxLayout()
        row.addWidget(self.result_label, 1)
        row.addWidget(self.open_folder_button)
        return row

    def _buttons(self) -> QDialogButtonBox:
        self.buttons = QDialogButtonBox()
        self.export_button = self.buttons.addButton("Export",
                                                    QDialogButtonBox.ButtonRole.AcceptRole)
        self.cancel_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.close_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.close_button.setVisible(False)
        self.export_button.clicked.connect(self.start_export)
        self.cancel_button.clicked.connect(self.cancel)
        self.close_button.clicked.connect(self.accept)
        return self.buttons

    def _on_format(self) -> None:
        fmt = self.format_combo.currentData()
        self.dataset_box.setVisible(fmt == "dataset")
        text = self.path_edit.text().strip()
        if text:
            path = Path(text)
            if not path.name:  # "/" or ".": no file name to give a suffix yet
                return
            if fmt == "dataset":
                stem = path.stem if path.suffix.lower() in ENDINGS else path.name
                self.path_edit.setText(str(path.with_name(stem.removesuffix(".gold")
                                                          + FOLDER_TAIL)))
            elif path.suffix.lower() in ENDINGS or not path.suffix:
                if path.name.endswith(FOLDER_TAIL):
                    path = path.with_name(path.name.removesuffix(FOLDER_TAIL) + ".gold")
                self.path_edit.setText(str(path.with_suffix(find(fmt, "write").ending)))
        self._fit()

    def browse(self) -> None:
        """Ask where to save, starting from the current choice (a folder for a dataset)."""
        fmt = self.format_combo.currentData()
        if fmt == "dataset":
            current = Path(self.path_edit.text().strip() or str(self.project_path.parent))
            path = get_existing_directory(self, "Export dataset to an empty folder",
                                          str(current.parent if not current.is_dir()
                                              else current))
        else:
            pattern = f"{fmt.upper()} files (*{find(fmt, 'write').ending});;All files (*)"
            path, _ = get_save_file_name(self, "Export gold standard",
                                         self.path_edit.text(), pattern)
        if path:
            self.path_edit.setText(path)

    # ------------------------------------------------------------------ unresolved items
    def _on_counted(self, unresolved: Unresolved) -> None:
        self.unresolved = unresolved
        lines = unresolved.describe()
        if not lines:
            self.warning_label.setText(f"\u2713 All {unresolved.items:,} items have a gold "
                                       "score and no flagged item is left.")
            self.warning_label.setStyleSheet(colour_style(SAVED_COLOUR))
        else:
            items = "".join(f"<br>\u2022 {line}" for line in lines)
            heading = ("Unresolved before export:" if unresolved.blocking
                       else "Worth a look before export:")
            self.warning_label.setText(f"<b>{heading}</b>{items}")
            self.warning_label.setStyleSheet(
                colour_style(WARNING_COLOUR, bold=True) if unresolved.blocking else "")
        self.allow_check.setVisible(unresolved.blocking)
        self._update_buttons()
        self._fit()

    def _fit(self) -> None:
        """Grow to show wrapped messages whole (they arrive after the dialog is laid out)."""
        layout = self.layout()
        if layout is not None:
            layout.activate()
        self.resize(self.width(), max(self.height(), self.sizeHint().height()))

    def _update_buttons(self) -> None:
        running = self.job is not None
        unresolved = self.unresolved
        allowed = unresolved is not None and (not unresolved.blocking
                                              or self.allow_check.isChecked())
        self.export_button.setEnabled(allowed and not running
                                      and bool(self.path_edit.text().strip()))
        self.cancel_button.setText("Cancel export" if running else "Cancel")

    # ------------------------------------------------------------------ exporting
    def start_export(self) -> None:
        """Start writing the file in the background."""
        out = self.path_edit.text().strip()
        fmt = self.format_combo.currentData()
        allow = self.allow_check.isChecked()
        dataset = self.dataset_box.options() if fmt == "dataset" else None
        self.result_label.setText("")
        self.result_label.setStyleSheet("")
        self.open_folder_button.setVisible(False)
        self.progress.setVisible(True)
        self.progress.start()
        self.job = self.runner.start(
            lambda job: run_export(self.project_path, out, fmt, allow, job, dataset),
            finished=self._on_exported, failed=self._on_failed, cancelled=self._on_cancelled,
            progress=self._on_progress)
        self._update_buttons()

    def _on_progress(self, done: int, total: int) -> None:
        self.progress.show_count(done, total)

    def _on_exported(self, report: ExportReport) -> None:
        self.job, self.report = None, report
        self.progress.setVisible(False)
        sources = ", ".join(f"{n:,} {source}" for source, n in sorted(report.sources.items()))
        text = (f"\u2713 Written {report.items:,} items as {report.format} to "
                f"<b>{report.path}</b>" + (f" (gold from: {sources})" if sources else ""))
        text += "".join(f"<br>Note: {w}" for w in report.warnings)
        self.result_label.setText(text)
        self.open_folder_button.setVisible(True)
        self.export_button.setVisible(False)
        self.cancel_button.setVisible(False)
        self.close_button.setVisible(True)
        self.close_button.setDefault(True)
        self._fit()

    def _on_failed(self, exc: SimrateError) -> None:
        self.job = None
        self.progress.setVisible(False)
        self._show_error(f"Not exported: {exc}")
        self._update_buttons()

    def _on_cancelled(self) -> None:
        self.job = None
        self.progress.setVisible(False)
        self.result_label.setText("Export cancelled; no file was written.")
        self._update_buttons()

    def _show_error(self, text: str) -> None:
        self.result_label.setText(text)
        self.result_label.setStyleSheet(colour_style(ERROR_COLOUR))
        self._fit()

    def cancel(self) -> None:
        """Cancel the running export, or close the dialog when nothing runs."""
        if self.job is not None:
            self.job.cancel()
        else:
            self.reject()

    def open_folder(self) -> None:
        """Show the folder of the written file in the system's file manager."""
        if self.report is not None:
            path = Path(self.report.path)  # a dataset folder is shown itself
            folder = path if self.report.format == "dataset" else path.parent
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))

    def reject(self) -> None:
        """Escape or Cancel: stop a running export first."""
        if self.job is not None:
            self.job.cancel()
            return
        super().reject()
