"""Background jobs: a function run on the thread pool, its result handed to the GUI thread.

A job never touches the window's Project: it gets plain data (a path, a copied array) and
opens its own connection when it needs the file, so no object is shared between threads;
when a job has written to the file, the window's `Project.refresh()` picks the change up.

Cancelling is cooperative: the function calls `job.check()` (or passes `job.progress` to
code that reports progress), which raises `JobCancelled` once Cancel was pressed. A
function that returns has finished, and its result is delivered even when Cancel came too
late to stop it: an export that has already replaced the file must say so. Work that must
not stop halfway calls `job.commit()` first; from then on `cancel()` is refused.

Results travel through a thread-safe queue that the runner drains on a short GUI-thread
timer while jobs are out, rather than through signals emitted from pool threads: queued
signals from pool threads to Python slots were occasionally never delivered under
PySide6 6.12 in our tests, and a queue has no such failure mode. The timer runs only
while a job is outstanding; the added latency is one tick (POLL_MS).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal

from simrate.core.base.errors import SimrateError

#: How often the GUI thread collects results while jobs are out, in milliseconds.
POLL_MS = 10


class JobCancelled(Exception):
    """Raised inside a job's function when the job was cancelled."""


class Job(QRunnable):
    """Runs `function(job)` on a pool thread and posts what happened to `outbox`."""

    def __init__(self, function: Callable[[Job], Any], outbox: queue.SimpleQueue):
        super().__init__()
        # The pool owns the C++ object and deletes it after run(), in its own thread; the
        # runner only keeps the Python object (and touches none of its C++ side) until done.
        self.setAutoDelete(True)
        self.function = function
        self.outbox = outbox
        self.files: list = []  # the project files it reads, named if one proves damaged
        self._cancel = threading.Event()
        self._lock = threading.Lock()  # makes cancel() and commit() exclusive
        self._committed = False

    @property
    def cancelled(self) -> bool:
        """True once cancel() was called."""
        return self._cancel.is_set()

    def cancel(self) -> bool:
        """Ask the function to stop at its next check; False once it has committed to
        finishing (see commit)."""
        with self._lock:
            if self._committed:
                return False
            self._cancel.set()
            return True

    def check(self) -> None:
        """Raise JobCancelled if the job was cancelled."""
        if self._cancel.is_set():
            raise JobCancelled()

    def commit(self) -> None:
        """Stop here if cancelled; otherwise refuse every later cancel: the job will finish."""
        with self._lock:
            self.check()
            self._committed = True

    def progress(self, done: int, total: int) -> None:
        """Report progress (and stop here if cancelled)."""
        self.check()
        self.outbox.put((self, "progress", (int(done), int(total))))

    def note(self, text: str) -> None:
        """Tell the GUI thread what the job is doing now (one line of text)."""
        self.outbox.put((self, "note", (text,)))

    def run(self) -> None:
        """Call the function; post its result, its error or the cancellation."""
        try:
            result = self.function(self)
        except JobCancelled:
            self.outbox.put((self, "cancelled", ()))
            return
        except SimrateError as exc:
            self.outbox.put((self, "failed", (exc,)))
            return
        except Exception as exc:  # noqa: BLE001 - a bug must reach the user as a message
            from simrate.core.check.integrity import damage_error

            error = damage_error(exc, self.files) or SimrateError(f"{type(exc).__name__}: {exc}")
            self.outbox.put((self, "failed", (error,)))
            return
        self.outbox.put((self, "finished", (result,)))


class JobRunner(QObject):
    """Starts jobs on a thread pool and calls their callbacks in the GUI thread.

    Callbacks run from the runner's timer, so when the widget owning the runner is
    destroyed, the timer goes with it and a late result never reaches a deleted widget.
    """

    #: No job of this runner is running any more.
    idle = Signal()

    def __init__(self, pool: QThreadPool | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self.pool = pool or QThreadPool.globalInstance()
        self._outbox: queue.SimpleQueue = queue.SimpleQueue()
        self._callbacks: dict[Job, dict[str, Callable | None]] = {}
        self._timer = QTimer(self, interval=POLL_MS)
        self._timer.timeout.connect(self.collect)

    def start(self, function: Callable[[Job], Any],
              finished: Callable[[Any], None] | None = None,
              failed: Callable[[SimrateError], None] | None = None,
              cancelled: Callable[[], None] | None = None,
              progress: Callable[[int, int], None] | None = None,
              note: Callable[[str], None] | None = None, files: list | None = None) -> Job:
        """Run `function(job)` in the background; the callbacks run in the GUI thread.
        `files`: the project files it reads, named if one proves damaged."""
        job = Job(function, self._outbox)
        job.files = list(files or [])
        self._callbacks[job] = {"finished": finished, "failed": failed,
                                "cancelled": cancelled, "progress": progress, "note": note}
        self._timer.start()
        self.pool.start(job)
        return job

    def collect(self) -> None:
        """Deliver what finished jobs posted (called by the timer; tests may call it too)."""
        while True:
            try:
                job, kind, args = self._outbox.get_nowait()
            except queue.Empty:
                break
            self._deliver(job, kind, args)
        if not self._callbacks:
            self._timer.stop()

    def _deliver(self, job: Job, kind: str, args: tuple) -> None:
        if kind in ("progress", "note"):  # the job goes on
            callback = self._callbacks.get(job, {}).get(kind)
            if callback is not None:
                callback(*args)
            return
        callbacks = self._callbacks.pop(job, None)
        if callbacks is None:
            return
        try:
            callback = callbacks.get(kind)
            if callback is not None:
                callback(*args)
        finally:
            if not self._callbacks:
                self.idle.emit()

    @property
    def busy(self) -> bool:
        """True while a job is running whose result is awaited (not a discarded one)."""
        return bool(self._callbacks)

    def discard(self, job: Job) -> None:
        """Cancel a job and forget its callbacks: whatever it posts from now on reaches
        nobody (for a job whose owner is shutting down). Nothing for a job already done."""
        job.cancel()
        if self._callbacks.pop(job, None) is not None and not self._callbacks:
            self.idle.emit()

    def cancel_all(self) -> None:
        """Ask every running job to stop."""
        for job in list(self._callbacks):
            job.cancel()
