"""Import dialogs: a progress dialog with Cancel, an error dialog naming file, line and
problem, and the ImportController that runs the import as a background job between them.

Cancel is honoured up to the start of the write; once writing has begun it finishes (a
second or two for 200,000 items), because stopping halfway is exactly what all-or-nothing
forbids.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, QThreadPool, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from simrate.core.base.errors import SimrateError
from simrate.gui.base.jobs import Job, JobRunner
from simrate.gui.kit.closing import close_keys
from simrate.gui.kit.progress import CountedProgress
from simrate.services.imports.file_import import (
    ImportRequest,
    ImportResult,
    read_source,
    write_source,
)


class ImportProgressDialog(QDialog):
    """The current stage, a bar (busy while the file is read, then the items written so
    far, with the rate and the time left) and a Cancel button."""

    def __init__(self, title: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setModal(True)
        self.stage_label = QLabel("Starting\u2026")
        self.stage_label.setWordWrap(True)
        self.bar = CountedProgress("items")  # readers report no fraction: busy until writing
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.stage_label)
        layout.addWidget(self.bar)
        layout.addWidget(self.buttons)
        self.setMinimumWidth(420)

    def set_stage(self, text: str, cancellable: bool) -> None:
        """Show what is happening; disable Cancel once writing has begun."""
        self.stage_label.setText(text)
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setEnabled(cancellable)

    def show_count(self, done: int, total: int) -> None:
        """Items written so far of those to write."""
        self.bar.show_count(done, total)


class ImportErrorDialog(QDialog):
    """Why an import failed: the file, the line (when known) and the problem."""

    def __init__(self, error: SimrateError, parent: QWidget | None = None):
        super().__init__(parent)
        close_keys(self)  # Ctrl+W as well as Esc
        self.setWindowTitle("Import failed")
        self.error = error
        self.file = error.path or ""
        self.line = error.line
        self.problem = error.message
        form = QFormLayout()
        for title, value in (("File", self.file or "(none)"),
                             ("Line", "" if self.line is None else str(self.line)),
                             ("Problem", self.problem)):
            if title == "Line" and not value:
                continue
            label = QLabel(value)
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            form.addRow(f"<b>{title}:</b>", label)
        intro = QLabel("Nothing was imported: the project is unchanged.")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok)
        buttons.accepted.connect(self.accept)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(buttons)
        self.setMinimumWidth(480)

    def text(self) -> str:
        """The error as one line, `file:line: problem` (SimrateError's own wording)."""
        return str(self.error)


def run_import(request: ImportRequest, job: Job) -> ImportResult:
    """Read the file, then write it unless cancelled meanwhile (a job function)."""
    kind, frame, fmt = read_source(request)
    job.commit()
    job.note(f"Writing {len(frame):,} {kind} to the project\u2026")
    return write_source(request, kind, frame, fmt, progress=job.progress)


class ImportController(QObject):
    """Runs imports one at a time on the thread pool, with the dialogs around them."""

    #: An import finished and was written.
    finished = Signal(object)  # ImportResult
    #: An import failed; the error dialog is open.
    failed = Signal(object)  # SimrateError
    cancelled = Signal()

    def __init__(self, parent_widget: QWidget, pool: QThreadPool | None = None):
        super().__init__(parent_widget)
        self.parent_widget = parent_widget
        self.runner = JobRunner(pool, self)
        self.job: Job | None = None
        self.progress: ImportProgressDialog | None = None
        self.error_dialog: ImportErrorDialog | None = None

    @property
    def busy(self) -> bool:
        """True while an import runs."""
        return self.job is not None

    def start(self, request: ImportRequest) -> None:
        """Start an import in the background and show its progress dialog."""
        if self.busy:
            raise SimrateError("another import is still running")
        title = "New project" if request.new_scale else "Import"
        self.progress = ImportProgressDialog(f"{title}: {request.source.name}",
                                             self.parent_widget)
        self.progress.set_stage(f"Reading {request.source.name}\u2026", True)
        self.progress.rejected.connect(self._on_cancel)
        self.job = self.runner.start(
            lambda job: run_import(request, job), finished=self._on_finished,
            failed=self._on_failed, cancelled=self._on_cancelled, note=self._on_note,
            progress=self._on_progress)
        self.progress.show()

    def _on_cancel(self) -> None:
        if self.job is not None and not self.job.cancel() and self.progress is not None:
            # Already writing: keep the dialog up until the all-or-nothing write ends.
            self.progress.show()

    def _on_progress(self, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress.show_count(done, total)

    def _on_note(self, text: str) -> None:
        if self.progress is not None:
            self.progress.set_stage(text, cancellable=False)  # notes come once writing began

    def _done(self) -> None:
        self.job = None
        if self.progress is not None:
            self.progress.blockSignals(True)
            self.progress.done(0)
            self.progress.deleteLater()
            self.progress = None

    def _on_finished(self, result: ImportResult) -> None:
        self._done()
        self.finished.emit(result)

    def _on_failed(self, error: SimrateError) -> None:
        self._done()
        self.show_error(error)
        self.failed.emit(error)

    def _on_cancelled(self) -> None:
        self._done()
        self.cancelled.emit()

    def show_error(self, error: SimrateError) -> ImportErrorDialog:
        """Open (without blocking) the dialog explaining why an import failed."""
        self.error_dialog = ImportErrorDialog(error, self.parent_widget)
        self.error_dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.error_dialog.open()
        return self.error_dialog
