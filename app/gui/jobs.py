"""Background jobs: a function run on the thread pool, its result delivered by a queued signal.

A job never touches the window's Project: it gets plain data (a path, a copied array) and
opens its own connection when it needs the file (see import_worker.py for the reasoning).
Cancelling is cooperative: the function calls `job.check()` (or passes `job.progress` to
code that reports progress), which raises `JobCancelled` once Cancel was pressed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from app.core.errors import SimrateError


class JobCancelled(Exception):
    """Raised inside a job's function when the job was cancelled."""


class JobSignals(QObject):
    """Signals of one job; Qt queues them to receivers in the GUI thread."""

    progress = Signal(int, int)  # done, total
    finished = Signal(object)  # the function's return value
    failed = Signal(object)  # a SimrateError
    cancelled = Signal()


class Job(QRunnable):
    """Runs `function(job)` on a pool thread and reports through `signals`."""

    def __init__(self, function: Callable[[Job], Any]):
        super().__init__()
        self.setAutoDelete(False)  # the runner keeps the Python object until it is done
        self.function = function
        self.signals = JobSignals()
        self._cancel = threading.Event()

    @property
    def cancelled(self) -> bool:
        """True once cancel() was called."""
        return self._cancel.is_set()

    def cancel(self) -> None:
        """Ask the function to stop at its next check."""
        self._cancel.set()

    def check(self) -> None:
        """Raise JobCancelled if the job was cancelled."""
        if self._cancel.is_set():
            raise JobCancelled()

    def progress(self, done: int, total: int) -> None:
        """Report progress (and stop here if cancelled)."""
        self.check()
        self.signals.progress.emit(int(done), int(total))

    def run(self) -> None:
        """Call the function; deliver its result, its error or the cancellation."""
        try:
            result = self.function(self)
        except JobCancelled:
            self._emit(self.signals.cancelled)
            return
        except SimrateError as exc:
            self._emit(self.signals.failed, exc)
            return
        except Exception as exc:  # noqa: BLE001 - a bug must reach the user as a message
            self._emit(self.signals.failed, SimrateError(f"{type(exc).__name__}: {exc}"))
            return
        if self._cancel.is_set():
            self._emit(self.signals.cancelled)
        else:
            self._emit(self.signals.finished, result)

    @staticmethod
    def _emit(signal, *args: Any) -> None:
        try:
            signal.emit(*args)
        except RuntimeError:
            pass  # the application is closing and took the receivers with it


class JobRunner(QObject):
    """Starts jobs on a thread pool and keeps them alive until they report back."""

    #: No job of this runner is running any more.
    idle = Signal()

    def __init__(self, pool: QThreadPool | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self.pool = pool or QThreadPool.globalInstance()
        self._running: set[Job] = set()

    def start(self, function: Callable[[Job], Any],
              finished: Callable[[Any], None] | None = None,
              failed: Callable[[SimrateError], None] | None = None,
              cancelled: Callable[[], None] | None = None,
              progress: Callable[[int, int], None] | None = None) -> Job:
        """Run `function(job)` in the background and connect the callbacks."""
        job = Job(function)
        for signal, slot in ((job.signals.finished, finished), (job.signals.failed, failed),
                             (job.signals.cancelled, cancelled),
                             (job.signals.progress, progress)):
            if slot is not None:
                signal.connect(slot)
        for signal in (job.signals.finished, job.signals.failed, job.signals.cancelled):
            signal.connect(lambda *_args, j=job: self._done(j))
        self._running.add(job)
        self.pool.start(job)
        return job

    def _done(self, job: Job) -> None:
        self._running.discard(job)
        if not self._running:
            self.idle.emit()

    @property
    def busy(self) -> bool:
        """True while a job is running."""
        return bool(self._running)

    def cancel_all(self) -> None:
        """Ask every running job to stop."""
        for job in list(self._running):
            job.cancel()
