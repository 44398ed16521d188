"""Imports off the GUI thread: read the file, then write it through a connection of our own.

Decision: the worker never touches the window's Project object. It parses the file (the
slow, cancellable part), then opens the project file itself (`Project.open`, or
`Project.create` for a new project) and calls `import_items`/`import_ratings` on that
second connection. SQLite (WAL) serialises the writers; the import is one transaction,
all or nothing. When the worker is done, the GUI thread calls `Project.refresh()`, which
notices the file changed and reloads, and the bridge tells every panel. So no object is
shared between threads, and a failed or cancelled import leaves the project as it was.

Cancel is honoured up to the start of the write; once writing has begun it finishes (a
second or two for 200,000 items), because stopping halfway is exactly what all-or-nothing
forbids.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QRunnable, Signal

from app.core.errors import SimrateError
from app.core.project import Project


@dataclass(frozen=True)
class ImportRequest:
    """What to import where; `new_scale` set means: create the project first."""

    source: Path
    project_path: Path
    fmt: str = "auto"
    new_scale: str | None = None
    title: str = ""
    annotator: str | None = None


@dataclass(frozen=True)
class ImportResult:
    """What an import did."""

    request: ImportRequest
    kind: str  # "items" or "ratings"
    fmt: str
    added: int
    unchanged: int

    def summary(self) -> str:
        """One line for the status bar."""
        what = "item" if self.kind == "items" else "rating"
        plural = "" if self.added == 1 else "s"
        extra = f", {self.unchanged:,} already present" if self.unchanged else ""
        return (f"{self.request.source.name}: {self.added:,} {what}{plural} added{extra} "
                f"({self.fmt})")


class ImportSignals(QObject):
    """Signals of one import job, delivered to the GUI thread by Qt's queued connections."""

    stage = Signal(str, bool)  # text, cancellable
    finished = Signal(object)  # ImportResult
    failed = Signal(object)  # SimrateError
    cancelled = Signal()


def read_source(request: ImportRequest):
    """Parse the source file: ('items' | 'ratings', frame, chosen format)."""
    from app.formats.detect import detect_format, read_items

    path = str(request.source)
    fmt = detect_format(path) if request.fmt == "auto" else request.fmt
    if fmt == "project":
        raise SimrateError("merging another project is done with `simrate import` for now",
                           path)
    if fmt == "ratings":
        if request.new_scale is not None:
            raise SimrateError("this is a ratings file; a new project needs a file of pairs",
                               path)
        from app.formats.ratings import read_ratings

        return "ratings", read_ratings(path, annotator=request.annotator), fmt
    return "items", read_items(path, fmt), fmt


class ImportWorker(QRunnable):
    """Runs one ImportRequest on the thread pool."""

    def __init__(self, request: ImportRequest):
        super().__init__()
        # Python keeps the job (and its signals) alive until the GUI has its result.
        self.setAutoDelete(False)
        self.request = request
        self.signals = ImportSignals()
        self._cancel = threading.Event()
        self._writing = threading.Event()

    def cancel(self) -> bool:
        """Ask the job to stop; False when it is already writing and will finish."""
        self._cancel.set()
        return not self._writing.is_set()

    def run(self) -> None:
        """Read, then write unless cancelled; report through the signals, never raise."""
        try:
            result = self._run()
        except SimrateError as exc:
            self.signals.failed.emit(exc)
            return
        except Exception as exc:  # noqa: BLE001 - a bug must reach the user as a message
            self.signals.failed.emit(SimrateError(f"{type(exc).__name__}: {exc}",
                                                  self.request.source))
            return
        if result is None:
            self.signals.cancelled.emit()
        else:
            self.signals.finished.emit(result)

    def _run(self) -> ImportResult | None:
        request = self.request
        self.signals.stage.emit(f"Reading {request.source.name}\u2026", True)
        kind, frame, fmt = read_source(request)
        if self._cancel.is_set():
            return None
        self._writing.set()
        self.signals.stage.emit(f"Writing {len(frame):,} {kind} to the project\u2026", False)
        if request.new_scale is not None:
            project = Project.create(request.project_path, scale=request.new_scale,
                                     title=request.title)
        else:
            project = Project.open(request.project_path)
        try:
            if kind == "items":
                added, present = project.import_items(frame, source=str(request.source))
            else:
                counts = project.import_ratings(frame, source=str(request.source))
                added, present = counts["added"] + counts["changed"], counts["unchanged"]
        except BaseException:
            project.close()
            if request.new_scale is not None:
                remove_project_file(request.project_path)
            raise
        project.close()
        return ImportResult(request, kind, fmt, added, present)


def remove_project_file(path: Path) -> None:
    """Delete a project file we created, with its WAL companions."""
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
